#pragma once
// How one project differs from another, in a few words: the note under a timing ("source
// edited, block 256→128") that says what changed since the previous run.

#include "core/project/Project.h"

#include <QString>
#include <QVector>

#include <optional>

namespace kernelpad {

/// "first run" without `before`, "no change", or the changes from `before` to `after` joined by
/// ", ": source, kernel, compile options, grid, block, shared memory, each argument's value,
/// count or settings, then the timing settings; at most four, then "N more".
[[nodiscard]] QString describeProjectChanges(const std::optional<Project>& before,
                                             const Project& after);

/// Lines of `after` that differ from `before` (changed, added or removed rows of a line
/// diff; blanks at line ends ignored): the 3 of "source: 3 lines".
[[nodiscard]] int changedSourceLines(const QString& before, const QString& after);

/// One setting that differs between two projects: `field` is its path in the project file
/// ("launch.block", "arguments[1].value", "options.maxRegisters"), `before`/`after` its
/// value there as compact JSON ("[128,1,1]"), "(none)" where one side lacks it.
struct SettingChange {
    QString field;
    QString before;
    QString after;
    friend bool operator==(const SettingChange& a, const SettingChange& b) {
        return a.field == b.field && a.before == b.before && a.after == b.after;
    }
};

/// Every setting of the project file that differs between `before` and `after`, in file
/// order: compile options, kernel, language, arguments, globals, launch, timing, pipeline.
/// The source (see changedSourceLines), the name and the description are left out.
[[nodiscard]] QVector<SettingChange> diffProjectSettings(const Project& before,
                                                         const Project& after);

} // namespace kernelpad
