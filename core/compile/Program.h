#pragma once
// Program(source, options).compile(): NVRTC to PTX and CUBIN for the exact arch; PTX and NVVM IR
// sources go through nvJitLink and libNVVM instead (PtxAssembler.h).

#include "core/compile/CompileResult.h"
#include "core/compile/ProgramOptions.h"
#include "core/compile/SourceLanguage.h"

#include <QString>
#include <QStringList>

namespace kernelpad {

/// A CUDA C++, PTX or NVVM IR source ready to compile; cheap to construct, compile() does the
/// work.
class Program {
public:
    /// `name` appears in diagnostics ("saxpy.cu"); `baseDir` resolves relative include dirs.
    /// PTX is assembled to a CUBIN by nvJitLink; NVVM IR is compiled to PTX by libNVVM, then
    /// assembled. For a virtual arch (compute_90) either stops at PTX, for the driver's JIT.
    Program(QString source, QString name, ProgramOptions options, QString baseDir = {},
            SourceLanguage language = SourceLanguage::Cuda);

    /// Compiles for `arch` (e.g. "sm_90"); `nameExpressions` are instantiated and lowered
    /// (e.g. "vector_add<float>"). Never throws for bad source: see CompileResult::ok.
    [[nodiscard]] CompileResult compile(const QString& arch,
                                        const QStringList& nameExpressions = {}) const;

    /// "13.0", or an empty string if NVRTC cannot be loaded (NvrtcApi.h) or queried.
    [[nodiscard]] static QString nvrtcVersion();
    /// The tools `language` goes through, with versions: "NVRTC 13.0", "nvJitLink 13.0",
    /// "libNVVM 2.0, nvJitLink 13.0" ("NVRTC not found", "nvJitLink not found",
    /// "libNVVM (not found), ..." when one cannot be loaded).
    [[nodiscard]] static QString compilerOf(SourceLanguage language);

private:
    QString m_source;
    QString m_name;
    ProgramOptions m_options;
    QString m_baseDir;
    SourceLanguage m_language = SourceLanguage::Cuda;

    [[nodiscard]] CompileResult compileLowLevel(CompileResult result) const;
};

} // namespace kernelpad
