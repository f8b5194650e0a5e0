// Fuzzes the .kpad loader: JSON bytes -> Project::fromJson, then a save/load round trip.
#include "core/project/Project.h"

#include <QByteArray>
#include <QJsonDocument>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace kernelpad;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const QByteArray bytes =
        QByteArray::fromRawData(reinterpret_cast<const char*>(data), qsizetype(size));
    const QJsonDocument doc = QJsonDocument::fromJson(bytes);
    if (!doc.isObject())
        return 0;
    QString error;
    const std::optional<Project> project = Project::fromJson(doc.object(), &error);
    if (!project)
        return 0;
    (void)project->nameExpressions();
    (void)project->findArgument(QStringLiteral("x"));
    // What the loader accepts, the saver must write back in a form the loader accepts again:
    // a project that saves but cannot be reopened is lost work.
    const QByteArray saved = QJsonDocument(project->toJson()).toJson(QJsonDocument::Compact);
    QString again;
    const std::optional<Project> reloaded =
        Project::fromJson(QJsonDocument::fromJson(saved).object(), &again);
    if (!reloaded) {
        std::fprintf(stderr, "saved project does not load again: %s\n%s\n", qPrintable(again),
                     saved.constData());
        std::abort();
    }
    if (!(*reloaded == *project)) {
        std::fprintf(stderr, "project changed in a save/load round trip:\n%s\n", saved.constData());
        std::abort();
    }
    return 0;
}
