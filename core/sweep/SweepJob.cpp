#include "core/sweep/SweepJob.h"

#include "core/io/Trace.h"
#include "core/runner/RunnerClient.h"
#include "core/runner/RunnerPool.h"
#include "core/sweep/PoolSweepEvaluator.h"
#include "core/sweep/Sweep.h"
#include "core/sweep/SweepEvaluator.h"
#include "core/sweep/SweepSpace.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QThread>

#include <cmath>

namespace kernelpad {

SweepWorker::SweepWorker() = default;
SweepWorker::~SweepWorker() = default;

void SweepWorker::appendAgain(const SweepRecord& record) {
    QString why;
    if (!m_file.append(record, &why))
        m_appendError = why;
}

void SweepWorker::run(const RunRequest& base, const QString& path, bool resume, bool confirm,
                      const SweepJob::EvaluatorFactory& factory, QVector<SweepRecord> previous) {
    // The times of the run being started over order this one longest first; a file that does
    // not read is only removed.
    QString unread;
    if (!resume && QFile::exists(path))
        if (std::optional<QVector<SweepRecord>> old = readSweepResults(path, &unread))
            previous += *old;
    if (!resume && QFile::exists(path) && !QFile::remove(path)) {
        emit finished(QStringLiteral("%1: cannot start over: the file cannot be removed")
                          .arg(QDir::toNativeSeparators(path)));
        return;
    }
    if (!m_evaluator)
        m_evaluator = factory ? factory() : std::make_unique<RunnerSweepEvaluator>();
    m_sweep = std::make_unique<Sweep>(base, m_evaluator.get());
    m_sweep->setPrevious(previous);
    QString error;
    if (!m_sweep->prepare(&error) || !m_file.open(path, &error)) {
        emit finished(error);
        return;
    }
    m_sweep->setDone(m_file.existing());
    m_sweep->setConfirm(confirm);
    connect(m_sweep.get(), &Sweep::recordAdded, this, [this](const SweepRecord& record) {
        QString why;
        if (!m_file.append(record, &why)) {
            m_appendError = why;
            m_sweep->cancel();
        }
        emit recordAdded(record);
    });
    connect(m_sweep.get(), &Sweep::progress, this, &SweepWorker::progress);
    connect(m_sweep.get(), &Sweep::retiming, this, &SweepWorker::retiming);
    connect(m_sweep.get(), &Sweep::retimed, this, [this](const SweepRecord& record) {
        appendAgain(record);
        emit retimed(record);
    });
    connect(m_sweep.get(), &Sweep::confirming, this, &SweepWorker::confirming);
    connect(m_sweep.get(), &Sweep::confirmed, this, [this](const SweepRecord& record) {
        appendAgain(record);
        emit confirmed(record);
    });
    connect(m_sweep.get(), &Sweep::finished, this, [this](const QString& why) {
        emit balanced(m_sweep->balance());
        emit finished(m_appendError.isEmpty() ? why : m_appendError);
    });
    emit started(m_file.existing(), m_sweep->total());
    m_sweep->start();
}

void SweepWorker::warmUp(const SweepJob::EvaluatorFactory& factory) {
    if (m_evaluator)
        return;
    m_evaluator = factory ? factory() : std::make_unique<RunnerSweepEvaluator>();
    // Asking each runner for its devices has it initialise the driver before the first run.
    if (auto* single = qobject_cast<RunnerSweepEvaluator*>(m_evaluator.get())) {
        single->client()->warmUp();
        single->client()->requestDevices(0);
    } else if (auto* pool = qobject_cast<PoolSweepEvaluator*>(m_evaluator.get())) {
        pool->pool()->warmUpDrivers();
    }
}

void SweepWorker::cancel() {
    if (m_sweep)
        m_sweep->cancel();
}

SweepJob::SweepJob(EvaluatorFactory factory, QObject* parent)
    : QObject(parent)
    , m_factory(std::move(factory)) {
    qRegisterMetaType<kernelpad::SweepRecord>();
    qRegisterMetaType<QVector<kernelpad::SweepRecord>>();
    qRegisterMetaType<kernelpad::SweepBalance>();
}

SweepJob::~SweepJob() {
    if (!m_thread)
        return;
    if (m_worker) {
        SweepWorker* worker = m_worker;
        // Cancels, then stops the runner on its own thread.
        QMetaObject::invokeMethod(
            worker,
            [worker] {
                worker->cancel();
                delete worker;
            },
            Qt::BlockingQueuedConnection);
        tracePhase("sweep: runners told to exit"); // KERNELPAD_TRACE: where the exit goes
    }
    m_thread->quit();
    m_thread->wait();
    delete m_thread;
    tracePhase("sweep: thread ended");
}

SweepWorker* SweepJob::makeWorker() {
    if (!m_thread) {
        m_thread = new QThread;
        m_thread->setObjectName(QStringLiteral("sweep"));
        m_thread->start();
    }
    if (m_worker) {
        SweepWorker* old = m_worker;
        QMetaObject::invokeMethod(
            old, [old] { delete old; }, Qt::BlockingQueuedConnection);
    }
    auto* worker = new SweepWorker;
    worker->moveToThread(m_thread);
    m_worker = worker;
    connect(worker, &SweepWorker::started, this, &SweepJob::started);
    connect(worker, &SweepWorker::recordAdded, this, &SweepJob::recordAdded);
    connect(worker, &SweepWorker::progress, this, &SweepJob::progress);
    connect(worker, &SweepWorker::retiming, this, &SweepJob::retiming);
    connect(worker, &SweepWorker::retimed, this, &SweepJob::retimed);
    connect(worker, &SweepWorker::confirming, this, &SweepJob::confirming);
    connect(worker, &SweepWorker::confirmed, this, &SweepJob::confirmed);
    connect(worker, &SweepWorker::balanced, this, &SweepJob::balanced);
    connect(worker, &SweepWorker::finished, this, [this](const QString& error) {
        m_running = false;
        emit finished(error);
    });
    return worker;
}

void SweepJob::warmUp() {
    if (m_running || m_warm)
        return;
    SweepWorker* worker = makeWorker();
    m_warm = true;
    QMetaObject::invokeMethod(
        worker, [worker, factory = m_factory] { worker->warmUp(factory); }, Qt::QueuedConnection);
}

bool SweepJob::start(const RunRequest& base, const QString& resultsPath, bool resume,
                     bool confirm) {
    if (m_running)
        return false;
    // The worker warmUp() made keeps its evaluator (its runners started); otherwise a new one.
    SweepWorker* worker = m_warm && m_worker ? m_worker.data() : makeWorker();
    m_warm = false;
    m_running = true;
    QMetaObject::invokeMethod(
        worker,
        [worker, base, resultsPath, resume, confirm, factory = m_factory, previous = m_previous] {
            worker->run(base, resultsPath, resume, confirm, factory, previous);
        },
        Qt::QueuedConnection);
    return true;
}

void SweepJob::nameDevices(const QVector<PoolEntry>& entries) {
    if (!m_worker)
        return;
    SweepWorker* worker = m_worker;
    QMetaObject::invokeMethod(
        worker,
        [worker, entries] {
            if (auto* pool = qobject_cast<PoolSweepEvaluator*>(worker->evaluator()))
                pool->pool()->nameDevices(entries);
        },
        Qt::QueuedConnection);
}

void SweepJob::cancel() {
    if (!m_running || !m_worker)
        return;
    SweepWorker* worker = m_worker;
    QMetaObject::invokeMethod(
        worker, [worker] { worker->cancel(); }, Qt::QueuedConnection);
}

} // namespace kernelpad
