#include "core/sweep/PoolSweepEvaluator.h"

#include "core/compile/DiskCompileCache.h"

#include <QJsonDocument>

#include <algorithm>

namespace kernelpad {

namespace {

/// The A/B's runs are tagged apart from the sweep's configurations (whose tags count from 1),
/// each with its device's lane in the bits from kAbLaneShift up.
constexpr quint64 kAbRunTagBit = quint64(1) << 63;
constexpr int kAbLaneShift = 40;
constexpr quint64 kAbLaneMask = (quint64(1) << 16) - 1;

/// A device that has not compiled both arms joins the A/B when compiling them there costs at
/// most this long: a compile the disk cache answers (milliseconds) is worth a share of the A/B
/// (a sweep's takes about a second, bench/RESULTS.md), a full one (CUB's, 1.4 s with the cache
/// off) would cost more than the share saves.
constexpr double kMaxJoinCompileMs = 100;

/// What taking a program from another runner costs, about: its bytes there and back and into
/// the cache (a CUB program's few megabytes), against a compile's second or more.
constexpr double kHandOverMs = 30;

/// The runner's "compiling" step of `result`, 0 when it reported none.
double compilingMs(const RunResult& result) {
    for (const StageTime& s : result.stagesMs)
        if (!s.client && s.stage == QLatin1String("compiling"))
            return s.ms;
    return 0;
}

/// "NVIDIA H200 (sm_90, 132 SMs)": what makes two devices one model for an A/B.
QString modelOf(const DeviceInfo& d) {
    return QStringLiteral("%1 (%2, %3 SMs)").arg(d.name, d.arch()).arg(d.smCount);
}

/// What a runner's compile cache keys a program by, near enough: the same source, name, options
/// and folder compile the same (the timing and the launch do not enter).
QString compileKey(const RunRequest& r) {
    const Project& p = r.project;
    return QStringList{p.sourceName, p.source,
                       QString::fromUtf8(QJsonDocument(p.options.toJson()).toJson()),
                       p.nameExpressions().join(QLatin1Char('\n')), r.projectDir}
        .join(QChar(0));
}

} // namespace

PoolSweepEvaluator::PoolSweepEvaluator(RunnerPool* pool, QObject* parent)
    : SweepEvaluator(parent)
    , m_pool(pool) {
    qRegisterMetaType<kernelpad::AbResult>();
    connect(
        m_pool, &RunnerPool::finished, this,
        [this](quint64 tag, const RunResult& result, int runner, int, const QString& deviceName) {
            if (runner >= 0 && runner < m_deviceOf.size() && !result.device.name.isEmpty())
                m_deviceOf[runner] = result.device;
            if (tag & kAbRunTagBit)
                return takeAbRun(tag, result, runner, deviceName);
            const QString key = m_keyOf.take(tag);
            if (runner >= 0 && result.compile.ok && !key.isEmpty()) {
                m_compiledOn[runner].insert(key);
                m_compilingOn[runner].remove(key); // its run came after the compile
            }
            if (!key.isEmpty())
                m_compileMsOf[key] = std::max(m_compileMsOf.value(key), compilingMs(result));
            emit finished(tag, result, deviceName);
        });
    // A program handed over that did not fit (another compiler, another header) is compiled.
    connect(m_pool, &RunnerPool::handedOver, this, [this](quint64 id, int runner, bool taken) {
        const QString key = m_handOverKey.take(id);
        if (!taken && runner >= 0 && runner < m_compilingOn.size())
            if (auto it = m_compilingOn[runner].find(key); it != m_compilingOn[runner].end())
                it->handedOver = false;
    });
    m_compiledOn.resize(m_pool->runnerCount());
    m_compilingOn.resize(m_pool->runnerCount());
    m_clock.start();
    m_deviceOf.resize(m_pool->runnerCount());
    // This computer's runners inherit this process's environment, so its disk cache.
    m_localDiskCache = !DiskCompileCache::defaultDirectory().isEmpty();
}

std::unique_ptr<PoolSweepEvaluator> PoolSweepEvaluator::over(const QVector<PoolEntry>& entries) {
    auto* pool = new RunnerPool(entries);
    auto evaluator = std::make_unique<PoolSweepEvaluator>(pool);
    pool->setParent(evaluator.get());
    pool->warmUp();
    return evaluator;
}

void PoolSweepEvaluator::start(quint64 tag, const RunRequest& request) {
    const QString key = compileKey(request);
    m_keyOf.insert(tag, key);
    // A program compiled already (the best, timed again) runs where it was compiled, when that
    // runner is free: elsewhere it would be compiled again with the disk cache off.
    m_pool->submit(tag, request, m_pool->pending() == 0 ? runnerWith({key}) : -1);
}

int PoolSweepEvaluator::runnerWith(const QStringList& keys) const {
    for (int i = 0; i < m_compiledOn.size() && i < m_pool->runnerCount(); ++i) {
        if (m_pool->runnerBusy(i) || m_pool->runnerPid(i) == 0)
            continue;
        if (std::all_of(keys.begin(), keys.end(),
                        [&](const QString& k) { return m_compiledOn[i].contains(k); }))
            return i;
    }
    return -1;
}

int PoolSweepEvaluator::readiestRunner(const QStringList& keys) const {
    int best = -1;
    double bestMs = 0;
    for (int i = 0; i < m_compiledOn.size() && i < m_pool->runnerCount(); ++i) {
        if (m_pool->runnerBusy(i) || m_pool->runnerPid(i) == 0)
            continue;
        const double ms = missingCompileMs(i, keys);
        if (best < 0 || ms < bestMs) {
            best = i;
            bestMs = ms;
        }
    }
    return best;
}

void PoolSweepEvaluator::prepareFollowUp(const QVector<RunRequest>& requests) {
    if (m_pool->pending() > 0)
        return; // not the tail yet
    for (int i = 0; i < m_compiledOn.size() && i < m_pool->runnerCount(); ++i) {
        if (m_pool->runnerBusy(i) || m_pool->runnerPid(i) == 0)
            continue;
        for (const RunRequest& request : requests) {
            const QString key = compileKey(request);
            if (!m_compiledOn[i].contains(key))
                provide(i, request, key); // its runs queue behind it
        }
    }
}

int PoolSweepEvaluator::capacity() const {
    return std::max(1, m_pool->liveRunners());
}

bool PoolSweepEvaluator::comparesBesideRuns() const {
    // Only where another device is free of the re-timing: two runners of one GPU would time
    // each other's kernels.
    for (int i = 0; i < m_pool->runnerCount(); ++i)
        for (int j = i + 1; j < m_pool->runnerCount(); ++j)
            if (m_pool->runnerPid(i) != 0 && m_pool->runnerPid(j) != 0 && !sameDevice(i, j))
                return true;
    return false;
}

void PoolSweepEvaluator::cancel() {
    for (AbLane& lane : m_lanes)
        if (lane.driver && !lane.driver->isDone())
            lane.driver->cancel();
    m_pool->cancelAll();
}

void PoolSweepEvaluator::startedCompiling(int runner, const QString& key, bool handedOver) {
    m_compiledOn[runner].insert(key);
    m_compilingOn[runner].insert(key, Ahead{m_clock.elapsed(), handedOver});
}

int PoolSweepEvaluator::donorOf(int runner, const QString& key) const {
    const QString arch =
        m_deviceOf.value(runner).name.isEmpty() ? QString() : m_deviceOf[runner].arch();
    for (int r = 0; r < m_compiledOn.size() && !arch.isEmpty(); ++r)
        if (r != runner && m_pool->runnerPid(r) != 0 && m_compiledOn[r].contains(key) &&
            !m_compilingOn[r].contains(key) && !m_deviceOf[r].name.isEmpty() &&
            m_deviceOf[r].arch() == arch)
            return r;
    return -1;
}

void PoolSweepEvaluator::provide(int runner, const RunRequest& request, const QString& key) {
    // A compile quicker than a hand-over (the disk cache's, a small kernel's) is made there.
    int donor = m_compileMsOf.value(key) > kHandOverMs ? donorOf(runner, key) : -1;
    // Runners of this computer that share a disk cache load it from there.
    const auto local = [this](int r) { return m_pool->runnerEntry(r).spec.isLocal(); };
    if (donor >= 0 && m_localDiskCache && local(runner) && local(donor))
        donor = -1;
    startedCompiling(runner, key, donor >= 0);
    if (donor < 0)
        return m_pool->precompile(runner, request);
    m_handOverKey.insert(m_pool->handOver(donor, runner, request, m_deviceOf[runner].arch()), key);
}

double PoolSweepEvaluator::compileLeftMs(int runner, const QString& key) const {
    if (!m_compiledOn[runner].contains(key))
        return m_compileMsOf.value(key);
    const QHash<QString, Ahead>& handed = m_compilingOn[runner];
    const auto it = handed.constFind(key);
    if (it == handed.constEnd())
        return 0;
    // A runner compiles what it is handed in turn: this compile ends once those handed out
    // before it and itself have taken about as long as the sweep's compiles of them did (a
    // program taken from another runner: kHandOverMs).
    double queuedMs = 0;
    qint64 firstMs = it->sinceMs;
    for (auto q = handed.constBegin(); q != handed.constEnd(); ++q) {
        if (q->sinceMs > it->sinceMs)
            continue;
        queuedMs += q->handedOver ? kHandOverMs : m_compileMsOf.value(q.key());
        firstMs = std::min(firstMs, q->sinceMs);
    }
    return std::max(0.0, queuedMs - double(m_clock.elapsed() - firstMs));
}

double PoolSweepEvaluator::missingCompileMs(int runner, const QStringList& keys) const {
    const auto local = [this](int r) { return m_pool->runnerEntry(r).spec.isLocal(); };
    double ms = 0;
    for (const QString& key : keys) {
        double left = compileLeftMs(runner, key);
        // Compiled by another runner of its arch: handed over.
        if (!m_compiledOn[runner].contains(key) && donorOf(runner, key) >= 0)
            left = std::min(left, kHandOverMs);
        // Compiled by another runner of this computer: the disk cache has it, a load away.
        for (int r = 0; r < m_compiledOn.size() && m_localDiskCache && local(runner); ++r)
            if (r != runner && local(r) && m_compiledOn[r].contains(key))
                left = std::min(left, compileLeftMs(r, key));
        ms += left;
    }
    return ms;
}

bool PoolSweepEvaluator::sameDevice(int a, int b) const {
    const PoolEntry& x = m_pool->runnerEntry(a);
    const PoolEntry& y = m_pool->runnerEntry(b);
    return x.device == y.device && x.spec == y.spec;
}

int PoolSweepEvaluator::besideBusy(int runner) const {
    if (runner < 0)
        return runner;
    for (int i = 0; i < m_pool->runnerCount(); ++i)
        if (i != runner && m_pool->runnerBusy(i) && sameDevice(i, runner))
            return i;
    return runner;
}

QVector<int> PoolSweepEvaluator::abRunners(int primary, const QStringList& keys,
                                           QString* why) const {
    QVector<int> known; // running runners whose device an answer named
    for (int i = 0; i < m_deviceOf.size() && i < m_pool->runnerCount(); ++i)
        if (m_pool->runnerPid(i) != 0 && !m_deviceOf[i].name.isEmpty())
            known.append(i);
    // Two runners of one device would time each other's kernels: a device busy with the best's
    // re-timing takes its A/B on that runner, behind it.
    primary = besideBusy(primary);
    QStringList models;
    for (int i : known)
        if (!models.contains(modelOf(m_deviceOf[i])))
            models << modelOf(m_deviceOf[i]);
    if (models.size() > 1) {
        // A ratio pooled over different GPUs would average two different questions.
        *why = QStringLiteral("the sweep's devices are different models (%1)")
                   .arg(models.join(QStringLiteral(", ")));
        return {primary};
    }
    // One runner per device: the one the A/B would have run on alone first, else the one with
    // the least to compile.
    int reference = known.contains(primary) ? primary : -1;
    if (reference < 0) {
        for (int i : known)
            if (reference < 0 || missingCompileMs(i, keys) < missingCompileMs(reference, keys))
                reference = i;
        reference = besideBusy(reference);
    }
    if (reference < 0)
        return {primary};
    QVector<int> runners{reference};
    double leftOutMs = 0;
    for (int i : known) {
        const int runner = besideBusy(i);
        if (std::any_of(runners.begin(), runners.end(),
                        [&](int r) { return r == runner || sameDevice(r, runner); }))
            continue;
        const double ms = missingCompileMs(runner, keys);
        if (ms <= kMaxJoinCompileMs)
            runners.append(runner);
        else
            leftOutMs = std::max(leftOutMs, ms);
    }
    if (runners.size() == 1 && leftOutMs > 0)
        *why = QStringLiteral("the other devices have not compiled both configurations "
                              "(compiling them took %1 ms)")
                   .arg(leftOutMs, 0, 'f', 0);
    return runners;
}

void PoolSweepEvaluator::compareAb(quint64 tag, const AbOrder& order) {
    m_abTag = tag;
    m_oneDeviceReason.clear();
    // Where both arms are compiled or nearest to it (a compile handed out ahead may still be
    // running), else the first free runner.
    const QString a = compileKey(order.a);
    const QString b = compileKey(order.b);
    const int primary = readiestRunner({a, b});
    const QVector<int> runners = abRunners(primary, {a, b}, &m_oneDeviceReason);
    // A device that joins without both programs takes or compiles them first (its runs queue
    // behind); one alone takes them, or compiles them in its first runs, as ever.
    for (int r : runners) {
        if (r < 0)
            break;
        for (const RunRequest* arm : {&order.a, &order.b}) {
            const QString key = compileKey(*arm);
            if (m_compiledOn[r].contains(key) || (runners.size() < 2 && donorOf(r, key) < 0))
                continue;
            provide(r, *arm, key);
        }
    }
    for (AbLane& lane : m_lanes)
        if (lane.driver)
            lane.driver.release()->deleteLater(); // it may be the one whose answer led here
    // The sweep's times size the blocks only where every device it ran on is one model.
    QSet<QString> models;
    for (const DeviceInfo& d : m_deviceOf)
        if (!d.name.isEmpty())
            models.insert(modelOf(d));
    AbOrder sized = order;
    if (models.size() > 1)
        sized.knownMedianAMs = sized.knownMedianBMs = 0;
    m_lanes.clear();
    m_lanes.resize(size_t(runners.size()));
    for (int i = 0; i < int(runners.size()); ++i) {
        AbOrder share = sized;
        share.settings = order.settings.share(int(runners.size()), i);
        m_lanes[size_t(i)].placed = runners[i];
        // Each run goes to the runner of the lane's first while it lives.
        m_lanes[size_t(i)].driver =
            std::make_unique<AbDriver>(share, [this, i](const RunRequest& request) {
                AbLane& lane = m_lanes[size_t(i)];
                lane.run = kAbRunTagBit | (quint64(i) << kAbLaneShift) | ++lane.runs;
                m_pool->submit(lane.run, request, lane.ranOn >= 0 ? lane.ranOn : lane.placed);
            });
        connect(m_lanes[size_t(i)].driver.get(), &AbDriver::finished, this,
                [this, i](const AbResult& result) { laneFinished(i, result); });
    }
    for (AbLane& lane : m_lanes)
        lane.driver->start();
}

void PoolSweepEvaluator::takeAbRun(quint64 tag, const RunResult& result, int runner,
                                   const QString& device) {
    const size_t index = size_t((tag >> kAbLaneShift) & kAbLaneMask);
    if (index >= m_lanes.size())
        return;
    AbLane& lane = m_lanes[index];
    if (!lane.driver || tag != lane.run)
        return;
    lane.run = 0;
    if (lane.ranOn < 0 && runner >= 0) {
        lane.ranOn = runner;
        lane.device = device;
    }
    if (runner >= 0 && runner != lane.ranOn)
        return lane.driver->fail(RunStatus::CudaError,
                                 QStringLiteral("the runner of the A/B was lost: its blocks would "
                                                "have run on two runners"));
    lane.driver->take(result);
}

void PoolSweepEvaluator::laneFinished(int index, const AbResult& result) {
    AbLane& lane = m_lanes[size_t(index)];
    lane.result = result;
    // The pool's name tells two devices of one model apart ("NVIDIA H200 (device 1)").
    if (!lane.device.isEmpty())
        lane.result->device = lane.device;
    QVector<AbResult> results;
    for (const AbLane& each : m_lanes) {
        if (!each.result)
            return; // another device's A/B is still running
        results.append(*each.result);
    }
    AbResult pooled = poolAbResults(results);
    pooled.oneDeviceReason = m_oneDeviceReason;
    emit abFinished(m_abTag, pooled);
}

} // namespace kernelpad
