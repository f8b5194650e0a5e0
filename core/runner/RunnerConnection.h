#pragma once
// One runner process and the protocol to it (Protocol.h): starts it, checks its one hello,
// sends requests, turns its answers into values, and watches the active run with a watchdog.
// It never starts a successor by itself: it says what happened and its owner decides
// (RunnerClient keeps one warm and replaces it; ToolWrappedRun uses one once). The process is
// RunnerConnection.cpp, the acting on the runner's answers RunnerConnectionAnswers.cpp; the
// protocol's reading and writing is a class of its own, RunnerCodec, and so are the streamed
// transfers, RunnerTransfers: this one owns one of each and feeds them.

#include "core/io/JsonFields.h"
#include "core/project/RunnerSpec.h"
#include "core/run/RunStage.h"
#include "core/run/RunTypes.h"
#include "core/runner/Protocol.h"
#include "core/runner/RunnerCodec.h"
#include "core/runner/RunnerTransfers.h"

#include <QHash>

#include <QElapsedTimer>
#include <QObject>
#include <QProcess>
#include <QTimer>

#include <optional>

namespace kernelpad {

/// Why this side stopped the runner (or expects it to end), so that its end is not taken for a
/// crash: RunnerConnection's state between a stop it asked for and the process's exit.
enum class StopReason {
    None,     ///< nothing asked: an end now is a crash or a failed start
    Switch,   ///< setSpec() named another runner
    Cancel,   ///< cancel(): asked to stop between repetitions, killed after a grace
    Protocol, ///< the runner broke the protocol
    Poisoned, ///< a sticky CUDA error: the runner exits by itself
    Timeout,  ///< the watchdog: the kernel ran past its time limit
    Start,    ///< it never became a runner (no hello, wrong version, ...)
    Shutdown, ///< shutdown(): asked to exit
};
/// The reason as killed() and the runner's restart note name it ("cancel", "timeout").
[[nodiscard]] QString toString(StopReason reason);

/// A runner process and its protocol channel; lives on one thread with an event loop (never
/// blocks it). One run at a time.
class RunnerConnection : public QObject {
    Q_OBJECT
public:
    explicit RunnerConnection(QObject* parent = nullptr);
    /// Tells a runner between runs to exit and kills one in a run (with its group), without
    /// waiting for either to end: a runner's exit waits for the driver's context teardown.
    ~RunnerConnection() override;

    /// The runner executable: $KERNELPAD_RUNNER, kernelpad-cli next to this program, or the
    /// one in the build tree. Empty (and `searched` lists where it looked) if none exists.
    [[nodiscard]] static QString findRunner(QStringList* searched = nullptr);
    /// What start() runs (until set: $KERNELPAD_RUNNER_SPEC's runner, else findRunner()'s
    /// `serve`). A local spec.
    void setCommand(const QString& program, const QStringList& arguments);
    /// Runs the runner `spec` describes (its command, its hello limit, its messages); a runner
    /// process of another spec is stopped. False with a sentence in `error` for a spec that
    /// cannot be used (the command is left as it was).
    bool setSpec(const RunnerSpec& spec, QString* error);
    [[nodiscard]] const RunnerSpec& spec() const { return m_spec; }
    [[nodiscard]] const QString& program() const { return m_program; }
    [[nodiscard]] const QStringList& arguments() const { return m_arguments; }
    /// Start the process in a process group of its own and kill the whole group when it is
    /// stopped: a tool that starts the runner (compute-sanitizer) goes with it.
    void setOwnProcessGroup(bool own) { m_ownGroup = own; }
    /// Time allowed for compilation and buffer set-up before the first launch (default 2 min).
    void setPreparationLimitMs(int ms) { m_preparationLimitMs = ms; }
    [[nodiscard]] int preparationLimitMs() const { return m_preparationLimitMs; }

    /// Starts the process unless it runs; false with a sentence in `error` when it cannot.
    bool start(QString* error);
    [[nodiscard]] qint64 pid() const;
    /// How many processes were started (1 for the first).
    [[nodiscard]] int startCount() const { return m_startCount; }
    [[nodiscard]] bool hasActiveRun() const { return m_active.has_value(); }

    /// Runs the request (starting the process first if needed); answered by runFinished().
    void run(quint64 id, const RunRequest& request);
    void requestDevices(quint64 id);
    void requestResources(quint64 id, const RunRequest& request);
    /// Compiles in the runner (for a client without NVRTC); answered by compiled(), also when
    /// the runner cannot be reached (a failed result whose log says why).
    /// `program` (another runner's, from programReady()) non-empty: the runner takes it
    /// instead of compiling when it is the same compile (Protocol.h, "program").
    void requestCompile(quint64 id, const RunRequest& request, const QByteArray& program = {});
    /// Asks for the program the runner compiled for `request` and `arch`; answered by
    /// programReady() at once (the runner never compiles for it, nor waits for its run).
    void requestProgram(quint64 id, const RunRequest& request, const QString& arch);
    /// Asks the runner to stop the active run between repetitions; after a grace it is killed
    /// (killed(StopReason::Cancel)) and the run ends as Cancelled.
    void cancel();
    /// Asks the runner to exit; exited() follows once it has (killed after a grace).
    void shutdown();
    /// Waits up to `ms` for a runner that is ending by itself, then kills it.
    void waitForExitOrStop(int ms);

    /// Extra time a run may take beyond its project time limit before the watchdog kills the
    /// runner (compilation, buffer set-up and copies are not part of the kernel's time).
    static constexpr int kWatchdogGraceMs = 5000;

