#include "core/run/AbDriver.h"

#include "core/io/Trace.h"

#include <algorithm>

namespace kernelpad {

namespace {

/// Samples of each arm's verified first run: its median sizes the blocks.
constexpr int kAbSizingSamples = 30;

} // namespace

AbDriver::AbDriver(const AbOrder& order, StartRun startRun, QObject* parent)
    : QObject(parent)
    , m_order(order)
    , m_startRun(std::move(startRun))
    , m_schedule(order.settings.seed) {
    m_result.a.label = order.labelA;
    m_result.b.label = order.labelB;
    m_order.b.device = m_order.a.device; // one runner, one device
}

void AbDriver::cancel() {
    if (m_phase != Phase::Done)
        m_cancelled = true;
}

void AbDriver::start() {
    m_wholeClock.start();
    if (const QString problem = m_order.settings.validate(); !problem.isEmpty())
        return fail(RunStatus::BadInput, QStringLiteral("A/B settings: %1").arg(problem));
    if (const QString mismatch = abArgumentMismatch(m_order.a.project, m_order.b.project);
        !mismatch.isEmpty())
        return fail(
            RunStatus::BadInput,
            QStringLiteral("B (%1) does not run on A's inputs: %2").arg(m_order.labelB, mismatch));
    if (m_order.knownMedianAMs > 0 && m_order.knownMedianBMs > 0) {
        // Both ran verified already (a sweep's configurations): their medians size the blocks.
        m_result.a.verified = m_result.b.verified = true;
        m_result.a.medianMs = m_order.knownMedianAMs;
        m_result.b.medianMs = m_order.knownMedianBMs;
        startBlocks();
    }
    runNext();
}

void AbDriver::startBlocks() {
    m_phase = Phase::Blocks;
    // Both arms' blocks take the same count, sized by the slower arm so that neither's
    // block runs longer than the target.
    m_result.launchesPerBlock =
        launchesPerBlock(std::max(m_result.a.medianMs, m_result.b.medianMs), m_order.settings);
    m_clock.start();
}

QString AbDriver::armName(AbArm arm) const {
    return arm == AbArm::A ? QStringLiteral("A (%1)").arg(m_order.labelA)
                           : QStringLiteral("B (%1)").arg(m_order.labelB);
}

RunRequest AbDriver::blockRequest(AbArm arm) const {
    RunRequest request = arm == AbArm::A ? m_order.a : m_order.b;
    request.keepOutputs = false;
    request.measureCeiling = false;
    request.sanitizer = SanitizerTool::None;
    // A library baseline would be timed in every block too: it is not what is compared.
    request.project.baseline = BaselineSpec();
    request.repetitions = m_phase == Phase::Blocks ? m_result.launchesPerBlock : kAbSizingSamples;
    return request;
}

void AbDriver::runNext() {
    if (m_cancelled)
        return finish(AbResult::Status::Cancelled);
    AbArm arm = AbArm::A;
    switch (m_phase) {
    case Phase::VerifyA:
        emit progress(QStringLiteral("verifying %1").arg(armName(AbArm::A)), 0, 2);
        break;
    case Phase::VerifyB:
        arm = AbArm::B;
        emit progress(QStringLiteral("verifying %1").arg(armName(AbArm::B)), 1, 2);
        break;
    case Phase::Blocks:
        arm = m_schedule.next();
        emit progress(QStringLiteral("block %1, %2 (%3 launches)")
                          .arg(m_accumulator.blocks() + 1)
                          .arg(arm == AbArm::A ? QStringLiteral("A") : QStringLiteral("B"))
                          .arg(m_result.launchesPerBlock),
                      int(std::min<qint64>(m_clock.elapsed(), m_order.settings.budgetMs)),
                      m_order.settings.budgetMs);
        break;
    case Phase::Done:
        return;
    }
    m_pendingArm = arm;
    m_startRun(blockRequest(arm)); // may come back through take() before it returns
}

void AbDriver::take(const RunResult& result) {
    if (!m_pendingArm || m_phase == Phase::Done)
        return;
    const AbArm arm = *m_pendingArm;
    m_pendingArm.reset();
    if (m_result.device.isEmpty())
        m_result.device = result.device.name;
    if (m_cancelled || result.status == RunStatus::Cancelled)
        return finish(AbResult::Status::Cancelled);
    switch (m_phase) {
    case Phase::VerifyA:
    case Phase::VerifyB:
        if (!takeVerified(arm, result))
            return;
        if (m_phase == Phase::VerifyA) {
            m_phase = Phase::VerifyB;
            break;
        }
        startBlocks();
        break;
    case Phase::Blocks:
        takeBlock(arm, result);
        if (m_phase == Phase::Done)
            return;
        break;
    case Phase::Done:
        return;
    }
    runNext();
}

bool AbDriver::takeVerified(AbArm arm, const RunResult& result) {
    if (result.status != RunStatus::Ok) {
        fail(result.status,
             QStringLiteral("%1: %2 (%3)")
                 .arg(armName(arm), runStatusName(result.status),
                      result.error.isEmpty() ? QStringLiteral("no message") : result.error));
        return false;
    }
    AbArmSummary& summary = arm == AbArm::A ? m_result.a : m_result.b;
    summary.verified = result.verified();
    summary.buffersChecked = int(result.verification.size());
    summary.medianMs = result.timing.medianMs;
    if (result.resources.registers > 0)
        summary.resources = result.resources;
    return true;
}

void AbDriver::takeBlock(AbArm arm, const RunResult& result) {
    if (result.status != RunStatus::Ok)
        return fail(result.status, QStringLiteral("%1, block %2: %3 (%4)")
                                       .arg(armName(arm))
                                       .arg(m_accumulator.blocks() + 1)
                                       .arg(runStatusName(result.status), result.error));
    // Without times no number of blocks gives a verdict: say so now, not at the budget's end.
    if (result.timing.timesMs.isEmpty())
        return fail(RunStatus::BadInput, QStringLiteral("%1, block %2: the runner returned no "
                                                        "timed launches")
                                             .arg(armName(arm))
                                             .arg(m_accumulator.blocks() + 1));
    m_accumulator.add(arm, result.timing);
    AbArmSummary& summary = arm == AbArm::A ? m_result.a : m_result.b;
    ++summary.blocks;
    if (!summary.resources && result.resources.registers > 0) // no verified run gave them
        summary.resources = result.resources;
    summary.launches += result.timing.reps();
    const QString stop = m_accumulator.stopReason(m_order.settings, double(m_clock.elapsed()));
    tracePhase("a/b: block taken, stop checked");
    if (stop.isEmpty())
        return;
    m_result.stopReason = stop;
    AbOptions options;
    options.seed = m_order.settings.seed;
    m_result.verdict = m_accumulator.verdict(options);
    tracePhase("a/b: verdict drawn");
    const AbSamples samples = m_accumulator.samples();
    m_result.a.conditions = samples.a;
    m_result.b.conditions = samples.b;
    m_result.a.medianMs = m_result.verdict.medianAMs;
    m_result.b.medianMs = m_result.verdict.medianBMs;
    m_result.blocks = m_accumulator.blocks();
    if (m_result.verdict.kind == AbVerdict::Kind::TooFewSamples)
        return fail(RunStatus::BadInput, m_result.verdict.reason);
    finish(m_result.verdict.hasVerdict() ? AbResult::Status::Verdict : AbResult::Status::Refused);
}

void AbDriver::fail(RunStatus status, const QString& message) {
    if (m_phase == Phase::Done)
        return;
    m_result.runStatus = status;
    m_result.error = message;
    finish(AbResult::Status::Error);
}

void AbDriver::finish(AbResult::Status status) {
    if (m_phase == Phase::Done)
        return;
    m_phase = Phase::Done;
    m_pendingArm.reset();
    m_result.status = status;
    if (status == AbResult::Status::Cancelled && m_result.error.isEmpty()) {
        m_result.error = QStringLiteral("cancelled");
        m_result.runStatus = RunStatus::Cancelled;
    }
    m_result.elapsedMs = double(m_wholeClock.elapsed());
    emit finished(m_result);
}

} // namespace kernelpad
