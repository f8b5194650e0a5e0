#include "core/verify/VerificationReport.h"

#include <QJsonArray>
#include <QJsonValue>

#include <cmath>
#include <limits>

namespace kernelpad {

namespace {

// The same JSON conventions as RunResult (core/run/RunTypes.cpp), which embeds these reports.
/// JSON has no NaN or infinity: they are written as null and read back as NaN.
QJsonValue jsonDouble(double value) {
    return std::isfinite(value) ? QJsonValue(value) : QJsonValue(QJsonValue::Null);
}

double readDouble(const QJsonObject& json, const QString& key) {
    // null is how a NaN was written; a missing key is an older writer's default.
    const QJsonValue value = json.value(key);
    if (value.isNull())
        return std::numeric_limits<double>::quiet_NaN();
    return value.toDouble(0.0);
}

QJsonValue nullIfEmpty(const QString& text) {
    return text.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(text);
}

qint64 readInt64(const QJsonObject& json, const QString& key) {
    return qint64(json.value(key).toDouble());
}

} // namespace

QJsonObject BufferVerification::toJson() const {
    QJsonArray list;
    for (const Mismatch& m : firstMismatches)
        list.append(QJsonObject{{QStringLiteral("index"), double(m.index)},
                                {QStringLiteral("got"), jsonDouble(m.got)},
                                {QStringLiteral("expected"), jsonDouble(m.expected)}});
    return QJsonObject{{QStringLiteral("buffer"), buffer},
                       {QStringLiteral("method"), method},
                       {QStringLiteral("passed"), passed},
                       {QStringLiteral("checked"), double(checked)},
                       {QStringLiteral("maxAbsError"), jsonDouble(maxAbsError)},
                       {QStringLiteral("maxRelError"), jsonDouble(maxRelError)},
                       {QStringLiteral("mismatches"), double(mismatches)},
                       {QStringLiteral("nanCount"), double(nanCount)},
                       {QStringLiteral("unwritten"), double(unwritten)},
                       {QStringLiteral("firstMismatches"), list},
                       {QStringLiteral("error"), nullIfEmpty(error)}};
}

BufferVerification BufferVerification::fromJson(const QJsonObject& json) {
    BufferVerification v;
    v.buffer = json.value(QStringLiteral("buffer")).toString();
    v.method = json.value(QStringLiteral("method")).toString();
    v.passed = json.value(QStringLiteral("passed")).toBool();
    v.checked = readInt64(json, QStringLiteral("checked"));
    v.maxAbsError = readDouble(json, QStringLiteral("maxAbsError"));
    v.maxRelError = readDouble(json, QStringLiteral("maxRelError"));
    v.mismatches = readInt64(json, QStringLiteral("mismatches"));
    v.nanCount = readInt64(json, QStringLiteral("nanCount"));
    v.unwritten = readInt64(json, QStringLiteral("unwritten"));
    for (const QJsonValue& item : json.value(QStringLiteral("firstMismatches")).toArray()) {
        const QJsonObject m = item.toObject();
        v.firstMismatches.append(Mismatch{readInt64(m, QStringLiteral("index")),
                                          readDouble(m, QStringLiteral("got")),
                                          readDouble(m, QStringLiteral("expected"))});
    }
    v.error = json.value(QStringLiteral("error")).toString();
    return v;
}

} // namespace kernelpad
