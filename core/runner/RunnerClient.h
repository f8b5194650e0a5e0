#pragma once
// The client side of the runner process: keeps one `kernelpad-cli serve` warm between runs
// (a RunnerConnection) and replaces it after a sticky CUDA error, a crash, a watchdog timeout
// or a cancel; a run with a compute-sanitizer tool goes to a SanitizerRun instead.

#include "core/project/RunnerSpec.h"
#include "core/run/RunTypes.h"

#include <QHash>
#include <QObject>

namespace kernelpad {

class RunnerConnection;
class SanitizerRun;

/// Talks to one runner process at a time; lives on one thread with an event loop (never
/// blocks it). One run at a time: the Engine queues.
class RunnerClient : public QObject {
    Q_OBJECT
public:
    explicit RunnerClient(QObject* parent = nullptr);
    ~RunnerClient() override;

    /// The runner executable (RunnerConnection::findRunner()).
    [[nodiscard]] static QString findRunner(QStringList* searched = nullptr);
    /// Overrides the command (tests; sanitized runs put compute-sanitizer in front of it).
    void setCommand(const QString& program, const QStringList& arguments);
    /// Where the runner runs (RunnerConnection::setSpec): a runner of another spec is stopped
    /// and the next request starts the new one.
    bool setSpec(const RunnerSpec& spec, QString* error);
    [[nodiscard]] const RunnerSpec& spec() const;
    /// Starts `spec`'s runner, asks for its devices and waits for them in a local event loop
    /// (a command-line tool's use; never on a window's thread). Empty with `error` set when the
    /// runner could not be reached or has no devices.
    [[nodiscard]] static QVector<DeviceInfo> devicesOf(const RunnerSpec& spec, QString* error);
    /// As devicesOf, for a compile in `spec`'s runner; a failed result's log says why.
    [[nodiscard]] static CompileResult compileIn(const RunnerSpec& spec, const RunRequest& request);

    /// Runs the request; answered by runFinished(). A request with a sanitizer tool runs in a
    /// separate, one-off runner under compute-sanitizer (SanitizerRun; the warm runner is left
    /// alone) and its result carries the parsed reports.
    void run(quint64 id, const RunRequest& request);
    /// compute-sanitizer to use instead of findComputeSanitizer()'s (tests).
    void setSanitizerPath(const QString& path) { m_sanitizerPath = path; }
    void requestDevices(quint64 id);
    void requestResources(quint64 id, const RunRequest& request);
    /// Compiles in the runner (RunnerConnection::requestCompile); answered by compiled().
    /// `program`, another runner's (programReady()), is taken instead when it is this compile.
    void requestCompile(quint64 id, const RunRequest& request, const QByteArray& program = {});
    /// The program the runner compiled for `request` and `arch` (RunnerConnection::
    /// requestProgram); answered by programReady().
    void requestProgram(quint64 id, const RunRequest& request, const QString& arch);
    /// Stops the active run at once: the runner is killed (a kernel cannot be interrupted
    /// otherwise) and replaced; the run ends as Cancelled.
    void cancel();
    /// Time allowed for compilation and buffer set-up before the first launch (default 2 min).
    void setPreparationLimitMs(int ms);
    /// Starts the runner now so the next run does not wait for it.
    void warmUp();

    [[nodiscard]] bool isRunning() const;
    [[nodiscard]] qint64 runnerPid() const;
    /// How many runner processes were started (1 for the first); sanitized runs not counted.
    [[nodiscard]] int startCount() const;

    /// Extra time a run may take beyond its project time limit before the watchdog kills the
    /// runner (compilation, buffer set-up and copies are not part of the kernel's time).
    static constexpr int kWatchdogGraceMs = 5000;

    /// Streamed buffers for a runner that shares no file system with this computer
    /// (RunnerConnection::setStreamBuffers; off by default, KERNELPAD_STREAM_BUFFERS=1 on).
    void setStreamBuffers(bool on);
    [[nodiscard]] bool streamBuffers() const;
    /// Outputs larger than this stay on a streaming runner (RunnerConnection).
    void setKeepBeyondBytes(qint64 bytes);
    [[nodiscard]] qint64 keepBeyondBytes() const;
    /// A range of an output kept on the runner (OutputBuffer::keptRun); answered by fetched().
    /// When the runner no longer has it (it restarted or ended, a later run replaced it, the
    /// runner was changed) the answer is keptOutputGoneMessage()'s sentence, without asking.
    void fetch(quint64 id, quint64 run, const QString& buffer, qint64 offset, qint64 bytes);
    /// "this output was kept on gpu-box and is gone: the runner restarted; run again to see it"
    [[nodiscard]] static QString keptOutputGoneMessage(const QString& where, const QString& why);

signals:
    void fetched(quint64 id, const QByteArray& data, const QString& error);
    void runProgress(quint64 id, const QString& stage, int done, int total);
    void runFinished(quint64 id, const kernelpad::RunResult& result);
    void devicesChanged(const QVector<kernelpad::DeviceInfo>& devices, const QString& error);
    void resourcesReady(quint64 id, const QString& kernel,
                        const kernelpad::KernelResources& resources);
    void compiled(quint64 id, const kernelpad::CompileResult& result);
    void programReady(quint64 id, const QByteArray& program, const QString& error);
    /// A new runner replaced one that died; `reason` says why.
    void runnerRestarted(const QString& reason);

private:
    void runSanitized(quint64 id, const RunRequest& request);
    void onSanitizedFinished(quint64 id, const RunResult& result);
    /// Why run `run`'s kept outputs are no longer on the runner, empty while they are.
    [[nodiscard]] QString keptGoneReason(quint64 run) const;
    /// The runner that kept the outputs, for the messages.
    [[nodiscard]] QString keptWhere() const;
    void onFetched(quint64 id, const QByteArray& data, const QString& error);

    /// The run whose outputs the runner keeps now (the runner keeps one run's: RunnerServer).
    struct KeptRun {
        quint64 run = 0;
        int startCount = 0;         ///< the runner process that holds them
        bool runnerChanged = false; ///< setSpec() chose another runner since
        QString where;              ///< the runner's name then
    };
    KeptRun m_kept;
    quint64 m_lastRun = 0;   ///< the last run sent to the warm runner (it replaces what is kept)
    bool m_poisoned = false; ///< the result about to arrive is from a runner that is exiting
    struct FetchInFlight {
        quint64 run = 0;
        QString buffer;
    };
    QHash<quint64, FetchInFlight> m_fetches; ///< fetch id -> what it asked for

    RunnerConnection* m_runner; ///< the warm runner, a child
    QString m_sanitizerPath;
    SanitizerRun* m_sanitized = nullptr; ///< a child while a sanitized run is on
};

} // namespace kernelpad
