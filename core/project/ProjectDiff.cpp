#include "core/project/ProjectDiff.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QStringList>

namespace kernelpad {

namespace {

constexpr int kMaxChangeParts = 4; ///< the "what changed" note stays one short line

/// The window's translations find these under the old context name.
QString tr(const char* text) {
    return QCoreApplication::translate("kernelpad::MainWindow", text);
}

QString formatDims(const std::array<int, 3>& d) {
    if (d[1] == 1 && d[2] == 1)
        return QString::number(d[0]);
    if (d[2] == 1)
        return QStringLiteral("%1×%2").arg(d[0]).arg(d[1]);
    return QStringLiteral("%1×%2×%3").arg(d[0]).arg(d[1]).arg(d[2]);
}

bool sameJson(const QJsonObject& a, const QJsonObject& b) {
    return QJsonDocument(a).toJson(QJsonDocument::Compact) ==
           QJsonDocument(b).toJson(QJsonDocument::Compact);
}

} // namespace

QString describeProjectChanges(const std::optional<Project>& before, const Project& after) {
    if (!before)
        return tr("first run");
    const Project& b = *before;
    QStringList parts;
    if (b.source != after.source)
        parts << tr("source edited");
    if (b.language != after.language)
        parts << tr("language %1→%2").arg(languageName(b.language), languageName(after.language));
    if (b.kernel != after.kernel)
        parts << tr("kernel %1→%2").arg(b.kernel, after.kernel);
    if (!(b.options == after.options))
        parts << tr("compile options");
    if (b.launch.grid != after.launch.grid)
        parts << tr("grid %1→%2").arg(formatDims(b.launch.grid), formatDims(after.launch.grid));
    if (b.launch.block != after.launch.block)
        parts << tr("block %1→%2").arg(formatDims(b.launch.block), formatDims(after.launch.block));
    if (b.launch.sharedMemBytes != after.launch.sharedMemBytes)
        parts << tr("shared %1→%2 B").arg(b.launch.sharedMemBytes).arg(after.launch.sharedMemBytes);

    if (b.launch.cluster != after.launch.cluster)
        parts << tr("cluster %1→%2")
                     .arg(b.launch.hasCluster() ? formatDims(b.launch.cluster) : tr("none"),
                          after.launch.hasCluster() ? formatDims(after.launch.cluster)
                                                    : tr("none"));
    if (b.launch.cooperative != after.launch.cooperative)
        parts << (after.launch.cooperative ? tr("cooperative on") : tr("cooperative off"));
    if (b.globals != after.globals)
        parts << tr("globals");

    bool argumentsReshaped = b.arguments.size() != after.arguments.size();
    for (int i = 0; i < after.arguments.size() && !argumentsReshaped; ++i) {
        const ArgumentSpec& x = b.arguments.at(i);
        const ArgumentSpec& y = after.arguments.at(i);
        if (x.name != y.name || x.kind != y.kind) {
            argumentsReshaped = true;
            break;
        }
        if (y.isScalar()) {
            if (x.value != y.value)
                parts << QStringLiteral("%1 %2→%3").arg(y.name, x.value, y.value);
            else if (!sameJson(x.toJson(), y.toJson()))
                parts << tr("%1 type").arg(y.name);
        } else if (x.buffer.count != y.buffer.count) {
            parts << tr("%1 count %2→%3").arg(y.name, x.buffer.count, y.buffer.count);
        } else if (!sameJson(x.toJson(), y.toJson())) {
            parts << tr("%1 settings").arg(y.name);
        }
    }
    if (argumentsReshaped)
        parts << tr("arguments changed");
    // The settings that change what a figure means are named; the rest are "timing settings".
    TimingSpec rest = after.timing;
    if (b.timing.mode != after.timing.mode)
        parts << tr("%1→%2 timing")
                     .arg(timingModeName(b.timing.mode), timingModeName(after.timing.mode));
    if (b.timing.blockingKernel != after.timing.blockingKernel)
        parts << (after.timing.blockingKernel ? tr("blocking kernel on")
                                              : tr("blocking kernel off"));
    if (b.timing.repetitions != after.timing.repetitions)
        parts << tr("reps %1→%2").arg(b.timing.repetitions).arg(after.timing.repetitions);
    rest.mode = b.timing.mode;
    rest.blockingKernel = b.timing.blockingKernel;
    rest.repetitions = b.timing.repetitions;
    if (!(b.timing == rest))
        parts << tr("timing settings");

    if (parts.isEmpty())
        return tr("no change");
    if (parts.size() > kMaxChangeParts) {
        const int more = int(parts.size()) - kMaxChangeParts;
        parts = parts.mid(0, kMaxChangeParts);
        parts << tr("%1 more").arg(more);
    }
    return parts.join(QStringLiteral(", "));
}

} // namespace kernelpad
