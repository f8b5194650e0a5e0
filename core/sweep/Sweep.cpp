#include "core/sweep/Sweep.h"

#include "core/io/Trace.h"
#include "core/sweep/SweepEvaluator.h"

#include <QTimer>

#include <algorithm>
#include <cmath>

namespace kernelpad {

Sweep::Sweep(RunRequest base, SweepEvaluator* evaluator, QObject* parent)
    : QObject(parent)
    , m_base(std::move(base))
    , m_evaluator(evaluator) {
    // Outputs are checked in the runner; copying them back would only cost time.
    m_base.keepOutputs = false;
    connect(evaluator, &SweepEvaluator::finished, this, &Sweep::onFinished);
    connect(evaluator, &SweepEvaluator::abFinished, this, &Sweep::onAbFinished);
}

Sweep::~Sweep() = default;

bool Sweep::prepare(QString* error) {
    m_space = SweepSpace::create(m_base.project, error);
    if (!m_space)
        return false;
    const SweepStrategySpec& strategy = m_base.project.sweep.strategy;
    // A local search goes where its scores lead: an order of its own would mean nothing.
    const SweepCostEstimate estimate = strategy.kind == SweepStrategySpec::Kind::Local
                                           ? SweepCostEstimate()
                                           : estimateSweepCosts(*m_space, m_previous);
    m_costBasis = estimate.basis;
    if (estimate.basis != SweepCostEstimate::Basis::None)
        m_balance.orderedBy = estimate.basisName();
    m_strategy = SweepStrategy::create(strategy, *m_space, estimate.costs);
    return true;
}

void Sweep::setDone(const QVector<SweepRecord>& records) {
    for (const SweepRecord& record : records)
        m_done.insert(record.key, record);
}

int Sweep::total() const {
    return m_strategy ? m_strategy->limit() : 0;
}

std::optional<SweepRecord> Sweep::best() const {
    return bestRecord(m_records, m_base.project.sweep.objective);
}

void Sweep::start() {
    if (!m_strategy || m_running)
        return;
    m_running = true;
    // Started from the event loop, so that a caller connects to every signal first.
    QTimer::singleShot(0, this, &Sweep::pump);
}

void Sweep::cancel() {
    if (!m_running)
        return;
    if (m_evaluator)
        m_evaluator->cancel();
    finish(QStringLiteral("cancelled"));
}

SweepRecord Sweep::recordFor(int index) const {
    const SweepPoint& point = m_space->points()[index];
    SweepRecord record;
    record.key = m_space->key(point);
    record.names = m_space->names();
    record.values = m_space->valuesOf(point);
    return record;
}

void Sweep::pump() {
    if (!m_running || m_pumping)
        return;
    m_pumping = true; // a record added below may come back here through a slot
    const int capacity = m_evaluator ? std::max(1, m_evaluator->capacity()) : 1;
    bool handedOutAll = false;
    while (m_running) {
        const int room = capacity - int(m_inFlight.size());
        if (room <= 0)
            break;
        const QVector<int> next = m_strategy->propose(room);
        handedOutAll = next.isEmpty();
        if (next.isEmpty())
            break;
        for (int index : next) {
            SweepRecord record = recordFor(index);
            if (const auto it = m_done.constFind(record.key); it != m_done.constEnd()) {
                addRecord(index, it.value(), false);
                continue;
            }
            QString why;
            std::optional<Project> project = m_space->project(m_space->points()[index], &why);
            if (!project) {
                record.status = SweepRecord::kInvalid;
                record.error = why;
                addRecord(index, record, true);
                continue;
            }
            RunRequest request = m_base;
            request.project = std::move(*project);
            request.project.timing =
                m_base.project.sweep.timingBudget.apply(request.project.timing);
            const quint64 tag = m_nextTag++;
            m_inFlight.insert(tag, index);
            if (!m_clock.isValid()) {
                m_clock.start();
                tracePhase("sweep: first configuration handed out");
            }
            m_handedNs.insert(tag, m_clock.nsecsElapsed());
            m_evaluator->start(tag, request);
        }
    }
    m_pumping = false;
    // Nothing in flight after the strategy proposed nothing more: it has ended.
    if (m_running && m_inFlight.isEmpty())
        finishOrFollowUp();
    else if (m_running && handedOutAll)
        prepareFollowUp();
}

void Sweep::prepareFollowUp() {
    // A local search proposes nothing while it waits for answers, and then more: its tail is
    // not known in advance.
    if (!m_evaluator || !m_confirm ||
        m_base.project.sweep.strategy.kind == SweepStrategySpec::Kind::Local)
        return;
    const QVector<SweepRecord> sorted = sortedRecords(m_records, m_base.project.sweep.objective);
    QVector<RunRequest> requests;
    for (int i = 0; i < std::min<qsizetype>(2, sorted.size()); ++i)
        if (sorted[i].passed())
            if (std::optional<std::pair<RunRequest, int>> r = requestFor(sorted[i].key))
                requests.append(std::move(r->first));
    if (!requests.isEmpty())
        m_evaluator->prepareFollowUp(requests);
}

void Sweep::finishOrFollowUp() {
    tracePhase("sweep: last configuration answered");
    const bool retiming = startRetime();
    // One device runs the re-timing, then the A/B; over several, the A/B runs on the others
    // while one times the best again (the ranking does not change with that time: score()
    // reads the sweep's own).
    if (retiming && !(m_evaluator && m_evaluator->comparesBesideRuns()))
        return;
    const bool confirming = startConfirm();
    if (!retiming && !confirming)
        finish({});
}

void Sweep::onFinished(quint64 tag, const RunResult& result, const QString& device) {
    const auto it = m_inFlight.constFind(tag);
    if (!m_running || it == m_inFlight.constEnd())
        return;
    const int index = it.value();
    m_inFlight.erase(it);
    if (result.status == RunStatus::DriverUnavailable) {
        // Compiling every configuration without running one would look like a sweep and
        // measure nothing.
        if (m_evaluator)
            m_evaluator->cancel();
        finish(QStringLiteral("no CUDA device: %1").arg(result.error));
        return;
    }
    if (result.status == RunStatus::Cancelled) {
        finish(QStringLiteral("cancelled"));
        return;
    }
    if (tag == m_retimeTag) {
        onRetimed(result);
        return;
    }
    QElapsedTimer recording; // this side's work on the answer, before the next hand-out
    recording.start();
    SweepRecord record = recordFor(index);
    record.status = runStatusName(result.status);
    record.timingBudget = m_base.project.sweep.timingBudget.name();
    record.device = device;
    record.wallMs = account(tag, device);
    m_balance.configurations.append(
        ConfigurationTime::of(record.key, device, record.wallMs, result.stagesMs));
    const qsizetype timeIndex = m_balance.configurations.size() - 1;
    // A property of the device, measured once per runner and device (then read from the disk
    // cache), so every record of a size sweep carries what its chart draws against.
    if (result.timing.ceilingGBs > 0)
        record.ceilingGBs = result.timing.ceilingGBs;
    if (result.status == RunStatus::Ok) {
        record.medianMs = result.timing.medianMs;
        record.minMs = result.timing.minMs;
        record.bandwidthGBs =
            result.timing.bandwidthGBs > 0 ? result.timing.bandwidthGBs : std::nan("");
        const double ratio = result.baseline.ratio(result.timing.medianMs);
        record.baselineRatio = ratio > 0 ? ratio : std::nan("");
        record.energyJ = result.timing.telemetry.energyPerLaunchJ(); // NaN when unmeasured
    } else {
        record.error = result.error.isEmpty() ? runStatusName(result.status) : result.error;
    }
    addRecord(index, record, true);
    m_balance.configurations[timeIndex].client.append(
        StageTime{QStringLiteral("recording"), double(recording.nsecsElapsed()) / 1e6, true});
    pump();
}

double Sweep::account(quint64 tag, const QString& device) {
    const qint64 handed = m_handedNs.take(tag);
    const qint64 now = m_clock.nsecsElapsed();
    const double wallMs = double(now - handed) / 1e6;
    m_lastAnswerNs = now;
    m_balance.wallMs = double(now) / 1e6; // the first hand-over is the clock's zero
    const QString name = device.isEmpty() ? QStringLiteral("no device") : device;
    auto it = std::find_if(m_balance.devices.begin(), m_balance.devices.end(),
                           [&name](const DeviceBusy& d) { return d.device == name; });
    if (it == m_balance.devices.end())
        it = m_balance.devices.insert(m_balance.devices.end(), DeviceBusy{name, 0, 0});
    it->busyMs += wallMs;
    ++it->configurations;
    return wallMs;
}

void Sweep::addRecord(int index, SweepRecord record, bool announce) {
    m_strategy->report(index, record.score(m_base.project.sweep.objective));
    m_records.append(record);
    if (announce)
        emit recordAdded(record);
    emit progress(done(), total());
}

std::optional<std::pair<RunRequest, int>> Sweep::requestFor(const QString& key) const {
    for (int i = 0; i < int(m_space->size()); ++i) {
        if (m_space->key(m_space->points()[i]) != key)
            continue;
        QString why;
        std::optional<Project> project = m_space->project(m_space->points()[i], &why);
        if (!project)
            return std::nullopt;
        RunRequest request = m_base; // the project's own timing: the accurate budget
        request.project = std::move(*project);
        return std::make_pair(std::move(request), i);
    }
    return std::nullopt;
}

bool Sweep::startRetime() {
    if (m_base.project.sweep.timingBudget.isAccurate() || !m_evaluator)
        return false;
    const std::optional<SweepRecord> winner = best();
    if (!winner || winner->isRetimed() || !winner->accurateError.isEmpty())
        return false;
    std::optional<std::pair<RunRequest, int>> request = requestFor(winner->key);
    if (!request)
        return false; // a resumed record of a configuration no longer in the space
    m_retimeTag = m_nextTag++;
    m_retimeKey = winner->key;
    m_inFlight.insert(m_retimeTag, request->second);
    emit retiming(*winner);
    m_evaluator->start(m_retimeTag, request->first);
    return true;
}

bool Sweep::startConfirm() {
    if (!m_confirm || !m_evaluator || m_confirmTried)
        return false;
    m_confirmTried = true;
    const SweepObjective objective = m_base.project.sweep.objective;
    const QVector<SweepRecord> sorted = sortedRecords(m_records, objective);
    // The runner-up is the best other passing configuration that the objective could rank.
    if (sorted.size() < 2 || !std::isfinite(sorted[0].score(objective)) ||
        !std::isfinite(sorted[1].score(objective)))
        return false;
    const SweepRecord& winner = sorted[0];
    const SweepRecord& runnerUp = sorted[1];
    if (winner.confirmation && winner.confirmation->against == runnerUp.key)
        return false; // a resumed sweep: the verdict is in the file
    std::optional<std::pair<RunRequest, int>> a = requestFor(runnerUp.key);
    std::optional<std::pair<RunRequest, int>> b = requestFor(winner.key);
    if (!a || !b)
        return false;
    // Arms that do not run on the same inputs (a size sweep's) have no A/B: say so at once
    // rather than spend the A/B's verified runs on finding it out.
    if (!abArgumentMismatch(a->first.project, b->first.project).isEmpty()) {
        const auto it =
            std::find_if(m_records.begin(), m_records.end(),
                         [&winner](const SweepRecord& r) { return r.key == winner.key; });
        if (it != m_records.end()) {
            it->confirmation = SweepConfirmation::notApplicable(
                runnerUp.key, inputsDifferIn(a->second, b->second), m_base.project.sweep.objective);
            emit confirmed(*it);
        }
        return false;
    }
    AbOrder order;
    order.a = std::move(a->first);
    order.b = std::move(b->first);
    order.labelA = runnerUp.key;
    order.labelB = winner.key;
    // Both ran and were verified in this sweep: their times size the A/B's blocks.
    order.knownMedianAMs = std::isfinite(runnerUp.medianMs) ? runnerUp.medianMs : 0;
    order.knownMedianBMs = std::isfinite(winner.medianMs) ? winner.medianMs : 0;
    m_confirmTag = m_nextTag++;
    m_confirmKey = winner.key;
    m_confirmAgainst = runnerUp.key;
    emit confirming(winner, runnerUp);
    m_evaluator->compareAb(m_confirmTag, order);
    return true;
}

void Sweep::onAbFinished(quint64 tag, const AbResult& result) {
    if (!m_running || tag != m_confirmTag)
        return;
    m_confirmTag = 0;
    if (result.status == AbResult::Status::Cancelled) {
        finish(QStringLiteral("cancelled"));
        return;
    }
    const auto it = std::find_if(m_records.begin(), m_records.end(),
                                 [this](const SweepRecord& r) { return r.key == m_confirmKey; });
    if (it != m_records.end()) {
        it->confirmation =
            SweepConfirmation::fromAb(result, m_confirmAgainst, m_base.project.sweep.objective);
        emit confirmed(*it);
    }
    tracePhase("sweep: confirmation recorded");
    if (m_retimeTag == 0) // else the re-timing beside it ends the sweep
        finish({});
}

QString Sweep::inputsDifferIn(int runnerUpIndex, int bestIndex) const {
    const SweepPoint& from = m_space->points()[runnerUpIndex];
    const SweepPoint& to = m_space->points()[bestIndex];
    const QStringList names = m_space->names();
    QString why;
    const std::optional<Project> original = m_space->project(from, &why);
    QStringList differ;
    QStringList inputs;
    for (int t = 0; t < int(from.size()); ++t) {
        if (from[t] == to[t])
            continue;
        differ << names[t];
        // The runner-up with this one tunable of the best's: its inputs change with it alone.
        SweepPoint changed = from;
        changed[t] = to[t];
        const std::optional<Project> project = m_space->project(changed, &why);
        if (original && project && !abArgumentMismatch(*original, *project).isEmpty())
            inputs << names[t];
    }
    const QStringList named = inputs.isEmpty() ? differ : inputs;
    if (named.size() <= 1)
        return named.join(QString());
    return QStringList(named.mid(0, named.size() - 1)).join(QStringLiteral(", ")) +
           QStringLiteral(" and ") + named.last();
}

void Sweep::onRetimed(const RunResult& result) {
    m_retimeTag = 0;
    const auto it = std::find_if(m_records.begin(), m_records.end(),
                                 [this](const SweepRecord& r) { return r.key == m_retimeKey; });
    if (it != m_records.end()) {
        if (result.status == RunStatus::Ok) {
            it->accurateMedianMs = result.timing.medianMs;
            it->accurateMinMs = result.timing.minMs;
        } else {
            it->accurateError =
                result.error.isEmpty() ? runStatusName(result.status) : result.error;
        }
        emit retimed(*it);
    }
    if (m_confirmTag != 0)
        return; // the A/B beside it ends the sweep
    if (!startConfirm())
        finish({});
}

void Sweep::finish(const QString& error) {
    if (!m_running)
        return;
    m_running = false;
    m_inFlight.clear();
    m_handedNs.clear();
    if (m_lastAnswerNs >= 0)
        m_balance.followUpMs = double(m_clock.nsecsElapsed() - m_lastAnswerNs) / 1e6;
    m_retimeTag = 0;
    m_confirmTag = 0;
    m_confirmTried = false;
    tracePhase("sweep: finished");
    emit finished(error);
}

} // namespace kernelpad
