#pragma once
// One sweep run: a SweepSpace searched by a SweepStrategy, each configuration mapped to its
// project and evaluated (compiled through the runner's compile cache, run, verified) by a
// SweepEvaluator; every outcome becomes a SweepRecord. A failing configuration (it cannot
// launch, does not compile, faults, fails verification) is recorded with its reason and is
// never the best. Configurations given as already done (a resumed results file) are not run
// again. No device at all ends the sweep with an error instead: a compile-only evaluation is
// not a sweep.
//
// Each configuration is timed with the sweep's timing budget (SweepBudget.h). A sweep timed
// with another budget than "accurate" ends by timing its winner again with the project's own
// timing: retimed() gives the winner with both times.
//
// Then, unless setConfirm(false), the winner is confirmed by an interleaved A/B against the
// runner-up (SweepConfirmation.h) on the evaluator's runners: confirming(), then confirmed()
// with the best's record carrying the verdict, then finished(). Over several devices
// (SweepEvaluator::comparesBesideRuns()) the A/B starts beside the re-timing instead of after
// it, and retimed() and confirmed() come in either order, each record holding what is known.
// A sweep with fewer than two passing configurations, or whose best already holds a
// confirmation against the same runner-up (a resumed one), runs none and claims nothing. Arms
// whose inputs differ (a size sweep's) run no A/B: confirmed() at once says it does not apply.
//
// Exhaustive and random sweeps hand out their configurations longest first where the cost can
// be estimated (SweepCost.h), and the sweep keeps how long each was out on its device
// (SweepRecord::wallMs) and each device's busy share (balance(), SweepBalance.h).

#include "core/run/RunRequest.h"
#include "core/run/RunResult.h"
#include "core/sweep/SweepBalance.h"
#include "core/sweep/SweepCost.h"
#include "core/sweep/SweepResults.h"
#include "core/sweep/SweepSpace.h"
#include "core/sweep/SweepStrategy.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QPointer>

#include <memory>
#include <optional>
#include <utility>

namespace kernelpad {

class SweepEvaluator;

/// Drives one sweep over an evaluator. Lives on a thread with an event loop.
class Sweep : public QObject {
    Q_OBJECT
public:
    /// `base` gives the project (with its "sweep" section), its folder, the device and the
    /// repetitions; each configuration runs a copy with the project replaced. `evaluator` is
    /// not owned and must outlive the sweep.
    Sweep(RunRequest base, SweepEvaluator* evaluator, QObject* parent = nullptr);
    ~Sweep() override;

    /// Records of an earlier run of the same sweep (a results file started over): the time
    /// each configuration took there orders this run longest first. Call before prepare().
    void setPrevious(const QVector<SweepRecord>& records) { m_previous = records; }
    /// Builds the space and the strategy; false with `error` naming the field.
    bool prepare(QString* error);
    /// What ordered the configurations (SweepCostEstimate::Basis::None: the space's order).
    [[nodiscard]] SweepCostEstimate::Basis costBasis() const { return m_costBasis; }
    /// Each device's busy share so far; complete once finished() was emitted.
    [[nodiscard]] const SweepBalance& balance() const { return m_balance; }
    /// Records of an earlier, interrupted run of the same sweep: their configurations are
    /// taken as evaluated (in the strategy too) and not run again. Call before start().
    void setDone(const QVector<SweepRecord>& records);
    /// Whether the winner is confirmed by an A/B against the runner-up (the default).
    void setConfirm(bool confirm) { m_confirm = confirm; }
    void start();
    /// Stops at once: the runs in flight are cancelled, and finished() follows.
    void cancel();

