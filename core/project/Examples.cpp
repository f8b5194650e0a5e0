#include "core/project/Examples.h"

#include "core/project/Project.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include <algorithm>

namespace kernelpad {

QVector<ExampleInfo> listExamples(const QString& dir) {
    QVector<ExampleInfo> examples;
    const QFileInfoList files =
        QDir(dir).entryInfoList({QStringLiteral("*.kpad")}, QDir::Files | QDir::Readable);
    for (const QFileInfo& file : files) {
        // A broken example must not hide the others; the gallery simply leaves it out.
        const std::optional<Project> project = Project::load(file.absoluteFilePath(), nullptr);
        if (!project)
            continue;
        const QString name =
            project->name.trimmed().isEmpty() ? file.completeBaseName() : project->name;
        examples.append(ExampleInfo{file.absoluteFilePath(), name, project->description});
    }
    std::sort(examples.begin(), examples.end(), [](const ExampleInfo& a, const ExampleInfo& b) {
        const int order = QString::compare(a.name, b.name, Qt::CaseInsensitive);
        return order != 0 ? order < 0 : a.path < b.path;
    });
    return examples;
}

QString examplesDirectory() {
    QStringList candidates;
    const QString fromEnvironment = qEnvironmentVariable("KERNELPAD_EXAMPLES");
    if (!fromEnvironment.isEmpty())
        candidates.append(fromEnvironment);
    // applicationDirPath() needs an application object; tests and tools may not have one.
    if (QCoreApplication::instance()) {
        const QString appDir = QCoreApplication::applicationDirPath();
        candidates.append(appDir + QStringLiteral("/../share/kernelpad/examples"));
        candidates.append(appDir + QStringLiteral("/examples"));
    }
    candidates.append(QStringLiteral(KERNELPAD_SOURCE_DIR "/resources/examples"));
    for (const QString& candidate : candidates) {
        const QFileInfo info(candidate);
        if (info.isDir())
            return info.canonicalFilePath();
    }
    return {};
}

} // namespace kernelpad
