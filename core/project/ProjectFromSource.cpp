#include "core/project/ProjectFromSource.h"

#include "core/compile/KernelNames.h"
#include "core/compile/KernelSignature.h"
#include "core/compile/Program.h"
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

void coverElements(Project* project) {
    project->launch.block = {kDefaultBlockThreads, 1, 1};
    if (const qint64 elements = elementsToCover(project->arguments); elements > 0) {
        const qint64 blocks = gridToCover(elements, kDefaultBlockThreads);
        project->launch.grid[0] = int(std::min<qint64>(blocks, std::numeric_limits<int>::max()));
    }
}

/// A PTX or NVVM IR file: the kernels and their parameters come from the module's `.entry`
/// lines (NVVM IR is compiled to PTX first, for a virtual arch: no device needed).
std::optional<Project> projectFromModule(const QString& path, const QString& source,
                                         SourceLanguage language, const QString& kernel,
                                         QString* error) {
    const QString shown = QDir::toNativeSeparators(path);
    const QFileInfo info(path);
    const CompileResult compiled =
        Program(source, info.fileName(), ProgramOptions{}, info.absolutePath(), language)
            .compile(QStringLiteral("compute_") + QString::fromLatin1(kDefaultArch).mid(3));
    if (!compiled.ok) {
        QString why = compiled.error;
        for (const Diagnostic& d : compiled.diagnostics) {
            if (why.isEmpty() && d.severity == Diagnostic::Severity::Error)
                why = d.line > 0 ? QStringLiteral("line %1: %2").arg(d.line).arg(d.message)
                                 : d.message;
        }
        if (error)
            *error = QStringLiteral("cannot read the kernels of '%1': %2").arg(shown, why);
        return std::nullopt;
    }
    QStringList names;
    for (const KernelInfo& k : compiled.kernels)
        names << k.name;
    if (names.isEmpty()) {
        if (error)
            *error = QStringLiteral("no .entry kernel in '%1'").arg(shown);
        return std::nullopt;
    }
    const KernelInfo* found = compiled.findKernel(kernel.isEmpty() ? names.first() : kernel);
    if (!found) {
        if (error)
            *error = QStringLiteral("kernel '%1' is not in '%2'; it has: %3")
                         .arg(kernel, shown, names.join(QStringLiteral(", ")));
        return std::nullopt;
    }
    Project project;
    project.name = info.completeBaseName();
    project.source = source;
    project.sourceName = info.fileName();
    project.language = language;
    project.kernel = found->name;
    project.arguments = argumentsForKernel(*found, source, {});
    project.description =
        QStringLiteral("Made from %1. %2 does not say what a 64-bit parameter points to: each "
                       ".u64 parameter was taken for a buffer of float32 (unless its name reads "
                       "as a size, like n), a guess to check in the argument table.")
            .arg(info.fileName(), languageTitle(language));
    coverElements(&project);
    return project;
}

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
    if (const SourceLanguage language = languageOfFile(path); language != SourceLanguage::Cuda)
        return projectFromModule(path, source, language, kernel, error);
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
    coverElements(&project);
    return project;
}

} // namespace kernelpad
