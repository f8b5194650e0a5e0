// The CUB form of the "baseline" section (docs/project-format.md, "Library baselines"):
//   {"library": "cub", "call": "reduce", "op": "sum", "in": "x", "out": "total", "n": "n"}
// Fields are read and their buffers named here; element types and counts are checked against
// the call before each run (core/run/CubPlan.h), since counts are expressions over scalars.

#include "core/io/JsonFields.h"
#include "core/project/BaselineSpec.h"

namespace kernelpad {
namespace {

const QString kCubRoot = QStringLiteral("baseline");

/// The fields each call takes besides library, call, in, out and n.
QStringList cubExtraFields(const QString& call) {
    if (call == QLatin1String("reduce"))
        return {QStringLiteral("op")};
    if (call == QLatin1String("scan"))
        return {QStringLiteral("op"), QStringLiteral("exclusive")};
    if (call == QLatin1String("sort"))
        return {QStringLiteral("valuesIn"), QStringLiteral("valuesOut"),
                QStringLiteral("descending")};
    return {QStringLiteral("levels"), QStringLiteral("lower"), QStringLiteral("upper")};
}

/// A buffer field: present (when `required`), a buffer argument, and for an output not "in".
bool readCubBuffer(const json::FieldReader& fields, const QString& key, bool required, bool output,
                   const QVector<ArgumentSpec>& arguments, QString* name) {
    if (!fields.readString(key, name,
                           required ? json::Presence::Required : json::Presence::Optional))
        return false;
    if (name->isEmpty())
        return true;
    if (QString bad = baselineBufferProblem(fields.path(key), *name, arguments); !bad.isEmpty())
        return fields.fail(bad);
    for (const ArgumentSpec& arg : arguments)
        if (output && arg.name == *name && arg.buffer.direction == Direction::In)
            return fields.fail(QStringLiteral("%1: '%2' is an \"in\" buffer; name the kernel's "
                                              "output (an \"out\" or \"inout\" buffer), which "
                                              "CUB's result is compared with")
                                   .arg(fields.path(key), *name));
    return true;
}

/// An expression field written as a string or a number ("n": 1024 reads as "1024").
bool readCubExpression(const json::FieldReader& fields, const QString& key, QString* out) {
    if (!fields.has(key))
        return fields.fail(json::missingError(fields.path(key)));
    const QJsonValue value = fields.object().value(key);
    if (value.isDouble()) {
        *out = QString::number(value.toDouble(), 'g', 17);
        return true;
    }
    if (!value.isString())
        return fields.fail(
            json::typeError(fields.path(key), QStringLiteral("a string or a number"), value));
    *out = value.toString().trimmed();
    if (out->isEmpty())
        return fields.fail(QStringLiteral("%1: must not be empty").arg(fields.path(key)));
    return true;
}

bool readCubCallFields(const json::FieldReader& fields, const QVector<ArgumentSpec>& arguments,
                       BaselineSpec* spec) {
    const QString& call = spec->call;
    if (call == QLatin1String("reduce") &&
        !fields.readChoice(QStringLiteral("op"),
                           {QStringLiteral("sum"), QStringLiteral("min"), QStringLiteral("max")},
                           &spec->op))
        return false;
    if (call == QLatin1String("scan") &&
        (!fields.readChoice(QStringLiteral("op"), {QStringLiteral("sum")}, &spec->op) ||
         !fields.readBool(QStringLiteral("exclusive"), &spec->exclusive)))
        return false;
    if (call == QLatin1String("sort")) {
        if (!fields.readBool(QStringLiteral("descending"), &spec->descending) ||
            !readCubBuffer(fields, QStringLiteral("valuesIn"), false, false, arguments,
                           &spec->valuesIn) ||
            !readCubBuffer(fields, QStringLiteral("valuesOut"), false, true, arguments,
                           &spec->valuesOut))
            return false;
        if (spec->valuesIn.isEmpty() != spec->valuesOut.isEmpty())
            return fields.fail(
                QStringLiteral("%1: a sort of key-value pairs names both valuesIn and valuesOut")
                    .arg(fields.path(spec->valuesIn.isEmpty() ? QStringLiteral("valuesIn")
                                                              : QStringLiteral("valuesOut"))));
    }
    if (call == QLatin1String("histogram"))
        for (const auto& [key, member] :
             {std::pair{"levels", &BaselineSpec::levels}, std::pair{"lower", &BaselineSpec::lower},
              std::pair{"upper", &BaselineSpec::upper}})
            if (!readCubExpression(fields, QLatin1String(key), &(spec->*member)))
                return false;
    return true;
}

} // namespace

QStringList cubBaselineCalls() {
    return {QStringLiteral("reduce"), QStringLiteral("scan"), QStringLiteral("sort"),
            QStringLiteral("histogram")};
}

QJsonObject cubBaselineToJson(const BaselineSpec& spec) {
    QJsonObject json{{QStringLiteral("library"), spec.library},
                     {QStringLiteral("call"), spec.call},
                     {QStringLiteral("in"), spec.in},
                     {QStringLiteral("out"), spec.out},
                     {QStringLiteral("n"), spec.n}};
    const QString& call = spec.call;
    if (call == QLatin1String("reduce") || call == QLatin1String("scan"))
        json.insert(QStringLiteral("op"), spec.op);
    if (call == QLatin1String("scan"))
        json.insert(QStringLiteral("exclusive"), spec.exclusive);
    if (call == QLatin1String("sort")) {
        json.insert(QStringLiteral("descending"), spec.descending);
        if (!spec.valuesIn.isEmpty()) {
            json.insert(QStringLiteral("valuesIn"), spec.valuesIn);
            json.insert(QStringLiteral("valuesOut"), spec.valuesOut);
        }
    }
    if (call == QLatin1String("histogram")) {
        json.insert(QStringLiteral("levels"), spec.levels);
        json.insert(QStringLiteral("lower"), spec.lower);
        json.insert(QStringLiteral("upper"), spec.upper);
    }
    return json;
}

std::optional<BaselineSpec> cubBaselineFromJson(const QJsonObject& json,
                                                const QVector<ArgumentSpec>& arguments,
                                                QString* error) {
    const json::FieldReader fields(json, error, kCubRoot);
    BaselineSpec spec;
    spec.library = QStringLiteral("cub");
    if (!fields.readChoice(QStringLiteral("call"), cubBaselineCalls(), &spec.call,
                           json::Presence::Required))
        return std::nullopt;
    QStringList known{QStringLiteral("library"), QStringLiteral("call"), QStringLiteral("in"),
                      QStringLiteral("out"), QStringLiteral("n")};
    known << cubExtraFields(spec.call);
    for (auto it = json.begin(); it != json.end(); ++it)
        if (!known.contains(it.key())) {
            fields.fail(
                QStringLiteral("%1: unknown field (CUB's %2 takes %3)")
                    .arg(fields.path(it.key()), spec.call, known.join(QStringLiteral(", "))));
            return std::nullopt;
        }
    if (!readCubBuffer(fields, QStringLiteral("in"), true, false, arguments, &spec.in) ||
        !readCubBuffer(fields, QStringLiteral("out"), true, true, arguments, &spec.out) ||
        !readCubExpression(fields, QStringLiteral("n"), &spec.n) ||
        !readCubCallFields(fields, arguments, &spec))
        return std::nullopt;
    return spec;
}

} // namespace kernelpad
