#pragma once
// The conventions of KernelPad's result JSON (RunResult, TimingStats, verification reports),
// in one place: NaN and infinity travel as null, an empty text as null, 64-bit counts as
// doubles (exact below 2^53, which every count of elements or bytes here is).

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace kernelpad::json {

/// `value`, or null when it is NaN or infinite (JSON has neither).
[[nodiscard]] QJsonValue fromDouble(double value);
/// The number under `key`; NaN where it was written as null, 0 where it is missing (an older
/// writer's default).
[[nodiscard]] double readDouble(const QJsonObject& object, const QString& key);
/// `text`, or null when it is empty.
[[nodiscard]] QJsonValue nullIfEmpty(const QString& text);
/// The whole number under `key`, 0 where it is missing.
[[nodiscard]] qint64 readInt64(const QJsonObject& object, const QString& key);

} // namespace kernelpad::json
