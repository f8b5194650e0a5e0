#include "core/project/ProjectDiff.h"

#include "core/compile/ListingDiff.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QStringList>

#include <algorithm>

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

QString compactJson(const QJsonValue& value) {
    switch (value.type()) {
    case QJsonValue::Undefined:
        return tr("(none)");
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Bool:
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Double:
        return QString::number(value.toDouble(), 'g', 17);
    case QJsonValue::String:
        return value.toString();
    case QJsonValue::Array:
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    case QJsonValue::Object:
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    }
    return {};
}

/// Objects are walked key by key and arrays of objects item by item (arguments[1].value), so
/// a change names the setting; an array of plain values (a block's x, y, z) is one value.
void diffJson(const QString& path, const QJsonValue& a, const QJsonValue& b,
              QVector<SettingChange>* out) {
    if (a == b)
        return;
    const auto child = [&](const QString& key) {
        return path.isEmpty() ? key : path + QLatin1Char('.') + key;
    };
    if (a.isObject() && b.isObject()) {
        const QJsonObject x = a.toObject();
        const QJsonObject y = b.toObject();
        QStringList keys = x.keys();
        for (const QString& key : y.keys())
            if (!x.contains(key))
                keys << key;
        for (const QString& key : keys)
            diffJson(child(key), x.value(key), y.value(key), out);
        return;
    }
    const auto ofObjects = [](const QJsonArray& array) {
        return !array.isEmpty() && std::all_of(array.begin(), array.end(),
                                               [](const QJsonValue& v) { return v.isObject(); });
    };
    if (a.isArray() && b.isArray() && ofObjects(a.toArray()) && ofObjects(b.toArray())) {
        const QJsonArray x = a.toArray();
        const QJsonArray y = b.toArray();
        for (qsizetype i = 0; i < std::max(x.size(), y.size()); ++i)
            diffJson(QStringLiteral("%1[%2]").arg(path).arg(i),
                     i < x.size() ? x.at(i) : QJsonValue(QJsonValue::Undefined),
                     i < y.size() ? y.at(i) : QJsonValue(QJsonValue::Undefined), out);
        return;
    }
    out->append({path, compactJson(a), compactJson(b)});
}

} // namespace

QString describeProjectChanges(const std::optional<Project>& before, const Project& after) {
    if (!before)
        return tr("first run");
    const Project& b = *before;
    QStringList parts;
    if (b.source != after.source) {
        const int lines = changedSourceLines(b.source, after.source);
        parts << (lines == 0   ? tr("source: blanks at line ends")
                  : lines == 1 ? tr("source: 1 line")
                               : tr("source: %1 lines").arg(lines));
    }
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
    if (!(b.tests == after.tests))
        parts << tr("tests");
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

int changedSourceLines(const QString& before, const QString& after) {
    const ListingDiff diff = diffListings(before, after, ListingKind::Source);
    return diff.changed + diff.added + diff.removed;
}

QVector<SettingChange> diffProjectSettings(const Project& before, const Project& after) {
    QJsonObject a = before.toJson();
    QJsonObject b = after.toJson();
    // Not settings: the source has its own diff, a name or description changes no result.
    for (const char* key : {"source", "name", "description", "version"}) {
        a.remove(QLatin1String(key));
        b.remove(QLatin1String(key));
    }
    QVector<SettingChange> changes;
    diffJson(QString(), a, b, &changes);
    return changes;
}

} // namespace kernelpad
