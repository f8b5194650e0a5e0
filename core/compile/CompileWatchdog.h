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

/// Tests only: called on the NVRTC thread right before nvrtcCompileProgram (a hook that
/// blocks stands in for a hung NVRTC). An empty function removes it.
void setBeforeNvrtcCompileHook(std::function<void()> hook);
/// The hook, or an empty function.
[[nodiscard]] std::function<void()> beforeNvrtcCompileHook();

} // namespace kernelpad
