#pragma once
// What the profile's views show, derived from a ProfileReport: the margin's lines with their
// tooltips, the stall bars, the speed-of-light rows, the roofline's roofs and points. Plain
// functions over values, so the views stay painters and the wording is tested once.

#include "core/profile/ProfileReport.h"
#include "ui/widgets/ProfileMargin.h"
#include "ui/widgets/RooflineChart.h"
#include "ui/widgets/StallChart.h"

#include <QDateTime>
#include <QString>
#include <QVector>

#include <optional>

namespace kernelpad {

/// One bar of the speed-of-light panel: a share of the device's peak.
struct PercentRow {
    QString key;   ///< "compute", "memory", "dram", "l1", "l2", "occupancy.achieved", ...
    QString label; ///< "Compute (SM) throughput"
    std::optional<double> percent;
    QString toolTip;
};

/// One row of the memory table: a level of the hierarchy, its traffic and hit rate.
struct MemoryRow {
    QString level; ///< "DRAM", "L2", "L1/TEX"
    std::optional<double> bytes;
    std::optional<double> hitRatePercent; ///< none for DRAM
};

/// A profiled run of the session, for the roofline's path.
struct ProfiledRun {
    int runNumber = 0; ///< 1-based position in the session history
    QDateTime finishedAt;
    std::optional<double> medianSeconds; ///< the run's measured time, when it measured one
    QString changes;                     ///< what changed since the previous run
    const ProfileReport* report = nullptr;
};

/// The margin's lines: stall samples, flags, and a tooltip with the numbers (samples and
/// their share of the kernel's, the top reasons, sectors against ideal, n-way conflicts).
[[nodiscard]] QVector<MarginLine> marginLines(const ProfileReport& report);
/// The tooltip of one line, as marginLines() gives it.
[[nodiscard]] QString lineToolTip(const LineProfile& line, qint64 totalSamples);
/// The kernel's stall reasons as bars, their descriptions as tooltips.
[[nodiscard]] QVector<StallBar> stallBars(const ProfileReport& report);
/// Compute, memory, DRAM, L1 and L2 throughput as % of peak.
[[nodiscard]] QVector<PercentRow> throughputRows(const SpeedOfLight& sol);
/// Achieved and theoretical occupancy.
[[nodiscard]] QVector<PercentRow> occupancyRows(const SpeedOfLight& sol);
[[nodiscard]] QVector<MemoryRow> memoryRows(const SpeedOfLight& sol);
/// The device's roofs from `report` (FP32 and FP64, when ncu gave their peaks).
[[nodiscard]] QVector<RooflineRoof> rooflineRoofs(const ProfileReport& report);
/// One point per run whose report has an intensity and a rate, in order; its tooltip names the
/// run, when it finished, its time and what changed.
[[nodiscard]] QVector<RooflinePoint> rooflinePoints(const QVector<ProfiledRun>& runs);
/// "1.23 GB", "512 KB": bytes in decimal units, as Nsight Compute shows them.
[[nodiscard]] QString formatBytes(double bytes);
/// "saxpy on NVIDIA H100 80GB HBM3 · full set · 74.2 µs · grid (65536, 1, 1) block (256, 1, 1)"
[[nodiscard]] QString profileHeadline(const ProfileReport& report);

} // namespace kernelpad
