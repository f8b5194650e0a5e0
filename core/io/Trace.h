#pragma once
// Phase timestamps of a run, for finding where a fresh `kernelpad-cli run` spends its time.
// Off unless KERNELPAD_TRACE is set: "1" writes to stderr, anything else names a file that
// every process of the run appends to (the runner's stderr is otherwise only kept as a tail;
// its trace lines are passed on to the caller's stderr too).

namespace kernelpad {

/// True when KERNELPAD_TRACE asks for a trace (read once).
[[nodiscard]] bool traceEnabled();

/// Writes one line when tracing: "kernelpad-trace <pid> <epoch ms> +<ms since this process's
/// start> (+<ms since the previous phase>) <phase>". The process start is the kernel's
/// record of it (10 ms resolution) for the first line, then the time the trace clock began.
/// Cheap when off: one relaxed load.
void tracePhase(const char* phase);

/// The prefix of every trace line, so a reader of the runner's stderr can tell them apart.
inline constexpr const char* kTracePrefix = "kernelpad-trace ";

} // namespace kernelpad
