#pragma once
// The window's one builder of the requests it hands the Engine: Run, live mode, the baseline
// kernel, Profile, memcheck, the sweep and the lesson's checks all take the project folder
// and the device from here, so a relative `.npy` input (or include folder) that Run finds is
// found by every other request of the same document.

#include "core/run/RunTypes.h"

namespace kernelpad {

class ProjectDocument;

/// A request for `document`'s project (or `project` when given) on device `device`: its
/// folder is ProjectDocument::directory() (the file's folder, an untitled copy's origin, or
/// the working folder); the other fields keep RunRequest's defaults.
[[nodiscard]] RunRequest documentRequest(const ProjectDocument& document, int device,
                                         const Project* project = nullptr);

} // namespace kernelpad
