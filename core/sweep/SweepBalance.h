#pragma once
// How well a sweep kept its devices busy: for each device, the time a configuration was out on
// it (handed over to answered, SweepRecord::wallMs) as a share of the configurations' wall time
// (the first hand-over to the last answer). A share well below the others' is a device that
// waited: for the slowest configuration at the end (the tail), for a runner to start, or for
// the sweep to hand it the next one. The best's re-timing and A/B, on one device after the
// last configuration, are the follow-up, timed apart.

#include "core/run/RunResult.h"

#include <QJsonObject>
#include <QString>
#include <QVector>

namespace kernelpad {

/// One device's part of a sweep.
struct DeviceBusy {
    QString device; ///< as the records name it ("NVIDIA H200 (device 0)")
    double busyMs = 0;
    int configurations = 0;
};

/// Where one configuration's wall went: the runner's stages as it timed them, and this side's
/// steps (the pool's queue, the answer's settling, "the way there and back": the wall less every
/// named step (the pipe both ways, the result's JSON, a runner's start), and "recording": the
/// sweep's own work after the answer, before it hands out the next configuration).
struct ConfigurationTime {
    QString key;
    QString device;
    double wallMs = 0; ///< handed over to answered (SweepRecord::wallMs)
    QVector<StageTime> runner;
    QVector<StageTime> client;

    /// The split of `wallMs` given a result's stagesMs (runner and client ones).
    [[nodiscard]] static ConfigurationTime of(const QString& key, const QString& device,
                                              double wallMs, const QVector<StageTime>& stages);
    /// {"key", "device", "wallMs", "runnerMs": {stage: ms}, "clientMs": {step: ms}}.
    [[nodiscard]] QJsonObject toJson() const;
};

/// A sweep's busy shares; empty devices when it evaluated no configuration of its own (every
/// one resumed, or it stopped before the first answer).
struct SweepBalance {
    /// The first configuration handed to the evaluator to the last one answered.
    double wallMs = 0;
    /// The last configuration's answer to the sweep's end (the best's re-timing and A/B).
    double followUpMs = 0;
    QVector<DeviceBusy> devices; ///< in the order each first answered
    /// What ordered the configurations longest first (SweepCostEstimate::basisName()); empty:
    /// the space's order.
    QString orderedBy;
    /// Each configuration evaluated, in the order answered.
    QVector<ConfigurationTime> configurations;

    [[nodiscard]] bool isEmpty() const { return devices.isEmpty(); }
    /// `d`'s busy share in percent of wallMs, within [0, 100] (a configuration re-run after its
    /// runner was lost counts from its first hand-over, so the raw sum may pass the wall).
    [[nodiscard]] double sharePercent(const DeviceBusy& d) const;
    /// "NVIDIA H200 (device 0) busy 97 %, NVIDIA H200 (device 1) busy 94 % of 3.21 s", empty
    /// when isEmpty().
    [[nodiscard]] QString text() const;
    /// {"wallMs", "followUpMs", "orderedBy" (when set), "devices": [{"device", "busyMs",
    /// "busyPercent", "configurations"}], "configurations": [ConfigurationTime], "stagesMs":
    /// {"runner": {stage: {"median", "total"}}, "client": {...}, "wall": {"median", "total"}}:
    /// a stage a configuration did not pass through counts 0 in the median}.
    [[nodiscard]] QJsonObject toJson() const;
    /// "per configuration, median: 25.1 ms handed over to answered; runner: compiling 1.2,
    /// ...; this side: the way there and back 0.8, ... ms" (stages in the order the runs passed
    /// through them); empty without configurations.
    [[nodiscard]] QString stagesText() const;
};

} // namespace kernelpad
