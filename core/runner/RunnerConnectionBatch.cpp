#include "core/runner/RunnerConnectionBatch.h"
// The lines come from Slurm 22.05 and later: slurmstepd writes "*** STEP 12.0 ON node CANCELLED
// AT 2026-01-01T10:00:00 [DUE TO TIME LIMIT|PREEMPTION|NODE FAILURE|...] ***" to the step's
// standard error, and srun adds "srun: error: node: task 0: Killed" (or "Terminated") for each
// task it lost. tests/core/tst_slurmrunner.cpp records them from a real srun. slurmstepd's line
// travels through the step's I/O, which srun may already have closed when scancel kills the
// task: then srun prints only "srun: Job step aborted: Waiting up to 4 seconds for job step to
// finish." (slurmctld told it the step ends) and the task's "Terminated".

#include <QRegularExpression>

namespace kernelpad {

namespace {

/// Lines quoted from the batch system, at most.
constexpr int kBatchLinesQuoted = 6;

const QRegularExpression& cancelledLine() {
    static const QRegularExpression re(
        QStringLiteral(
            R"(\*\*\* (STEP|JOB) (\S+) ON (\S+) CANCELLED AT (\S+)(?: DUE TO ([^*,]+))?)"),
        QRegularExpression::CaseInsensitiveOption);
    return re;
}

const QRegularExpression& taskLine() {
    static const QRegularExpression re(QStringLiteral(
        R"(^srun: error: (\S+): tasks? ([0-9,\-]+): (Killed|Terminated|Out Of Memory)\s*$)"));
    return re;
}

const QRegularExpression& forceTerminatedLine() {
    static const QRegularExpression re(
        QStringLiteral(R"(^srun: Force Terminated (?:job|JobId=|StepId=)\s*(\S+))"));
    return re;
}

const QRegularExpression& revokedLine() {
    static const QRegularExpression re(
        QStringLiteral(R"(^srun: (?:error: )?.*allocation (\S+) has been revoked)"));
    return re;
}

const QRegularExpression& abortedLine() {
    static const QRegularExpression re(QStringLiteral(R"(^srun: Job step aborted\b)"));
    return re;
}

const QRegularExpression& outOfMemoryLine() {
    static const QRegularExpression re(QStringLiteral(R"(oom[-_ ]kill|Out Of Memory)"),
                                       QRegularExpression::CaseInsensitiveOption);
    return re;
}

/// The reason slurmstepd's cancellation line gives, as the end of "its job step 12.0 ...".
QString cancelledReason(const QRegularExpressionMatch& m) {
    const QString what = m.captured(1).compare(QLatin1String("STEP"), Qt::CaseInsensitive) == 0
                             ? QStringLiteral("its job step %1").arg(m.captured(2))
                             : QStringLiteral("its job %1").arg(m.captured(2));
    const QString due = m.captured(5).trimmed().toUpper();
    if (due.isEmpty())
        return what + QStringLiteral(" was cancelled (scancel, or the job's owner or an "
                                     "administrator ended it)");
    if (due.startsWith(QLatin1String("TIME LIMIT")))
        return what + QStringLiteral(" reached its time limit (srun --time; ask for more, or "
                                     "start a new runner)");
    if (due.startsWith(QLatin1String("PREEMPTION")))
        return what + QStringLiteral(" was preempted by another job");
    if (due.startsWith(QLatin1String("NODE FAILURE")))
        return what +
               QStringLiteral(" was cancelled because its node %1 failed").arg(m.captured(3));
    if (due.startsWith(QLatin1String("JOB REQUEUE")))
        return what + QStringLiteral(" was requeued");
    return what + QStringLiteral(" was cancelled due to %1").arg(m.captured(5).trimmed());
}

QString taskReason(const QRegularExpressionMatch& m) {
    const QString how = m.captured(3);
    if (how == QLatin1String("Killed"))
        return QStringLiteral("its task on %1 was killed (SIGKILL)").arg(m.captured(1));
    if (how == QLatin1String("Terminated"))
        return QStringLiteral("its task on %1 was terminated (SIGTERM)").arg(m.captured(1));
    return QStringLiteral("its task on %1 ran out of memory").arg(m.captured(1));
}

/// srun's account alone: the step aborted by Slurm, and how its task ended.
QString abortedReason(const QString& batchStep, const QString& task) {
    const QString step = batchStep.isEmpty() ? QStringLiteral("its job step")
                                             : (batchStep.contains(QLatin1Char('.'))
                                                    ? QStringLiteral("its job step %1")
                                                    : QStringLiteral("its job %1"))
                                                   .arg(batchStep);
    return QStringLiteral("%1 was aborted by Slurm (scancel, a time limit or a failed node; srun "
                          "did not say which), and %2")
        .arg(step, task);
}

} // namespace

QString BatchSystemEnd::summary() const {
    return QStringLiteral("%1 stopped it: %2").arg(system, reason);
}

QString BatchSystemEnd::quoted() const {
    return QStringLiteral("\n%1 said:\n%2").arg(system, said.join(QLatin1Char('\n')));
}

QString BatchSystemEnd::runMessage(const QString& kernel, const QString& why) const {
    return QStringLiteral("KernelPad's runner was stopped by %1 while running '%2': %3 (%4). A "
                          "fresh runner will serve the next run (a new job); your source is "
                          "unchanged.%5")
        .arg(system, kernel, reason, why, quoted());
}

QString BatchSystemEnd::unansweredMessage(const QString& why) const {
    return QStringLiteral("KernelPad's runner was stopped by %1 before it answered: %2 (%3).%4")
        .arg(system, reason, why, quoted());
}

std::optional<BatchSystemEnd> findBatchSystemEnd(const QString& stderrText,
                                                 const QString& batchStep) {
    QString cancelled, task, forced, revoked;
    bool outOfMemory = false, aborted = false;
    QStringList said;
    for (const QString& raw : stderrText.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        const QString line = raw.trimmed();
        bool quote = true;
        if (const QRegularExpressionMatch m = cancelledLine().match(line); m.hasMatch())
            cancelled = cancelledReason(m);
        else if (const QRegularExpressionMatch t = taskLine().match(line); t.hasMatch())
            task = taskReason(t);
        else if (const QRegularExpressionMatch f = forceTerminatedLine().match(line); f.hasMatch())
            forced =
                QStringLiteral("its job %1 was ended (srun: Force Terminated)").arg(f.captured(1));
        else if (const QRegularExpressionMatch r = revokedLine().match(line); r.hasMatch())
            revoked = QStringLiteral("its job allocation %1 was revoked").arg(r.captured(1));
        else
            quote = false;
        if (line.startsWith(QLatin1String("slurmstepd")) &&
            outOfMemoryLine().match(line).hasMatch())
            outOfMemory = quote = true;
        if (abortedLine().match(line).hasMatch())
            aborted = quote = true;
        if (quote)
            said << line;
    }
    if (said.isEmpty() || (cancelled.isEmpty() && task.isEmpty() && forced.isEmpty() &&
                           revoked.isEmpty() && !outOfMemory))
        return std::nullopt;
    BatchSystemEnd end;
    end.system = QStringLiteral("Slurm");
    // The most specific account first: slurmstepd's line says why, srun's only how.
    if (outOfMemory)
        end.reason = QStringLiteral("its job went beyond its memory limit and was killed (ask for "
                                    "more with srun --mem)");
    else if (!cancelled.isEmpty())
        end.reason = cancelled;
    else if (!forced.isEmpty())
        end.reason = forced;
    else if (!revoked.isEmpty())
        end.reason = revoked;
    else if (aborted)
        end.reason = abortedReason(batchStep, task);
    else
        end.reason = task;
    while (said.size() > kBatchLinesQuoted)
        said.removeFirst();
    end.said = said;
    return end;
}

} // namespace kernelpad