    [[nodiscard]] const SweepSpace* space() const { return m_space.get(); }
    /// Every record so far, the resumed ones first.
    [[nodiscard]] const QVector<SweepRecord>& records() const { return m_records; }
    /// How many configurations the strategy will evaluate at most.
    [[nodiscard]] int total() const;
    [[nodiscard]] int done() const { return int(m_records.size()); }
    [[nodiscard]] std::optional<SweepRecord> best() const;
    [[nodiscard]] bool isRunning() const { return m_running; }

signals:
    /// A configuration's outcome, as it arrives (not for resumed ones).
    void recordAdded(const kernelpad::SweepRecord& record);
    /// The winner of a sweep with a budget other than "accurate" is being timed again with the
    /// project's timing (after the last record, before finished()).
    void retiming(const kernelpad::SweepRecord& record);
    /// That winner's record with accurateMedianMs and accurateMinMs (or accurateError) set;
    /// records() holds it in place of the earlier one.
    void retimed(const kernelpad::SweepRecord& record);
    /// The A/B of the best against the runner-up starts (after the re-timing, if any, or
    /// beside it over several devices). Not for arms whose inputs differ: confirmed() alone.
    void confirming(const kernelpad::SweepRecord& best, const kernelpad::SweepRecord& runnerUp);
    /// The best's record with its confirmation set; records() holds it in place of the earlier
    /// one.
    void confirmed(const kernelpad::SweepRecord& best);
    /// After each record: how many are done of the total.
    void progress(int done, int total);
    /// The end: `error` is empty when the strategy ran out of configurations, else why the
    /// sweep stopped early ("cancelled", no device).
    void finished(const QString& error);

private:
    void pump();
    void onFinished(quint64 tag, const RunResult& result, const QString& device);
    void addRecord(int index, SweepRecord record, bool announce);
    void finish(const QString& error);
    /// Starts timing the best record again with the accurate budget; false when there is
    /// nothing to do (the budget is accurate, nothing passed, or the best is timed already).
    bool startRetime();
    void onRetimed(const RunResult& result);
    /// Starts the A/B of the best against the runner-up; false when there is nothing to
    /// confirm (setConfirm(false), fewer than two passed, or the verdict is in already).
    bool startConfirm();
    void onAbFinished(quint64 tag, const AbResult& result);
    /// The tunables whose values give the runner-up's and the best's configurations (their
    /// indices) different inputs ("n", "n and m"): each one that changes the runner-up's
    /// arguments on its own, else every one that differs.
    [[nodiscard]] QString inputsDifferIn(int runnerUpIndex, int bestIndex) const;
    /// Retimes or confirms, else ends the sweep: what follows the last configuration.
    void finishOrFollowUp();
    /// Once the last configuration is out: tells the evaluator what the follow-up would run
    /// as the records stand (SweepEvaluator::prepareFollowUp()).
    void prepareFollowUp();
    [[nodiscard]] SweepRecord recordFor(int index) const;
    /// Adds a configuration's time on `device` to the balance; its wallMs.
    double account(quint64 tag, const QString& device);
    /// The request of the configuration `key` with the project's own timing, and its index;
    /// nullopt for a key no longer in the space (a resumed record).
    [[nodiscard]] std::optional<std::pair<RunRequest, int>> requestFor(const QString& key) const;

    RunRequest m_base;
    QPointer<SweepEvaluator> m_evaluator;
    std::unique_ptr<SweepSpace> m_space;
    std::unique_ptr<SweepStrategy> m_strategy;
    QHash<QString, SweepRecord> m_done; ///< resumed records by key
    QVector<SweepRecord> m_records;
    QHash<quint64, int> m_inFlight; ///< tag -> configuration index
    QVector<SweepRecord> m_previous;
    SweepCostEstimate::Basis m_costBasis = SweepCostEstimate::Basis::None;
    QElapsedTimer m_clock;             ///< started at the first hand-over
    QHash<quint64, qint64> m_handedNs; ///< tag -> m_clock's time when it was handed over
    qint64 m_lastAnswerNs = -1;
    SweepBalance m_balance;
    quint64 m_nextTag = 1;
    quint64 m_retimeTag = 0;  ///< the re-timing run's tag, 0 when none is in flight
    QString m_retimeKey;      ///< the key of the record being timed again
    quint64 m_confirmTag = 0; ///< the A/B's tag, 0 when none is in flight
    QString m_confirmKey;     ///< the key of the best being confirmed
    QString m_confirmAgainst; ///< the runner-up's key
    bool m_confirm = true;
    bool m_confirmTried = false; ///< startConfirm() ran (at most once per sweep)
    bool m_running = false;
    bool m_pumping = false;
};

} // namespace kernelpad