    /// Streamed buffers (Protocol.h), for a runner that shares no file system with this
    /// computer: the request's files go as frames, outputs come back as frames, and outputs
    /// beyond keepBeyondBytes() stay on the runner (OutputBuffer::keptRun) for fetch(). Off
    /// by default (files in the runner's outputDir); KERNELPAD_STREAM_BUFFERS=1 turns it on.
    /// Always on for a runner elsewhere (ssh:, cmd:): its outputDir is not on this computer,
    /// and a folder of this computer that it names is never read or removed.
    void setStreamBuffers(bool on) { m_streamBuffers = on || !m_spec.isLocal(); }
    [[nodiscard]] bool streamBuffers() const { return m_streamBuffers; }
    /// Outputs larger than this stay on a streaming runner (default kDefaultKeepBeyondBytes,
    /// or $KERNELPAD_STREAM_KEEP_BYTES).
    void setKeepBeyondBytes(qint64 bytes) { m_transfers.setKeepBeyondBytes(bytes); }
    [[nodiscard]] qint64 keepBeyondBytes() const { return m_transfers.keepBeyondBytes(); }
    /// Asks for bytes [offset, offset + bytes) of output `buffer` that run `run` left on the
    /// runner; answered by fetched() (with an error when the runner refuses or ends).
    void fetch(quint64 id, quint64 run, const QString& buffer, qint64 offset, qint64 bytes);

signals:
    /// The answer to fetch(): the range's bytes, or an empty array and why.
    void fetched(quint64 id, const QByteArray& data, const QString& error);
    void runProgress(quint64 id, const QString& stage, int done, int total);
    void runFinished(quint64 id, const kernelpad::RunResult& result);
    void devicesChanged(const QVector<kernelpad::DeviceInfo>& devices, const QString& error);
    void resourcesReady(quint64 id, const QString& kernel,
                        const kernelpad::KernelResources& resources);
    void compiled(quint64 id, const kernelpad::CompileResult& result);
    /// The answer to requestProgram(): the program's bytes (a compile-cache entry), or empty
    /// and why (the runner holds none, or could not be reached).
    void programReady(quint64 id, const QByteArray& program, const QString& error);
    /// A result said "poisoned": the runner is exiting and will not touch the GPU again.
    /// Emitted just before that result's runFinished().
    void poisoned();
    /// This side killed the runner during a run (Cancel, Timeout), after runFinished().
    void killed(kernelpad::StopReason reason);
    /// The runner ended by itself during a run (`why`: "it crashed"), after runFinished().
    void crashed(const QString& why);
    /// The runner has ended after shutdown().
    void exited();

private:
    struct ActiveRun {
        quint64 id = 0;
        QString kernel;
        int timeLimitMs = 0;
        /// The outputs a streamed result may name, and their most bytes
        /// (streamedOutputBounds()).
        QHash<QString, qint64> outputBounds;
    };
    void send(const QByteArray& line);
    void onReadyRead();
    /// Acts on one thing the codec read: a problem stops the runner, an answer is handed on.
    void onEvent(const RunnerCodec::Event& event);
    /// The runner could not read request `id`: its compile, fetch or run ends with `message`.
    void onError(quint64 id, const QString& message);
    /// The runner could not be used (it ended or spoke before its hello, its versions do not
    /// match, it never said hello): stops it and tells whoever waits (the active run, a devices
    /// request).
    void startFailed(const QString& message);
    /// Stops a runner that broke the protocol and ends the active run with `what`.
    QString protocolViolation(const QString& what);
    /// Re-arms the watchdog for the stage the runner reported (see the .cpp).
    void armKernelWatchdog(RunStage stage);
    void onResult(const RunnerCodec::Event& event);
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onWatchdog();
    void finishActive(RunStatus status, const QString& message);
    void stopProcess();
    // Streamed buffers (Protocol.h).
    /// Sends a run or resources request with its files as frames; false with why.
    bool sendStreamed(MessageType type, quint64 id, const RunRequest& request, QString* error);
    /// Hands a frame to the transfers and acts on what it completed.
    void onFrame(const FrameHeader& header, const QByteArray& data);
    /// Hands a result on once its outputs are complete.
    void deliverResult(quint64 id, const RunResult& result, bool poisoned);
    /// Ends every pending fetch with `why` and drops a partly received result.
    void dropTransfers(const QString& why);
    /// Sends "shutdown" and closes the runner's input, without waiting for the event loop.
    static void askToExit(QProcess* p);
    /// Kills `p` and, when the runner has a process group of its own, the whole group.
    void killProcess(QProcess* p) const;
    /// Leaves `p` to end by itself: no wait here, deleted once it has finished.
    static void letGo(QProcess* p);

    QProcess* m_process = nullptr;
    QString m_program;
    QStringList m_arguments;
    bool m_ownGroup = false;
    RunnerCodec m_codec; ///< the protocol channel: bytes to answers, requests to bytes
    RunnerSpec m_spec;
    QTimer m_helloTimer;                ///< from start() to the hello
    bool m_devicesPending = false;      ///< a devices request waits for its answer
    QVector<quint64> m_compilesPending; ///< compile requests without an answer yet
    QVector<quint64> m_programsPending; ///< program requests without an answer yet
    /// Answers every pending compile and program request with a failure that says `why`.
    void failPendingCompiles(const QString& why);
    QString m_outputDir; ///< the runner's private folder for output buffers
    std::optional<ActiveRun> m_active;
    QTimer m_watchdog;
    QElapsedTimer m_kernelClock; ///< runs while the runner is in a GPU stage of the active run
    qint64 m_kernelUsedMs = 0;   ///< GPU-stage time of the active run before m_kernelClock
    StopReason m_stopReason = StopReason::None;
    QStringList m_stderrTail;
    int m_startCount = 0;
    int m_preparationLimitMs = 120000;
    bool m_streamBuffers = false;
    RunnerTransfers m_transfers; ///< streamed outputs and fetched ranges under way
};

} // namespace kernelpad
