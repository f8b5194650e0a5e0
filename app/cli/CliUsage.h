#pragma once
// kernelpad-cli's commands: their usage texts and the options each takes, so that every command
// answers --help and a mistyped option is named with the valid ones.

#include <QString>
#include <QStringList>
#include <QVector>

namespace kernelpad::cli {

/// One command: its name, a one-line summary, its usage text and its options.
struct CommandUsage {
    QString name;
    QString summary;    ///< one line for `kernelpad-cli --help`
    QString text;       ///< starts with "Usage: kernelpad-cli NAME"
    QStringList flags;  ///< options without a value
    QStringList valued; ///< options followed by one value
};

/// Every command, in the order `kernelpad-cli --help` lists them.
[[nodiscard]] const QVector<CommandUsage>& commandUsages();

/// The command called `name`, or null.
[[nodiscard]] const CommandUsage* findCommand(const QString& name);

/// What `kernelpad-cli --help` prints: the commands, the runner syntax and the exit codes.
[[nodiscard]] QString overviewUsage();

/// Whether `args` (the command's arguments) hold --help or -h as an option, not as the value
/// of an option.
[[nodiscard]] bool asksForHelp(const CommandUsage& command, const QStringList& args);

/// The first argument that looks like an option the command does not take, or empty.
[[nodiscard]] QString unknownOption(const CommandUsage& command, const QStringList& args);

/// "--a, --b VALUE, ..., --help": the options the command takes.
[[nodiscard]] QString validOptions(const CommandUsage& command);

} // namespace kernelpad::cli
