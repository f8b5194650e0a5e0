#pragma once
// A library call the kernel is measured against (docs/project-format.md, "Library baselines"):
// a cuBLAS GEMM or a CUB device-wide algorithm on the project's own buffers and scalars, run and
// timed as the kernel is. The
// JSON form is the project's "baseline" section; sizes are resolved and checked against the
// buffers before each run (core/run/BaselinePlan.h), since scalars change between runs.

#include "core/launch/ArgumentSpec.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace kernelpad {

/// The "baseline" section: which library call, on which buffers, with which sizes.
struct BaselineSpec {
    QString library; ///< "cublas" or "cub"; empty: the project has no baseline
    QString call;    ///< "gemm" (cuBLAS); "reduce", "scan", "sort", "histogram" (CUB)
    /// "column" (cuBLAS's own: element (i, j) at i + j * ld) or "row" (C++ arrays: i * ld + j).
    QString order = QStringLiteral("column");
    QString a, b, c; ///< buffer argument names; `c` is the kernel's output
    bool transA = false, transB = false;
    /// Integers or expressions over integer scalar arguments ("n", "2*n").
    QString m, n, k;
    QString lda, ldb, ldc; ///< empty: the tightest (the stored rows, or columns)
    QString alpha = QStringLiteral("1"), beta = QStringLiteral("0"); ///< expressions
    QString batch = QStringLiteral("1");
    QString strideA, strideB, strideC; ///< elements between batches; empty: one matrix
    /// "fp32", "tf32" (fp32 buffers, tensor cores), "fp16" (half A and B), "fp64".
    QString compute = QStringLiteral("fp32");

    // CUB's calls (core/project/BaselineSpecCub.cpp): `in` and `out` are buffers (for sort,
    // the keys), `n` the element count; the gemm fields above are unused.
    QString op = QStringLiteral("sum"); ///< reduce: "sum", "min", "max"; scan: "sum"
    QString in, out;                    ///< buffer argument names; `out` is the kernel's output
    QString valuesIn, valuesOut;        ///< sort: the values moved with the keys; empty: keys only
    bool exclusive = false;             ///< scan: exclusive (out[0] = 0) or inclusive
    bool descending = false;            ///< sort
    QString levels, lower, upper;       ///< histogram: levels - 1 even bins over [lower, upper)

    [[nodiscard]] bool isEmpty() const { return library.isEmpty(); }
    [[nodiscard]] bool isCub() const { return library == QLatin1String("cub"); }
    /// The library's name as a ratio names it: "cuBLAS", "CUB".
    [[nodiscard]] QString libraryDisplayName() const;
    [[nodiscard]] QJsonObject toJson() const;
    /// Reads the section; the buffers must be buffer arguments of `arguments`. Fails with a
    /// message naming the field ("baseline.a: no buffer argument 'x'; the buffers are ...").
    static std::optional<BaselineSpec>
    fromJson(const QJsonObject& json, const QVector<ArgumentSpec>& arguments, QString* error);
    friend bool operator==(const BaselineSpec& x, const BaselineSpec& y) {
        return x.toJson() == y.toJson();
    }
};

/// Empty when `name` is a buffer argument of `arguments`, else why not, naming `path` and the
/// buffers there are ("baseline.c: no buffer argument 'D'; the buffers are A, B, C").
[[nodiscard]] QString baselineBufferProblem(const QString& path, const QString& name,
                                            const QVector<ArgumentSpec>& arguments);

/// The libraries, calls and compute types the "baseline" section takes.
[[nodiscard]] QStringList baselineLibraries();
[[nodiscard]] QStringList cubBaselineCalls();

/// The CUB form of the section (core/project/BaselineSpecCub.cpp), for BaselineSpec's own
/// toJson and fromJson.
[[nodiscard]] QJsonObject cubBaselineToJson(const BaselineSpec& spec);
std::optional<BaselineSpec> cubBaselineFromJson(const QJsonObject& json,
                                                const QVector<ArgumentSpec>& arguments,
                                                QString* error);
[[nodiscard]] QStringList baselineComputeTypes();

} // namespace kernelpad
