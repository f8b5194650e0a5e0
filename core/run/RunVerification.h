#pragma once
// Verification of a run's outputs: a reference kernel from the same source, an expression
// over the inputs, or a .npy file.

#include "core/compile/CompileResult.h"
#include "core/cuda/Module.h"
#include "core/project/Project.h"
#include "core/run/RunBuffers.h"
#include "core/run/RunTypes.h"

#include <QHash>

namespace kernelpad {

/// Checks every output buffer that asks for it; reference kernels run once each.
class RunVerifier {
public:
    RunVerifier(const Project& project, const QString& projectDir, const CompileResult& compiled,
                const Module& module, const Stream& stream)
        : project(project)
        , projectDir(projectDir)
        , compiled(compiled)
        , module(module)
        , stream(stream)
    {
    }

    /// One report per buffer with a verification method; `outputs` holds each out/inout
    /// buffer's contents after the launch, by name.
    [[nodiscard]] QVector<BufferVerification> verify(const std::vector<RunBuffer>& buffers,
                                                     const QHash<QString, QByteArray>& outputs);

private:
    const Project& project;
    const QString& projectDir;
    const CompileResult& compiled;
    const Module& module;
    const Stream& stream;
    /// The outputs of `referenceKernel` run on fresh copies of the initial buffers.
    QHash<QString, QByteArray> runReference(const QString& referenceKernel,
                                            const std::vector<RunBuffer>& buffers, QString* error);
    QHash<QString, QHash<QString, QByteArray>> m_referenceOutputs; ///< by reference kernel
    QHash<QString, QString> m_referenceErrors;
};

} // namespace kernelpad
