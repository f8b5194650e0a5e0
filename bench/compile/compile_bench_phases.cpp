#include "compile_bench_phases.h"

#include "core/compile/CompileCache.h"
#include "core/compile/DiskCompileCache.h"

#include <QDir>
#include <QMap>

#include <algorithm>
#include <cstdio>
#include <memory>

namespace kernelpad::bench {

namespace {

const char* const kFields[] = {"wallMs", "userMs", "systemMs", "faults"};

/// The Engine's cache for the process's compiles: one, as an Engine keeps one for its life.
CompileCache& engineCache() {
    static CompileCache cache;
    return cache;
}

} // namespace

QStringList PhaseMode::arguments() const {
    QStringList arguments;
    if (on)
        arguments << QStringLiteral("--phases");
    if (nvrtcTimes)
        arguments << QStringLiteral("--nvrtc-time");
    return arguments;
}

QVector<CompilePhase> enginePhases(const CompileResult& result, const QString& source,
                                   const QString& sourceName, const ProgramOptions& options,
                                   const QString& baseDir) {
    PhaseClock clock(true);
    // As compileProject() makes its key (core/run/ExecutionSession.cpp).
    const QDir base(baseDir.isEmpty() ? QDir::currentPath() : baseDir);
    QStringList includeRoots;
    for (const QString& dir : options.includeDirs)
        includeRoots << QDir::cleanPath(base.absoluteFilePath(dir));
    const QByteArray fingerprint =
        CompileCache::includeFingerprint(source, base.absolutePath(), includeRoots);
    clock.mark(QStringLiteral("engine: include fingerprint (project headers read again)"));
    const QStringList keyFlags = options.toFlags(result.arch) + includeRoots << base.absolutePath();
    const QByteArray key =
        CompileCache::key(source, sourceName, keyFlags, {}, result.nvrtcVersion, fingerprint);
    clock.mark(QStringLiteral("engine: cache key"));
    const bool hit = engineCache().find(key).has_value();
    clock.mark(hit ? QStringLiteral("engine: cache lookup (HIT: not an edit)")
                   : QStringLiteral("engine: cache lookup (miss)"));
    // What the insert below spends on encoding the entry (JSON, SHA-256), before its write.
    (void)DiskCompileCache::encodeEntry(key, result);
    clock.mark(QStringLiteral("  (of the insert below: the entry's encoding)"));
    engineCache().insert(key, result);
    clock.mark(QStringLiteral("engine: cache insert (memory; disk: encode, write, fsync)"));
    return clock.phases();
}

QJsonArray phasesJson(const QVector<CompilePhase>& phases) {
    QJsonArray array;
    for (const CompilePhase& phase : phases)
        array.append(QJsonObject{{QStringLiteral("name"), phase.name},
                                 {QStringLiteral("wallMs"), phase.wallMs},
                                 {QStringLiteral("userMs"), phase.userMs},
                                 {QStringLiteral("systemMs"), phase.systemMs},
                                 {QStringLiteral("faults"), double(phase.faults)}});
    return array;
}

QJsonArray medianPhases(const QJsonArray& runs) {
    QStringList order;
    QMap<QString, QMap<QString, QVector<double>>> values; // name -> field -> values
    for (const QJsonValue& run : runs) {
        QMap<QString, int> seen; // a name repeated within a run (a second NVRTC pass) adds up
        for (const QJsonValue& value : run.toArray()) {
            const QJsonObject phase = value.toObject();
            const QString name = phase.value(QStringLiteral("name")).toString();
            if (!order.contains(name))
                order.append(name);
            for (const char* field : kFields) {
                QVector<double>& list = values[name][QString::fromLatin1(field)];
                const double v = phase.value(QLatin1String(field)).toDouble();
                if (seen.value(name) > 0 && !list.isEmpty())
                    list.last() += v;
                else
                    list.append(v);
            }
            ++seen[name];
        }
    }
    QJsonArray medians;
    for (const QString& name : std::as_const(order)) {
        QJsonObject phase{{QStringLiteral("name"), name}};
        for (const char* field : kFields) {
            QVector<double> list = values[name][QString::fromLatin1(field)];
            std::sort(list.begin(), list.end());
            phase.insert(QLatin1String(field), list.isEmpty() ? 0.0 : list[list.size() / 2]);
        }
        medians.append(phase);
    }
    return medians;
}

void printPhases(const QJsonObject& row) {
    const QJsonArray phases = row.value(QStringLiteral("phases")).toArray();
    if (phases.isEmpty())
        return;
    std::printf("    %-58s %9s %9s %9s %8s\n", "phases of the edit (median of each)", "wall ms",
                "user ms", "sys ms", "faults");
    for (const QJsonValue& value : phases) {
        const QJsonObject phase = value.toObject();
        std::printf("    %-58s %9.2f %9.2f %9.2f %8.0f\n",
                    qPrintable(phase.value(QStringLiteral("name")).toString()),
                    phase.value(QStringLiteral("wallMs")).toDouble(),
                    phase.value(QStringLiteral("userMs")).toDouble(),
                    phase.value(QStringLiteral("systemMs")).toDouble(),
                    phase.value(QStringLiteral("faults")).toDouble());
    }
}

} // namespace kernelpad::bench
