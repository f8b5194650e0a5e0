#pragma once
// What a runner's start and hello went wrong with, as sentences that say what to try
// (RunnerConnection shows them; the spec itself is core/project/RunnerSpec.h).

#include "core/project/RunnerSpec.h"

#include <QString>

namespace kernelpad {

/// Describes what went wrong when a runner process ended (or spoke) before its hello, with what
/// to try: `stderrText` is the process's standard error (bounded), `firstLine` what it printed
/// on its protocol channel instead of a hello (empty if nothing).
[[nodiscard]] QString describeRunnerStartFailure(const RunnerSpec& spec, const QString& why,
                                                 const QString& stderrText,
                                                 const QString& firstLine);

/// The version check of a hello: empty when `protocol` and `kernelpadVersion` match this
/// build's, else which side to update (an empty kernelpadVersion is a runner from before it was
/// sent).
[[nodiscard]] QString describeVersionMismatch(const RunnerSpec& spec, int protocol,
                                              const QString& kernelpadVersion);

} // namespace kernelpad
