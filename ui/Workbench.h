#pragma once
// What the window knows besides the project: the devices, the last compile, the kernel's
// resources, the run history and whether a run is in progress. Panels observe it as
// WorkbenchViewers; the window's actions ask it whether Run can start (docs/ARCHITECTURE.md,
// "The window").

#include "core/compile/CompileResult.h"
#include "core/cuda/DeviceInfo.h"
#include "core/launch/LaunchValidation.h"
#include "core/launch/ValueType.h"
#include "core/profile/ProfileReport.h"
#include "core/project/Project.h"
#include "core/run/RunTypes.h"

#include <QDateTime>
#include <QHash>
#include <QMap>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QTimer>
#include <QVector>

#include <optional>

namespace kernelpad {

class Engine;
class ProjectDocument;
struct SassReport;
class Workbench;

/// One finished run: the project as it ran and what came back.
struct RunRecord {
    Project project;
    RunResult result;
    /// What changed since the previous measured run ("block 128 → 256"), empty for the first.
    QString changes;
    QDateTime finishedAt;
    /// The Nsight Compute profile taken of this run's project (Build ▸ Profile), if any.
    std::optional<ProfileReport> profile;
    /// Names the record while the history changes (a profile finds its run by it).
    quint64 serial = 0;
    /// Started by live mode (with Workbench::liveTiming()'s short budget instead of the
    /// project's timing, which `project` keeps).
    bool live = false;
    /// The kernel's SASS opcodes with their counts, once a disassembly of this run's compile
    /// came back (Workbench::disassemble()); absent until then.
    std::optional<QMap<QString, int>> sassOpcodes;
    [[nodiscard]] bool sanitized() const { return result.sanitizerTool != SanitizerTool::None; }
};

/// A panel that shows part of the workbench. Workbench::addViewer() hands it the current state at
/// once (cleared, devices, compile, resources, every run kept), so a panel made late shows the
/// same as one made first. Every call has a default that ignores it.
class WorkbenchViewer {
public:
    virtual ~WorkbenchViewer();
    /// A new project: forget what was shown for the old one.
    virtual void workbenchCleared(const Workbench& workbench);
    /// The device list (or the driver's absence) became known, or another device was chosen.
    virtual void devicesChanged(const Workbench& workbench);
    /// A compile was asked for (the compile-while-typing pause ended, or Compile).
    virtual void compileStarted(const Workbench& workbench);
    /// A compile came back: Workbench::lastCompile().
    virtual void compiled(const Workbench& workbench);
    /// The driver's view of the compiled kernel: Workbench::kernelResources().
    virtual void resourcesChanged(const Workbench& workbench);
    virtual void runStarted(const Workbench& workbench);
    /// `total` is 0 while the stage has no count.
    virtual void runProgress(const Workbench& workbench, const QString& stage, int done, int total);
    /// A run ended: `run` is Workbench::history().last(). Older runs' outputs are dropped.
    virtual void runFinished(const Workbench& workbench, const RunRecord& run);
    /// The run history was emptied (View ▸ Clear Timing History); the project stays.
    virtual void historyCleared(const Workbench& workbench);
    /// Build ▸ Profile started ncu (after the run it belongs to, when one was needed).
    virtual void profileStarted(const Workbench& workbench);
    /// A profile ended: Workbench::lastProfile(); when it succeeded, `run` is the history entry
    /// that now holds it (null when that entry was cleared meanwhile, or it failed).
    virtual void profileFinished(const Workbench& workbench, const RunRecord* run);
};

/// Talks to the Engine for one window: compiles and runs the document's project and keeps
/// what came back. Requests of other windows sharing the Engine are ignored by id.
class Workbench : public QObject {
    Q_OBJECT
public:
    /// Long enough that a burst of typing compiles once, short enough to feel live.
    static constexpr int kCompileWhileTypingDelayMs = 700;

    Workbench(Engine* engine, ProjectDocument* document, QObject* parent = nullptr);
    ~Workbench() override;

