#include "core/launch/ArgumentSpec.h"

#include "core/io/ControlChars.h"
#include "core/io/ErrorOut.h"
#include "core/launch/ScalarCodec.h"
#include "core/launch/TextureArgument.h"

#include <QLocale>

#include <algorithm>
#include <cmath>
#include <limits>

namespace kernelpad {

namespace {

/// Prefixes a nested object's error with the key it sits under ("init.low: ...").
bool failNested(QString* error, const QString& key, const QString& inner) {
    return fail(error, key + QLatin1Char('.') + inner);
}

json::Presence required(bool yes) {
    return yes ? json::Presence::Required : json::Presence::Optional;
}

/// A one-line string (a name, a path, an expression): every string here reaches log lines,
/// messages or file names, so a control character is refused.
bool readLine(const json::FieldReader& fields, const QString& key, QString* out,
              json::Presence presence) {
    QString text = *out;
    if (!fields.readString(key, &text, presence))
        return false;
    if (const QString bad = controlCharacterError(fields.path(key), text); !bad.isEmpty())
        return fields.fail(bad);
    *out = text;
    return true;
}

// Integers from 2^53 on do not survive a JSON number (a double), so larger seeds are strings.
bool readSeed(const QJsonObject& json, quint64* out, QString* error) {
    const QString key = QStringLiteral("seed");
    if (!json.contains(key))
        return true;
    const QJsonValue v = json.value(key);
    if (v.isDouble()) {
        const double d = v.toDouble();
        if (d < 0 || !isExactDoubleInteger(d))
            return fail(error, QStringLiteral("seed: expected a whole number from 0 to 2^53 - 1 "
                                              "(larger seeds as a string of digits)"));
        *out = quint64(d);
        return true;
    }
    bool ok = false;
    const quint64 seed = v.isString() ? v.toString().trimmed().toULongLong(&ok, 10) : 0;
    if (!ok)
        return fail(error, json::typeError(key, QStringLiteral("a non-negative whole number"), v));
    *out = seed;
    return true;
}

QJsonValue seedToJson(quint64 seed) {
    // Compared as integers: double(2^53 + 1) is 2^53, which would pass and lose the 1.
    if (seed < quint64(kExactDoubleIntegerLimit))
        return double(seed);
    return QString::number(seed);
}

template <typename Kind> struct KindName {
    Kind kind;
    const char* name;
};

const KindName<InitSpec::Kind> kInitKinds[] = {
    {InitSpec::Kind::Zeros, "zeros"},       {InitSpec::Kind::Ones, "ones"},
    {InitSpec::Kind::Constant, "constant"}, {InitSpec::Kind::Iota, "iota"},
    {InitSpec::Kind::Uniform, "uniform"},   {InitSpec::Kind::Normal, "normal"},
    {InitSpec::Kind::File, "file"},         {InitSpec::Kind::Special, "special"},
};

const KindName<VerifySpec::Kind> kVerifyKinds[] = {
    {VerifySpec::Kind::None, "none"},
    {VerifySpec::Kind::Reference, "reference"},
    {VerifySpec::Kind::Expression, "expression"},
    {VerifySpec::Kind::File, "file"},
};

template <typename Kind, size_t N> QString kindName(const KindName<Kind> (&names)[N], Kind kind) {
    for (const auto& entry : names) {
        if (entry.kind == kind)
            return QLatin1String(entry.name);
    }
    return QLatin1String(names[0].name);
}

template <typename Kind, size_t N>
bool readKind(const QJsonObject& json, const KindName<Kind> (&names)[N], Kind* out,
              QString* error) {
    QString text;
    if (!readLine(json::FieldReader(json, error), QStringLiteral("kind"), &text,
                  json::Presence::Required))
        return false;
    QStringList known;
    for (const auto& entry : names) {
        if (text == QLatin1String(entry.name)) {
            *out = entry.kind;
            return true;
        }
        known.append(QLatin1String(entry.name));
    }
    return fail(error, QStringLiteral("kind: unknown kind '%1' (expected one of: %2)")
                           .arg(text, known.join(QStringLiteral(", "))));
}

/// A JSON value typed by hand as a number or bool, kept as the text the table shows.
bool readValueText(const QJsonObject& json, const QString& key, QString* out, QString* error) {
    if (!json.contains(key))
        return true;
    const QJsonValue v = json.value(key);
    if (const QString bad = controlCharacterError(key, v.toString()); !bad.isEmpty())
        return fail(error, bad);
    if (v.isString())
        *out = v.toString();
    else if (v.isDouble())
        *out = QString::number(v.toDouble(), 'g', QLocale::FloatingPointShortest);
    else if (v.isBool())
        *out = v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    else
        return fail(error, json::typeError(key, QStringLiteral("a string or a number"), v));
    return true;
}

bool readDims(const QJsonObject& json, const QString& key, std::array<int, 3>* out,
              QString* error) {
    if (!json.contains(key))
        return true;
    const QJsonValue v = json.value(key);
    // A bare number is a 1-D size, as in cuda.core's LaunchConfig(grid=4, block=256).
    const QJsonArray dims = v.isDouble() ? QJsonArray{v} : v.toArray();
    if (!(v.isDouble() || v.isArray()) || dims.isEmpty() || dims.size() > 3)
        return fail(error,
                    json::typeError(key, QStringLiteral("an array of 1 to 3 whole numbers"), v));
    std::array<int, 3> result{1, 1, 1};
    for (int i = 0; i < dims.size(); ++i) {
        if (const QString problem = json::wholeNumberProblem(json::indexPath(key, i), dims.at(i),
                                                             {1, std::numeric_limits<int>::max()});
            !problem.isEmpty())
            return fail(error, problem);
        result[size_t(i)] = dims.at(i).toInt();
    }
    *out = result;
    return true;
}

QJsonArray dimsToJson(const std::array<int, 3>& dims) {
    return {dims[0], dims[1], dims[2]};
}

/// Why a JSON number given for an integer is refused, or empty: from 2^53 on the number read
/// back may not be the one written (9007199254740993 reads as 9007199254740992).
QString inexactIntegerProblem(const QString& key, double value) {
    if (!std::isfinite(value) || value != std::floor(value) || isExactDoubleInteger(value))
        return {};
    return json::wholeNumberProblem(key, value) +
           QStringLiteral("; write it as a string of digits");
}

} // namespace

QString directionName(Direction d) {
    switch (d) {
    case Direction::In:
        return QStringLiteral("in");
    case Direction::Out:
        return QStringLiteral("out");
    case Direction::InOut:
        return QStringLiteral("inout");
    }
    return QStringLiteral("in");
}

std::optional<Direction> directionFromName(const QString& name) {
    for (const Direction d : {Direction::In, Direction::Out, Direction::InOut}) {
        if (name == directionName(d))
            return d;
    }
    return std::nullopt;
}

QJsonObject InitSpec::toJson() const {
    QJsonObject json{{QStringLiteral("kind"), kindName(kInitKinds, kind)}};
    switch (kind) {
    case Kind::Zeros:
    case Kind::Ones:
        break;
    case Kind::Constant:
        json.insert(QStringLiteral("value"), value);
        break;
    case Kind::Iota:
        json.insert(QStringLiteral("start"), value);
        json.insert(QStringLiteral("step"), step);
        break;
    case Kind::Uniform:
        json.insert(QStringLiteral("low"), low);
        json.insert(QStringLiteral("high"), high);
        json.insert(QStringLiteral("seed"), seedToJson(seed));
        break;
    case Kind::Special:
        json.insert(QStringLiteral("rate"), rate);
        json.insert(QStringLiteral("low"), low);
        json.insert(QStringLiteral("high"), high);
        json.insert(QStringLiteral("seed"), seedToJson(seed));
        break;
    case Kind::Normal:
        json.insert(QStringLiteral("mean"), mean);
        json.insert(QStringLiteral("stddev"), stddev);
        json.insert(QStringLiteral("seed"), seedToJson(seed));
        break;
    case Kind::File:
        json.insert(QStringLiteral("path"), path);
        break;
    }
    return json;
}

std::optional<InitSpec> InitSpec::fromJson(const QJsonObject& json, QString* error) {
    const json::FieldReader fields(json, error);
    InitSpec spec;
    if (!readKind(json, kInitKinds, &spec.kind, error))
        return std::nullopt;
    // Iota's start is written as "start"; "value" is accepted as well since it is the field's
    // name in the struct.
    const bool ok =
        fields.readNumber(QStringLiteral("value"), &spec.value) &&
        fields.readNumber(QStringLiteral("start"), &spec.value) &&
        fields.readNumber(QStringLiteral("step"), &spec.step) &&
        fields.readNumber(QStringLiteral("low"), &spec.low) &&
        fields.readNumber(QStringLiteral("high"), &spec.high) &&
        fields.readNumber(QStringLiteral("rate"), &spec.rate) &&
        fields.readNumber(QStringLiteral("mean"), &spec.mean) &&
        fields.readNumber(QStringLiteral("stddev"), &spec.stddev) &&
        readSeed(json, &spec.seed, error) &&
        readLine(fields, QStringLiteral("path"), &spec.path, required(spec.kind == Kind::File));
    if (!ok)
        return std::nullopt;
    if (const QString problem = spec.problem(); !problem.isEmpty()) {
        fail(error, problem);
        return std::nullopt;
    }
    return spec;
}

QString InitSpec::problem() const {
    const auto shortest = [](double v) {
        return QString::number(v, 'g', QLocale::FloatingPointShortest);
    };
    switch (kind) {
    case Kind::Zeros:
    case Kind::Ones:
        return {};
    case Kind::Constant:
        return std::isfinite(value) ? QString() : QStringLiteral("value: must be a finite number");
    case Kind::Iota:
        if (!std::isfinite(value) || !std::isfinite(step))
            return QStringLiteral("%1: must be a finite number")
                .arg(std::isfinite(value) ? QStringLiteral("step") : QStringLiteral("start"));
        return {};
    case Kind::Special:
        // !(x >= 0) also refuses NaN.
        if (!(rate >= 0) || !(rate <= 1))
            return QStringLiteral("rate: must be between 0 and 1 (got %1)").arg(shortest(rate));
        [[fallthrough]];
    case Kind::Uniform:
        if (!std::isfinite(low) || !std::isfinite(high))
            return QStringLiteral("%1: must be a finite number")
                .arg(std::isfinite(low) ? QStringLiteral("high") : QStringLiteral("low"));
        // low == high is accepted, here and so in the table: the range then holds one value
        // and every element is `low` (BufferInit's draw is low + u * 0), a constant fill
        // that is harmless and that a user narrowing a range on purpose may well want. The
        // table used to demand low < high while project files allowed it.
        if (low > high)
            return QStringLiteral("low: %1 is above high (%2)").arg(shortest(low), shortest(high));
        return {};
    case Kind::Normal:
        if (!std::isfinite(mean))
            return QStringLiteral("mean: must be a finite number");
        if (!(stddev >= 0) || !std::isfinite(stddev))
            return QStringLiteral("stddev: must be >= 0 (got %1)").arg(shortest(stddev));
        return {};
    case Kind::File:
        if (path.trimmed().isEmpty())
            return QStringLiteral("path: empty; name a .npy file");
        return {};
    }
    return {};
}

QJsonObject VerifySpec::toJson() const {
    QJsonObject json{{QStringLiteral("kind"), kindName(kVerifyKinds, kind)}};
    switch (kind) {
    case Kind::None:
        return json;
    case Kind::Reference:
        json.insert(QStringLiteral("referenceKernel"), referenceKernel);
        break;
    case Kind::Expression:
        json.insert(QStringLiteral("expression"), expression);
        break;
    case Kind::File:
        json.insert(QStringLiteral("path"), path);
        break;
    }
    json.insert(QStringLiteral("atol"), atol);
    json.insert(QStringLiteral("rtol"), rtol);
    if (ulp > 0)
        json.insert(QStringLiteral("ulp"), ulp);
    if (nan != NanComparison::Equal)
        json.insert(QStringLiteral("nan"), nanComparisonName(nan));
    return json;
}

QString nanComparisonName(NanComparison nan) {
    return nan == NanComparison::Differ ? QStringLiteral("differ") : QStringLiteral("equal");
}

std::optional<NanComparison> nanComparisonFromName(const QString& name) {
    if (name == QLatin1String("equal"))
        return NanComparison::Equal;
    if (name == QLatin1String("differ"))
        return NanComparison::Differ;
    return std::nullopt;
}

std::optional<VerifySpec> VerifySpec::fromJson(const QJsonObject& json, QString* error) {
    const json::FieldReader fields(json, error);
    VerifySpec spec;
    if (!readKind(json, kVerifyKinds, &spec.kind, error))
        return std::nullopt;
    const bool ok =
        readLine(fields, QStringLiteral("referenceKernel"), &spec.referenceKernel,
                 required(spec.kind == Kind::Reference)) &&
        readLine(fields, QStringLiteral("expression"), &spec.expression,
                 required(spec.kind == Kind::Expression)) &&
        readLine(fields, QStringLiteral("path"), &spec.path, required(spec.kind == Kind::File)) &&
        fields.readNumber(QStringLiteral("atol"), &spec.atol) &&
        fields.readNumber(QStringLiteral("rtol"), &spec.rtol) &&
        fields.readNumber(QStringLiteral("ulp"), &spec.ulp);
    QString nan = nanComparisonName(spec.nan);
    if (!ok || !fields.readChoice(QStringLiteral("nan"),
                                  {QStringLiteral("equal"), QStringLiteral("differ")}, &nan))
        return std::nullopt;
    spec.nan = nanComparisonFromName(nan).value_or(NanComparison::Equal);
    // "ulp": 2 alone means within 2 ulps, not "within 2 ulps or the default atol/rtol".
    if (json.contains(QStringLiteral("ulp"))) {
        if (!json.contains(QStringLiteral("atol")))
            spec.atol = 0;
        if (!json.contains(QStringLiteral("rtol")))
            spec.rtol = 0;
    }
    if (const QString problem = spec.problem(); !problem.isEmpty()) {
        fail(error, problem);
        return std::nullopt;
    }
    return spec;
}

QString VerifySpec::problem() const {
    if (kind == Kind::None)
        return {};
    const QString requiredText = kind == Kind::Reference    ? referenceKernel
                                 : kind == Kind::Expression ? expression
                                                            : path;
    if (requiredText.trimmed().isEmpty()) {
        return kind == Kind::Reference    ? QStringLiteral("referenceKernel: empty; name the "
                                                              "reference kernel")
               : kind == Kind::Expression ? QStringLiteral("expression: empty")
                                          : QStringLiteral("path: empty; name a .npy file");
    }
    // !(x >= 0) also refuses NaN, which a typed "atol=nan" would give.
    if (!(atol >= 0) || !(rtol >= 0))
        return !(atol >= 0) ? QStringLiteral("atol: must be >= 0 (got %1)").arg(atol)
                            : QStringLiteral("rtol: must be >= 0 (got %1)").arg(rtol);
    if (!(ulp >= 0))
        return QStringLiteral("ulp: must be >= 0 (got %1)").arg(ulp);
    return {};
}

QJsonObject BufferSpec::toJson() const {
    return {
        {QStringLiteral("type"), elementType.toJson()},
        {QStringLiteral("count"), count},
        {QStringLiteral("init"), init.toJson()},
        {QStringLiteral("direction"), directionName(direction)},
        {QStringLiteral("verify"), verify.toJson()},
    };
}

std::optional<BufferSpec> BufferSpec::fromJson(const QJsonObject& json, QString* error) {
    const json::FieldReader fields(json, error);
    BufferSpec spec;
    QJsonObject typeJson, initJson, verifyJson;
    QString inner;
    if (!fields.readObject(QStringLiteral("type"), &typeJson, json::Presence::Required))
        return std::nullopt;
    const auto type = ValueType::fromJson(typeJson, &inner);
    if (!type) {
        failNested(error, QStringLiteral("type"), inner);
        return std::nullopt;
    }
    spec.elementType = *type;

    if (!json.contains(QStringLiteral("count"))) {
        fail(error, json::missingError(QStringLiteral("count")));
        return std::nullopt;
    }
    const QJsonValue count = json.value(QStringLiteral("count"));
    const double n = count.toDouble(-1);
    if (const QString inexact = inexactIntegerProblem(QStringLiteral("count"), n);
        count.isDouble() && !inexact.isEmpty()) {
        fail(error, inexact);
        return std::nullopt;
    }
    if (count.isDouble() && n >= 0 && isExactDoubleInteger(n)) {
        spec.count = QString::number(qint64(n));
    } else if (const QString bad = controlCharacterError(QStringLiteral("count"), count.toString());
               !bad.isEmpty()) {
        fail(error, bad);
        return std::nullopt;
    } else if (count.isString() && !count.toString().trimmed().isEmpty()) {
        spec.count = count.toString().trimmed();
    } else {
        fail(error, QStringLiteral("count: expected a non-negative whole number or an expression "
                                   "string, got %1")
                        .arg(count.isDouble() ? QString::number(n) : json::typeName(count)));
        return std::nullopt;
    }

    if (!fields.readObject(QStringLiteral("init"), &initJson))
        return std::nullopt;
    if (json.contains(QStringLiteral("init"))) {
        const auto init = InitSpec::fromJson(initJson, &inner);
        if (!init) {
            failNested(error, QStringLiteral("init"), inner);
            return std::nullopt;
        }
        spec.init = *init;
    }

    QString direction = directionName(spec.direction);
    if (!readLine(fields, QStringLiteral("direction"), &direction, json::Presence::Optional))
        return std::nullopt;
    const auto d = directionFromName(direction);
    if (!d) {
        fail(error, QStringLiteral("direction: unknown direction '%1' (expected in, out or inout)")
                        .arg(direction));
        return std::nullopt;
    }
    spec.direction = *d;

    if (!fields.readObject(QStringLiteral("verify"), &verifyJson))
        return std::nullopt;
    if (json.contains(QStringLiteral("verify"))) {
        const auto verify = VerifySpec::fromJson(verifyJson, &inner);
        if (!verify) {
            failNested(error, QStringLiteral("verify"), inner);
            return std::nullopt;
        }
        spec.verify = *verify;
    }
    return spec;
}

QJsonObject ArgumentSpec::toJson() const {
    if (isImage())
        return textureArgumentToJson(*this);
    if (isTensorMap())
        return tensorMapArgumentToJson(*this);
    QJsonObject json{{QStringLiteral("name"), name}};
    if (isBuffer()) {
        json.insert(QStringLiteral("kind"), QStringLiteral("buffer"));
        json.insert(QStringLiteral("buffer"), buffer.toJson());
    } else {
        json.insert(QStringLiteral("kind"), QStringLiteral("scalar"));
        json.insert(QStringLiteral("type"), type.toJson());
        json.insert(QStringLiteral("value"), value);
    }
    return json;
}

std::optional<ArgumentSpec> ArgumentSpec::fromJson(const QJsonObject& json, QString* error) {
    const json::FieldReader fields(json, error);
    ArgumentSpec spec;
    if (!readLine(fields, QStringLiteral("name"), &spec.name, json::Presence::Required))
        return std::nullopt;
    spec.name = spec.name.trimmed();
    if (spec.name.isEmpty()) {
        fail(error, QStringLiteral("name: empty"));
        return std::nullopt;
    }
    QString kind;
    if (!readLine(fields, QStringLiteral("kind"), &kind, json::Presence::Required))
        return std::nullopt;
    QString inner;
    if (kind == QLatin1String("buffer")) {
        spec.kind = Kind::Buffer;
        QJsonObject bufferJson;
        if (!fields.readObject(QStringLiteral("buffer"), &bufferJson, json::Presence::Required))
            return std::nullopt;
        const auto buffer = BufferSpec::fromJson(bufferJson, &inner);
        if (!buffer) {
            failNested(error, QStringLiteral("buffer"), inner);
            return std::nullopt;
        }
        spec.buffer = *buffer;
        return spec;
    }
    if (kind == QLatin1String("texture") || kind == QLatin1String("surface"))
        return textureArgumentFromJson(spec.name, kind == QLatin1String("surface"), json, error);
    if (kind == QLatin1String("tensorMap"))
        return tensorMapArgumentFromJson(spec.name, json, error);
    if (kind != QLatin1String("scalar")) {
        fail(error, QStringLiteral("kind: unknown kind '%1' (expected scalar, buffer, texture, "
                                   "surface or tensorMap)")
                        .arg(kind));
        return std::nullopt;
    }
    spec.kind = Kind::Scalar;
    QJsonObject typeJson;
    if (!fields.readObject(QStringLiteral("type"), &typeJson, json::Presence::Required))
        return std::nullopt;
    const auto type = ValueType::fromJson(typeJson, &inner);
    if (!type) {
        failNested(error, QStringLiteral("type"), inner);
        return std::nullopt;
    }
    spec.type = *type;
    const QJsonValue value = json.value(QStringLiteral("value"));
    if (!spec.type.isStruct() && detail::isIntegerType(spec.type.scalar) && value.isDouble()) {
        if (const QString inexact =
                inexactIntegerProblem(QStringLiteral("value"), value.toDouble());
            !inexact.isEmpty()) {
            fail(error, inexact);
            return std::nullopt;
        }
    }
    if (!readValueText(json, QStringLiteral("value"), &spec.value, error))
        return std::nullopt;
    return spec;
}

QJsonObject LaunchConfig::toJson() const {
    QJsonObject json{
        {QStringLiteral("grid"), dimsToJson(grid)},
        {QStringLiteral("block"), dimsToJson(block)},
        {QStringLiteral("sharedMemBytes"), sharedMemBytes},
    };
    // Only when set, so that projects without them are written as before.
    if (hasCluster())
        json.insert(QStringLiteral("cluster"), dimsToJson(cluster));
    if (cooperative)
        json.insert(QStringLiteral("cooperative"), true);
    return json;
}

std::optional<LaunchConfig> LaunchConfig::fromJson(const QJsonObject& json, QString* error) {
    const json::FieldReader fields(json, error);
    LaunchConfig config;
    if (!readDims(json, QStringLiteral("grid"), &config.grid, error) ||
        !readDims(json, QStringLiteral("block"), &config.block, error))
        return std::nullopt;
    if (!fields.readInt(QStringLiteral("sharedMemBytes"), &config.sharedMemBytes,
                        json::Presence::Optional, {0, std::numeric_limits<int>::max()}))
        return std::nullopt;
    if (!readDims(json, QStringLiteral("cluster"), &config.cluster, error) ||
        !fields.readBool(QStringLiteral("cooperative"), &config.cooperative,
                         json::Presence::NullIsAbsent))
        return std::nullopt;
    return config;
}

bool sameArguments(const QVector<ArgumentSpec>& a, const QVector<ArgumentSpec>& b) {
    return a.size() == b.size() && std::equal(a.cbegin(), a.cend(), b.cbegin(),
                                              [](const ArgumentSpec& x, const ArgumentSpec& y) {
                                                  return x.toJson() == y.toJson();
                                              });
}

} // namespace kernelpad
