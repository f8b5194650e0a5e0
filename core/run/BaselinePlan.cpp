#include "core/run/BaselinePlan.h"

#include "core/launch/BufferInit.h"
#include "core/run/CubPlan.h"
#include "core/run/RunBuffers.h"
#include "core/verify/Verify.h"

#include <cstring>
#include <limits>
#include <utility>

namespace kernelpad {
namespace {

/// cuBLAS takes sizes and leading dimensions as int.
constexpr qint64 kCublasIntMax = std::numeric_limits<int>::max();

QString baselineField(const QString& key) {
    return QStringLiteral("baseline.") + key;
}

/// An integer field: its expression resolved over the integer scalars, at least `least`.
std::optional<qint64> resolveWhole(const QString& key, const QString& text,
                                   const QVector<ArgumentSpec>& arguments, qint64 least,
                                   QString* error) {
    QString why;
    const std::optional<qint64> value = resolveCount(text, arguments, &why);
    if (!value) {
        *error = QStringLiteral("%1: %2").arg(baselineField(key), why);
        return std::nullopt;
    }
    if (*value < least || *value > kCublasIntMax) {
        *error = QStringLiteral("%1: must be between %2 and %3 (got %4 from '%5')")
                     .arg(baselineField(key))
                     .arg(least)
                     .arg(kCublasIntMax)
                     .arg(*value)
                     .arg(text);
        return std::nullopt;
    }
    return value;
}

std::optional<double> resolveReal(const QString& key, const QString& text,
                                  const QVector<ArgumentSpec>& arguments, QString* error) {
    QString why;
    const std::optional<QVector<double>> values =
        evaluateExpression(text, 1, scalarValues(arguments), {}, &why);
    if (!values || values->isEmpty()) {
        *error = QStringLiteral("%1: %2").arg(baselineField(key), why);
        return std::nullopt;
    }
    return values->front();
}

/// The element types the compute type takes: A and B, and every type C may be.
struct ComputeTypes {
    ScalarType ab;
    QVector<ScalarType> c;
};

ComputeTypes typesOf(const QString& compute) {
    if (compute == QLatin1String("fp16"))
        return {ScalarType::Float16, {ScalarType::Float16, ScalarType::Float32}};
    if (compute == QLatin1String("bf16"))
        return {ScalarType::BFloat16, {ScalarType::BFloat16, ScalarType::Float32}};
    if (compute == QLatin1String("fp8"))
        return {ScalarType::Float8E4M3, {ScalarType::Float32, ScalarType::BFloat16}};
    if (compute == QLatin1String("fp64"))
        return {ScalarType::Float64, {ScalarType::Float64}};
    return {ScalarType::Float32, {ScalarType::Float32}}; // fp32, tf32
}

QString typeName(ScalarType t) {
    return QString::fromLatin1(scalarTypeInfo(t).numpyName);
}

/// Finds operand `key` ("a") among the arguments and checks its type, leading dimension,
/// stride and size; `label` is how messages name it ("A").
bool resolveOperand(const QString& key, const QString& label, const QString& name,
                    const QVector<ScalarType>& types, const BaselineSpec& spec,
                    const QVector<ArgumentSpec>& arguments, qint64 batch, GemmOperand* out,
                    QString* error) {
    const QString field = baselineField(key);
    out->buffer = name;
    for (int i = 0; i < arguments.size(); ++i)
        if (arguments[i].isBuffer() && arguments[i].name == name)
            out->argIndex = i;
    if (out->argIndex < 0) {
        *error = QStringLiteral("%1: no buffer argument '%2'").arg(field, name);
        return false;
    }
    const BufferSpec& buffer = arguments[out->argIndex].buffer;
    const ValueType& type = buffer.elementType;
    if (type.isStruct() || !types.contains(type.scalar)) {
        QStringList wanted;
        for (ScalarType t : types)
            wanted << typeName(t);
        *error = QStringLiteral("%1: buffer '%2' holds %3, but compute \"%4\" needs %5")
                     .arg(field, name, type.displayName(), spec.compute,
                          wanted.join(QStringLiteral(" or ")));
        return false;
    }
    const bool rowMajor = spec.order == QLatin1String("row");
    const qint64 inner = rowMajor ? out->cols : out->rows; // the contiguous extent
    const qint64 outer = rowMajor ? out->rows : out->cols;
    const QString ldKey = QStringLiteral("ld") + key;
    const QString ldText = spec.*(key == QLatin1String("a")   ? &BaselineSpec::lda
                                  : key == QLatin1String("b") ? &BaselineSpec::ldb
                                                              : &BaselineSpec::ldc);
    out->ld = inner;
    if (!ldText.isEmpty()) {
        const std::optional<qint64> ld = resolveWhole(ldKey, ldText, arguments, 1, error);
        if (!ld)
            return false;
        if (*ld < inner) {
            *error = QStringLiteral("%1: %2 is less than the %3 %4 of %5 (%6-major, %7x%8 as "
                                    "stored)")
                         .arg(baselineField(ldKey))
                         .arg(*ld)
                         .arg(inner)
                         .arg(rowMajor ? QStringLiteral("columns") : QStringLiteral("rows"), label,
                              spec.order)
                         .arg(out->rows)
                         .arg(out->cols);
            return false;
        }
        out->ld = *ld;
    }
    const qint64 oneMatrix = out->ld * (outer - 1) + inner;
    const QString strideKey = QStringLiteral("stride") + label;
    const QString strideText = spec.*(key == QLatin1String("a")   ? &BaselineSpec::strideA
                                      : key == QLatin1String("b") ? &BaselineSpec::strideB
                                                                  : &BaselineSpec::strideC);
    out->stride = out->ld * outer;
    if (!strideText.isEmpty()) {
        const std::optional<qint64> stride =
            resolveWhole(strideKey, strideText, arguments, 0, error);
        if (!stride)
            return false;
        out->stride = *stride;
    }
    const qint64 needed = out->stride * (batch - 1) + oneMatrix;
    QString why;
    const std::optional<qint64> count = resolveCount(buffer.count, arguments, &why);
    if (!count) {
        *error = QStringLiteral("%1: buffer '%2': %3").arg(field, name, why);
        return false;
    }
    if (*count < needed) {
        *error = QStringLiteral("%1: buffer '%2' holds %3 elements, but %4 (%5x%6 as stored, "
                                "ld %7%8) needs %9")
                     .arg(field, name)
                     .arg(*count)
                     .arg(label)
                     .arg(out->rows)
                     .arg(out->cols)
                     .arg(out->ld)
                     .arg(batch > 1
                              ? QStringLiteral(", %1 matrices %2 apart").arg(batch).arg(out->stride)
                              : QString())
                     .arg(needed);
        return false;
    }
    return true;
}

/// cuBLASLt's rules for fp8 inputs: only the "TN" form (column order: A transposed, B not;
/// row order, which swaps the operands: B transposed, A not) and every leading dimension a
/// multiple of 16 elements (16 bytes of fp8).
bool checkFp8Layout(const GemmPlan& plan, QString* error) {
    const bool tn = plan.rowMajor ? (plan.transB && !plan.transA) : (plan.transA && !plan.transB);
    if (!tn) {
        *error = QStringLiteral("baseline.%1: cuBLASLt multiplies fp8 matrices only in the TN "
                                "form: %2")
                     .arg(plan.transA == plan.rowMajor ? QStringLiteral("transA")
                                                       : QStringLiteral("transB"),
                          plan.rowMajor ? QStringLiteral("in row order B transposed and A not "
                                                         "(\"transB\": true)")
                                        : QStringLiteral("in column order A transposed and B "
                                                         "not (\"transA\": true)"));
        return false;
    }
    const std::pair<const char*, const GemmOperand*> operands[] = {
        {"lda", &plan.a}, {"ldb", &plan.b}, {"ldc", &plan.c}};
    for (const auto& [key, operand] : operands)
        if (operand->ld % 16 != 0) {
            *error = QStringLiteral("baseline.%1: %2 is not a multiple of 16; cuBLASLt's fp8 "
                                    "GEMM needs every leading dimension a multiple of 16")
                         .arg(QLatin1String(key))
                         .arg(operand->ld);
            return false;
        }
    return true;
}

} // namespace

QString GemmPlan::describe() const {
    QString text = QStringLiteral("gemm %1×%2×%3 %4, %5-major")
                       .arg(m)
                       .arg(n)
                       .arg(k)
                       .arg(compute, rowMajor ? QStringLiteral("row") : QStringLiteral("column"));
    if (transA)
        text += QStringLiteral(", A transposed");
    if (transB)
        text += QStringLiteral(", B transposed");
    if (batch > 1)
        text += QStringLiteral(", batch %1").arg(batch);
    return text;
}

qint64 GemmPlan::bytesMoved() const {
    const qint64 ab = scalarTypeInfo(abType).sizeBytes * (m * k + k * n);
    const qint64 cBytes = scalarTypeInfo(cType).sizeBytes * m * n * (beta != 0 ? 2 : 1);
    return (ab + cBytes) * batch;
}

QVector<qint64> GemmPlan::writtenIndices() const {
    const qint64 inner = rowMajor ? n : m;
    const qint64 outer = rowMajor ? m : n;
    QVector<qint64> indices;
    indices.reserve(qsizetype(batch * inner * outer));
    for (qint64 matrix = 0; matrix < batch; ++matrix)
        for (qint64 o = 0; o < outer; ++o)
            for (qint64 i = 0; i < inner; ++i)
                indices.push_back(matrix * c.stride + o * c.ld + i);
    return indices;
}

std::optional<GemmPlan> planGemm(const BaselineSpec& spec, const QVector<ArgumentSpec>& arguments,
                                 QString* error) {
    GemmPlan plan;
    plan.rowMajor = spec.order == QLatin1String("row");
    plan.transA = spec.transA;
    plan.transB = spec.transB;
    plan.compute = spec.compute;
    const auto whole = [&](const char* key, const QString& text, qint64* out) {
        const std::optional<qint64> v = resolveWhole(QLatin1String(key), text, arguments, 1, error);
        if (v)
            *out = *v;
        return v.has_value();
    };
    if (!whole("m", spec.m, &plan.m) || !whole("n", spec.n, &plan.n) ||
        !whole("k", spec.k, &plan.k) || !whole("batch", spec.batch, &plan.batch))
        return std::nullopt;
    const std::optional<double> alpha =
        resolveReal(QStringLiteral("alpha"), spec.alpha, arguments, error);
    const std::optional<double> beta =
        resolveReal(QStringLiteral("beta"), spec.beta, arguments, error);
    if (!alpha || !beta)
        return std::nullopt;
    plan.alpha = *alpha;
    plan.beta = *beta;
    const ComputeTypes types = typesOf(spec.compute);
    plan.a.rows = plan.transA ? plan.k : plan.m;
    plan.a.cols = plan.transA ? plan.m : plan.k;
    plan.b.rows = plan.transB ? plan.n : plan.k;
    plan.b.cols = plan.transB ? plan.k : plan.n;
    plan.c.rows = plan.m;
    plan.c.cols = plan.n;
    if (!resolveOperand(QStringLiteral("a"), QStringLiteral("A"), spec.a, {types.ab}, spec,
                        arguments, plan.batch, &plan.a, error) ||
        !resolveOperand(QStringLiteral("b"), QStringLiteral("B"), spec.b, {types.ab}, spec,
                        arguments, plan.batch, &plan.b, error) ||
        !resolveOperand(QStringLiteral("c"), QStringLiteral("C"), spec.c, types.c, spec, arguments,
                        plan.batch, &plan.c, error))
        return std::nullopt;
    plan.abType = types.ab;
    plan.cType = arguments[plan.c.argIndex].buffer.elementType.scalar;
    if (plan.c.argIndex == plan.a.argIndex || plan.c.argIndex == plan.b.argIndex) {
        *error = QStringLiteral("baseline.c: '%1' is also an input of the call; C must be a "
                                "buffer of its own")
                     .arg(spec.c);
        return std::nullopt;
    }
    if (plan.compute == QLatin1String("fp8") && !checkFp8Layout(plan, error))
        return std::nullopt;
    return plan;
}

QString baselineProblem(const BaselineSpec& spec, const QVector<ArgumentSpec>& arguments) {
    if (spec.isEmpty())
        return {};
    QString error;
    // The section as a project file states it first (buffer names, fields), then the plan.
    const std::optional<BaselineSpec> read =
        BaselineSpec::fromJson(spec.toJson(), arguments, &error);
    if (!read)
        return error;
    const bool planned = read->isCub() ? planCub(*read, arguments, &error).has_value()
                                       : planGemm(*read, arguments, &error).has_value();
    return planned ? QString() : error;
}

BufferVerification compareGemmOutputs(const GemmPlan& plan, const QByteArray& kernel,
                                      const QByteArray& library, double atol, double rtol,
                                      NanComparison nan) {
    const QVector<qint64> indices = plan.writtenIndices();
    const int size = scalarTypeInfo(plan.cType).sizeBytes;
    QByteArray got(qsizetype(indices.size()) * size, Qt::Uninitialized);
    QByteArray expected(got.size(), Qt::Uninitialized);
    for (qsizetype i = 0; i < indices.size(); ++i) {
        const qsizetype from = qsizetype(indices[i]) * size;
        std::memcpy(got.data() + i * size, kernel.constData() + from, size_t(size));
        std::memcpy(expected.data() + i * size, library.constData() + from, size_t(size));
    }
    BufferVerification v = compareBuffers(ValueType::of(plan.cType), got, expected, indices.size(),
                                          atol, rtol, 0, nan);
    for (Mismatch& m : v.firstMismatches)
        m.index = indices.value(qsizetype(m.index), m.index);
    v.buffer = plan.c.buffer;
    return v;
}

} // namespace kernelpad