    [[nodiscard]] ProjectDocument* document() const { return m_document; }
    [[nodiscard]] Engine* engine() const;

    /// Shows the current state to `viewer` at once, then every change until it is destroyed
    /// (a viewer that is a QObject is dropped on its destruction) or removed.
    void addViewer(WorkbenchViewer* viewer);
    void removeViewer(WorkbenchViewer* viewer);
    /// Tells `viewer` the current state (cleared, devices, compile, resources, every run kept,
    /// a run or profile in flight) without adding it: for a viewer that hears the changes
    /// through another (the window's ViewRegistry).
    void showStateTo(WorkbenchViewer* viewer) const;

    // --- devices ---
    /// Asks the Engine for the device list again.
    void refreshDevices();
    [[nodiscard]] bool devicesKnown() const { return m_devicesKnown; }
    [[nodiscard]] const QVector<DeviceInfo>& devices() const { return m_devices; }
    /// Why there is no driver ("libcuda.so.1 not found"), empty when there is one.
    [[nodiscard]] QString driverError() const { return m_driverError; }
    [[nodiscard]] int deviceIndex() const { return m_deviceIndex; }
    [[nodiscard]] const DeviceInfo* currentDevice() const;
    /// Chooses the device runs and compiles target; compiles again for its architecture.
    void selectDevice(int index);

    // --- compiling ---
    /// Compiles the document's project now (cancels a pending compile-while-typing).
    void compile();
    /// Compile shortly after each edit of the source (on by default).
    void setCompileWhileTyping(bool on);
    [[nodiscard]] bool compileWhileTyping() const { return m_compileWhileTyping; }
    /// Compile (and run) with -lineinfo from now on: the SASS view's line map needs it, and
    /// its disassemble request then finds that compile in the cache instead of running NVRTC a
    /// second time. The SASS is the same with and without it (docs/cli.md, bench/sass); the
    /// document's options are left as they are.
    void setLineInfoWanted(bool on);
    [[nodiscard]] bool lineInfoWanted() const { return m_lineInfoWanted; }
    /// Device > Lock Clocks: every request from now on asks its runner to lock the device's
    /// clocks to their base (RunRequest::lockClocks); off, the next run releases them, and a
    /// runner's exit (KernelPad quitting) restores them.
    void setLockClocks(bool on) { m_lockClocks = on; }
    [[nodiscard]] bool lockClocks() const { return m_lockClocks; }
    [[nodiscard]] const std::optional<CompileResult>& lastCompile() const { return m_lastCompile; }
    /// The source the last compile (or run) was made from.
    [[nodiscard]] const QString& lastCompiledSource() const { return m_lastCompiledSource; }
    /// The project as the last compile (or run) was asked for, so that it can be compiled
    /// again as it was (the diff view's previous and pinned compiles).
    [[nodiscard]] const Project& lastCompiledProject() const { return m_lastCompiledProject; }
    [[nodiscard]] bool isCompiling() const { return m_compileId != 0; }
    /// The kernel the document names, as the last successful compile lowered it; null when
    /// that compile did not make it.
    [[nodiscard]] const KernelInfo* currentKernel() const;
    /// Struct types of the kernel's parameters, from the source of the last compile.
    [[nodiscard]] const QVector<StructType>& structTypes() const { return m_structs; }
    [[nodiscard]] const std::optional<KernelResources>& kernelResources() const {
        return m_resources;
    }
    /// The kernel the resources are of.
    [[nodiscard]] QString resourcesKernel() const { return m_resourcesKernel; }
    /// The device's limits, and the kernel's own (.maxntid, .reqntid, the driver's maximum
    /// threads per block, static shared memory) where the compile or the driver knows them.
    [[nodiscard]] LaunchLimits launchLimits() const;

