#include "app/cli/CliDiff.h"

#include "app/cli/CliCommands.h"
#include "app/cli/CliEngine.h"
#include "core/compile/CompileComparison.h"
#include "core/compile/Sass.h"
#include "core/engine/EditVerdict.h"
#include "core/io/SafeFile.h"
#include "core/project/Project.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>

#include <algorithm>
#include <functional>
#include <optional>
#include <utility>

namespace kernelpad::cli {

namespace {

int fail(const QString& message, bool json) {
    if (json)
        QTextStream(stdout) << QJsonDocument(
                                   QJsonObject{{"error", message}, {"status", "bad-input"}})
                                   .toJson(QJsonDocument::Indented);
    else
        QTextStream(stderr) << "kernelpad-cli: " << message << '\n';
    return kExitBadInput;
}

/// A .kpad project, or a source file (.cu, .ptx, .ll) made into one, as `compile` reads it.
std::optional<Project> loadInput(const QString& path, QString* error) {
    if (path.endsWith(QLatin1String(".kpad")))
        return Project::load(path, error);
    // Bounded and regular files only: a FIFO would hang the CLI, /dev/zero fill memory.
    QString why;
    const std::optional<QByteArray> bytes =
        readRegularFile(path, ReadLimits{kMaxCliSourceBytes, true}, &why);
    if (!bytes) {
        *error = QStringLiteral("cannot read %1: %2").arg(path, why);
        return std::nullopt;
    }
    Project project;
    project.source = QString::fromUtf8(*bytes);
    project.sourceName = QFileInfo(path).fileName();
    project.language = languageOfFile(path);
    return project;
}

/// One side: the project compiled with ptxas's report and, when asked, its SASS.
struct Side {
    CompileResult compile;
    SassResult sass;
};

/// The verdict of kernel `k` (one sentence: registers, spills, shared memory, the opcodes that
/// changed most), when both compiles have it.
std::optional<EditVerdict> kernelVerdict(const KernelComparison& k, const Side& old,
                                         const Side& now, bool sass) {
    if (!k.inBefore || !k.inAfter)
        return std::nullopt;
    return editVerdict(verdictSideOf(old.compile, sass ? &old.sass.listing : nullptr, k.lowered),
                       verdictSideOf(now.compile, sass ? &now.sass.listing : nullptr, k.lowered));
}

void printRows(QTextStream& out, const CompileComparison& comparison, const QString& kernel,
               const std::function<std::optional<EditVerdict>(const KernelComparison&)>& verdict) {
    for (const KernelComparison& k : comparison.kernels) {
        if (!kernel.isEmpty() && k.name != kernel && k.lowered != kernel)
            continue;
        out << "kernel " << k.name;
        if (!k.inBefore)
            out << " (only after)";
        else if (!k.inAfter)
            out << " (only before)";
        out << '\n';
        int width = 0;
        for (const ComparisonRow& row : k.rows)
            width = std::max(width, int(row.label.size()));
        for (const ComparisonRow& row : k.rows)
            out << "  " << row.label.leftJustified(width + 2) << row.text() << '\n';
        if (const std::optional<EditVerdict> v = verdict(k))
            out << "  verdict: " << v->sentence << '\n';
    }
}

QString counts(const ListingDiff& diff) {
    if (diff.identical())
        return QStringLiteral("no changes");
    return QStringLiteral("%1 changed, %2 added, %3 removed%4")
        .arg(diff.changed)
        .arg(diff.added)
        .arg(diff.removed)
        .arg(diff.truncated ? QStringLiteral(" (too many edits to align)") : QString());
}

void printLineDiff(QTextStream& out, const ListingDiff& diff) {
    for (const ListingDiffRow& row : diff.rows) {
        if (row.kind == ListingDiffRow::Kind::Same)
            continue;
        if (row.before >= 0)
            out << "- " << diff.before.at(row.before).trimmed() << '\n';
        if (row.after >= 0)
            out << "+ " << diff.after.at(row.after).trimmed() << '\n';
    }
}

} // namespace

int runCompileDiff(const CompileDiffOptions& options) {
    QString error;
    const std::optional<Project> after = loadInput(options.afterPath, &error);
    if (!after)
        return fail(error, options.json);
    const std::optional<Project> before = loadInput(options.beforePath, &error);
    if (!before)
        return fail(QStringLiteral("--diff: %1").arg(error), options.json);

    const auto build = [&](Project project, const QString& path) {
        if (project.language == SourceLanguage::Cuda)
            project.options = withPtxasReport(project.options);
        // Line tables only; the SASS is the same (tests/data/sass/README.md).
        if (options.sass)
            project.options.lineInfo = true;
        const QString arch = options.arch.isEmpty()
                                 ? project.options.arch.value_or(QString::fromLatin1(kDefaultArch))
                                 : options.arch;
        const QString projectDir = QFileInfo(path).absolutePath();
        Side side;
        if (!options.sass) {
            side.compile = compileThroughEngine(project, projectDir, arch);
            return side;
        }
        // The compile and nvdisasm's SASS of it in one Engine request.
        SassReport report = disassembleThroughEngine(project, projectDir, arch);
        side.compile = std::move(report.compile);
        if (side.compile.ok)
            side.sass = std::move(report.sass);
        return side;
    };
    const Side old = build(*before, options.beforePath);
    const Side now = build(*after, options.afterPath);
    for (const auto& [side, path] :
         {std::pair{&old, options.beforePath}, {&now, options.afterPath}}) {
        if (!side->compile.error.isEmpty())
            return fail(QStringLiteral("%1: %2").arg(path, side->compile.error), options.json);
        if (!side->compile.ok) {
            if (options.json) {
                QTextStream(stdout)
                    << QJsonDocument(QJsonObject{{"error", path + " does not compile"},
                                                 {"status", "compile-error"},
                                                 {"log", side->compile.log}})
                           .toJson(QJsonDocument::Indented);
            } else {
                QTextStream(stderr) << "kernelpad-cli: " << path << " does not compile:\n"
                                    << side->compile.log << '\n';
            }
            return kExitCompileError;
        }
        if (options.sass && !side->sass.ok)
            return fail(side->sass.error, options.json);
    }
    const CompileComparison comparison =
        compareCompiles(old.compile, options.sass ? &old.sass.listing : nullptr, now.compile,
                        options.sass ? &now.sass.listing : nullptr);
    if (!options.kernel.isEmpty() && !comparison.find(options.kernel))
        return fail(QStringLiteral("--kernel: '%1' is in neither compile").arg(options.kernel),
                    options.json);

    const auto verdict = [&](const KernelComparison& k) {
        return kernelVerdict(k, old, now, options.sass);
    };
    if (options.json) {
        QJsonObject object = comparison.toJson(options.ptx);
        // Each kernel in both compiles gets its verdict beside its figures.
        QJsonArray kernels = object.value("kernels").toArray();
        for (int i = 0; i < kernels.size() && i < comparison.kernels.size(); ++i)
            if (const std::optional<EditVerdict> v = verdict(comparison.kernels.at(i))) {
                QJsonObject k = kernels.at(i).toObject();
                k.insert("verdict", v->toJson());
                kernels.replace(i, k);
            }
        object.insert("kernels", kernels);
        object.insert("before", options.beforePath);
        object.insert("after", options.afterPath);
        QTextStream(stdout) << QJsonDocument(object).toJson(QJsonDocument::Indented);
        return kExitOk;
    }
    QTextStream out(stdout);
    out << "before: " << options.beforePath << " (" << old.compile.arch << ")\n"
        << "after:  " << options.afterPath << " (" << now.compile.arch << ")\n";
    printRows(out, comparison, options.kernel, verdict);
    out << "PTX: " << counts(comparison.ptx) << '\n';
    if (comparison.hasSass)
        out << "SASS: " << counts(comparison.sass) << '\n';
    if (options.ptx)
        printLineDiff(out, comparison.ptx);
    return kExitOk;
}

} // namespace kernelpad::cli
