#pragma once
// The two workers behind Engine: NVRTC on one thread, the GPU on another.

#include "core/compile/CompileCache.h"
#include "core/run/Executor.h"
#include "core/run/RunTypes.h"

#include <QObject>

#include <atomic>

namespace kernelpad {

/// Compiles on its own thread so the editor stays live.
class CompileWorker : public QObject {
    Q_OBJECT
public:
    explicit CompileWorker(CompileCache* cache)
        : m_cache(cache)
    {
    }

public slots:
    void compile(quint64 id, const kernelpad::Project& project, const QString& projectDir,
                 const QString& arch);

signals:
    void compiled(quint64 id, const kernelpad::CompileResult& result);

private:
    CompileCache* m_cache;
};

/// Owns the ExecutionSession (context, stream, module) on the GPU thread.
class GpuWorker : public QObject {
    Q_OBJECT
public:
    GpuWorker(CompileCache* cache, std::atomic_bool* cancel)
        : m_session(cache)
        , m_cancel(cancel)
    {
    }

public slots:
    void refreshDevices();
    void run(quint64 id, const kernelpad::RunRequest& request);
    void queryResources(quint64 id, const kernelpad::CompileResult& compiled, const QString& kernel,
                        const kernelpad::LaunchConfig& launch, int device);

signals:
    void devicesChanged(const QVector<kernelpad::DeviceInfo>& devices, const QString& driverError);
    void runProgress(quint64 id, const QString& stage, int done, int total);
    void runFinished(quint64 id, const kernelpad::RunResult& result);
    void resourcesReady(quint64 id, const QString& kernel, const kernelpad::KernelResources& resources);

private:
    ExecutionSession m_session;
    std::atomic_bool* m_cancel; // owned by Engine, outlives the worker
};

} // namespace kernelpad

Q_DECLARE_METATYPE(kernelpad::Project)
Q_DECLARE_METATYPE(kernelpad::RunRequest)
Q_DECLARE_METATYPE(kernelpad::LaunchConfig)
