// kernelpad-cli ab: its command line and the two arms it names (CliAb.h).

#include "app/cli/CliAb.h"
#include "core/run/VersionHistory.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

#include <algorithm>

namespace kernelpad::cli {

namespace {

/// `text` as an integer of at least `minimum`, else a message naming `option`.
std::optional<qint64> integerOption(const QString& option, const QString& text, qint64 minimum,
                                    QString* error) {
    bool ok = false;
    const qint64 value = text.toLongLong(&ok);
    if (ok && value >= minimum)
        return value;
    *error = QStringLiteral("ab: %1 takes an integer >= %2 (got '%3')")
                 .arg(option)
                 .arg(minimum)
                 .arg(text);
    return std::nullopt;
}

/// Applies one option with a value; false with `*error` when it is wrong.
bool applyValued(AbCommandLine& line, const QString& option, const QString& value, QString* error) {
    if (option == QLatin1String("--target-percent")) {
        bool ok = false;
        const double percent = value.toDouble(&ok);
        if (!ok || !(percent > 0) || percent > 100) {
            *error = QStringLiteral("ab: --target-percent takes a number above 0 and at most "
                                    "100 (got '%1')")
                         .arg(value);
            return false;
        }
        line.settings.targetHalfWidthPercent = percent;
        return true;
    }
    if (option == QLatin1String("--versions-dir")) {
        line.versionsDir = value;
        return true;
    }
    const qint64 minimum = option == QLatin1String("--budget-ms") ? 100
                           : option == QLatin1String("--version") ? 1
                                                                  : 0;
    const std::optional<qint64> n = integerOption(option, value, minimum, error);
    if (!n)
        return false;
    if (option == QLatin1String("--budget-ms"))
        line.settings.budgetMs = int(std::min<qint64>(*n, 3600 * 1000));
    else if (option == QLatin1String("--version"))
        line.version = int(std::min<qint64>(*n, 1 << 30));
    else if (option == QLatin1String("--device"))
        line.device = int(std::min<qint64>(*n, 1 << 16));
    else
        line.settings.seed = quint64(*n);
    return true;
}

} // namespace

std::optional<AbCommandLine> parseAbCommandLine(const QStringList& args, QString* error) {
    static const QStringList kValued = {
        QStringLiteral("--budget-ms"), QStringLiteral("--target-percent"),
        QStringLiteral("--version"),   QStringLiteral("--versions-dir"),
        QStringLiteral("--device"),    QStringLiteral("--seed")};
    AbCommandLine line;
    QStringList files;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString& a = args[i];
        if (a == QLatin1String("--json")) {
            line.json = true;
        } else if (kValued.contains(a)) {
            if (i + 1 >= args.size()) {
                *error = QStringLiteral("ab: %1 needs a value").arg(a);
                return std::nullopt;
            }
            if (!applyValued(line, a, args[++i], error))
                return std::nullopt;
        } else if (a.startsWith(QLatin1Char('-'))) {
            *error = QStringLiteral("ab: unknown option %1").arg(a);
            return std::nullopt;
        } else {
            files << a;
        }
    }
    const QString usage =
        QStringLiteral("ab takes A.kpad B.kpad, or P.kpad --version N (kernelpad-cli ab --help)");
    if (files.isEmpty() || files.size() > 2 || (files.size() == 2) == line.version.has_value()) {
        *error = QStringLiteral("ab: %1").arg(usage);
        return std::nullopt;
    }
    for (const QString& file : std::as_const(files))
        if (!file.endsWith(QLatin1String(".kpad"))) {
            *error = QStringLiteral("ab: %1 is not a project (.kpad); %2").arg(file, usage);
            return std::nullopt;
        }
    line.pathA = files.value(0);
    line.pathB = files.value(1);
    return line;
}

QString windowVersionsDir() {
    // The window's AppDataLocation (organisation and application "KernelPad"): this program's
    // own name would give another folder.
    return QDir(QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation))
        .filePath(QStringLiteral("KernelPad/KernelPad"));
}

namespace {

std::optional<RunRequest> requestOf(const QString& path, int device, QString* error) {
    std::optional<Project> project = Project::load(path, error);
    if (!project)
        return std::nullopt;
    RunRequest request;
    request.project = std::move(*project);
    request.projectDir = QFileInfo(path).absolutePath();
    request.device = device;
    request.keepOutputs = false;
    return request;
}

std::optional<Version> findVersion(const AbCommandLine& line, QString* error) {
    const VersionStore store(QFileInfo(line.pathA).absoluteFilePath(),
                             line.versionsDir.isEmpty() ? windowVersionsDir() : line.versionsDir);
    QString loadError;
    const QVector<Version> versions = store.load(&loadError);
    if (!loadError.isEmpty()) {
        *error = QStringLiteral("%1: versions: %2").arg(line.pathA, loadError);
        return std::nullopt;
    }
    QStringList numbers;
    for (const Version& v : versions) {
        if (v.number == *line.version && !v.kept)
            return v;
        if (!v.kept)
            numbers << QString::number(v.number);
    }
    *error = numbers.isEmpty()
                 ? QStringLiteral("%1: --version %2: the window has kept no versions of this "
                                  "project (looked in %3)")
                       .arg(line.pathA)
                       .arg(*line.version)
                       .arg(store.filePath())
                 : QStringLiteral("%1: --version %2: no such version (kept: %3)")
                       .arg(line.pathA)
                       .arg(*line.version)
                       .arg(numbers.join(QStringLiteral(", ")));
    return std::nullopt;
}

} // namespace

std::optional<AbOrder> abOrderOf(const AbCommandLine& line, QString* error) {
    AbOrder order;
    order.settings = line.settings;
    std::optional<RunRequest> a = requestOf(line.pathA, line.device, error);
    if (!a)
        return std::nullopt;
    order.a = std::move(*a);
    order.labelA = QFileInfo(line.pathA).fileName();
    if (line.version) {
        const std::optional<Version> version = findVersion(line, error);
        if (!version)
            return std::nullopt;
        order.b = order.a;
        order.b.project = version->project;
        order.labelB = QStringLiteral("version %1").arg(version->number);
        return order;
    }
    std::optional<RunRequest> b = requestOf(line.pathB, line.device, error);
    if (!b)
        return std::nullopt;
    order.b = std::move(*b);
    order.labelB = QFileInfo(line.pathB).fileName();
    if (order.labelB == order.labelA)
        order.labelB = line.pathB;
    return order;
}

} // namespace kernelpad::cli
