#pragma once
// The example gallery and the project templates: .kpad projects shipped in resources/examples
// and resources/templates.

#include <QString>
#include <QVector>

namespace kernelpad {

/// One example project as the gallery lists it.
struct ExampleInfo {
    QString path; ///< absolute path of the .kpad file
    QString name; ///< the project's name, or the file's base name when it has none
    QString description;
    QString topic; ///< the gallery's heading for it (exampleTopic())
};

/// Every loadable *.kpad file in `dir`, sorted by name; broken files are skipped.
[[nodiscard]] QVector<ExampleInfo> listExamples(const QString& dir);

/// The examples folder: $KERNELPAD_EXAMPLES, then next to the executable
/// (<appdir>/../share/kernelpad/examples, <appdir>/examples), then the source tree's
/// resources/examples. Empty when none of them exists.
[[nodiscard]] QString examplesDirectory();

/// The gallery's heading for the example in `path` (by its file name): "Basics", "Memory and
/// textures", "Reductions and synchronisation", "PTX"; "More examples" for one not listed.
[[nodiscard]] QString exampleTopic(const QString& path);

/// The templates folder, found like examplesDirectory(): $KERNELPAD_TEMPLATES,
/// <appdir>/../share/kernelpad/templates, <appdir>/templates, the source tree's
/// resources/templates. Empty when none of them exists.
[[nodiscard]] QString templatesDirectory();

/// The loadable templates in `dir` in teaching order (empty kernel, 1D map, 2D map, reduction),
/// any others after them by name.
[[nodiscard]] QVector<ExampleInfo> listTemplates(const QString& dir);

/// What KernelPad ships in a folder of its own, which a user's Save must never write over.
enum class ShippedKind { None, Example, Template, Lesson };

/// Whether `path` is or lies in one of the folders KernelPad ships projects in: every existing
/// candidate of examplesDirectory(), templatesDirectory() and lessonsSearchPaths() (not only
/// the one found first: scripts/run opens the source tree's example while an installed
/// share/kernelpad may be the one found), compared by canonical path.
[[nodiscard]] ShippedKind shippedKind(const QString& path);

} // namespace kernelpad
