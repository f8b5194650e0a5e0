#include "core/project/Starter.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace kernelpad {

Project starterProject(const QString& name) {
    // Written as a project file so that it is checked by the same loader as any other.
    static const char kStarter[] = R"({
        "format": "kernelpad-project", "version": 1,
        "sourceName": "kernel.cu",
        "source": "// A new kernel: edit, then Compile (Ctrl+B) and Run (Ctrl+R).\nextern \"C\" __global__ void kernel(float* out, int n)\n{\n    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n)\n        out[i] = float(i);\n}\n",
        "kernel": "kernel",
        "arguments": [
            {"name": "out", "kind": "buffer", "buffer": {"type": {"scalar": "float32"},
             "count": "n", "init": {"kind": "zeros"}, "direction": "out",
             "verify": {"kind": "expression", "expression": "i", "atol": 0, "rtol": 0}}},
            {"name": "n", "kind": "scalar", "type": {"scalar": "int32"}, "value": "1024"}
        ],
        "launch": {"grid": [4, 1, 1], "block": [256, 1, 1], "sharedMemBytes": 0}
    })";
    QString error;
    std::optional<Project> project =
        Project::fromJson(QJsonDocument::fromJson(QByteArray(kStarter)).object(), &error);
    if (!project)
        qFatal("the starter project does not load: %s", qPrintable(error)); // a build defect
    project->name = name;
    return *project;
}

} // namespace kernelpad
