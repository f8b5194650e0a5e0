#include "core/project/Examples.h"

#include "core/project/Lesson.h"
#include "core/project/Project.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QHash>

#include <algorithm>

namespace kernelpad {

namespace {

/// $`variable`, <appdir>/../share/kernelpad/`folder`, <appdir>/`folder` and the source
/// tree's resources/`folder`, in the order they are tried.
QStringList shippedCandidates(const char* variable, const QString& folder) {
    QStringList candidates;
    const QString fromEnvironment = qEnvironmentVariable(variable);
    if (!fromEnvironment.isEmpty())
        candidates.append(fromEnvironment);
    // applicationDirPath() needs an application object; tests and tools may not have one.
    if (QCoreApplication::instance()) {
        const QString appDir = QCoreApplication::applicationDirPath();
        candidates.append(appDir + QStringLiteral("/../share/kernelpad/") + folder);
        candidates.append(appDir + QStringLiteral("/") + folder);
    }
    candidates.append(QStringLiteral(KERNELPAD_SOURCE_DIR "/resources/") + folder);
    return candidates;
}

/// The first existing folder of shippedCandidates().
QString shippedDirectory(const char* variable, const QString& folder) {
    for (const QString& candidate : shippedCandidates(variable, folder)) {
        const QFileInfo info(candidate);
        if (info.isDir())
            return info.canonicalFilePath();
    }
    return {};
}

/// The templates' file names in the order a newcomer meets them.
const QStringList kTemplateOrder = {QStringLiteral("empty_kernel"), QStringLiteral("map_1d"),
                                    QStringLiteral("map_2d"), QStringLiteral("reduction")};

} // namespace

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
        examples.append(ExampleInfo{file.absoluteFilePath(), name, project->description,
                                    exampleTopic(file.absoluteFilePath())});
    }
    std::sort(examples.begin(), examples.end(), [](const ExampleInfo& a, const ExampleInfo& b) {
        const int order = QString::compare(a.name, b.name, Qt::CaseInsensitive);
        return order != 0 ? order < 0 : a.path < b.path;
    });
    return examples;
}

QString examplesDirectory() {
    return shippedDirectory("KERNELPAD_EXAMPLES", QStringLiteral("examples"));
}

QString exampleTopic(const QString& path) {
    // The topic is how the gallery arranges the examples, not a property of a project, so it
    // is kept here rather than in the .kpad files (which a user saves as their own).
    static const QHash<QString, QString> topics = {
        {QStringLiteral("saxpy"), QStringLiteral("Basics")},
        {QStringLiteral("vector_add"), QStringLiteral("Basics")},
        {QStringLiteral("test_struct"), QStringLiteral("Basics")},
        {QStringLiteral("printf_whoami"), QStringLiteral("Basics")},
        {QStringLiteral("convolution"), QStringLiteral("Memory and textures")},
        {QStringLiteral("bilinear_texture"), QStringLiteral("Memory and textures")},
        {QStringLiteral("cubemap_texture"), QStringLiteral("Memory and textures")},
        {QStringLiteral("tma_tile_copy"), QStringLiteral("Memory and textures")},
        {QStringLiteral("reduction"), QStringLiteral("Reductions and synchronisation")},
        {QStringLiteral("reduction_pipeline"), QStringLiteral("Reductions and synchronisation")},
        {QStringLiteral("reduce_vs_cub"), QStringLiteral("Reductions and synchronisation")},
        {QStringLiteral("cooperative_sum"), QStringLiteral("Reductions and synchronisation")},
        {QStringLiteral("cluster_histogram"), QStringLiteral("Reductions and synchronisation")},
        {QStringLiteral("ptx_saxpy"), QStringLiteral("PTX")},
        {QStringLiteral("transpose_sweep"), QStringLiteral("Sweeps")},
        {QStringLiteral("saxpy_sizes"), QStringLiteral("Sweeps")},
        {QStringLiteral("wmma_gemm_bf16"), QStringLiteral("Tensor cores and low precision")},
        {QStringLiteral("mma_sync_gemm_bf16"), QStringLiteral("Tensor cores and low precision")},
        {QStringLiteral("wgmma_gemm_bf16"), QStringLiteral("Tensor cores and low precision")},
        {QStringLiteral("fp8_quantize"), QStringLiteral("Tensor cores and low precision")},
    };
    return topics.value(QFileInfo(path).completeBaseName(), QStringLiteral("More examples"));
}

QString templatesDirectory() {
    return shippedDirectory("KERNELPAD_TEMPLATES", QStringLiteral("templates"));
}

QVector<ExampleInfo> listTemplates(const QString& dir) {
    QVector<ExampleInfo> templates = listExamples(dir);
    const auto rank = [](const ExampleInfo& info) {
        const int index = kTemplateOrder.indexOf(QFileInfo(info.path).completeBaseName());
        return index < 0 ? kTemplateOrder.size() : index;
    };
    // Stable: templates outside the list keep listExamples()' order by name.
    std::stable_sort(
        templates.begin(), templates.end(),
        [&rank](const ExampleInfo& a, const ExampleInfo& b) { return rank(a) < rank(b); });
    return templates;
}

ShippedKind shippedKind(const QString& path) {
    const QString canonical = QFileInfo(path).canonicalFilePath();
    if (canonical.isEmpty())
        return ShippedKind::None;
    const auto within = [&canonical](const QStringList& folders) {
        for (const QString& folder : folders) {
            const QString dir = QFileInfo(folder).canonicalFilePath();
            if (!dir.isEmpty() &&
                (canonical == dir || canonical.startsWith(dir + QLatin1Char('/'))))
                return true;
        }
        return false;
    };
    if (within(shippedCandidates("KERNELPAD_EXAMPLES", QStringLiteral("examples"))))
        return ShippedKind::Example;
    if (within(shippedCandidates("KERNELPAD_TEMPLATES", QStringLiteral("templates"))))
        return ShippedKind::Template;
    if (within(lessonsSearchPaths()))
        return ShippedKind::Lesson;
    return ShippedKind::None;
}

} // namespace kernelpad
