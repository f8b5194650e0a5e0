#pragma once
// A CUB baseline (core/project/BaselineSpec.h, library "cub") resolved against this run's
// arguments: the count a number, each buffer found, its element type one the plugin was built
// for (core/run/cubplugin/CubPluginAbi.h) and its size enough for the call, before any device
// memory is taken. The messages name the field.

#include "core/launch/ArgumentSpec.h"
#include "core/project/BaselineSpec.h"
#include "core/verify/VerificationReport.h"

#include <QByteArray>
#include <QString>

#include <optional>

namespace kernelpad {

/// One buffer the call reads or writes.
struct CubOperand {
    int argIndex = -1; ///< in the project's arguments; -1: the call has no such operand
    QString buffer;
    ScalarType type = ScalarType::Float32;
    [[nodiscard]] bool present() const { return argIndex >= 0; }
};

/// A CUB device-wide call with every value known.
struct CubPlan {
    QString call; ///< "reduce", "scan", "sort", "histogram"
    QString op;   ///< reduce: "sum", "min", "max"; scan: "sum"
    bool exclusive = false, descending = false;
    qint64 n = 0;
    int levels = 0; ///< histogram: levels - 1 bins
    double lower = 0, upper = 0;
    CubOperand in, out;             ///< sort: the keys
    CubOperand valuesIn, valuesOut; ///< sort of pairs only

    /// "reduce sum of 1048576 float32", "sort pairs (uint32 keys, float32 values), descending".
    [[nodiscard]] QString describe() const;
    /// Elements of `out` the call writes: 1 (reduce), the bins (histogram), else n.
    [[nodiscard]] qint64 outputCount() const;
    /// Bytes one call reads and writes, for GB/s.
    [[nodiscard]] qint64 bytesMoved() const;
};

/// Resolves `spec` (library "cub") against `arguments`; nullopt with the reason, naming the
/// field ("baseline.in: buffer 'x' holds float16, but CUB's reduce takes int32, uint32,
/// float32 or float64"), when it cannot run.
[[nodiscard]] std::optional<CubPlan>
planCub(const BaselineSpec& spec, const QVector<ArgumentSpec>& arguments, QString* error);

/// The kernel's outputs (got) against CUB's (expected), over the elements the call writes,
/// with each output buffer's tolerance and NaN rule ("nan": NaN against NaN fails under
/// "differ", as in the kernel's own check): `out` and, for pairs, `valuesOut` (the first that
/// differs is reported; when both agree, the counts are summed under `out`'s name).
[[nodiscard]] BufferVerification
compareCubOutputs(const CubPlan& plan, const QVector<ArgumentSpec>& arguments,
                  const QByteArray& kernelOut, const QByteArray& libraryOut,
                  const QByteArray& kernelValues, const QByteArray& libraryValues);

} // namespace kernelpad
