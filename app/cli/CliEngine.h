#pragma once
// The command line's one way to the GPU and the toolkit's tools: each request goes through an
// Engine (docs/ARCHITECTURE.md, "One door") and the command waits for its answer in a local
// event loop. app/cli cannot include core/runner, core/run's executor or core/sweep's pool.

#include "core/compile/CompileResult.h"
#include "core/compile/SassReport.h"
#include "core/cuda/DeviceInfo.h"
#include "core/engine/Engine.h"
#include "core/project/Project.h"
#include "core/run/RunTypes.h"

#include <QString>
#include <QVector>

#include <optional>

namespace kernelpad::cli {

/// Runs `request` on the Engine's GPU worker; in this process (InProcess) the kernel's printf
/// becomes the result's console instead of landing in the middle of the table or the JSON.
[[nodiscard]] RunResult runThroughEngine(const RunRequest& request, Engine::Isolation isolation);

/// Compiles `project` for `arch` with this computer's NVRTC, or, when `elsewhere` names a
/// runner on another computer and NVRTC is missing here, in that runner.
[[nodiscard]] CompileResult compileThroughEngine(const Project& project, const QString& projectDir,
                                                 const QString& arch,
                                                 const std::optional<RunnerSpec>& elsewhere = {});

/// Compiles `project` for `arch` with -lineinfo and disassembles the CUBIN with nvdisasm.
[[nodiscard]] SassReport disassembleThroughEngine(const Project& project, const QString& projectDir,
                                                  const QString& arch);

/// The devices of this computer (in this process) or of `elsewhere`'s runner; empty and
/// `*error` when there are none.
[[nodiscard]] QVector<DeviceInfo> devicesThroughEngine(const std::optional<RunnerSpec>& elsewhere,
                                                       QString* error);

} // namespace kernelpad::cli