    // --- SASS (WorkbenchSass.cpp) ---
    /// Asks the Engine for the SASS of `project` compiled for `arch` (Engine::disassemble(),
    /// answered by Engine::sassReady() with the id returned; 0 without an Engine). The
    /// kernels' opcode counts of the answer are kept with the runs of that very compile (the
    /// same inputs: core/engine/EditVerdictSass.h), now and when one finishes later, and
    /// runSassKnown() names each run that got them.
    quint64 disassemble(const Project& project, const QString& directory, const QString& arch,
                        const QString& tag = {});

    // --- running ---
    /// Empty when Run can start, else why not ("The source has compile errors").
    [[nodiscard]] QString runBlockedReason() const;
    /// What every request of this window starts from (WorkbenchRequest.h): the document's
    /// project (or `project`), its folder and the chosen device.
    [[nodiscard]] RunRequest baseRequest(const Project* project = nullptr) const;
    /// This window's own queue and cancel at the Engine (Engine::openChannel()).
    [[nodiscard]] quint64 channel() const { return m_channel; }
    /// Starts `request` with the document's project and the chosen device; false (with the
    /// reason in `why`) when Run cannot start.
    bool run(RunRequest request, QString* why = nullptr);
    void cancel();
    [[nodiscard]] bool isRunning() const { return m_runId != 0; }
    /// Runs of this project, oldest first; only the last keeps its output buffers.
    [[nodiscard]] const QVector<RunRecord>& history() const { return m_history; }
    /// The last run that measured times (not a sanitizer run), or null.
    [[nodiscard]] const RunRecord* lastMeasuredRun() const;
    /// Forgets the runs (the next run is compared with nothing).
    void clearHistory();
    /// Asks the runner for bytes of an output it kept (OutputBuffer::keptRun,
    /// Engine::fetchRange); answered by rangeFetched() with the id returned.
    quint64 fetchRange(quint64 run, const QString& buffer, qint64 offset, qint64 bytes);
    /// Where kept outputs are: the chosen runner's name ("gpu-box").
    [[nodiscard]] QString runnerName() const;

    // --- live mode and baseline (WorkbenchLive.cpp) ---
    /// Live mode's pause after the last keystroke before it compiles and runs: shorter than
    /// compile-while-typing's, since the result is what the author waits for.
    static constexpr int kLiveDelayMs = 300;
    /// Live mode: after each pause in typing, compile, and run a successful compile with
    /// liveTiming(); an edit cancels the live run in flight, whose result is then dropped.
    void setLiveMode(bool on);
    [[nodiscard]] bool liveMode() const { return m_liveMode; }
    /// `timing` with live mode's short budget: adaptive, at least 10 samples, stopping at 2 %
    /// noise (or the project's lower target) after 5 ms of GPU time, or at 50 ms, or, for a
    /// kernel whose previous median was `previousMedianMs`, at 12 of its launches (at most
    /// 2 s) so that a slow kernel still gets enough samples for a verdict; mode, blocking
    /// kernel, byte and FLOP counts and the watchdog limit stay the project's.
    [[nodiscard]] static TimingSpec liveTiming(TimingSpec timing, double previousMedianMs = 0);
    /// The run in flight was started by live mode.
    [[nodiscard]] bool isLiveRunning() const { return isRunning() && m_runIsLive; }
    /// Pins the history entry `serial` as the baseline every later run is compared with;
    /// false when there is no such entry or it has no successful timings.
    bool setBaseline(quint64 serial);
    void clearBaseline();
    /// The pinned run, or null (none pinned, or its entry was cleared).
    [[nodiscard]] const RunRecord* baselineRun() const;
    /// Names a second kernel of the same source as the baseline ("matmul_naive" against
    /// "matmul_tiled"), empty for none; replaces a pinned run. After each successful run of
    /// another kernel, the baseline kernel runs as the following request with the same
    /// project (arguments, launch, options, timing); its result is kept, outside the history,
    /// until the project changes, so it runs again only after an edit.
    void setBaselineKernel(const QString& kernel);
    [[nodiscard]] QString baselineKernel() const { return m_baselineKernel; }
    /// The baseline kernel's last run, or null before it has answered.
    [[nodiscard]] const RunRecord* baselineKernelRun() const {
        return m_baselineKernelRun ? &*m_baselineKernelRun : nullptr;
    }
    /// What `run` is compared with: the baseline when one is pinned (and is not `run`), else
    /// the previous successful measured run of the same kernel; null when `run` itself failed,
    /// was a sanitizer run or has no timings (a failure is never compared as "faster").
    [[nodiscard]] const RunRecord* comparedWith(const RunRecord& run) const;
    /// The status bar's sentence for `run`: "this edit: −12.3 % (±0.8 %), a real change",
    /// "2.41× faster than baseline (±0.03)"; empty when there is nothing to compare with.
    [[nodiscard]] QString comparisonText(const RunRecord& run) const;
    /// The edit's verdict against the previous run (EditVerdict.h): "this edit: 1.8 % slower
    /// (significant): 2 more registers → occupancy 75 % → 62 %; 4 more LDG.E" (the opcodes
    /// once both runs' SASS is known: RunRecord::sassOpcodes); empty against a baseline,
    /// for the same machine code and settings, or with nothing to compare with (then
    /// comparisonText() says it).
    [[nodiscard]] QString editVerdictText(const RunRecord& run) const;

