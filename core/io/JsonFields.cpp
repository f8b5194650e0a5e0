#include "core/io/JsonFields.h"

#include <QLocale>

#include <algorithm>
#include <cmath>
#include <utility>

namespace kernelpad {

bool isExactDoubleInteger(double value) {
    return std::isfinite(value) && value == std::floor(value) &&
           std::abs(value) < double(kExactDoubleIntegerLimit);
}

namespace json {

namespace {

/// A number as a message shows it: integers in full ("9007199254740992", not "9.0072e+15"),
/// others in the fewest digits that read back the same.
QString numberText(double value) {
    if (std::isfinite(value) && value == std::floor(value) && std::abs(value) < 1e21)
        return QString::number(value, 'f', 0);
    return QString::number(value, 'g', QLocale::FloatingPointShortest);
}

} // namespace

QString typeName(const QJsonValue& value) {
    switch (value.type()) {
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Bool:
        return QStringLiteral("a boolean");
    case QJsonValue::Double:
        return QStringLiteral("a number");
    case QJsonValue::String:
        return QStringLiteral("a string");
    case QJsonValue::Array:
        return QStringLiteral("an array");
    case QJsonValue::Object:
        return QStringLiteral("an object");
    case QJsonValue::Undefined:
        break;
    }
    return QStringLiteral("missing");
}

QString fieldPath(const QString& parent, const QString& key) {
    return parent.isEmpty() ? key : parent + QLatin1Char('.') + key;
}

QString indexPath(const QString& parent, qsizetype index) {
    return QStringLiteral("%1[%2]").arg(parent).arg(index);
}

QString typeError(const QString& path, const QString& wanted, const QJsonValue& got) {
    return QStringLiteral("%1: expected %2, got %3").arg(path, wanted, typeName(got));
}

QString missingError(const QString& path) {
    return QStringLiteral("%1: missing").arg(path);
}

QString choiceError(const QString& path, const QStringList& names, const QString& got) {
    QStringList quoted;
    for (const QString& name : names)
        quoted << QStringLiteral("\"%1\"").arg(name);
    return QStringLiteral("%1: expected one of %2, got '%3'").arg(path, quoted.join(u", "), got);
}

QString numberProblem(const QString& path, const QJsonValue& value, NullNumber null) {
    if (value.isNull() && null == NullNumber::IsNaN)
        return {};
    // Qt reads a number too large for a double (1e999) as infinity; no field here takes one.
    if (!value.isDouble() || !std::isfinite(value.toDouble()))
        return typeError(path,
                         null == NullNumber::IsNaN ? QStringLiteral("a number or null")
                                                   : QStringLiteral("a number"),
                         value);
    return {};
}

QString wholeNumberProblem(const QString& path, const QJsonValue& value, WholeRange range) {
    const QString wanted = QStringLiteral("a whole number");
    if (!value.isDouble())
        return typeError(path, wanted, value);
    const double d = value.toDouble();
    if (!std::isfinite(d) || d != std::floor(d))
        return QStringLiteral("%1: expected %2, got %3").arg(path, wanted, numberText(d));
    // 2^53 itself is refused too: it is also what 2^53 + 1 reads back as.
    if (!isExactDoubleInteger(d))
        return QStringLiteral("%1: %2 is beyond 2^53 - 1, where a JSON number no longer holds "
                              "every integer exactly")
            .arg(path, numberText(d));
    if (d < double(range.min))
        return QStringLiteral("%1: must be >= %2 (got %3)")
            .arg(path)
            .arg(range.min)
            .arg(numberText(d));
    if (d > double(range.max))
        return QStringLiteral("%1: must be at most %2 (got %3)")
            .arg(path)
            .arg(range.max)
            .arg(numberText(d));
    return {};
}

FieldReader::FieldReader(const QJsonObject& object, QString* error, QString path)
    : m_object(object)
    , m_error(error)
    , m_path(std::move(path)) {}

bool FieldReader::fail(const QString& message) const {
    if (m_error)
        *m_error = message;
    return false;
}

std::optional<QJsonValue> FieldReader::present(const QString& key, Presence presence,
                                               bool* ok) const {
    const QJsonValue value = m_object.value(key);
    const bool absent =
        value.isUndefined() || (presence == Presence::NullIsAbsent && value.isNull());
    if (!absent) {
        *ok = true;
        return value;
    }
    *ok = presence != Presence::Required || fail(missingError(path(key)));
    return std::nullopt;
}

bool FieldReader::readString(const QString& key, QString* out, Presence presence) const {
    bool ok = false;
    const std::optional<QJsonValue> value = present(key, presence, &ok);
    if (!value)
        return ok;
    if (!value->isString())
        return fail(typeError(path(key), QStringLiteral("a string"), *value));
    *out = value->toString();
    return true;
}

bool FieldReader::readBool(const QString& key, bool* out, Presence presence) const {
    bool ok = false;
    const std::optional<QJsonValue> value = present(key, presence, &ok);
    if (!value)
        return ok;
    if (!value->isBool())
        return fail(typeError(path(key), QStringLiteral("a boolean"), *value));
    *out = value->toBool();
    return true;
}

bool FieldReader::readNumber(const QString& key, double* out, Presence presence,
                             NullNumber null) const {
    bool ok = false;
    const std::optional<QJsonValue> value = present(key, presence, &ok);
    if (!value)
        return ok;
    if (const QString problem = numberProblem(path(key), *value, null); !problem.isEmpty())
        return fail(problem);
    *out = value->isNull() ? std::numeric_limits<double>::quiet_NaN() : value->toDouble();
    return true;
}

bool FieldReader::readWholeNumber(const QString& key, qint64* out, Presence presence,
                                  WholeRange range) const {
    bool ok = false;
    const std::optional<QJsonValue> value = present(key, presence, &ok);
    if (!value)
        return ok;
    if (const QString problem = wholeNumberProblem(path(key), *value, range); !problem.isEmpty())
        return fail(problem);
    *out = qint64(value->toDouble());
    return true;
}

bool FieldReader::readInt(const QString& key, int* out, Presence presence, WholeRange range) const {
    range.min = std::max<qint64>(range.min, std::numeric_limits<int>::min());
    range.max = std::min<qint64>(range.max, std::numeric_limits<int>::max());
    qint64 value = *out;
    if (!readWholeNumber(key, &value, presence, range))
        return false;
    *out = int(value);
    return true;
}

bool FieldReader::readArray(const QString& key, QJsonArray* out, Presence presence) const {
    bool ok = false;
    const std::optional<QJsonValue> value = present(key, presence, &ok);
    if (!value)
        return ok;
    if (!value->isArray())
        return fail(typeError(path(key), QStringLiteral("an array"), *value));
    *out = value->toArray();
    return true;
}

std::optional<QJsonArray> FieldReader::presentArray(const QString& key, Presence presence,
                                                    bool* ok) const {
    const std::optional<QJsonValue> value = present(key, presence, ok);
    if (!value)
        return std::nullopt;
    if (!value->isArray()) {
        *ok = fail(typeError(path(key), QStringLiteral("an array"), *value));
        return std::nullopt;
    }
    return value->toArray();
}

bool FieldReader::readObject(const QString& key, QJsonObject* out, Presence presence) const {
    bool ok = false;
    const std::optional<QJsonValue> value = present(key, presence, &ok);
    if (!value)
        return ok;
    if (!value->isObject())
        return fail(typeError(path(key), QStringLiteral("an object"), *value));
    *out = value->toObject();
    return true;
}

bool FieldReader::readNumbers(const QString& key, QVector<double>* out, Presence presence,
                              NullNumber null) const {
    bool ok = false;
    const std::optional<QJsonArray> items = presentArray(key, presence, &ok);
    if (!items)
        return ok;
    const QJsonArray& array = *items;
    QVector<double> values;
    values.reserve(array.size());
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QJsonValue value = array.at(i);
        if (const QString problem = numberProblem(indexPath(path(key), i), value, null);
            !problem.isEmpty())
            return fail(problem);
        values.append(value.isNull() ? std::numeric_limits<double>::quiet_NaN() : value.toDouble());
    }
    *out = std::move(values);
    return true;
}

bool FieldReader::readStrings(const QString& key, QStringList* out, Presence presence) const {
    bool ok = false;
    const std::optional<QJsonArray> items = presentArray(key, presence, &ok);
    if (!items)
        return ok;
    const QJsonArray& array = *items;
    QStringList values;
    values.reserve(array.size());
    for (qsizetype i = 0; i < array.size(); ++i) {
        if (!array.at(i).isString())
            return fail(
                typeError(indexPath(path(key), i), QStringLiteral("a string"), array.at(i)));
        values.append(array.at(i).toString());
    }
    *out = std::move(values);
    return true;
}

bool FieldReader::readDims(const QString& key, std::array<int, 3>* out, Presence presence,
                           WholeRange range) const {
    range.min = std::max<qint64>(range.min, std::numeric_limits<int>::min());
    range.max = std::min<qint64>(range.max, std::numeric_limits<int>::max());
    bool ok = false;
    const std::optional<QJsonArray> items = presentArray(key, presence, &ok);
    if (!items)
        return ok;
    const QJsonArray& array = *items;
    if (array.size() != 3)
        return fail(QStringLiteral("%1: expected [x, y, z], got %2 elements")
                        .arg(path(key))
                        .arg(array.size()));
    std::array<int, 3> dims{};
    for (qsizetype i = 0; i < 3; ++i) {
        if (const QString problem = wholeNumberProblem(indexPath(path(key), i), array.at(i), range);
            !problem.isEmpty())
            return fail(problem);
        dims[size_t(i)] = int(array.at(i).toDouble());
    }
    *out = dims;
    return true;
}

bool FieldReader::readChoice(const QString& key, const QStringList& names, QString* out,
                             Presence presence) const {
    std::optional<QString> value;
    if (!readString(key, &value, presence))
        return false;
    if (!value)
        return true;
    if (!names.contains(*value))
        return fail(choiceError(path(key), names, *value));
    *out = *value;
    return true;
}

bool FieldReader::readObjects(const QString& key,
                              const std::function<bool(const FieldReader&)>& each,
                              Presence presence) const {
    bool ok = false;
    const std::optional<QJsonArray> items = presentArray(key, presence, &ok);
    if (!items)
        return ok;
    const QJsonArray& array = *items;
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QString where = indexPath(path(key), i);
        if (!array.at(i).isObject())
            return fail(typeError(where, QStringLiteral("an object"), array.at(i)));
        if (!each(FieldReader(array.at(i).toObject(), m_error, where)))
            return false;
    }
    return true;
}

bool FieldReader::readString(const QString& key, std::optional<QString>* out,
                             Presence presence) const {
    QString value;
    bool ok = false;
    if (!present(key, presence, &ok))
        return ok;
    if (!readString(key, &value, presence))
        return false;
    *out = value;
    return true;
}

bool FieldReader::readBool(const QString& key, std::optional<bool>* out, Presence presence) const {
    bool value = false;
    bool ok = false;
    if (!present(key, presence, &ok))
        return ok;
    if (!readBool(key, &value, presence))
        return false;
    *out = value;
    return true;
}

bool FieldReader::readInt(const QString& key, std::optional<int>* out, Presence presence,
                          WholeRange range) const {
    int value = 0;
    bool ok = false;
    if (!present(key, presence, &ok))
        return ok;
    if (!readInt(key, &value, presence, range))
        return false;
    *out = value;
    return true;
}

} // namespace json

} // namespace kernelpad
