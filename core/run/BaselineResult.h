#pragma once
// What a run's library baseline (core/project/BaselineSpec.h) measured: the call, its times
// taken as the kernel's are, and the kernel's output checked against the library's. Part of
// RunResult (JSON "baseline", written only when the project has a baseline).

#include "core/run/Timing.h"
#include "core/verify/VerificationReport.h"

#include <QJsonObject>
#include <QString>

#include <optional>

namespace kernelpad {

/// The library call a run was measured against, and how the kernel compares with it.
struct BaselineResult {
    QString library; ///< "cuBLAS"; empty: the project has no baseline
    QString call;    ///< "gemm 512×512×512 fp32, row-major"
    TimingStats timing;
    /// The kernel's output (got) against the library's (expected), with the output buffer's
    /// tolerance; only the elements the call writes.
    BufferVerification check;
    /// Why the library call could not run (the library missing, a cuBLAS status); the kernel's
    /// own results stand.
    QString error;

    [[nodiscard]] bool isEmpty() const { return library.isEmpty(); }
    [[nodiscard]] bool measured() const { return error.isEmpty() && timing.medianMs > 0; }
    /// The library's median time over the kernel's: above 1 the kernel is faster. 0 when
    /// either is unknown.
    [[nodiscard]] double ratio(double kernelMedianMs) const;
    /// "0.82× cuBLAS", empty when ratio() is 0.
    [[nodiscard]] QString ratioText(double kernelMedianMs) const;
    /// The JSON form; "ratio" is written for readers (ratio(kernelMedianMs)) and not read back.
    [[nodiscard]] QJsonObject toJson(double kernelMedianMs) const;
    static std::optional<BaselineResult> fromJson(const QJsonObject& json, QString* error,
                                                  const QString& path = {});
};

/// "0.82×": a ratio as every view writes it (two decimals, three under 0.1).
[[nodiscard]] QString formatRatio(double ratio);

} // namespace kernelpad
