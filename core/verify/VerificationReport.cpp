#include "core/verify/VerificationReport.h"

#include "core/io/JsonFields.h"
#include "core/io/JsonValues.h"

#include <QJsonArray>
#include <QJsonValue>

#include <cmath>
#include <limits>

namespace kernelpad {

using json::nullIfEmpty;
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
                     {QStringLiteral("maxUlpError"), jsonDouble(maxUlpError)},
                     {QStringLiteral("mismatches"), double(mismatches)},
                     {QStringLiteral("nanCount"), double(nanCount)},
                     {QStringLiteral("unwritten"), double(unwritten)},
                     {QStringLiteral("firstMismatches"), list},
                     {QStringLiteral("error"), nullIfEmpty(error)}};
    if (global)
        json.insert(QStringLiteral("global"), true);
    if (!failure.isEmpty())
        json.insert(QStringLiteral("failure"), failure);
    if (!warnings.isEmpty())
        json.insert(QStringLiteral("warnings"), QJsonArray::fromStringList(warnings));
    if (!advice.isEmpty()) {
        json.insert(QStringLiteral("advice"), advice);
        json.insert(QStringLiteral("suggestedRtol"), jsonDouble(suggestedRtol));
    }
    return json;
}

std::optional<BufferVerification>
BufferVerification::fromJson(const QJsonObject& json, QString* error, const QString& path) {
    const json::FieldReader fields(json, error, path);
    constexpr auto required = json::Presence::Required;
    // NaN and infinity travel as null (JsonValues.h).
    constexpr auto nullIsNaN = json::NullNumber::IsNaN;
    constexpr json::WholeRange count{0, json::WholeRange{}.max};
    BufferVerification v;
    if (!fields.readString(QStringLiteral("buffer"), &v.buffer, required) ||
        !fields.readString(QStringLiteral("method"), &v.method, required) ||
        !fields.readBool(QStringLiteral("passed"), &v.passed, required) ||
        !fields.readWholeNumber(QStringLiteral("checked"), &v.checked, required, count) ||
        !fields.readNumber(QStringLiteral("maxAbsError"), &v.maxAbsError, required, nullIsNaN) ||
        !fields.readNumber(QStringLiteral("maxRelError"), &v.maxRelError, required, nullIsNaN) ||
        !fields.readWholeNumber(QStringLiteral("mismatches"), &v.mismatches, required, count) ||
        !fields.readWholeNumber(QStringLiteral("nanCount"), &v.nanCount, required, count) ||
        !fields.readWholeNumber(QStringLiteral("unwritten"), &v.unwritten, required, count))
        return std::nullopt;
    if (!fields.readObjects(
            QStringLiteral("firstMismatches"),
            [&](const json::FieldReader& item) {
                Mismatch m;
                if (!item.readWholeNumber(QStringLiteral("index"), &m.index, required, count) ||
                    !item.readNumber(QStringLiteral("got"), &m.got, required, nullIsNaN) ||
                    !item.readNumber(QStringLiteral("expected"), &m.expected, required, nullIsNaN))
                    return false;
                v.firstMismatches.append(m);
                return true;
            },
            required))
        return std::nullopt;
    // Null when there was nothing to report; "global", "failure", "warnings" and "advice" are
    // written only when set;
    // "maxUlpError" is absent from reports of older versions.
    if (!fields.readNumber(QStringLiteral("maxUlpError"), &v.maxUlpError, json::Presence::Optional,
                           nullIsNaN) ||
        !fields.readString(QStringLiteral("error"), &v.error, json::Presence::NullIsAbsent) ||
        !fields.readBool(QStringLiteral("global"), &v.global) ||
        !fields.readString(QStringLiteral("failure"), &v.failure) ||
        !fields.readStrings(QStringLiteral("warnings"), &v.warnings) ||
        !fields.readString(QStringLiteral("advice"), &v.advice) ||
        !fields.readNumber(QStringLiteral("suggestedRtol"), &v.suggestedRtol))
        return std::nullopt;
    return v;
}

} // namespace kernelpad
