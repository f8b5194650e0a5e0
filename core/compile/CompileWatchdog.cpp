#include "core/compile/CompileWatchdog.h"

#include <QSet>
#include <QThread>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

namespace kernelpad {

namespace {

/// One lock and one condition for every wait: finishing and abandoning are rare events.
struct Watch {
    std::mutex mutex;
    std::condition_variable changed;
    QSet<const QThread*> abandoned; ///< guarded by mutex
    std::function<void()> hook;     ///< guarded by mutex
    int running = 0;                ///< NVRTC threads not yet finished; guarded by mutex
};

Watch& watch() {
    // Never destroyed: an abandoned NVRTC thread may still finish while the process exits.
    static Watch* const w = new Watch;
    return *w;
}

} // namespace

std::chrono::seconds compileTimeLimit() {
    bool ok = false;
    const int seconds = qEnvironmentVariableIntValue("KERNELPAD_COMPILE_TIMEOUT_S", &ok);
    return ok && seconds > 0 ? std::chrono::seconds(seconds) : kDefaultCompileTimeLimit;
}

bool runWithinCompileLimit(std::function<void()> work, QString* why) {
    Watch& w = watch();
    auto done = std::make_shared<bool>(false); // guarded by w.mutex
    {
        const std::lock_guard lock(w.mutex);
        ++w.running;
    }
    std::thread([work = std::move(work), done] {
        work();
        const std::lock_guard lock(watch().mutex);
        *done = true;
        --watch().running;
        watch().changed.notify_all();
    }).detach();
    const std::chrono::seconds limit = compileTimeLimit();
    const QThread* self = QThread::currentThread();
    std::unique_lock lock(w.mutex);
    const bool finished =
        w.changed.wait_for(lock, limit, [&] { return *done || w.abandoned.contains(self); });
    if (finished && *done)
        return true;
    if (why) {
        *why = finished
                   ? QStringLiteral("the compile was abandoned: KernelPad is stopping")
                   : QStringLiteral("NVRTC did not finish within %1 s; the compile was abandoned "
                                    "(simplify the source, or raise KERNELPAD_COMPILE_TIMEOUT_S)")
                         .arg(limit.count());
    }
    return false;
}

int exitCodeAfterCompiles(int code, std::chrono::milliseconds grace) {
    Watch& w = watch();
    std::unique_lock lock(w.mutex);
    if (w.changed.wait_for(lock, grace, [&] { return w.running == 0; }))
        return code;
    lock.unlock();
    std::fflush(nullptr);
    std::_Exit(code);
}

void abandonCompilesOn(const QThread* thread) {
    Watch& w = watch();
    const std::lock_guard lock(w.mutex);
    w.abandoned.insert(thread);
    w.changed.notify_all();
}

void stopAbandoningCompilesOn(const QThread* thread) {
    Watch& w = watch();
    const std::lock_guard lock(w.mutex);
    w.abandoned.remove(thread);
}

void setBeforeNvrtcCompileHook(std::function<void()> hook) {
    const std::lock_guard lock(watch().mutex);
    watch().hook = std::move(hook);
}

std::function<void()> beforeNvrtcCompileHook() {
    const std::lock_guard lock(watch().mutex);
    return watch().hook;
}

} // namespace kernelpad
