#pragma once
// `kernelpad-cli attach`: the local runner's command while warm runners run
// (core/runner/WarmRunnerDaemon.h). It takes a ready spare from the daemon and relays its own
// stdin, stdout and stderr to it, so that its client sees a runner that says hello at once;
// when there is none, or the spare would not be the runner this command would start, it
// becomes `kernelpad-cli serve` itself (exec), exactly a cold runner.

namespace kernelpad::warm {

/// Runs attach; returns only when even the cold runner could not be started (the code).
/// Needs no QCoreApplication: the decision comes before one exists.
[[nodiscard]] int runAttach(const char* argv0);

} // namespace kernelpad::warm
