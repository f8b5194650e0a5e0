#pragma once
// Arguments, kernels and projects that several test files build: one copy of each.

#include "core/compile/CompileResult.h"
#include "core/cuda/DeviceInfo.h"
#include "core/launch/ArgumentSpec.h"
#include "core/project/Project.h"
#include "core/run/RunRequest.h"

#include "TestPaths.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QVector>

#include <functional>

namespace kernelpad::test {

/// An H100-like device for window and session tests that emit Engine::devicesChanged.
inline DeviceInfo fakeDevice() {
    DeviceInfo d;
    d.ordinal = 0;
    d.name = QStringLiteral("Test GPU");
    d.ccMajor = 9;
    d.ccMinor = 0;
    d.totalMemBytes = qint64(80) << 30;
    d.smCount = 132;
    d.maxThreadsPerBlock = 1024;
    d.maxBlockDim = {1024, 1024, 64};
    d.maxGridDim = {2147483647, 65535, 65535};
    d.sharedMemPerBlockBytes = 48 * 1024;
    d.sharedMemPerBlockOptinBytes = 227 * 1024;
    d.warpSize = 32;
    return d;
}

inline PtxParam ptx(const QString& type, int size, bool pointer = false) {
    PtxParam p;
    p.ptxType = type;
    p.sizeBytes = size;
    p.alignBytes = size;
    p.isPointer = pointer;
    return p;
}

/// A KernelInfo as the compiler reports it for saxpy(float, const float*, float*, int).
inline KernelInfo saxpyKernel() {
    KernelInfo k;
    k.name = QStringLiteral("saxpy");
    k.lowered = QStringLiteral("_Z5saxpyfPKfPfi");
    k.params = {ptx(".f32", 4), ptx(".u64", 8, true), ptx(".u64", 8, true), ptx(".u32", 4)};
    return k;
}

/// The source of saxpyKernel(), with a comment, an include and a commented-out decoy.
inline const char* const kSaxpySource = R"(
// saxpy: y = a*x + y
#include <cuda_fp16.h>
/* __global__ void saxpy(int old) {} */
extern "C" __global__ void __launch_bounds__(256)
saxpy(float a, const float* __restrict__ x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
)";

/// "name:kind:type[:direction]" for every argument, to compare with a readable expectation.
inline QString describe(const QVector<ArgumentSpec>& args) {
    QStringList parts;
    for (const ArgumentSpec& a : args) {
        QString s =
            QStringLiteral("%1:%2:%3")
                .arg(a.name, a.isBuffer() ? QStringLiteral("buffer") : QStringLiteral("scalar"),
                     a.isBuffer() ? a.buffer.elementType.displayName() : a.type.displayName());
        if (a.isBuffer())
            s += QLatin1Char(':') + directionName(a.buffer.direction);
        parts << s;
    }
    return parts.join(QLatin1Char(','));
}

inline ArgumentSpec scalar(const QString& name, ScalarType type, const QString& value) {
    ArgumentSpec a;
    a.name = name;
    a.type = ValueType::of(type);
    a.value = value;
    return a;
}

inline ArgumentSpec buffer(const QString& name, const QString& count, Direction d) {
    ArgumentSpec a;
    a.name = name;
    a.kind = ArgumentSpec::Kind::Buffer;
    a.buffer.count = count;
    a.buffer.direction = d;
    return a;
}

/// fill(float* out, int n) over 4 blocks of 256 threads (n = 1024); `source` replaces the
/// kernel's text when given.
inline Project fillProject(const QString& source = {}) {
    Project p;
    p.name = QStringLiteral("Fill");
    p.source = source.isEmpty()
                   ? QStringLiteral("extern \"C\" __global__ void fill(float* out, int n)\n{\n"
                                    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                    "    if (i < n)\n        out[i] = 1.0f;\n}\n")
                   : source;
    p.kernel = QStringLiteral("fill");
    p.arguments = {buffer(QStringLiteral("out"), QStringLiteral("n"), Direction::Out),
                   scalar(QStringLiteral("n"), ScalarType::Int32, QStringLiteral("1024"))};
    p.launch.grid = {4, 1, 1};
    p.launch.block = {256, 1, 1};
    return p;
}

/// The shipped example `file` (resources/examples/) with `edit` applied to its "sweep" object;
/// a missing or broken example, or an edit that breaks it, ends the test program.
inline Project exampleWithSweep(const QString& file,
                                const std::function<void(QJsonObject&)>& edit = {}) {
    QFile f(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/") + file);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(file));
    QJsonObject json = QJsonDocument::fromJson(f.readAll()).object();
    QJsonObject sweep = json.value(QStringLiteral("sweep")).toObject();
    if (edit)
        edit(sweep);
    json.insert(QStringLiteral("sweep"), sweep);
    QString error;
    std::optional<Project> p = Project::fromJson(json, &error);
    if (!p)
        qFatal("%s: %s", qPrintable(file), qPrintable(error));
    return *p;
}

/// A request to run the shipped example `file` (resources/examples/) from its folder, as the
/// runner tests send it; a missing or broken example ends the test program.
inline RunRequest exampleRequest(const QString& file) {
    QString error;
    const QString dir = QStringLiteral(KERNELPAD_EXAMPLES_DIR);
    std::optional<Project> p = Project::load(dir + QLatin1Char('/') + file, &error);
    if (!p)
        qFatal("%s", qPrintable(error));
    RunRequest r;
    r.project = *p;
    r.projectDir = dir;
    return r;
}

/// The saxpy example's request: what most runner tests send.
inline RunRequest saxpyRequest() {
    return exampleRequest(QStringLiteral("saxpy.kpad"));
}

} // namespace kernelpad::test
