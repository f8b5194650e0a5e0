#pragma once
// kernelpad-cli bench-launch: the host cost of one launch through KernelPad's own layers.

#include <QStringList>

namespace kernelpad::cli {

/// `bench-launch [--launches N] [--repeats K] [--device D] [--json]`: compiles the empty
/// kernel with core's Program, loads it with core's Module and times N back-to-back
/// Kernel::launch calls on a core Stream plus one synchronize; prints the wall time per
/// launch (median of K samples). Exit codes as the other commands (3 without a driver).
int runBenchLaunch(const QStringList& args);

} // namespace kernelpad::cli
