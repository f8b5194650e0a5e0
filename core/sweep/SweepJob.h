#pragma once
// A sweep run away from the caller's thread, for the window: the evaluator (one warm runner,
// or the one a factory makes) and the Sweep live on a worker thread with its own event loop,
// the results file is appended there, and every record, the progress and the end come back
// as queued signals. Also what a window and the command line share around a sweep besides
// where its results file lives (SweepResultsPath.h): the text form of a tunable's values,
// and a record applied to a project.

#include "core/run/RunRequest.h"
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
    /// there are taken as done; without, the file is started over. Everything after this call
    /// comes back as signals; false only when a sweep is already running.
    bool start(const RunRequest& base, const QString& resultsPath, bool resume);
    /// Stops the sweep: finished("cancelled") follows.
    void cancel();
    [[nodiscard]] bool isRunning() const { return m_running; }

signals:
    /// The records a resumed sweep starts from and how many configurations it will evaluate
    /// at most, before the first new record.
    void started(const QVector<kernelpad::SweepRecord>& resumed, int total);
    void recordAdded(const kernelpad::SweepRecord& record);
    void progress(int done, int total);
    /// The end: empty when every configuration was evaluated, else why it stopped
    /// ("cancelled", "no CUDA device: ...", the results file's error).
    void finished(const QString& error);

private:
    EvaluatorFactory m_factory;
    QThread* m_thread = nullptr;
    QPointer<SweepWorker> m_worker;
    bool m_running = false;
};

/// SweepJob's half on the worker thread: owns the evaluator, the sweep and the results file
/// there. Internal to SweepJob.
class SweepWorker : public QObject {
    Q_OBJECT
public:
    SweepWorker();
    ~SweepWorker() override;
    void run(const RunRequest& base, const QString& path, bool resume,
             const SweepJob::EvaluatorFactory& factory);
    void cancel();

signals:
    void started(const QVector<kernelpad::SweepRecord>& resumed, int total);
    void recordAdded(const kernelpad::SweepRecord& record);
    void progress(int done, int total);
    void finished(const QString& error);

private:
    // The sweep is destroyed before the evaluator it refers to.
    std::unique_ptr<SweepEvaluator> m_evaluator;
    std::unique_ptr<Sweep> m_sweep;
    SweepResultsFile m_file;
    QString m_appendError;
};

/// A tunable's values as the sweep panel shows them: "8, 16, 32", "1..64 step 8",
/// "powers 2^5..2^10" (or "3..96 x2" when the ends are not powers of the base).
[[nodiscard]] QString sweepValuesText(const SweepValues& values);
/// Reads sweepValuesText()'s forms, and the command line's ("0:64:8", "1:1024:x2"); nullopt
/// with `error` saying what was expected.
[[nodiscard]] std::optional<SweepValues> sweepValuesFromText(const QString& text, QString* error);

/// `project` with `record`'s configuration applied (block, grid, defines, scalar values,
/// shared memory, kernel name), its sweep section kept; nullopt with `error` when the record
/// is not a configuration of the project's sweep or cannot launch.
[[nodiscard]] std::optional<Project> projectWithRecord(const Project& project,
                                                       const SweepRecord& record, QString* error);

} // namespace kernelpad
