#pragma once
// One interleaved A/B comparison as the Engine drives it (Engine::compareAb): A, then B, each
// run once as a normal run (compiled, verified; its median sizes the blocks), then blocks of
// k timed launches of one arm at a time in ABBA order (core/run/AbRun.h) through the same
// runner, until the interval is narrow enough, the budget is spent or a cap is reached.
//
// Each block is a run of the Engine's queue with a fixed count of k samples: the arm's module
// is loaded (the runner keeps the last one), the buffers the previous block left on the device
// are kept (both arms have the same arguments, abArgumentMismatch() checked it, so the inputs
// are not uploaded again), one launch is verified, the same warm-ups as every run follow, and
// the k launches are timed in chunks behind the blocking kernel (core/run/Measure.h). The
// verified launch of every block means a block of B never times a kernel whose output went
// wrong since its first run. Internal to core/engine.

#include "core/engine/Engine.h"

#include <QElapsedTimer>
#include <QObject>

#include <optional>

namespace kernelpad {

class AbComparison : public QObject {
    Q_OBJECT
public:
    /// Starts at once on `engine` (a channel of its own); answered by finished().
    AbComparison(Engine& engine, quint64 id, const AbOrder& order);
    /// Stops after the current block: finished() follows with Status::Cancelled.
    void cancel();

signals:
    void progress(quint64 id, const QString& stage, int done, int total);
    void finished(quint64 id, const kernelpad::AbResult& result);

private:
    enum class Phase { VerifyA, VerifyB, Blocks, Done };
    void start();
    void runNext();
    void onRunFinished(quint64 runId, const RunResult& result);
    void onRunProgress(quint64 runId, const QString& stage, int done, int total);
    /// The verified first run of an arm: false when it failed (the comparison then ends).
    bool takeVerified(AbArm arm, const RunResult& result);
    void takeBlock(const RunResult& result);
    void finishWithError(RunStatus status, const QString& message);
    void finish(AbResult::Status status);
    [[nodiscard]] RunRequest blockRequest(AbArm arm) const;
    [[nodiscard]] QString armName(AbArm arm) const;

    Engine& m_engine;
    quint64 m_id;
    AbOrder m_order;
    Engine::Channel m_channel;
    Phase m_phase = Phase::VerifyA;
    std::optional<quint64> m_pendingRun;
    std::optional<AbArm> m_pendingArm;
    AbSchedule m_schedule;
    AbAccumulator m_accumulator;
    AbResult m_result;
    QElapsedTimer m_clock;      ///< since the first block
    QElapsedTimer m_wholeClock; ///< since start
    bool m_cancelled = false;
};

} // namespace kernelpad
