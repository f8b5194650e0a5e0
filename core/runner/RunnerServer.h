#pragma once
// The runner process's side of the private channel (core/runner/Protocol.h); RunnerClient is
// the other side. kernelpad-cli serve is this function and nothing else.

namespace kernelpad {

/// Exit codes of runRunnerServer(): the same numbers as kernelpad-cli's (README).
enum RunnerServerExit {
    kRunnerExitOk = 0,
    kRunnerExitNoCapture = 3, ///< the kernel's stdout could not be captured (kernelpad-cli: 3)
    kRunnerExitNoTempDir = 4, ///< no private directory for output buffers (kernelpad-cli: 4)
};

/// Serves requests read from stdin (one JSON line each) on an ExecutionSession, answering on
/// the private descriptor, until "shutdown", the client going away or a sticky CUDA error
/// (then the process ends through std::_Exit without running static destructors, so a
/// poisoned driver is never called again). Ends with the process that started it. Returns
/// only when it could not start (kRunnerExitNoCapture, kRunnerExitNoTempDir), after
/// printing why to stderr. Needs a QCoreApplication.
[[nodiscard]] int runRunnerServer();

} // namespace kernelpad
