#pragma once
// The CUB baseline plugin (core/run/cubplugin/, libkernelpad_cub.so) loaded at run time with
// dlopen from beside the program: the build tree and the installed layout both keep it in
// ../lib/kernelpad/ from the program's folder. A build without nvcc has no plugin, and a
// project naming CUB as its baseline is then told where it was looked for.

#include "core/run/cubplugin/CubPluginAbi.h"

#include <QString>
#include <QStringList>

#include <memory>

namespace kernelpad {

/// The plugin's entry points; loaded once, never unloaded.
struct CubPlugin {
    KpCubErrorStringFn errorString = nullptr;
    KpCubReduceFn reduce = nullptr;
    KpCubScanFn scan = nullptr;
    KpCubSortFn sort = nullptr;
    KpCubHistogramEvenFn histogramEven = nullptr;
    QString path; ///< the file it was loaded from

    /// "cudaErrorInvalidValue: invalid argument (status 1)".
    [[nodiscard]] QString statusText(int status) const;

    /// The plugin, loaded on the first call from cubPluginCandidates() (thread-safe), or
    /// nullptr with the reason in `why`: "CUB baseline plugin not found: looked in ...".
    static const CubPlugin* load(QString* why);
    /// Loads from `candidates` in order; not cached: for tests and for load().
    static std::unique_ptr<CubPlugin> loadFrom(const QStringList& candidates, QString* why);
};

/// The plugin's file name.
[[nodiscard]] QString cubPluginFileName();
/// Where the plugin is looked for, from `programDir` (the running program's folder when
/// empty): beside the program, then ../lib/kernelpad/ (the build tree's and the installed
/// layout), then ../lib/.
[[nodiscard]] QStringList cubPluginCandidates(const QString& programDir = {});

} // namespace kernelpad
