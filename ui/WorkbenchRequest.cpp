#include "ui/WorkbenchRequest.h"

#include "ui/ProjectDocument.h"

namespace kernelpad {

RunRequest documentRequest(const ProjectDocument& document, int device, const Project* project) {
    RunRequest request;
    request.project = project ? *project : document.project();
    request.projectDir = document.directory();
    request.device = device;
    return request;
}

} // namespace kernelpad
