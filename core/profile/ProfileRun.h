#pragma once
// One profile under Nsight Compute: a one-off runner that ncu starts (`ncu ... -o R
// kernelpad-cli serve`), asked for one run of the project's kernel and then to exit, after
// which the report is read back through ncu's CSV pages into a ProfileReport. As a memcheck
// run goes through SanitizerRun, with the same runner and protocol.

#include "core/profile/ProfileReport.h"
#include "core/run/RunTypes.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <memory>
#include <optional>

namespace kernelpad {

class CompileCache;
class ToolWrappedRun;

/// Kernel replay runs the kernel once per pass (about 40 for the full set) and saves and
/// restores its memory between passes, so a profiled run's time limits are multiplied by this.
inline constexpr int kProfileTimeScale = 60;

/// One profile, from start() to finished(); lives on one thread with an event loop.
class ProfileRun : public QObject {
    Q_OBJECT
public:
    /// `ncu` is ncu's path; `runner` and `runnerArguments` the runner's command line;
    /// `preparationLimitMs` the warm runner's, to which ncu's start is added.
    ProfileRun(const QString& ncu, const QString& runner, const QStringList& runnerArguments,
               int preparationLimitMs, QObject* parent = nullptr);
    ~ProfileRun() override;

    /// What a profiled run sends: -lineinfo on (the per-line page), one repetition, no
    /// warm-up, no blocking kernel, fixed count, hot, time limits scaled by kProfileTimeScale.
    [[nodiscard]] static RunRequest profiledRequest(const RunRequest& request);

    /// The lowered (mangled) name of the project's kernel, which ncu filters by: compiles the
    /// project (through `cache`, blocking). Fails with the compile's first error, `status`
    /// saying CompileError or (no such kernel) BadInput.
    [[nodiscard]] static std::optional<QString> loweredKernelName(const RunRequest& request,
                                                                  CompileCache* cache,
                                                                  QString* error,
                                                                  RunStatus* status);

    /// Starts the profile of `request`'s kernel, whose lowered name is `loweredName`; false,
    /// with the reason in `error` and no finished() to come, when its private folder cannot be
    /// made.
    bool start(quint64 id, const RunRequest& request, ProfileSet set, const QString& loweredName,
               QString* error);
    /// Stops the profile as a run is cancelled; finished() still follows.
    void cancel();

signals:
    void progress(quint64 id, const QString& stage, int done, int total);
    void finished(quint64 id, const kernelpad::ProfileOutcome& outcome);

private:
    void finish();
    [[nodiscard]] ProfileOutcome outcome();

    QString m_ncu;
    QString m_runner;
    QStringList m_runnerArguments;
    int m_preparationLimitMs;
    ToolWrappedRun* m_run = nullptr;      ///< the one-off runner under ncu
    std::unique_ptr<QTemporaryDir> m_dir; ///< the report and ncu's log; removed afterwards
    quint64 m_id = 0;
    RunRequest m_request;
    ProfileSet m_set = ProfileSet::Basic;
    QString m_loweredName;
    QStringList m_commandLine;
};

} // namespace kernelpad
