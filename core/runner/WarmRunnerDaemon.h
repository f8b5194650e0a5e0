#pragma once
// Warm runners kept between commands (`kernelpad-cli runners start`): a daemon that keeps
// spare `kernelpad-cli serve` processes, each with the driver initialised and the primary
// context of every warmed device retained, and hands one to `kernelpad-cli attach` (the local
// runner's command while it runs, core/runner/WarmRunnerAttach.h). A command's fixed cost of
// cuInit and context creation (about 0.65 s on an H200) is then paid before the command starts.
// Wire and folder: core/runner/WarmRunnerWire.h.

#include <QString>

namespace kernelpad::warm {

/// What `runners start` asks for.
struct DaemonOptions {
    QString devices = QStringLiteral("all"); ///< "all" or ordinals "0,1": the devices warmed
    int spares = 0;                          ///< 0: one per warmed device
    int idleSeconds = 30 * 60;               ///< exits after this long with no client
};

/// Reads `runners start`'s options (`--devices`, `--spares`, `--idle-minutes`) into `*options`;
/// $KERNELPAD_WARM_IDLE_SECONDS overrides the idle time (the tests' seconds). False with the
/// sentence naming the option.
bool parseDaemonOptions(const QStringList& args, DaemonOptions* options, QString* error);

/// The options as `runners run` takes them back.
[[nodiscard]] QStringList daemonArguments(const DaemonOptions& options);

/// Runs the daemon in this process until `runners stop`, SIGTERM or the idle time: listens on
/// the socket, keeps the spares, hands them out. Returns the exit code; prints why to stderr.
[[nodiscard]] int runDaemon(const DaemonOptions& options);

/// Starts the daemon detached (its own session, stdio to the log in its folder) and waits until
/// it answers; false with why (the folder refused, one already running, it ended at start).
bool startDaemon(const DaemonOptions& options, qint64* pid, QString* error);

} // namespace kernelpad::warm
