#pragma once
// NVRTC runs on a thread of its own that the caller waits for only so long: a compile that
// does not return (a pathological template, or a hang inside NVRTC) is abandoned with a
// message, and an Engine quitting never waits for one (Engine::~Engine).

#include <QString>

#include <chrono>
#include <functional>

class QThread;

namespace kernelpad {

/// How long one NVRTC compile may take: $KERNELPAD_COMPILE_TIMEOUT_S seconds (a positive
/// integer), else kDefaultCompileTimeLimit.
[[nodiscard]] std::chrono::seconds compileTimeLimit();
inline constexpr std::chrono::seconds kDefaultCompileTimeLimit{120};

/// Runs `work` on a detached thread and waits until it returns, compileTimeLimit() passes, or
/// abandonCompilesOn() names the waiting thread. `work` must own (capture by value or shared
/// pointer) everything it touches, since it may outlive the caller. True when it finished;
/// else false with `*why` saying why it was abandoned.
[[nodiscard]] bool runWithinCompileLimit(std::function<void()> work, QString* why);

/// Every wait of runWithinCompileLimit() on `thread` returns at once, now and until
/// stopAbandoningCompilesOn(thread): for a thread that is about to be stopped.
void abandonCompilesOn(const QThread* thread);
void stopAbandoningCompilesOn(const QThread* thread);

/// How long exitCodeAfterCompiles() waits for NVRTC threads still compiling.
inline constexpr std::chrono::seconds kExitCompileGrace{10};

/// What a program's main() returns: `code`, once no NVRTC thread is compiling. NVRTC carries
/// LLVM, whose static destructors must not run while one of its threads still compiles (the
/// process aborts with "LLVM ERROR: out of memory"); an Engine that quits mid-compile leaves
/// such a thread behind. Waits up to `grace` for them; where one is still running then (a hung
/// compile), ends the process at once with `code`, stdio flushed, no static destructors run.
int exitCodeAfterCompiles(int code, std::chrono::milliseconds grace = kExitCompileGrace);

/// Tests only: called on the NVRTC thread right before nvrtcCompileProgram (a hook that
/// blocks stands in for a hung NVRTC). An empty function removes it.
void setBeforeNvrtcCompileHook(std::function<void()> hook);
/// The hook, or an empty function.
[[nodiscard]] std::function<void()> beforeNvrtcCompileHook();

} // namespace kernelpad