    // --- profiling (WorkbenchProfile.cpp) ---
    /// Empty when Build ▸ Profile can start, else why not ("A run is in progress").
    [[nodiscard]] QString profileBlockedReason() const;
    /// Profiles the document's project under Nsight Compute with `set`. The profile is kept
    /// with the newest run when that run is of the same project; otherwise the project runs
    /// first and the profile follows it. False (with the reason in `why`) when it cannot start.
    bool profile(ProfileSet set, QString* why = nullptr);
    /// From Build ▸ Profile until the profile ends (including the run before it).
    [[nodiscard]] bool isProfiling() const { return m_profileId != 0 || m_profileAfterRun; }
    /// How the last profile ended, or nothing before the first.
    [[nodiscard]] const std::optional<ProfileOutcome>& lastProfile() const { return m_lastProfile; }
    /// The history entry with `serial`, or null.
    [[nodiscard]] const RunRecord* findRun(quint64 serial) const;

signals:
    /// Anything that runBlockedReason() depends on may have changed.
    void runStateChanged();
    /// A run was handed to the Engine as `request` (the document's project filled in); its
    /// answer is Engine::runFinished with `id`.
    void runRequested(quint64 id, const kernelpad::RunRequest& request);
    void compileShown(const kernelpad::CompileResult& result);
    void runShown(const kernelpad::RunResult& result);
    void profileShown(const kernelpad::ProfileOutcome& outcome);
    /// The baseline was pinned, cleared, or its entry left the history.
    void baselineChanged();
    /// The answer to fetchRange() (answers to other windows' requests are not passed on).
    void rangeFetched(quint64 id, const QByteArray& data, const QString& error);
    /// Live mode compiled the edit but could not run it ("No CUDA driver: compile-only mode").
    void liveRunSkipped(const QString& why);
    /// The history entry `serial` got its kernel's SASS opcode counts (RunRecord::sassOpcodes)
    /// after it finished: the verdicts that name it may be made again.
    void runSassKnown(quint64 serial);

private:
    void clear();
    void onDevicesChanged(const QVector<DeviceInfo>& devices, const QString& driverError);
    void onCompiled(quint64 id, const CompileResult& result);
    void onResources(quint64 id, const QString& kernel, const KernelResources& resources);
    void onRunProgress(quint64 id, const QString& stage, int done, int total);
    void onRunFinished(quint64 id, const RunResult& result);
    /// A disassembly asked for by disassemble(): its counts kept and given to its runs.
    void onSassReady(quint64 id, const SassReport& report);
    /// Gives `run` the opcode counts of its compile when a disassembly of it is kept; true
    /// when it got them.
    bool attachKnownSass(RunRecord& run) const;
    /// Starts ncu for the history entry `serial` (WorkbenchProfile.cpp).
    void startProfile(quint64 serial);
    /// After the run that a profile waits for: starts it, or ends it with the run's failure.
    void continueProfile(const RunRecord& run);
    void onProfileFinished(quint64 id, const ProfileOutcome& outcome);
    void endProfile(ProfileOutcome outcome, quint64 serial);
    /// Tells the viewers a profile started, or (`finished`) ended with `run` holding it.
    void notifyProfile(bool finished, const RunRecord* run);
    /// After a compile: the kernel the compile made, and the arguments following its
    /// signature (values kept), written to the document.
    void followCompiledKernel();
    void syncArgumentsWithKernel();
    template <typename Call> void notify(Call call);
    /// run() with live mode's timing when `live`, of `project` instead of the document's
    /// when given (the baseline kernel).
    bool startRun(RunRequest request, QString* why, bool live, const Project* project = nullptr);
    // Live mode (WorkbenchLive.cpp).
    /// The median of the last successful measured run of `kernel`, 0 when none.
    [[nodiscard]] double previousMedianMs(const QString& kernel) const;
    void liveEdited();
    void liveCompile();
    void liveCompiled(quint64 id, const CompileResult& result);
    void startLiveRun();
    /// A live run whose source was edited since: dropped (true), and a waiting live run
    /// started.
    bool dropSupersededLiveRun(const RunResult& result);
    /// The baseline kernel's answer: kept (true) instead of joining the history.
    bool keepBaselineKernelRun(const RunResult& result);
    /// After a successful run of another kernel: runs the baseline kernel unless its kept
    /// result is of the same project.
    void runBaselineKernel();

