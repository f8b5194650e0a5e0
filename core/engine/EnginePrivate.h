#pragma once
// Engine's state, shared by Engine.cpp, EngineRuns.cpp and EngineSweeps.cpp; touched only on
// the Engine's thread except `cancel`, which the GPU worker reads.

#include "core/compile/SassJob.h"
#include "core/engine/DeviceScheduler.h"
#include "core/engine/Engine.h"
#include "core/engine/EngineWorkers.h"

#include <QHash>
#include <QThread>

#include <atomic>
#include <optional>

namespace kernelpad {

class AbComparison;
class SweepJob;

struct Engine::Private {
    CompileCache cache;
    SassJobs sassJobs; ///< the disassemble requests not answered yet; the SASS worker reads it
    std::atomic_bool cancel{false};
    QThread compileThread;
    QThread sassThread;
    QThread gpuThread;
    CompileWorker* compileWorker = nullptr; // lives on compileThread, deleted when it ends
    /// Disassembles on sassThread, so that nvdisasm never holds up a compile (another
    /// CompileWorker; only its disassemble() is called).
    CompileWorker* sassWorker = nullptr;
    GpuWorker* gpuWorker = nullptr; // lives on gpuThread, deleted when it ends

    QVector<DeviceInfo> devices;
    bool driverKnownMissing = false;
    quint64 nextId = 1;
    Channel nextChannel = kDefaultChannel + 1;
    Isolation isolation = Isolation::Process;
    QHash<quint64, RunRequest> wantResources; ///< compile id -> what to query after it
    RunnerSpec runner;
    DeviceScheduler scheduler; ///< tickets are request ids

    /// A run asked for and not yet handed to the GPU worker.
    struct QueuedRun {
        quint64 id = 0;
        RunRequest request;
        Channel channel = kDefaultChannel;
    };
    QVector<QueuedRun> queue;     ///< at most one per channel, in the order asked
    std::optional<QueuedRun> run; ///< the run waiting for its device or in the worker
    bool runDispatched = false;   ///< `run` is in the worker (else it waits for its device)

    struct Profile {
        quint64 id = 0;
        RunRequest request;
        ProfileSet set = ProfileSet::Basic;
        Channel channel = kDefaultChannel;
        bool dispatched = false;
    };
    std::optional<Profile> profile;

    struct Sweep {
        SweepOrder order;
        SweepJob* job = nullptr; ///< made when its devices are granted; a child of the Engine
    };
    QHash<quint64, Sweep> sweeps;
    /// prepareSweep()'s job and the devices it was made for, until a sweep takes it.
    SweepJob* preparedSweep = nullptr;
    QVector<DeviceSlot> preparedDevices;
    bool preparedSingle = false;
    QHash<quint64, AbComparison*> comparisons; ///< children of the Engine, until they finish
};

/// The devices a request times on: its device on the runner the Engine uses.
[[nodiscard]] QVector<DeviceSlot> engineRequestDevices(const RunnerSpec& runner,
                                                       const RunRequest& request);

} // namespace kernelpad
