#pragma once
// bench/sass: one example's edit timed as the window shows its SASS, and the bare nvdisasm
// processes on the same CUBIN, for sass_bench.cpp.

#include "core/compile/SassReport.h"
#include "core/project/Project.h"

#include <QString>

#include <memory>
#include <optional>

namespace kernelpad {

class Engine;

/// What one edit cost in the window: from the compile's answer reaching the Workbench's viewers
/// to the SASS tab's view holding the listing, and to the full report (line map, registers).
struct WindowSample {
    double listedMs = 0; ///< compile finished -> listing in the SASS view (the text shown)
    double readyMs = 0;  ///< compile finished -> the whole report (map, live registers)
    SassReport report;   ///< the report the view got, with the CUBIN
};

/// nvdisasm alone on a CUBIN, both processes started as disassembleCubin() starts them (the life
/// ranges' first, the listing beside it, core/compile/Sass.cpp).
struct BareSample {
    double listingMs = 0; ///< start -> the listing's process ended
    double bothMs = 0;    ///< start -> both ended
};

/// A Workbench with the SASS tab's view (ui/views/SassResultView) shown, on one example: each
/// edit() changes a comment, empties SassCache (so that nvdisasm runs, as after an edit of the
/// code), compiles as the window does and times the view's disassembly.
class WindowBench {
public:
    WindowBench(Engine* engine, const Project& project, const QString& directory);
    ~WindowBench();
    WindowBench(const WindowBench&) = delete;
    WindowBench& operator=(const WindowBench&) = delete;

    /// One edit; nullopt with `error` when the compile failed or an answer did not come.
    [[nodiscard]] std::optional<WindowSample> edit(const QString& tag, QString* error);

private:
    struct Parts;
    std::unique_ptr<Parts> d;
};

/// Runs the two nvdisasm processes on `cubin` as KernelPad does, without parsing; nullopt with
/// `error` when one fails.
[[nodiscard]] std::optional<BareSample> timeBareNvdisasm(const QString& nvdisasm,
                                                         const QByteArray& cubin, QString* error);

} // namespace kernelpad
