#pragma once
// Program(source, options).compile(): NVRTC to PTX and CUBIN for the exact arch.

#include "core/compile/CompileResult.h"
#include "core/compile/ProgramOptions.h"

#include <QString>
#include <QStringList>

namespace kernelpad {

/// A CUDA C++ source ready to compile; cheap to construct, compile() does the work.
class Program {
public:
    /// `name` appears in diagnostics ("saxpy.cu"); `baseDir` resolves relative include dirs.
    Program(QString source, QString name, ProgramOptions options, QString baseDir = {});

    /// Compiles for `arch` (e.g. "sm_90"); `nameExpressions` are instantiated and lowered
    /// (e.g. "vector_add<float>"). Never throws for bad source: see CompileResult::ok.
    [[nodiscard]] CompileResult compile(const QString& arch,
                                        const QStringList& nameExpressions = {}) const;

    /// "13.0", or an empty string if NVRTC cannot be queried.
    [[nodiscard]] static QString nvrtcVersion();

private:
    QString m_source;
    QString m_name;
    ProgramOptions m_options;
    QString m_baseDir;
};

} // namespace kernelpad
