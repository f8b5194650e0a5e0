#include "app/cli/CliInit.h"

#include "app/cli/CliCommands.h"
#include "core/compile/KernelSignature.h"
#include "core/io/SafeFile.h"
#include "core/launch/BufferInit.h"
#include "core/launch/LaunchValidation.h"
#include "core/project/Project.h"

#include <QDir>
#include <QFileInfo>
#include <QTextStream>

#include <algorithm>
#include <limits>

namespace kernelpad::cli {

namespace {

/// A kernel source is text a person wrote; beyond this it is not one (and NVRTC would choke).
constexpr qint64 kMaxSourceBytes = qint64(16) << 20;
/// The block a first run uses: a multiple of every warp size, within every device's limit.
constexpr int kDefaultBlockThreads = 256;

int fail(const QString& message) {
    QTextStream(stderr) << "kernelpad-cli init: " << message << '\n';
    return kExitBadInput;
}

/// The element count a 1-D launch should cover, as the window's "cover" field guesses it: the
/// first out or inout buffer's count (else the first buffer's), else the first integer scalar.
qint64 elementsToCover(const QVector<ArgumentSpec>& args) {
    const ArgumentSpec* pick = nullptr;
    for (const ArgumentSpec& a : args) {
        if (!a.isBuffer())
            continue;
        if (!pick)
            pick = &a;
        if (a.buffer.direction != Direction::In) {
            pick = &a;
            break;
        }
    }
    QString error;
    if (pick) {
        if (const std::optional<qint64> count = resolveCount(pick->buffer.count, args, &error))
            return *count;
    }
    for (const ArgumentSpec& a : args) {
        if (a.isBuffer() || a.type.isStruct())
            continue;
        const ScalarTypeInfo& info = scalarTypeInfo(a.type.scalar);
        if (!info.isFloat && a.type.scalar != ScalarType::Bool)
            return a.value.toLongLong();
    }
    return 0;
}

} // namespace

int runInit(const QStringList& args) {
    QString sourcePath, kernelName, outPath;
    bool force = false;
    for (int i = 0; i < args.size(); ++i) {
        const QString& a = args.at(i);
        const bool takesValue = a == QLatin1String("--kernel") || a == QLatin1String("-o") ||
                                a == QLatin1String("--output");
        if (takesValue && i + 1 >= args.size())
            return fail(QStringLiteral("option %1 needs a value").arg(a));
        if (a == QLatin1String("--kernel"))
            kernelName = args.at(++i);
        else if (a == QLatin1String("-o") || a == QLatin1String("--output"))
            outPath = args.at(++i);
        else if (a == QLatin1String("--force"))
            force = true;
        else if (a.startsWith(QLatin1Char('-')))
            return fail(QStringLiteral("unknown option %1").arg(a));
        else if (sourcePath.isEmpty())
            sourcePath = a;
        else
            return fail(QStringLiteral("init takes one KERNEL.cu (got '%1' too)").arg(a));
    }
    if (sourcePath.isEmpty())
        return fail(QStringLiteral("init takes one KERNEL.cu"));

    QString why;
    const std::optional<QByteArray> bytes =
        readRegularFile(sourcePath, ReadLimits{kMaxSourceBytes, true}, &why);
    if (!bytes)
        return fail(
            QStringLiteral("cannot read '%1': %2").arg(QDir::toNativeSeparators(sourcePath), why));
    const QString source = QString::fromUtf8(*bytes);
    const QFileInfo sourceInfo(sourcePath);

    const QStringList kernels = KernelSignature::kernelNames(source);
    if (kernels.isEmpty())
        return fail(QStringLiteral("no __global__ kernel in '%1'")
                        .arg(QDir::toNativeSeparators(sourcePath)));
    if (kernelName.isEmpty())
        kernelName = kernels.first();
    const std::optional<KernelSignature> signature = KernelSignature::find(source, kernelName);
    if (!signature)
        return fail(QStringLiteral("kernel '%1' is not in '%2'; it has: %3")
                        .arg(kernelName, QDir::toNativeSeparators(sourcePath),
                             kernels.join(QStringLiteral(", "))));

    if (outPath.isEmpty())
        outPath =
            sourceInfo.dir().filePath(sourceInfo.completeBaseName() + QStringLiteral(".kpad"));
    if (QFileInfo::exists(outPath) && !force)
        return fail(QStringLiteral("'%1' exists; pass --force to replace it")
                        .arg(QDir::toNativeSeparators(outPath)));

    // The same defaults the window gives a kernel it has not seen before: the source alone
    // decides (no compile), as the table does before the first compile.
    KernelInfo kernel;
    kernel.name = kernelName;
    Project project;
    project.name = sourceInfo.completeBaseName();
    project.source = source;
    project.sourceName = sourceInfo.fileName();
    project.kernel = kernelName;
    project.arguments = argumentsForKernel(kernel, source, {});
    project.launch.block = {kDefaultBlockThreads, 1, 1};
    if (const qint64 elements = elementsToCover(project.arguments); elements > 0) {
        const qint64 blocks = gridToCover(elements, kDefaultBlockThreads);
        project.launch.grid[0] = int(std::min<qint64>(blocks, std::numeric_limits<int>::max()));
    }
    if (!project.save(outPath, &why))
        return fail(why);

    QTextStream out(stdout);
    out << "wrote " << QDir::toNativeSeparators(outPath) << ": kernel " << kernelName << ", "
        << project.arguments.size() << " arguments, grid " << project.launch.grid[0] << " x block "
        << kDefaultBlockThreads << '\n';
    for (const ArgumentSpec& a : project.arguments) {
        if (a.isBuffer())
            out << "  " << a.name << ": buffer of " << a.buffer.count << ' '
                << a.buffer.elementType.displayName() << ", " << directionName(a.buffer.direction)
                << '\n';
        else
            out << "  " << a.name << ": " << a.type.displayName() << " = " << a.value << '\n';
    }
    return kExitOk;
}

} // namespace kernelpad::cli
