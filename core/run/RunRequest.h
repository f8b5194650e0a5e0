#pragma once
// What a run is asked to do: the project, where it lives, and how to run it
// (docs/ARCHITECTURE.md, "Data flow of one run"). A plain value with a JSON form, sent to the
// runner process as it is.

#include "core/project/Project.h"
#include "core/run/SanitizerReport.h"

#include <QJsonObject>
#include <QMetaType>
#include <QString>

#include <optional>

namespace kernelpad {

/// One request to compile, run and verify a project.
struct RunRequest {
    Project project;
    QString projectDir; ///< resolves relative paths (.npy files, include dirs)
    int device = 0;
    std::optional<int> repetitions; ///< overrides project.timing.repetitions
    bool keepOutputs = true;        ///< copy output buffers into the result
    /// Run once under compute-sanitizer with this tool (a separate, one-off runner process).
    SanitizerTool sanitizer = SanitizerTool::None;
    /// Time the device-to-device copy ceiling again before the run (it is otherwise measured
    /// once per device and kept on disk); the result's timing shows the share of it.
    bool measureCeiling = false;
    /// Lock the device's clocks to its base clocks before timing (Device > Lock Clocks), until
    /// a request without it or the runner's exit; false releases a lock this runner holds.
    bool lockClocks = false;

    [[nodiscard]] QJsonObject toJson() const;
    static std::optional<RunRequest> fromJson(const QJsonObject& json, QString* error);
};

} // namespace kernelpad

Q_DECLARE_METATYPE(kernelpad::RunRequest)
