#pragma once
// Verification of a run's outputs: a reference kernel from the same source, an expression
// over the inputs, or a .npy file; large reference-kernel checks run on the GPU.

#include "core/compile/CompileResult.h"
#include "core/cuda/Module.h"
#include "core/project/Project.h"
#include "core/run/RunBuffers.h"
#include "core/run/RunTypes.h"
#include "core/verify/ExpressionKernel.h"
#include "core/verify/GpuCompare.h"
#include "core/verify/Verify.h"

#include <QHash>

#include <map>
#include <optional>

namespace kernelpad {

/// Outputs with more elements than this are compared on the GPU when they can be: below it
/// the host copy and loop take about a millisecond, under the GPU path's fixed costs.
inline constexpr qint64 kGpuVerifyMinElements = qint64(1) << 20;
/// Elements of a check compared on the GPU whose expected values are read first to decide
/// whether zeros (or the initial contents) could pass it at all.
inline constexpr qint64 kWarningProbeElements = qint64(1) << 16;

/// The expected values of one expression check, kept between the runs of a session. They
/// depend on the expression, the output's type and size, the scalars and the inputs'
/// contents, never on the kernel under test: in the edit-run loop they are computed once.
struct ExpectedValues {
    QByteArray key;      ///< expressionKey() of what they were computed from
    QByteArray host;     ///< elements of the output's type
    DeviceBuffer device; ///< uploaded for the first comparison on the GPU; empty until then
};
/// Expected values by output buffer name.
using ExpectedCache = std::map<QString, ExpectedValues>;

/// Everything expected values of an expression check depend on, as bytes: the expression,
/// the output's type and count, every scalar and the content key of every buffer that has
/// initial contents (in and inout buffers).
[[nodiscard]] QByteArray expressionKey(const QString& expression, const RunBuffer& output,
                                       const QHash<QString, double>& scalars,
                                       const std::vector<RunBuffer>& buffers);

class DeviceInit;

/// Sets each float output report's tolerance advice (core/verify/CheckAdvice.h), an output
/// shorter than the longest input counted as a reduction over it.
void adviseTolerances(const std::vector<RunBuffer>& buffers, QVector<BufferVerification>& reports);

/// Checks every output buffer that asks for it; reference kernels run once each.
class RunVerifier {
public:
    /// `gpuComparer` (may be null: host only) belongs to the current context; `comparerArch`
    /// is what its kernels are compiled for. `expected` (may be null: nothing kept) keeps
    /// expression results between runs; its device buffers belong to the current context too.
    RunVerifier(const Project& verifiedProject, const QString& directory,
                const CompileResult& compileResult, const Module& loadedModule,
                const Stream& onStream, GpuComparer* gpuComparer = nullptr,
                QString comparerArch = {}, ExpectedCache* expected = nullptr)
        : project(verifiedProject)
        , projectDir(directory)
        , compiled(compileResult)
        , module(loadedModule)
        , stream(onStream)
        , comparer(gpuComparer)
        , arch(std::move(comparerArch))
        , m_expected(expected) {}

    /// True when `b` is compared on the GPU: against a reference kernel, or against an
    /// expression's expected values when they can be kept (an ExpectedCache was given); the
    /// output has more than kGpuVerifyMinElements elements and the comparer supports its
    /// type. Such a buffer needs no host copy of its contents.
    [[nodiscard]] bool verifiesOnGpu(const RunBuffer& b) const;

    /// One report per buffer with a verification method; `outputs` holds, by name, the
    /// contents after the launch of each out/inout buffer that is not verifiesOnGpu().
    [[nodiscard]] QVector<BufferVerification> verify(const std::vector<RunBuffer>& buffers,
                                                     const QHash<QString, QByteArray>& outputs);

    /// Texture and surface handles by argument index (0 elsewhere), which reference kernels
    /// take as the kernel under test does (RunTextures::handles).
    QVector<quint64> imageHandles;

    /// Computes an expression check's expected values on the GPU when the check is compared
    /// there and the expression translates (ExpressionKernel.h); null: muParser on the host.
    /// Belongs to the current context.
    GpuExpressionEvaluator* expressionEvaluator = nullptr;
    /// Regenerates, on the GPU, the initial contents of a buffer the GPU generated (an inout
    /// buffer the expression reads as it was before the launch), so that no host copy of it
    /// is made; null or not ready: the host's generator makes them (the same values).
    const DeviceInit* deviceInit = nullptr;
    /// The reference kernels' copies of the outputs an earlier run left (keepReferenceOutputs):
    /// a copy of the same buffer and size takes its allocation instead of a new one (freeing and
    /// allocating device memory for every configuration of a sweep waits on the driver, more so
    /// with runners on several GPUs). Null: every copy is allocated and freed. Belongs to the
    /// current context.
    std::vector<RunBuffer>* referenceOutputs = nullptr;
    /// Hands the copies this run's reference kernels made to `referenceOutputs` (those it held
    /// before are freed), for the next run to take.
    void keepReferenceOutputs();

private:
    /// Expression check `b` with its expected values computed and compared on the GPU; nothing
    /// when that cannot be done (the host path then evaluates the expression with muParser).
    std::optional<BufferVerification> verifyExpressionOnGpu(const RunBuffer& b,
                                                            const std::vector<RunBuffer>& buffers,
                                                            const QHash<QString, double>& scalars,
                                                            const QString& method);
    /// The out/inout buffers of one reference kernel's run, left on the device.
    struct ReferenceRun {
        std::vector<RunBuffer> outputs;
        QString error;
    };
    const Project& project;
    const QString& projectDir;
    const CompileResult& compiled;
    const Module& module;
    const Stream& stream;
    GpuComparer* comparer;
    QString arch;
    ExpectedCache* m_expected = nullptr;
    /// `b` against `expected` on the GPU; nothing when the comparer could not be used.
    std::optional<BufferVerification> compareOnGpu(const RunBuffer& b, const DeviceBuffer& expected,
                                                   const QString& method);
    /// passWarnings() for a passing check compared on the GPU against `expected`.
    [[nodiscard]] QStringList gpuPassWarnings(const RunBuffer& b,
                                              const DeviceBuffer& expected) const;
    /// The expected values of expression check `spec` for `b`: from the cache when its key
    /// matches, else evaluated (and kept). Null with `error` set when evaluation failed.
    ExpectedValues* expectedFor(const RunBuffer& b, const std::vector<RunBuffer>& buffers,
                                const QHash<QString, double>& scalars,
                                const QHash<QString, ExpressionInput>& inputs,
                                ExpectedValues* scratch, bool* reused, QString* error);
    /// Runs `referenceKernel` on the run's "in" buffers (not written by either kernel) and
    /// fresh copies of the initial out/inout buffers.
    ReferenceRun runReference(const QString& referenceKernel,
                              const std::vector<RunBuffer>& buffers);
    const ReferenceRun& reference(const QString& referenceKernel,
                                  const std::vector<RunBuffer>& buffers);
    std::map<QString, ReferenceRun> m_references; ///< by reference kernel
};

} // namespace kernelpad
