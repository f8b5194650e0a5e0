#pragma once
// The runner's side of handing compiled programs between runners (Protocol.h, "program"): a
// program this runner compiled, sent to the client on request, and one another runner compiled,
// taken into this runner's compile cache instead of compiling it again. A sweep over several
// runners with the disk cache off or on other computers then compiles each program once
// (core/sweep/PoolSweepEvaluator.h). Internal to core/runner.

#include "core/runner/Protocol.h"

#include <QString>

namespace kernelpad {

class CompileCache;
struct RunRequest;

namespace serve {

class Output;

/// Answers a "program" request from `cache` alone, never compiling: the entry for the request's
/// compile for its "arch", or an error saying this runner holds none. Safe on the reader thread
/// while a run goes on (the cache is thread-safe).
void answerProgram(Output& out, const RunnerMessage& m, CompileCache& cache);

/// Takes the "program" of compile request `m` into `cache`'s memory (never its disk tier) when
/// it is this very compile (the key this runner computes for `request` and `arch`, checked with
/// the entry's hash); true when taken. A program for another arch, compiler or header, or a damaged
/// one, is left out (the request is then compiled here as any other), and `why` says which.
bool takeProgram(const RunnerMessage& m, const RunRequest& request, const QString& arch,
                 CompileCache& cache, QString* why);

} // namespace serve
} // namespace kernelpad
