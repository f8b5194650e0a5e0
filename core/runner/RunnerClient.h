#pragma once
// The client side of the runner process: starts `kernelpad-cli serve`, keeps it warm between
// runs, and replaces it after a sticky CUDA error, a crash, a watchdog timeout or a cancel.

#include "core/run/RunTypes.h"
#include "core/runner/Protocol.h"

#include <QElapsedTimer>
#include <QObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimer>

#include <memory>
#include <optional>

namespace kernelpad {

/// Talks to one runner process at a time; lives on one thread with an event loop (never
/// blocks it). One run at a time: the Engine queues.
class RunnerClient : public QObject {
    Q_OBJECT
public:
    explicit RunnerClient(QObject* parent = nullptr);
    ~RunnerClient() override;

    /// The runner executable: $KERNELPAD_RUNNER, kernelpad-cli next to this program, or the
    /// one in the build tree. Empty (and `searched` lists where it looked) if none exists.
    [[nodiscard]] static QString findRunner(QStringList* searched = nullptr);
    /// Overrides the command (tests; compute-sanitizer wraps the runner this way).
    void setCommand(const QString& program, const QStringList& arguments);

    /// Runs the request; answered by runFinished(). A request with a sanitizer tool runs in a
    /// separate, one-off runner under compute-sanitizer (the warm runner is left alone) and
    /// its result carries the parsed reports.
    void run(quint64 id, const RunRequest& request);
    /// compute-sanitizer to use instead of findComputeSanitizer()'s (tests).
    void setSanitizerPath(const QString& path) { m_sanitizerPath = path; }
    /// What a sanitized run actually sends: lineinfo on (reports name source lines), one
    /// repetition, no warm-up, fixed count, hot, and time limits scaled by kSanitizerTimeScale.
    [[nodiscard]] static RunRequest sanitizedRequest(const RunRequest& request);
    void requestDevices(quint64 id);
    void requestResources(quint64 id, const RunRequest& request);
    /// Stops the active run at once: the runner is killed (a kernel cannot be interrupted
    /// otherwise) and replaced; the run ends as Cancelled.
    void cancel();
    /// Time allowed for compilation and buffer set-up before the first launch (default 2 min).
    void setPreparationLimitMs(int ms) { m_preparationLimitMs = ms; }
    /// Starts the runner now so the next run does not wait for it.
    void warmUp();

    [[nodiscard]] bool isRunning() const { return m_active.has_value() || m_sanitized; }
    [[nodiscard]] qint64 runnerPid() const;
    /// How many runner processes were started (1 for the first).
    [[nodiscard]] int startCount() const { return m_startCount; }

    /// Extra time a run may take beyond its project time limit before the watchdog kills the
    /// runner (compilation, buffer set-up and copies are not part of the kernel's time).
    static constexpr int kWatchdogGraceMs = 5000;

signals:
    void runProgress(quint64 id, const QString& stage, int done, int total);
    void runFinished(quint64 id, const kernelpad::RunResult& result);
    void devicesChanged(const QVector<kernelpad::DeviceInfo>& devices, const QString& error);
    void resourcesReady(quint64 id, const QString& kernel,
                        const kernelpad::KernelResources& resources);
    /// A new runner replaced one that died; `reason` says why.
    void runnerRestarted(const QString& reason);
    /// A one-off runner has ended after shutdown() (internal: sanitized runs).
    void stopped();

private:
    struct ActiveRun {
        quint64 id = 0;
        QString kernel;
        int timeLimitMs = 0;
    };
    bool ensureStarted(QString* error);
    void runSanitized(quint64 id, const RunRequest& request);
    void onSanitizedResult(quint64 id, const RunResult& result);
    void finishSanitized();
    /// One-off mode: ask the runner to exit, emit stopped() once it has (killed after a grace).
    void shutdown();
    void send(const RunnerMessage& message);
    void onReadyRead();
    void onMessage(const RunnerMessage& message);
    /// Checks the runner's one hello (version, output folder); false after a violation.
    bool acceptHello(const RunnerMessage& message);
    /// Stops a runner that broke the protocol and ends the active run with `what`.
    void protocolViolation(const QString& what);
    /// Re-arms the watchdog for the stage the runner reported (see the .cpp).
    void armKernelWatchdog(const QString& stage);
    void onResult(const RunnerMessage& message);
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onWatchdog();
    void finishActive(RunStatus status, const QString& message);
    void stopProcess();

    QProcess* m_process = nullptr;
    QString m_program;
    QStringList m_arguments;
    LineSplitter m_lines;     ///< the protocol channel, split into bounded lines
    bool m_helloSeen = false; ///< the runner's one hello arrived (and was accepted)
    QString m_outputDir;      ///< the runner's private folder for output buffers
    std::optional<ActiveRun> m_active;
    QTimer m_watchdog;
    QElapsedTimer m_kernelClock; ///< runs while the runner is in a GPU stage of the active run
    qint64 m_kernelUsedMs = 0;   ///< GPU-stage time of the active run before m_kernelClock
    QString m_stopReason;        ///< set when this side kills the runner, so its death is expected
    QStringList m_stderrTail;
    int m_startCount = 0;
    int m_preparationLimitMs = 120000;

    /// Sanitized runs: a child client in one-off mode runs compute-sanitizer around the runner.
    bool m_oneShot = false; ///< never restart the runner; it owns its process group
    QString m_sanitizerPath;
    RunnerClient* m_sanitized = nullptr;           ///< the child while a sanitized run is on
    std::unique_ptr<QTemporaryDir> m_sanitizerDir; ///< holds report.txt; removed afterwards
    quint64 m_sanitizedId = 0;
    RunRequest m_sanitizedRequest;
    std::optional<RunResult> m_sanitizedResult;
    QElapsedTimer m_sanitizedWall;
};

} // namespace kernelpad
