#pragma once
// The plan and the bookkeeping of an interleaved A/B comparison (docs/user-guide.md, "A/B
// comparison"), free of the GPU so that it is tested on its own: which arm runs next (ABBA
// blocks in a seeded random order), how many launches a block takes, whether B's arguments
// match A's, when to stop, and the result with its JSON form. core/engine/AbComparison.h
// drives it through the Engine; core/run/AbVerdict.h computes the verdict.

#include "core/project/Project.h"
#include "core/run/AbVerdict.h"
#include "core/run/RunResult.h"

#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <QVector>

#include <optional>
#include <random>

namespace kernelpad {

/// How a comparison runs (the defaults are those of the window and the CLI).
struct AbSettings {
    /// Wall time for the interleaved blocks (the two verified runs before them come on top).
    int budgetMs = 10000;
    /// Stop early once the interval's half-width is under this (percentage points).
    double targetHalfWidthPercent = 0.5;
    int minBlocks = 8;   ///< two ABBA groups at least, whatever the interval says
    int maxBlocks = 400; ///< a hard cap beside the budget
    /// GPU time one block's timed launches aim at: long enough that a block's setup (a
    /// verified launch, the warm-ups) is small beside it, short enough for many blocks.
    double blockTargetMs = 25;
    int minLaunchesPerBlock = 10;
    int maxLaunchesPerBlock = 2000;
    quint64 seed = AbOptions::kDefaultSeed;

    /// Empty, or a message naming the field (budgetMs, targetHalfWidthPercent).
    [[nodiscard]] QString validate() const;
    /// What device `index` of `devices` running their own A/Bs at once takes, so that the
    /// pooled comparison (poolAbResults) costs about what one device's would in device time:
    /// the budget and the block cap divided among them, the minimum of blocks too (at least
    /// one ABBA group each), the target half-width times the square root of their number (the
    /// pooled interval of n equal devices is that much narrower), and a seed of its own so
    /// their orders differ. One device: these settings.
    [[nodiscard]] AbSettings share(int devices, int index) const;
};

enum class AbArm { A, B };

/// The arms' order: groups of four blocks, each ABBA or BAAB at random (seeded), so that
/// neither arm always runs first after the other and a linear drift cancels within a group.
class AbSchedule {
public:
    explicit AbSchedule(quint64 seed)
        : m_rng(seed) {}
    [[nodiscard]] AbArm next();

private:
    std::mt19937_64 m_rng;
    int m_position = 0; ///< within the current group of four
    bool m_bFirst = false;
};

/// Launches per block for a kernel whose median launch takes `medianMs`.
[[nodiscard]] int launchesPerBlock(double medianMs, const AbSettings& settings);

/// The first difference between A's and B's arguments and globals that would make B run on
/// other inputs than A ("arguments[1] (x): buffer.count is 2048 in B, 1024 in A"); empty
/// when they match. Source, kernel name, launch and timing may differ.
[[nodiscard]] QString abArgumentMismatch(const Project& a, const Project& b);

/// One arm as the result shows it.
struct AbArmSummary {
    QString label; ///< the project file, or "version 3"
    double medianMs = 0;
    int launches = 0;
    int blocks = 0;
    AbConditions conditions;
    bool verified = false; ///< its outputs passed verification
    int buffersChecked = 0;
    /// The driver's registers, memory and occupancy of the arm's kernel, from its verified run
    /// (absent when the driver reported none); JSON "resources", only when known.
    std::optional<KernelResources> resources;

    [[nodiscard]] QJsonObject toJson() const;
};

/// One device's own A/B of a comparison run on several devices (AbResult::devices): the
/// verdict, ratio and interval of its blocks alone, or why it has none.
struct AbDeviceEstimate {
    QString device;
    QString verdict;  ///< AbVerdict::kindName(), or "error" when its A/B failed
    double ratio = 0; ///< median(B) / median(A) on that device; 0 without one
    double low = 0;
    double high = 0;
    int blocks = 0;
    QString reason; ///< refused or error: why

    [[nodiscard]] bool hasInterval() const { return high > 0 && low > 0; }
    [[nodiscard]] QJsonObject toJson() const;
    /// `path` names where it sits in messages; nullopt with `error` naming the field.
    static std::optional<AbDeviceEstimate> fromJson(const QJsonObject& json, const QString& path,
                                                    QString* error);
};

/// The end of a comparison.
struct AbResult {
    enum class Status {
        Verdict,   ///< faster, slower or no detectable difference
        Refused,   ///< no verdict: the conditions differed (verdict.reason says which)
        Error,     ///< an arm failed to compile, run or verify, or the request was wrong
        Cancelled, ///< stopped by the caller
    };
    Status status = Status::Error;
    RunStatus runStatus = RunStatus::Ok; ///< Error: the failing arm's status (BadInput, ...)
    QString error;                       ///< Error and Cancelled: a sentence naming the arm
    AbVerdict verdict;
    AbArmSummary a;
    AbArmSummary b;
    int launchesPerBlock = 0;
    int blocks = 0;
    QString stopReason; ///< "interval narrower than ±0.5 %", "time budget", "block cap"
    double elapsedMs = 0;
    QString device; ///< the (first) device it ran on
    /// Run on several devices: each one's estimate; the verdict, blocks and arms are pooled
    /// (poolAbResults()). Empty for one device.
    QVector<AbDeviceEstimate> devices;
    /// Why a comparison that could have used several devices ran on one ("the devices are
    /// different models: ..."); empty otherwise.
    QString oneDeviceReason;

    /// The verdict line, or the error.
    [[nodiscard]] QString headline() const;
    [[nodiscard]] QJsonObject toJson() const;
};

/// The comparison `perDevice` (one AbResult per device, each both arms on that device) taken
/// together: its verdict pools the devices' ratios (poolAbVerdicts(), core/run/AbVerdict.h);
/// one failing or refused device leaves the others' verdict with a caveat naming it. Any
/// cancelled device cancels the whole; with none that has a verdict, the first one's end.
[[nodiscard]] AbResult poolAbResults(const QVector<AbResult>& perDevice,
                                     const AbOptions& options = {});

/// The blocks taken so far and the conditions of each arm, turned into a verdict.
class AbAccumulator {
public:
    void add(AbArm arm, const TimingStats& block);
    [[nodiscard]] int blocks() const { return m_blocks; }
    /// The samples and each arm's conditions (median SM clock over its blocks, any throttling).
    [[nodiscard]] AbSamples samples() const;
    [[nodiscard]] AbVerdict verdict(const AbOptions& options = {}) const;
    /// Why the comparison should stop now, or empty to go on. Checked after whole ABBA groups.
    [[nodiscard]] QString stopReason(const AbSettings& settings, double elapsedMs) const;

private:
    struct Arm {
        QVector<QVector<double>> blocksMs;
        QVector<int> smClocksMHz;
        int memClockMHz = 0;
        int throttledSamples = 0;
        QVector<int> temperaturesC;  ///< NVML's, one per chunk (Telemetry.h); empty: none
        quint64 throttleReasons = 0; ///< NVML's throttling clock-event reasons seen
    };
    [[nodiscard]] static AbConditions conditionsOf(const Arm& arm);
    Arm m_a;
    Arm m_b;
    int m_blocks = 0;
};

} // namespace kernelpad

Q_DECLARE_METATYPE(kernelpad::AbResult)
