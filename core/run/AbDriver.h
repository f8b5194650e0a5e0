#pragma once
// The steps of one interleaved A/B comparison, apart from what runs them: A, then B, each run
// once as a normal run (compiled, verified; its median sizes the blocks; skipped when the order
// knows both medians from verified runs, as a sweep does), then blocks of k
// timed launches of one arm at a time in ABBA order (AbRun.h) until the interval is narrow
// enough, the budget is spent or a cap is reached. Whoever owns a runner gives the driver a
// function that starts one run and hands it each answer (take()): the Engine's queue
// (core/engine/AbComparison.h) and a sweep's own runner (core/sweep/SweepEvaluator.h) both do.
//
// Each block is a run with a fixed count of k samples on the same runner: the arm's module is
// loaded (the runner keeps the last one), the buffers the previous block left on the device
// are kept (both arms have the same arguments, abArgumentMismatch() checked it, so the inputs
// are not uploaded again), one launch is verified, the same warm-ups as every run follow, and
// the k launches are timed in chunks behind the blocking kernel (core/run/Measure.h). The
// verified launch of every block means a block of B never times a kernel whose output went
// wrong since its first run.

#include "core/run/AbRun.h"
#include "core/run/RunRequest.h"

#include <QElapsedTimer>
#include <QObject>

#include <functional>
#include <optional>

namespace kernelpad {

/// What to compare (Engine::compareAb, a sweep's confirmation).
struct AbOrder {
    RunRequest a;   ///< the device is A's; B runs on it too
    RunRequest b;   ///< its arguments must match A's (abArgumentMismatch)
    QString labelA; ///< how the result names the arms ("saxpy.kpad", "version 3")
    QString labelB;
    AbSettings settings;
    /// The arms' medians from runs already made and verified on a device of this model (a
    /// sweep's records): when both are above 0 they size the blocks and the verified first
    /// runs are skipped (each block still verifies one launch).
    double knownMedianAMs = 0;
    double knownMedianBMs = 0;
};

/// Drives one comparison through a caller's runner, one run at a time.
class AbDriver : public QObject {
    Q_OBJECT
public:
    /// Starts one run; its answer comes back through take(). It may call take() before it
    /// returns (a runner that cannot start answers at once).
    using StartRun = std::function<void(const RunRequest& request)>;

    AbDriver(const AbOrder& order, StartRun startRun, QObject* parent = nullptr);
    /// Checks the settings and the arguments, then starts A's verified run (or the first
    /// block, when the order knows both medians).
    void start();
    /// The answer to the run started last.
    void take(const RunResult& result);
    /// Ends the comparison with an error now (the caller's runner went away, ...).
    void fail(RunStatus status, const QString& message);
    /// Ends at the next answer (or at start()) with Status::Cancelled; the caller cancels the
    /// run in flight.
    void cancel();
    [[nodiscard]] bool isDone() const { return m_phase == Phase::Done; }
    [[nodiscard]] bool isRunPending() const { return m_pendingArm.has_value(); }

signals:
    /// What runs now ("verifying A (...)", "block 3, B (120 launches)"): done of total is
    /// 0..2 while verifying, then milliseconds of the budget.
    void progress(const QString& stage, int done, int total);
    void finished(const kernelpad::AbResult& result);

private:
    enum class Phase { VerifyA, VerifyB, Blocks, Done };
    void runNext();
    /// The verified first run of an arm: false when it failed (the comparison then ends).
    bool takeVerified(AbArm arm, const RunResult& result);
    /// Both arms sized: the blocks begin.
    void startBlocks();
    void takeBlock(AbArm arm, const RunResult& result);
    void finish(AbResult::Status status);
    [[nodiscard]] RunRequest blockRequest(AbArm arm) const;
    [[nodiscard]] QString armName(AbArm arm) const;

    AbOrder m_order;
    StartRun m_startRun;
    Phase m_phase = Phase::VerifyA;
    std::optional<AbArm> m_pendingArm;
    AbSchedule m_schedule;
    AbAccumulator m_accumulator;
    AbResult m_result;
    QElapsedTimer m_clock;      ///< since the first block
    QElapsedTimer m_wholeClock; ///< since start
    bool m_cancelled = false;
};

} // namespace kernelpad
