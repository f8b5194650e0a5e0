#include "core/verify/VerificationReport.h"

#include "core/io/JsonValues.h"

#include <QJsonArray>
#include <QJsonValue>

#include <cmath>
#include <limits>

namespace kernelpad {

using json::nullIfEmpty;
using json::readDouble;
using json::readInt64;
constexpr auto jsonDouble = json::fromDouble;

QJsonObject BufferVerification::toJson() const {
    QJsonArray list;
    for (const Mismatch& m : firstMismatches)
        list.append(QJsonObject{{QStringLiteral("index"), double(m.index)},
                                {QStringLiteral("got"), jsonDouble(m.got)},
                                {QStringLiteral("expected"), jsonDouble(m.expected)}});
    QJsonObject json{{QStringLiteral("buffer"), buffer},
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
    if (global)
        json.insert(QStringLiteral("global"), true);
    return json;
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
    v.global = json.value(QStringLiteral("global")).toBool();
    return v;
}

} // namespace kernelpad
