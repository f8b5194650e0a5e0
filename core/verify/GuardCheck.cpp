#include "core/verify/GuardCheck.h"

#include "core/io/JsonFields.h"

#include <QStringList>

#include <algorithm>

namespace kernelpad {

QString GuardFinding::message() const {
    QStringList parts;
    if (bytesBefore > 0)
        parts << QStringLiteral("%1 bytes written before the start (element -%2)")
                     .arg(bytesBefore)
                     .arg(bytesBefore / std::max<qint64>(elementBytes, 1));
    if (bytesAfter > 0)
        parts << QStringLiteral("%1 bytes written past the end (element %2)")
                     .arg(bytesAfter)
                     .arg(firstAfter);
    QString text = QStringLiteral("%1: %2").arg(buffer, parts.join(QStringLiteral("; ")));
    if (duringTiming)
        text += QStringLiteral(" during the timed launches, not the verified one");
    return text;
}

QJsonObject GuardFinding::toJson() const {
    QJsonObject json{{QStringLiteral("buffer"), buffer},
                     {QStringLiteral("count"), double(count)},
                     {QStringLiteral("elementBytes"), double(elementBytes)},
                     {QStringLiteral("bytesBefore"), double(bytesBefore)},
                     {QStringLiteral("bytesAfter"), double(bytesAfter)},
                     {QStringLiteral("firstAfter"), double(firstAfter)}};
    if (duringTiming)
        json.insert(QStringLiteral("duringTiming"), true);
    return json;
}

std::optional<GuardFinding> GuardFinding::fromJson(const QJsonObject& json, QString* error,
                                                   const QString& path) {
    const json::FieldReader fields(json, error, path);
    constexpr auto required = json::Presence::Required;
    constexpr json::WholeRange whole{0, json::WholeRange{}.max};
    GuardFinding f;
    if (!fields.readString(QStringLiteral("buffer"), &f.buffer, required) ||
        !fields.readWholeNumber(QStringLiteral("count"), &f.count, required, whole) ||
        !fields.readWholeNumber(QStringLiteral("elementBytes"), &f.elementBytes, required,
                                json::WholeRange{1, json::WholeRange{}.max}) ||
        !fields.readWholeNumber(QStringLiteral("bytesBefore"), &f.bytesBefore, required, whole) ||
        !fields.readWholeNumber(QStringLiteral("bytesAfter"), &f.bytesAfter, required, whole) ||
        !fields.readWholeNumber(QStringLiteral("firstAfter"), &f.firstAfter, required, whole) ||
        !fields.readBool(QStringLiteral("duringTiming"), &f.duringTiming))
        return std::nullopt;
    return f;
}

bool operator==(const GuardFinding& a, const GuardFinding& b) {
    return a.buffer == b.buffer && a.count == b.count && a.elementBytes == b.elementBytes &&
           a.bytesBefore == b.bytesBefore && a.bytesAfter == b.bytesAfter &&
           a.firstAfter == b.firstAfter && a.duringTiming == b.duringTiming;
}

std::optional<GuardFinding> findGuardWrites(const QString& name, qint64 count, qint64 elementBytes,
                                            const QByteArray& before, const QByteArray& after) {
    const qint64 size = std::max<qint64>(elementBytes, 1);
    const auto changed = [](char c) { return static_cast<unsigned char>(c) != kGuardByte; };
    GuardFinding f;
    f.buffer = name;
    f.count = count;
    f.elementBytes = size;
    // Before the start: the changed byte furthest from the buffer, rounded out to whole
    // elements counted back from the start.
    const auto firstBefore = std::find_if(before.cbegin(), before.cend(), changed);
    if (firstBefore != before.cend()) {
        const qint64 distance = qint64(before.cend() - firstBefore);
        f.bytesBefore = (distance + size - 1) / size * size;
    }
    // Past the end: the guard starts at the end of the last element, so offsets divide into
    // elements from there.
    const auto firstPast = std::find_if(after.cbegin(), after.cend(), changed);
    if (firstPast != after.cend()) {
        const auto lastPast = std::find_if(after.crbegin(), after.crend(), changed);
        const qint64 lastOffset = qint64(after.crend() - lastPast) - 1;
        f.bytesAfter = (lastOffset / size + 1) * size;
        f.firstAfter = count + qint64(firstPast - after.cbegin()) / size;
    }
    if (f.bytesBefore == 0 && f.bytesAfter == 0)
        return std::nullopt;
    return f;
}

QVector<GuardFinding> guardWritesDuringTiming(const QVector<GuardFinding>& afterVerify,
                                              const QVector<GuardFinding>& afterTiming) {
    QVector<GuardFinding> added;
    for (GuardFinding found : afterTiming) {
        const bool known =
            std::any_of(afterVerify.cbegin(), afterVerify.cend(),
                        [&found](const GuardFinding& f) { return f.buffer == found.buffer; });
        if (known)
            continue;
        found.duringTiming = true;
        added.append(std::move(found));
    }
    return added;
}

BufferVerification guardVerification(const GuardFinding& finding) {
    BufferVerification v;
    v.buffer = finding.buffer;
    v.method = QStringLiteral("guard bytes");
    v.passed = false;
    v.checked = 2 * kGuardBytes;
    v.failure = finding.message();
    return v;
}

} // namespace kernelpad
