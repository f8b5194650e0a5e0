#include "core/project/ProjectFromSource.h"

#include "core/compile/KernelSignature.h"
#include "core/io/SafeFile.h"
#include "core/launch/BufferInit.h"
#include "core/launch/LaunchValidation.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <limits>

namespace kernelpad {
namespace {

/// A kernel source is text a person wrote; beyond this it is not one (and NVRTC would choke).
constexpr qint64 kMaxSourceBytes = qint64(16) << 20;

} // namespace

std::optional<Project> projectFromSourceFile(const QString& path, const QString& kernel,
                                             QString* error) {
    const QString shown = QDir::toNativeSeparators(path);
    const auto fail = [error](const QString& message) -> std::optional<Project> {
        if (error)
            *error = message;
        return std::nullopt;
    };
    QString why;
    const std::optional<QByteArray> bytes =
        readRegularFile(path, ReadLimits{kMaxSourceBytes, true}, &why);
    if (!bytes)
        return fail(QStringLiteral("cannot read '%1': %2").arg(shown, why));
    const QString source = QString::fromUtf8(*bytes);
    const QStringList kernels = KernelSignature::kernelNames(source);
    if (kernels.isEmpty())
        return fail(QStringLiteral("no __global__ kernel in '%1'").arg(shown));
    const QString name = kernel.isEmpty() ? kernels.first() : kernel;
    if (!KernelSignature::find(source, name))
        return fail(QStringLiteral("kernel '%1' is not in '%2'; it has: %3")
                        .arg(name, shown, kernels.join(QStringLiteral(", "))));

    // The same defaults the window gives a kernel it has not seen before: the source alone
    // decides (no compile), as the table does before the first compile.
    const QFileInfo info(path);
    KernelInfo compiled;
    compiled.name = name;
    Project project;
    project.name = info.completeBaseName();
    project.source = source;
    project.sourceName = info.fileName();
    project.kernel = name;
    project.arguments = argumentsForKernel(compiled, source, {});
    project.launch.block = {kDefaultBlockThreads, 1, 1};
    if (const qint64 elements = elementsToCover(project.arguments); elements > 0) {
        const qint64 blocks = gridToCover(elements, kDefaultBlockThreads);
        project.launch.grid[0] = int(std::min<qint64>(blocks, std::numeric_limits<int>::max()));
    }
    return project;
}

} // namespace kernelpad
