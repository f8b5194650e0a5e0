#include "core/runner/StreamFiles.h"

#include "core/launch/BufferInit.h"
#include "core/runner/Protocol.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <functional>

namespace kernelpad {
namespace {

/// `path` relative to `base` when it lies inside it, else empty.
QString insideName(const QDir& base, const QString& path) {
    const QString absolute = QDir::cleanPath(base.absoluteFilePath(path));
    const QString name = base.relativeFilePath(absolute);
    return isSafeStreamName(name) ? name : QString();
}

/// Calls `each` with every buffer description of the project and the field it sits at.
void forEachBuffer(Project& project, const std::function<void(BufferSpec&, const QString&)>& each) {
    for (int k = 0; k < project.arguments.size(); ++k)
        if (!project.arguments[k].isScalar())
            each(project.arguments[k].buffer, QStringLiteral("arguments[%1]").arg(k));
    for (int k = 0; k < project.globals.size(); ++k)
        each(project.globals[k].value, QStringLiteral("globals[%1]").arg(k));
}

} // namespace

std::optional<QVector<StreamedFile>> collectStreamedFiles(RunRequest* request, QString* error) {
    const QDir base(request->projectDir.isEmpty() ? QDir::currentPath() : request->projectDir);
    QVector<StreamedFile> files;
    QSet<QString> seen;
    QString problem;
    const auto add = [&](const QString& name, const QString& path) {
        if (seen.contains(name))
            return;
        seen.insert(name);
        files.push_back(StreamedFile{name, path, QFileInfo(path).size()});
    };
    // .npy files: each must be a readable file inside the project folder.
    const auto takeFile = [&](QString& path, const QString& field) {
        if (!problem.isEmpty())
            return;
        const QString name = insideName(base, path);
        const QString absolute = QDir::cleanPath(base.absoluteFilePath(path));
        if (name.isEmpty()) {
            problem = QStringLiteral("%1: '%2' is outside the project folder %3, so it cannot be "
                                     "sent to the runner; move it into the project folder")
                          .arg(field, path, base.absolutePath());
            return;
        }
        if (!QFileInfo(absolute).isFile() || !QFileInfo(absolute).isReadable()) {
            problem = QStringLiteral("%1: '%2' is not a readable file").arg(field, absolute);
            return;
        }
        if (QFileInfo(absolute).size() > kMaxBufferBytes) {
            problem = QStringLiteral("%1: '%2' is larger than %3 bytes")
                          .arg(field, absolute)
                          .arg(kMaxBufferBytes);
            return;
        }
        path = name;
        add(name, absolute);
    };
    forEachBuffer(request->project, [&](BufferSpec& b, const QString& field) {
        if (b.init.kind == InitSpec::Kind::File)
            takeFile(b.init.path, field + QStringLiteral(".init.path"));
        if (b.verify.kind == VerifySpec::Kind::File)
            takeFile(b.verify.path, field + QStringLiteral(".verify.path"));
    });
    // Include dirs resolve inside the runner's copy of the project folder.
    QStringList includeRoots;
    for (int k = 0; k < request->project.options.includeDirs.size() && problem.isEmpty(); ++k) {
        QString& dir = request->project.options.includeDirs[k];
        const QString absolute = QDir::cleanPath(base.absoluteFilePath(dir));
        const QString name = absolute == QDir::cleanPath(base.absolutePath())
                                 ? QStringLiteral(".")
                                 : insideName(base, dir);
        if (name.isEmpty()) {
            problem = QStringLiteral("options.includeDirs[%1]: '%2' is outside the project "
                                     "folder %3, so its headers cannot be sent to the runner")
                          .arg(k)
                          .arg(dir, base.absolutePath());
            break;
        }
        dir = name;
        includeRoots << absolute;
    }
    // Local headers: quoted includes beside the including file, then the include dirs; only
    // files inside the project folder (the toolkit's headers are the runner's own).
    static const QRegularExpression includeLine(
        QStringLiteral(R"re(^\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>))re"),
        QRegularExpression::MultilineOption);
    QList<QPair<QString, QString>> pending{{request->project.source, base.absolutePath()}};
    while (!pending.isEmpty() && problem.isEmpty()) {
        const auto [text, dir] = pending.takeFirst();
        auto it = includeLine.globalMatch(text);
        while (it.hasNext()) {
            const QRegularExpressionMatch m = it.next();
            const bool quoted = m.capturedLength(1) > 0;
            const QString included = quoted ? m.captured(1) : m.captured(2);
            QStringList dirs = includeRoots;
            if (quoted)
                dirs.prepend(dir);
            for (const QString& d : dirs) {
                const QString path = QDir::cleanPath(QDir(d).absoluteFilePath(included));
                if (!QFileInfo(path).isFile())
                    continue;
                const QString name = insideName(base, path);
                if (!name.isEmpty() && !seen.contains(name)) {
                    if (files.size() >= kMaxStreamedFiles) {
                        problem = QStringLiteral("source: it includes more than %1 local files")
                                      .arg(kMaxStreamedFiles);
                        break;
                    }
                    add(name, path);
                    QFile f(path);
                    if (f.open(QIODevice::ReadOnly))
                        pending.push_back(
                            {QString::fromUtf8(f.readAll()), QFileInfo(path).absolutePath()});
                }
                break;
            }
        }
    }
    if (!problem.isEmpty()) {
        *error = problem;
        return std::nullopt;
    }
    return files;
}

QString checkStreamedPaths(const RunRequest& request, const QSet<QString>& names) {
    Project project = request.project; // forEachBuffer hands out mutable specs
    QString problem;
    const auto check = [&](const QString& path, const QString& field) {
        if (problem.isEmpty() && !names.contains(path))
            problem = QStringLiteral("%1: '%2' is not one of the files sent with the request "
                                     "(a runner with streamed buffers opens no other path)")
                          .arg(field, path);
    };
    forEachBuffer(project, [&](BufferSpec& b, const QString& field) {
        if (b.init.kind == InitSpec::Kind::File)
            check(b.init.path, field + QStringLiteral(".init.path"));
        if (b.verify.kind == VerifySpec::Kind::File)
            check(b.verify.path, field + QStringLiteral(".verify.path"));
    });
    for (int k = 0; k < project.options.includeDirs.size() && problem.isEmpty(); ++k) {
        const QString& dir = project.options.includeDirs[k];
        if (dir != QLatin1String(".") && !isSafeStreamName(dir))
            problem = QStringLiteral("options.includeDirs[%1]: '%2' must be a folder inside the "
                                     "project (no absolute path, no '..')")
                          .arg(k)
                          .arg(dir);
    }
    return problem;
}

} // namespace kernelpad
