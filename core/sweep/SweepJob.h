#pragma once
// A sweep run away from the caller's thread, for the window: the evaluator (one warm runner,
// or the one a factory makes) and the Sweep live on a worker thread with its own event loop,
// the results file is appended there, and every record, the progress and the end come back
// as queued signals. The Engine owns each SweepJob (Engine::sweep); the window never makes one.

#include "core/project/RunnerSpec.h"
#include "core/run/RunRequest.h"
#include "core/sweep/SweepBalance.h"
#include "core/sweep/SweepForm.h"
#include "core/sweep/SweepResults.h"
#include "core/sweep/SweepResultsPath.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <QVector>

#include <functional>
#include <memory>
#include <optional>

class QThread;

namespace kernelpad {

class SweepEvaluator;
class Sweep;
class SweepWorker;

/// Runs one sweep on a thread of its own. Made and used on one thread (the window's).
class SweepJob : public QObject {
    Q_OBJECT
public:
    /// Makes the evaluator, called on the worker thread; empty: a RunnerSweepEvaluator with a
    /// runner of its own.
    using EvaluatorFactory = std::function<std::unique_ptr<SweepEvaluator>()>;

    explicit SweepJob(EvaluatorFactory factory = {}, QObject* parent = nullptr);
    /// Cancels a running sweep and waits for the worker to end (its runner to stop).
    ~SweepJob() override;

    /// Starts `base`'s sweep, recording into `resultsPath`: with `resume`, the records already
    /// there are taken as done; without, the file is started over. With `confirm`, the winner
    /// is confirmed by an A/B against the runner-up (Sweep::setConfirm). Everything after this
    /// call comes back as signals; false only when a sweep is already running.
    bool start(const RunRequest& base, const QString& resultsPath, bool resume,
               bool confirm = true);
    /// Makes the evaluator now, on the worker thread, so that its runners start (and
    /// initialise the driver) while the caller still prepares the sweep; the next start() uses
    /// it. Nothing once started.
    void warmUp();
    /// Gives a pool made by warmUp() before the devices were listed their names (the next
    /// start()'s entries, RunnerPool::nameDevices).
    void nameDevices(const QVector<PoolEntry>& entries);
    /// Stops the sweep: finished("cancelled") follows.
    void cancel();
    [[nodiscard]] bool isRunning() const { return m_running; }
    /// Records of an earlier run of the same sweep for the next start() (Sweep::setPrevious);
    /// a start without `resume` also reads those of the file it starts over.
    void setPrevious(const QVector<SweepRecord>& records) { m_previous = records; }

signals:
    /// The records a resumed sweep starts from and how many configurations it will evaluate
    /// at most, before the first new record.
    void started(const QVector<kernelpad::SweepRecord>& resumed, int total);
    void recordAdded(const kernelpad::SweepRecord& record);
    void progress(int done, int total);
    /// The winner is timed again with the accurate budget (Sweep::retiming), then its record
    /// with both times, appended to the results file again (Sweep::retimed).
    void retiming(const kernelpad::SweepRecord& record);
    void retimed(const kernelpad::SweepRecord& record);
    /// The A/B of the winner against the runner-up (Sweep::confirming), then the winner's
    /// record with its verdict, appended to the results file again (Sweep::confirmed).
    void confirming(const kernelpad::SweepRecord& best, const kernelpad::SweepRecord& runnerUp);
    void confirmed(const kernelpad::SweepRecord& best);
    /// Each device's busy share (Sweep::balance()), right before finished().
    void balanced(const kernelpad::SweepBalance& balance);
    /// The end: empty when every configuration was evaluated, else why it stopped
    /// ("cancelled", "no CUDA device: ...", the results file's error).
    void finished(const QString& error);

private:
    EvaluatorFactory m_factory;
    QVector<SweepRecord> m_previous;
    QThread* m_thread = nullptr;
    QPointer<SweepWorker> m_worker;
    bool m_running = false;
    bool m_warm = false; ///< m_worker holds an evaluator made by warmUp(), not yet run

    /// A fresh worker on the thread (started on first use), its signals forwarded.
    SweepWorker* makeWorker();
};

/// SweepJob's half on the worker thread: owns the evaluator, the sweep and the results file
/// there. Internal to SweepJob.
class SweepWorker : public QObject {
    Q_OBJECT
public:
    SweepWorker();
    ~SweepWorker() override;
    void run(const RunRequest& base, const QString& path, bool resume, bool confirm,
             const SweepJob::EvaluatorFactory& factory, QVector<SweepRecord> previous);
    /// The evaluator, once run() or warmUp() made it.
    [[nodiscard]] SweepEvaluator* evaluator() const { return m_evaluator.get(); }
    /// Makes the evaluator ahead of run() and starts its runners (SweepJob::warmUp()).
    void warmUp(const SweepJob::EvaluatorFactory& factory);
    void cancel();

signals:
    void started(const QVector<kernelpad::SweepRecord>& resumed, int total);
    void recordAdded(const kernelpad::SweepRecord& record);
    void progress(int done, int total);
    void retiming(const kernelpad::SweepRecord& record);
    void retimed(const kernelpad::SweepRecord& record);
    void confirming(const kernelpad::SweepRecord& best, const kernelpad::SweepRecord& runnerUp);
    void confirmed(const kernelpad::SweepRecord& best);
    void balanced(const kernelpad::SweepBalance& balance);
    void finished(const QString& error);

private:
    /// Appends `record` again (a later line of a key replaces the earlier one when read).
    void appendAgain(const SweepRecord& record);

    // The sweep is destroyed before the evaluator it refers to.
    std::unique_ptr<SweepEvaluator> m_evaluator;
    std::unique_ptr<Sweep> m_sweep;
    SweepResultsFile m_file;
    QString m_appendError;
};

} // namespace kernelpad
