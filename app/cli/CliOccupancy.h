#pragma once
// `kernelpad-cli compile --occupancy`: the occupancy curves' key points and the limiter of the
// project's kernel at its launch, from the compiled architecture's limits (no device needed).

#include "core/run/OccupancyInputs.h"

#include <QJsonObject>
#include <QTextStream>

namespace kernelpad::cli {

/// The launch's occupancy, the limiter in words, and for each curve the points where its
/// value changes and its best point.
void printOccupancy(QTextStream& out, const OccupancyReport& report, const QString& kernel);
/// The report as JSON: where its inputs came from, the limits, the kernel, the launch, the
/// explanation and the curves' key points (or the error).
[[nodiscard]] QJsonObject occupancyJson(const OccupancyReport& report);

} // namespace kernelpad::cli
