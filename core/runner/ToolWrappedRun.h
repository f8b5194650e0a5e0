#pragma once
// One request in a one-off runner that a tool starts (`TOOL ARGS... kernelpad-cli serve`):
// the runner is started in a process group of its own (stopping it stops the tool too), sent
// the request, asked to exit after its answer, and once the tool has exited (and written its
// report) the owner reads the answer and the report. ProfileRun (ncu) and SanitizerRun
// (compute-sanitizer) are its uses; both learn the same way whether this side stopped the run.

#include "core/run/RunTypes.h"
#include "core/runner/RunnerConnection.h"

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace kernelpad {

/// A tool's command line around the runner.
struct WrappedCommand {
    QString tool; ///< the tool's path (ncu, compute-sanitizer)
    QStringList toolArguments;
    QString runner; ///< the runner's program and arguments, after the tool's
    QStringList runnerArguments;
    int preparationLimitMs = 0; ///< the runner's, with the tool's own start added
};

/// One request under a tool, from start() to ended(); lives on one thread with an event loop.
class ToolWrappedRun : public QObject {
    Q_OBJECT
public:
    /// `toolName` names the tool in notes ("compute-sanitizer", "ncu").
    explicit ToolWrappedRun(QString toolName, QObject* parent = nullptr);
    ~ToolWrappedRun() override;

    /// Runs `command` and sends `request` as run `id`; ended() follows, also when the tool or
    /// the runner cannot start (result() then says why).
    void start(quint64 id, const WrappedCommand& command, const RunRequest& request);
    /// Stops the run as a normal run is cancelled; ended() still follows.
    void cancel();

    [[nodiscard]] quint64 id() const { return m_id; }
    /// The runner's answer; nothing when it ended without one.
    [[nodiscard]] const std::optional<RunResult>& result() const { return m_result; }
    /// Why this side stopped the runner and the tool during the run (Cancel, Timeout); None
    /// when they ended by themselves.
    [[nodiscard]] StopReason killReason() const { return m_killReason; }
    /// A sentence for a run this side stopped ("compute-sanitizer was stopped with the runner
    /// when the run passed its time limit, so its report covers only what ran until then"),
    /// empty otherwise.
    [[nodiscard]] QString killedNote() const;
    /// Time since start(), for the result's total.
    [[nodiscard]] double elapsedMs() const { return double(m_wall.nsecsElapsed()) / 1e6; }

signals:
    void progress(quint64 id, const QString& stage, int done, int total);
    /// The tool has exited (its report is complete, or it was stopped): result() and
    /// killReason() say how the run went.
    void ended();

private:
    void onResult(quint64 id, const RunResult& result);
    void onExited();

    QString m_toolName;
    RunnerConnection* m_connection = nullptr; ///< the one-off runner under the tool
    quint64 m_id = 0;
    std::optional<RunResult> m_result;
    StopReason m_killReason = StopReason::None;
    QElapsedTimer m_wall;
};

} // namespace kernelpad
