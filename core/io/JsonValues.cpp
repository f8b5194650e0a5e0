#include "core/io/JsonValues.h"

#include <cmath>
#include <limits>

namespace kernelpad::json {

QJsonValue fromDouble(double value) {
    return std::isfinite(value) ? QJsonValue(value) : QJsonValue(QJsonValue::Null);
}

double readDouble(const QJsonObject& object, const QString& key) {
    const QJsonValue value = object.value(key);
    if (value.isNull())
        return std::numeric_limits<double>::quiet_NaN();
    return value.toDouble(0.0);
}

QJsonValue nullIfEmpty(const QString& text) {
    return text.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(text);
}

qint64 readInt64(const QJsonObject& object, const QString& key) {
    return qint64(object.value(key).toDouble());
}

} // namespace kernelpad::json
