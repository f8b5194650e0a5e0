#pragma once
// An expression check's expected values computed on the GPU: the verification expression
// (muParser syntax) translated to a CUDA kernel, compiled once with NVRTC (through the compile
// cache), evaluated in double precision. muParser stays the definition: whatever the
// translator does not take (an unknown name, a function it lacks, a parse error) is evaluated
// on the host, which also words every error.

#include "core/compile/CompileCache.h"
#include "core/cuda/DeviceBuffer.h"
#include "core/cuda/Module.h"
#include "core/cuda/Stream.h"
#include "core/launch/ValueType.h"

#include <QHash>
#include <QString>
#include <QStringList>
#include <QVector>

#include <map>
#include <memory>
#include <optional>

namespace kernelpad {

/// The entry point of every translated expression.
inline constexpr const char* kExpressionKernelName = "kpExpression";

/// A translated expression: the CUDA source of kpExpression(out, n, buffers..., scalars...),
/// whose buffers and scalars are the names below, in this order.
struct ExpressionKernelSource {
    QString source;
    QStringList buffers; ///< element i of each is read as a double (as elementAsDouble does)
    QStringList scalars; ///< passed as doubles
};

/// True for the output types the kernel stores as the host does (float32, float64).
[[nodiscard]] bool expressionKernelSupportsOutput(ScalarType type);
/// True for the input element types the kernel reads as the host does (bool, the integers,
/// float32, float64).
[[nodiscard]] bool expressionKernelSupportsInput(ScalarType type);

/// Translates `expression` for an output of `outputType`. Names resolve as on the host: a
/// scalar in `scalars`, a buffer in `buffers` (by element type), else `i` (the element index)
/// when `indexAvailable`. Nothing, with the reason in `why`, when the translator does not
/// support the expression or a type: the host path evaluates it then.
[[nodiscard]] std::optional<ExpressionKernelSource>
translateExpression(const QString& expression, ScalarType outputType,
                    const QHash<QString, ScalarType>& buffers, const QStringList& scalars,
                    bool indexAvailable, QString* why);

/// Evaluates translated expressions on the GPU. Belongs to the CUDA context current when it
/// is first used (its modules live there): destroy it before that context. Not thread-safe.
class GpuExpressionEvaluator {
public:
    /// Compiles through `cache` when given (memory and disk), else with NVRTC each time a
    /// source is new to this evaluator.
    explicit GpuExpressionEvaluator(CompileCache* cache = nullptr);
    ~GpuExpressionEvaluator();
    GpuExpressionEvaluator(const GpuExpressionEvaluator&) = delete;
    GpuExpressionEvaluator& operator=(const GpuExpressionEvaluator&) = delete;

    /// Writes `count` expected values of `outputType` to `out` on `stream` (not synchronised).
    /// `buffers` and `scalars` are given in kernel.buffers' and kernel.scalars' order. False,
    /// with the reason in `why`, when the kernel did not compile for `arch`; driver failures
    /// throw CudaError.
    bool evaluate(const ExpressionKernelSource& kernel, ScalarType outputType,
                  const DeviceBuffer& out, qint64 count, const QVector<CUdeviceptr>& buffers,
                  const QVector<double>& scalars, const Stream& stream, const QString& arch,
                  QString* why);

private:
    CompileCache* m_cache = nullptr;
    QString m_arch;
    std::map<QString, std::unique_ptr<Module>> m_modules; ///< by source
    std::map<QString, QString> m_failures;                ///< by source: not compiled again
};

} // namespace kernelpad