    QPointer<Engine> m_engine;
    quint64 m_channel = 0; ///< Engine::Channel; its kDefaultChannel until the Engine opens one
    ProjectDocument* m_document;
    QVector<WorkbenchViewer*> m_viewers;
    QTimer m_compileTimer;
    bool m_compileWhileTyping = true;
    bool m_lineInfoWanted = false;
    bool m_lockClocks = false;

    QVector<DeviceInfo> m_devices;
    QString m_driverError;
    bool m_devicesKnown = false;
    int m_deviceIndex = 0;

    quint64 m_compileId = 0; ///< the compile in flight, 0 when none
    std::optional<CompileResult> m_lastCompile;
    QString m_lastCompiledSource;
    Project m_lastCompiledProject;
    QVector<StructType> m_structs;
    std::optional<KernelResources> m_resources;
    QString m_resourcesKernel;

    QTimer m_liveTimer;
    bool m_liveMode = false;
    quint64 m_liveCompileId = 0;   ///< live mode's compile in flight, 0 when none
    bool m_runIsLive = false;      ///< the run in flight was started by live mode
    bool m_liveRunWaiting = false; ///< a live run waits for the run in flight to end
    quint64 m_baselineSerial = 0;  ///< the pinned history entry, 0 when none
    QString m_baselineKernel;      ///< the baseline kernel's name, empty when none
    bool m_runIsBaseline = false;  ///< the run in flight is of the baseline kernel
    std::optional<RunRecord> m_baselineKernelRun;

    /// The disassembly requests without an answer, with the project each compiles.
    QHash<quint64, Project> m_sassRequests;
    /// The opcode counts of the latest disassemblies by compile key, newest last (a few).
    QVector<QPair<QByteArray, QMap<QString, QMap<QString, int>>>> m_sassKnown;

    QSet<quint64> m_fetchIds; ///< fetchRange() requests without an answer yet
    quint64 m_runId = 0;      ///< the run in flight, 0 when none
    Project m_runningProject;
    QVector<RunRecord> m_history;
    quint64 m_nextSerial = 1;

    quint64 m_profileId = 0;        ///< the profile in flight, 0 when none
    bool m_profileAfterRun = false; ///< a profile waits for the run in flight
    ProfileSet m_profileSet = ProfileSet::Basic;
    quint64 m_profileSerial = 0; ///< the history entry the profile in flight belongs to
    std::optional<ProfileOutcome> m_lastProfile;
};

} // namespace kernelpad
