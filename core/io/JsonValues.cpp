#include "core/io/JsonValues.h"

#include <cmath>

namespace kernelpad::json {

QJsonValue fromDouble(double value) {
    return std::isfinite(value) ? QJsonValue(value) : QJsonValue(QJsonValue::Null);
}

QJsonValue nullIfEmpty(const QString& text) {
    return text.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(text);
}

} // namespace kernelpad::json
