#pragma once
// bench/compile's --phases: each step of KernelPad's compile path for one compile, from the
// source handed to Program::compile() to its CompileResult (core/compile/CompilePhases.h:
// checks, include scan, flags, the PCH ticket, each NVRTC call on its thread, the log, PTX
// parsing), then what the Engine's compile (compileProject, core/run/ExecutionSession.cpp)
// adds for a compile the cache did not hold: the include fingerprint and key, the cache
// lookup, and the insert in memory and on disk (before the Engine answers: the runner's
// resources query right after it finds the entry there). Wall time, and the CPU time and
// page faults of the thread that ran each step; NVRTC's own phases (--time) with --nvrtc-time.

#include "core/compile/CompilePhases.h"
#include "core/compile/CompileResult.h"
#include "core/compile/ProgramOptions.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>

namespace kernelpad::bench {

/// What --phases and --nvrtc-time asked for.
struct PhaseMode {
    bool on = false;
    bool nvrtcTimes = false;
    /// The options that ask a child process for the same.
    [[nodiscard]] QStringList arguments() const;
};

/// The Engine's steps around a compile it did not find in its cache, timed on `result`.
[[nodiscard]] QVector<CompilePhase> enginePhases(const CompileResult& result, const QString& source,
                                                 const QString& sourceName,
                                                 const ProgramOptions& options,
                                                 const QString& baseDir);

[[nodiscard]] QJsonArray phasesJson(const QVector<CompilePhase>& phases);
/// Each phase's median (by name, in the order of their first appearance) over `runs`, an
/// array of phasesJson() arrays.
[[nodiscard]] QJsonArray medianPhases(const QJsonArray& runs);
/// Prints `row`'s phases (a timedCompile row), indented under the table's row.
void printPhases(const QJsonObject& row);

} // namespace kernelpad::bench
