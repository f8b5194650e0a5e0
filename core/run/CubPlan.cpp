#include "core/run/CubPlan.h"

#include "core/launch/BufferInit.h"
#include "core/run/RunBuffers.h"
#include "core/verify/Verify.h"

#include <cmath>
#include <limits>

namespace kernelpad {
namespace {

QString cubField(const QString& key) {
    return QStringLiteral("baseline.") + key;
}

QString cubTypeName(ScalarType t) {
    return QString::fromLatin1(scalarTypeInfo(t).numpyName);
}

/// "int32, uint32, float32 or float64".
QString cubTypeList(const QVector<ScalarType>& types) {
    QStringList names;
    for (ScalarType t : types)
        names << cubTypeName(t);
    const QString last = names.takeLast();
    return names.isEmpty() ? last
                           : names.join(QStringLiteral(", ")) + QStringLiteral(" or ") + last;
}

/// The element types the plugin was built for, per call and operand.
QVector<ScalarType> cubTypesFor(const QString& call, const QString& key) {
    if (call == QLatin1String("sort") && key.startsWith(QLatin1String("values")))
        return {ScalarType::Int32, ScalarType::UInt32, ScalarType::Float32,
                ScalarType::Int64, ScalarType::UInt64, ScalarType::Float64};
    if (call == QLatin1String("sort"))
        return {ScalarType::Int32, ScalarType::UInt32, ScalarType::Float32, ScalarType::UInt64};
    if (call == QLatin1String("histogram"))
        return key == QLatin1String("in")
                   ? QVector<ScalarType>{ScalarType::UInt32, ScalarType::Float32}
                   : QVector<ScalarType>{ScalarType::Int32, ScalarType::UInt32};
    return {ScalarType::Int32, ScalarType::UInt32, ScalarType::Float32, ScalarType::Float64};
}

/// Finds operand `key` among the arguments and checks its type and that it holds `needed`
/// elements.
bool resolveCubOperand(const QString& call, const QString& key, const QString& name, qint64 needed,
                       const QVector<ArgumentSpec>& arguments, CubOperand* out, QString* error) {
    const QString field = cubField(key);
    out->buffer = name;
    for (int i = 0; i < arguments.size(); ++i)
        if (arguments[i].isBuffer() && arguments[i].name == name)
            out->argIndex = i;
    if (out->argIndex < 0) {
        *error = QStringLiteral("%1: no buffer argument '%2'").arg(field, name);
        return false;
    }
    const BufferSpec& buffer = arguments[out->argIndex].buffer;
    const QVector<ScalarType> types = cubTypesFor(call, key);
    if (buffer.elementType.isStruct() || !types.contains(buffer.elementType.scalar)) {
        *error = QStringLiteral("%1: buffer '%2' holds %3, but CUB's %4 takes %5 (the types "
                                "the CUB plugin is built for)")
                     .arg(field, name, buffer.elementType.displayName(), call, cubTypeList(types));
        return false;
    }
    out->type = buffer.elementType.scalar;
    QString why;
    const std::optional<qint64> count = resolveCount(buffer.count, arguments, &why);
    if (!count) {
        *error = QStringLiteral("%1: buffer '%2': %3").arg(field, name, why);
        return false;
    }
    if (*count < needed) {
        *error = QStringLiteral("%1: buffer '%2' holds %3 elements, but CUB's %4 %5 %6")
                     .arg(field, name)
                     .arg(*count)
                     .arg(call, key == QLatin1String("in") || key == QLatin1String("valuesIn")
                                    ? QStringLiteral("reads")
                                    : QStringLiteral("writes"))
                     .arg(needed);
        return false;
    }
    return true;
}

std::optional<double> resolveCubReal(const QString& key, const QString& text,
                                     const QVector<ArgumentSpec>& arguments, QString* error) {
    QString why;
    const std::optional<QVector<double>> values =
        evaluateExpression(text, 1, scalarValues(arguments), {}, &why);
    if (!values || values->isEmpty() || !std::isfinite(values->front())) {
        *error = QStringLiteral("%1: %2").arg(
            cubField(key), why.isEmpty() ? QStringLiteral("'%1' is not finite").arg(text) : why);
        return std::nullopt;
    }
    return values->front();
}

/// levels, lower and upper of a histogram: at least one bin, lower below upper, and whole
/// numbers a uint32 holds when the samples are uint32.
bool resolveHistogramLevels(const BaselineSpec& spec, const QVector<ArgumentSpec>& arguments,
                            CubPlan* plan, QString* error) {
    QString why;
    const std::optional<qint64> levels = resolveCount(spec.levels, arguments, &why);
    if (!levels || *levels < 2 || *levels > std::numeric_limits<int>::max()) {
        *error = QStringLiteral("%1: %2").arg(
            cubField(QStringLiteral("levels")),
            levels ? QStringLiteral("must be at least 2 (one bin) and fit an int (got %1)")
                         .arg(*levels)
                   : why);
        return false;
    }
    plan->levels = int(*levels);
    const std::optional<double> lower =
        resolveCubReal(QStringLiteral("lower"), spec.lower, arguments, error);
    const std::optional<double> upper =
        resolveCubReal(QStringLiteral("upper"), spec.upper, arguments, error);
    if (!lower || !upper)
        return false;
    if (!(*lower < *upper)) {
        *error =
            QStringLiteral("baseline.upper: %1 is not above lower (%2)").arg(*upper).arg(*lower);
        return false;
    }
    plan->lower = *lower;
    plan->upper = *upper;
    return true;
}

/// The sample type's limits on the levels, once the samples' type is known.
bool checkHistogramSampleRange(const CubPlan& plan, QString* error) {
    if (plan.in.type != ScalarType::UInt32)
        return true;
    for (const auto& [key, value] :
         {std::pair{"lower", plan.lower}, std::pair{"upper", plan.upper}})
        if (value < 0 || value > double(std::numeric_limits<quint32>::max()) ||
            value != std::floor(value)) {
            *error = QStringLiteral("baseline.%1: %2 is not a whole number a uint32 sample "
                                    "can hold; uint32 samples take levels from 0 to %3")
                         .arg(QLatin1String(key))
                         .arg(value)
                         .arg(std::numeric_limits<quint32>::max());
            return false;
        }
    return true;
}

bool checkDistinctOutputs(const CubPlan& plan, QString* error) {
    const auto clash = [&](const CubOperand& output, const char* key) {
        for (const CubOperand* input : {&plan.in, &plan.valuesIn})
            if (input->present() && input->argIndex == output.argIndex) {
                *error = QStringLiteral("baseline.%1: '%2' is also an input of the call; CUB "
                                        "writes a buffer of its own")
                             .arg(QLatin1String(key), output.buffer);
                return true;
            }
        return false;
    };
    if (clash(plan.out, "out") || (plan.valuesOut.present() && clash(plan.valuesOut, "valuesOut")))
        return false;
    if (plan.valuesOut.present() && plan.valuesOut.argIndex == plan.out.argIndex) {
        *error = QStringLiteral("baseline.valuesOut: '%1' is also the keys' output")
                     .arg(plan.valuesOut.buffer);
        return false;
    }
    return true;
}

bool checkSameType(const CubOperand& a, const CubOperand& b, const QString& key,
                   const QString& call, QString* error) {
    if (a.type == b.type)
        return true;
    *error = QStringLiteral("baseline.%1: buffer '%2' holds %3, but CUB's %4 writes the %5 of "
                            "'%6'")
                 .arg(key, b.buffer, cubTypeName(b.type), call, cubTypeName(a.type), a.buffer);
    return false;
}

} // namespace

QString CubPlan::describe() const {
    const QString type = cubTypeName(in.type);
    if (call == QLatin1String("reduce"))
        return QStringLiteral("reduce %1 of %2 %3").arg(op).arg(n).arg(type);
    if (call == QLatin1String("scan"))
        return QStringLiteral("%1 sum scan of %2 %3")
            .arg(exclusive ? QStringLiteral("exclusive") : QStringLiteral("inclusive"))
            .arg(n)
            .arg(type);
    if (call == QLatin1String("sort"))
        return QStringLiteral("radix sort of %1 %2, %3")
            .arg(n)
            .arg(valuesIn.present() ? QStringLiteral("pairs (%1 keys, %2 values)")
                                          .arg(type, cubTypeName(valuesIn.type))
                                    : type + QStringLiteral(" keys"),
                 descending ? QStringLiteral("descending") : QStringLiteral("ascending"));
    return QStringLiteral("histogram of %1 %2 samples, %3 bins over [%4, %5)")
        .arg(n)
        .arg(type)
        .arg(levels - 1)
        .arg(lower)
        .arg(upper);
}

qint64 CubPlan::outputCount() const {
    if (call == QLatin1String("reduce"))
        return 1;
    if (call == QLatin1String("histogram"))
        return levels - 1;
    return n;
}

qint64 CubPlan::bytesMoved() const {
    qint64 bytes =
        n * scalarTypeInfo(in.type).sizeBytes + outputCount() * scalarTypeInfo(out.type).sizeBytes;
    if (valuesIn.present())
        bytes += 2 * n * scalarTypeInfo(valuesIn.type).sizeBytes;
    return bytes;
}

std::optional<CubPlan> planCub(const BaselineSpec& spec, const QVector<ArgumentSpec>& arguments,
                               QString* error) {
    CubPlan plan;
    plan.call = spec.call;
    plan.op = spec.op;
    plan.exclusive = spec.exclusive;
    plan.descending = spec.descending;
    QString why;
    const std::optional<qint64> n = resolveCount(spec.n, arguments, &why);
    if (!n || *n < 1) {
        *error = QStringLiteral("%1: %2").arg(
            cubField(QStringLiteral("n")),
            n ? QStringLiteral("must be at least 1 (got %1 from '%2')").arg(*n).arg(spec.n) : why);
        return std::nullopt;
    }
    plan.n = *n;
    if (plan.call == QLatin1String("histogram") &&
        !resolveHistogramLevels(spec, arguments, &plan, error))
        return std::nullopt;
    if (!resolveCubOperand(plan.call, QStringLiteral("in"), spec.in, plan.n, arguments, &plan.in,
                           error) ||
        !resolveCubOperand(plan.call, QStringLiteral("out"), spec.out, plan.outputCount(),
                           arguments, &plan.out, error))
        return std::nullopt;
    if (plan.call == QLatin1String("sort") && !spec.valuesIn.isEmpty() &&
        (!resolveCubOperand(plan.call, QStringLiteral("valuesIn"), spec.valuesIn, plan.n, arguments,
                            &plan.valuesIn, error) ||
         !resolveCubOperand(plan.call, QStringLiteral("valuesOut"), spec.valuesOut, plan.n,
                            arguments, &plan.valuesOut, error) ||
         !checkSameType(plan.valuesIn, plan.valuesOut, QStringLiteral("valuesOut"), plan.call,
                        error)))
        return std::nullopt;
    if (plan.call != QLatin1String("histogram") &&
        !checkSameType(plan.in, plan.out, QStringLiteral("out"), plan.call, error))
        return std::nullopt;
    if (plan.call == QLatin1String("histogram") && !checkHistogramSampleRange(plan, error))
        return std::nullopt;
    if (!checkDistinctOutputs(plan, error))
        return std::nullopt;
    return plan;
}

BufferVerification compareCubOutputs(const CubPlan& plan, const QVector<ArgumentSpec>& arguments,
                                     const QByteArray& kernelOut, const QByteArray& libraryOut,
                                     const QByteArray& kernelValues,
                                     const QByteArray& libraryValues) {
    const auto compare = [&](const CubOperand& operand, const QByteArray& got,
                             const QByteArray& expected, qint64 count) {
        const VerifySpec& tolerance = arguments[operand.argIndex].buffer.verify;
        const qsizetype bytes = qsizetype(count) * scalarTypeInfo(operand.type).sizeBytes;
        BufferVerification v =
            compareBuffers(ValueType::of(operand.type), got.left(bytes), expected.left(bytes),
                           count, tolerance.atol, tolerance.rtol, tolerance.ulp, tolerance.nan);
        v.buffer = operand.buffer;
        return v;
    };
    BufferVerification keys = compare(plan.out, kernelOut, libraryOut, plan.outputCount());
    if (!plan.valuesOut.present() || !keys.passed)
        return keys;
    BufferVerification values = compare(plan.valuesOut, kernelValues, libraryValues, plan.n);
    if (!values.passed)
        return values;
    keys.checked += values.checked;
    return keys;
}

} // namespace kernelpad
