#pragma once
// A runner started through a batch system (`cmd:srun ... kernelpad-cli serve`) can be ended by
// it: scancel, the job's time limit, preemption, a failed node, its memory limit. srun and
// slurmstepd say so on the runner's standard error; RunnerConnection reads that tail when the
// runner ends and names the batch system's reason instead of calling it a crash.

#include <QString>
#include <QStringList>

#include <optional>

namespace kernelpad {

/// What the batch system said when it ended a runner's job.
struct BatchSystemEnd {
    QString system;   ///< "Slurm"
    QString reason;   ///< "its job step 12.0 was cancelled (scancel)"
    QStringList said; ///< the lines that say so, as printed (at most a few)

    /// "Slurm stopped it: REASON", for a short note (the pool's loss line, a restart's why).
    [[nodiscard]] QString summary() const;
    /// The lines, as a block to append to a message ("\nSlurm said:\n...").
    [[nodiscard]] QString quoted() const;
    /// The message of a run the runner was in (`why`: "it exited with code 143").
    [[nodiscard]] QString runMessage(const QString& kernel, const QString& why) const;
    /// The message of a request without an answer (a compile, the devices).
    [[nodiscard]] QString unansweredMessage(const QString& why) const;
};

/// Reads the runner's last standard error lines for a batch system's account of its end
/// (slurmstepd's "*** STEP 12.0 ON node CANCELLED AT ... ***", srun's "srun: error: node: task
/// 0: Killed", "srun: Force Terminated job 12", an oom-kill), or nothing when there is none.
/// `batchStep` is the runner's job step as its hello gave it ("12.0", "12" for a batch script;
/// empty when unknown): slurmstepd's line does not always reach srun before the task dies, and
/// then srun's "Job step aborted" with the task's signal is all there is, named with the step.
[[nodiscard]] std::optional<BatchSystemEnd> findBatchSystemEnd(const QString& stderrText,
                                                               const QString& batchStep = {});

} // namespace kernelpad
