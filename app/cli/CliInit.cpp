#include "app/cli/CliInit.h"

#include "app/cli/CliCommands.h"
#include "core/project/ProjectFromSource.h"

#include <QDir>
#include <QFileInfo>
#include <QTextStream>

namespace kernelpad::cli {

namespace {

int fail(const QString& message) {
    QTextStream(stderr) << "kernelpad-cli init: " << message << '\n';
    return kExitBadInput;
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
            return fail(
                QStringLiteral("init takes one KERNEL.cu, KERNEL.ptx or KERNEL.ll (got '%1' too)")
                    .arg(a));
    }
    if (sourcePath.isEmpty())
        return fail(QStringLiteral("init takes one KERNEL.cu, KERNEL.ptx or KERNEL.ll"));

    QString why;
    std::optional<Project> made = projectFromSourceFile(sourcePath, kernelName, &why);
    if (!made)
        return fail(why);
    const Project& project = *made;
    if (outPath.isEmpty()) {
        const QFileInfo sourceInfo(sourcePath);
        outPath =
            sourceInfo.dir().filePath(sourceInfo.completeBaseName() + QStringLiteral(".kpad"));
    }
    if (QFileInfo::exists(outPath) && !force)
        return fail(QStringLiteral("'%1' exists; pass --force to replace it")
                        .arg(QDir::toNativeSeparators(outPath)));
    if (!project.save(outPath, &why))
        return fail(why);

    QTextStream out(stdout);
    out << "wrote " << QDir::toNativeSeparators(outPath) << ": kernel " << project.kernel << ", "
        << project.arguments.size() << " arguments, grid " << project.launch.grid[0] << " x block "
        << kDefaultBlockThreads << '\n';
    if (project.language != SourceLanguage::Cuda) // the argument table is a guess: say so
        out << "  (" << project.description << ")\n";
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
