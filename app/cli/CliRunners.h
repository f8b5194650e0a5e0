#pragma once
// kernelpad-cli runners and attach: warm runners kept between commands
// (core/runner/WarmRunnerDaemon.h). Built with `serve`, apart from the rest of the command
// line (app/CMakeLists.txt), since it is core/runner itself.

#include "core/cuda/DeviceInfo.h"

#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace kernelpad::cli {

/// `kernelpad-cli runners start|status|wait|stop` (and `run`, the daemon in the foreground).
int runRunners(const QStringList& args);

/// `kernelpad-cli attach`, before any QCoreApplication; returns only when the cold runner
/// could not be started.
int runAttach(const char* argv0);

/// This computer's devices as the warm runners listed them (their names are the Engine's
/// local listing's), so that the command line need not initialise the driver itself; nothing
/// when no daemon runs or KERNELPAD_WARM_RUNNERS is off (`*why` says which).
[[nodiscard]] std::optional<QVector<DeviceInfo>> warmDevices(QString* error, QString* why);

} // namespace kernelpad::cli
