#pragma once
// kernelpad-cli ab: an interleaved A/B comparison of two projects, or of a project and one of
// the versions the window keeps of it (docs/cli.md, "ab"). The command line is read here apart
// from the run so that its refusals are tested without a GPU.

#include "core/engine/Engine.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace kernelpad::cli {

/// Exit code of a comparison that ran but refused a verdict (the arms' clocks, temperature or
/// throttling differed); the others are CliCommands.h's.
inline constexpr int kExitAbRefused = 5;

/// What `kernelpad-cli ab` was asked.
struct AbCommandLine {
    QString pathA;
    QString pathB;              ///< empty with `version`
    std::optional<int> version; ///< B is this version of A's project
    QString versionsDir;        ///< where the window keeps versions (empty: its default)
    int device = 0;
    bool json = false;
    AbSettings settings;
};

/// Reads the arguments after "ab"; nothing, with a message naming the option, when they are
/// wrong.
[[nodiscard]] std::optional<AbCommandLine> parseAbCommandLine(const QStringList& args,
                                                              QString* error);

/// The folder the window keeps its versions in (VersionStore's AppDataLocation of KernelPad).
[[nodiscard]] QString windowVersionsDir();

/// The order the Engine runs: both projects loaded (B from the version store with
/// `version`); nothing, with a message naming the file or the version, when one is missing.
[[nodiscard]] std::optional<AbOrder> abOrderOf(const AbCommandLine& line, QString* error);

int runAb(const QStringList& args);

} // namespace kernelpad::cli
