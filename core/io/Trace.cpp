#include "core/io/Trace.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <string>

#include <unistd.h>

namespace kernelpad {

namespace {

using Clock = std::chrono::steady_clock;

/// Taken while the library's statics are initialised: before main(), after the dynamic loader.
const Clock::time_point g_loaded = Clock::now();

struct TraceState {
    bool enabled = false;
    FILE* out = nullptr;
    bool ownsFile = false;
    Clock::time_point last = g_loaded;
    double startBeforeLoadMs = 0; ///< how long before g_loaded the process started
    std::mutex lock;
};

/// Milliseconds between the process's start (/proc/self/stat, in clock ticks since boot) and
/// now, or a negative number when unknown.
double msSinceProcessStart() {
    FILE* f = std::fopen("/proc/self/stat", "r");
    if (!f)
        return -1;
    char buffer[1024] = {};
    const size_t n = std::fread(buffer, 1, sizeof buffer - 1, f);
    std::fclose(f);
    buffer[n] = '\0';
    // The command name may hold spaces: fields are counted after its closing parenthesis.
    const char* p = std::strrchr(buffer, ')');
    if (!p)
        return -1;
    // Field 3 (state) follows ") "; starttime is field 22.
    int field = 2;
    for (; *p && field < 22; ++p)
        if (*p == ' ')
            ++field;
    const double ticks = std::strtod(p, nullptr);
    const long hz = sysconf(_SC_CLK_TCK);
    timespec boot{};
    if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &boot) != 0)
        return -1;
    const double nowMs = double(boot.tv_sec) * 1e3 + double(boot.tv_nsec) / 1e6;
    return nowMs - ticks * 1e3 / double(hz);
}

TraceState& state() {
    static TraceState* s = [] {
        auto* t = new TraceState; // never destroyed: phases may be traced during exit
        const char* value = std::getenv("KERNELPAD_TRACE");
        if (!value || !*value || std::strcmp(value, "0") == 0)
            return t;
        if (std::strcmp(value, "1") == 0) {
            t->out = stderr;
        } else {
            t->out = std::fopen(value, "a");
            t->ownsFile = t->out != nullptr;
        }
        t->enabled = t->out != nullptr;
        const double sinceStart = msSinceProcessStart();
        const double sinceLoad =
            std::chrono::duration<double, std::milli>(Clock::now() - g_loaded).count();
        t->startBeforeLoadMs = sinceStart >= 0 ? std::max(0.0, sinceStart - sinceLoad) : 0.0;
        return t;
    }();
    return *s;
}

} // namespace

bool traceEnabled() {
    return state().enabled;
}

void tracePhase(const char* phase) {
    TraceState& s = state();
    if (!s.enabled)
        return;
    const std::lock_guard<std::mutex> guard(s.lock);
    const Clock::time_point now = Clock::now();
    const double sinceLoad = std::chrono::duration<double, std::milli>(now - g_loaded).count();
    const double step = std::chrono::duration<double, std::milli>(now - s.last).count();
    s.last = now;
    const auto epochMs = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
    std::fprintf(s.out, "%s%d %lld +%.1f ms (+%.1f) %s\n", kTracePrefix, int(getpid()),
                 static_cast<long long>(epochMs), s.startBeforeLoadMs + sinceLoad, step, phase);
    std::fflush(s.out);
}

} // namespace kernelpad
