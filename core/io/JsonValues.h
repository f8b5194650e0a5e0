#pragma once
// The conventions of KernelPad's result JSON (RunResult, TimingStats, verification reports),
// in one place: NaN and infinity travel as null, an empty text as null, 64-bit counts as
// doubles (exact below 2^53, which every count of elements or bytes here is). These are the
// writer's half; the readers go through JsonFields.h (NullNumber::IsNaN reads the null back).

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace kernelpad::json {

/// `value`, or null when it is NaN or infinite (JSON has neither).
[[nodiscard]] QJsonValue fromDouble(double value);
/// `text`, or null when it is empty.
[[nodiscard]] QJsonValue nullIfEmpty(const QString& text);

} // namespace kernelpad::json
