#include "core/run/CubPlugin.h"

#include <QDir>
#include <QFileInfo>

#include "core/run/LibrarySymbols.h"

#include <dlfcn.h>

#include <mutex>

namespace kernelpad {
namespace {

struct CubPluginLoadState {
    std::unique_ptr<CubPlugin> plugin;
    QString error;
};

/// The running program's folder: /proc/self/exe, which a runner started by the window and
/// kernelpad-cli alike have, with or without a QCoreApplication.
QString runningProgramDir() {
    return QFileInfo(QFileInfo(QStringLiteral("/proc/self/exe")).canonicalFilePath())
        .absolutePath();
}

} // namespace

QString cubPluginFileName() {
    return QStringLiteral("libkernelpad_cub.so");
}

QStringList cubPluginCandidates(const QString& programDir) {
    const QString dir = programDir.isEmpty() ? runningProgramDir() : programDir;
    QStringList candidates;
    for (const char* relative : {".", "../lib/kernelpad", "../lib"})
        candidates << QDir::cleanPath(dir + QLatin1Char('/') + QLatin1String(relative) +
                                      QLatin1Char('/') + cubPluginFileName());
    candidates.removeDuplicates();
    return candidates;
}

QString CubPlugin::statusText(int status) const {
    const char* text = errorString ? errorString(status) : nullptr;
    return text ? QStringLiteral("%1 (status %2)").arg(QString::fromUtf8(text)).arg(status)
                : QStringLiteral("CUB plugin status %1").arg(status);
}

std::unique_ptr<CubPlugin> CubPlugin::loadFrom(const QStringList& candidates, QString* why) {
    QString brokenError; // a file that exists but does not load says more than "not found"
    void* handle = nullptr;
    QString loadedFrom;
    for (const QString& candidate : candidates) {
        if (!QFileInfo::exists(candidate))
            continue;
        handle = dlopen(candidate.toLocal8Bit().constData(), RTLD_NOW | RTLD_LOCAL);
        if (handle) {
            loadedFrom = candidate;
            break;
        }
        if (brokenError.isEmpty())
            brokenError = QString::fromLocal8Bit(dlerror());
    }
    if (!handle) {
        if (why)
            *why = QStringLiteral("CUB baseline plugin not found: looked in %1%2 (a build "
                                  "without a CUDA compiler has none)")
                       .arg(candidates.join(QStringLiteral(", ")),
                            brokenError.isEmpty() ? QString()
                                                  : QStringLiteral("; %1").arg(brokenError));
        return nullptr;
    }
    auto plugin = std::make_unique<CubPlugin>();
    LibrarySymbols symbols(handle);
    KpCubAbiVersionFn version = nullptr;
    symbols.resolve(&version, "kp_cub_abi_version");
    symbols.resolve(&plugin->errorString, "kp_cub_error_string");
    symbols.resolve(&plugin->reduce, "kp_cub_reduce");
    symbols.resolve(&plugin->scan, "kp_cub_scan");
    symbols.resolve(&plugin->sort, "kp_cub_sort");
    symbols.resolve(&plugin->histogramEven, "kp_cub_histogram_even");
    if (!symbols.complete() || version() != KP_CUB_ABI_VERSION) {
        if (why)
            *why = symbols.complete()
                       ? QStringLiteral("%1 is version %2 of the CUB plugin; this KernelPad "
                                        "needs version %3 (rebuild it with this KernelPad)")
                             .arg(loadedFrom)
                             .arg(version())
                             .arg(KP_CUB_ABI_VERSION)
                       : symbols.problem(loadedFrom);
        return nullptr;
    }
    plugin->path = loadedFrom;
    return plugin;
}

const CubPlugin* CubPlugin::load(QString* why) {
    static CubPluginLoadState state;
    static std::once_flag once;
    std::call_once(once, [] {
        // Kept for the process's life, as the library itself is (never dlclosed).
        state.plugin = loadFrom(cubPluginCandidates(), &state.error);
    });
    if (!state.plugin && why)
        *why = state.error;
    return state.plugin.get();
}

} // namespace kernelpad
