#pragma once
// The example gallery: .kpad projects shipped in resources/examples.

#include <QString>
#include <QVector>

namespace kernelpad {

/// One example project as the gallery lists it.
struct ExampleInfo {
    QString path; ///< absolute path of the .kpad file
    QString name; ///< the project's name, or the file's base name when it has none
    QString description;
};

/// Every loadable *.kpad file in `dir`, sorted by name; broken files are skipped.
[[nodiscard]] QVector<ExampleInfo> listExamples(const QString& dir);

/// The examples folder: $KERNELPAD_EXAMPLES, then next to the executable
/// (<appdir>/../share/kernelpad/examples, <appdir>/examples), then the source tree's
/// resources/examples. Empty when none of them exists.
[[nodiscard]] QString examplesDirectory();

} // namespace kernelpad
