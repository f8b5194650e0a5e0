#pragma once
// kernelpad-cli init: a project started from a kernel's source, its arguments read from the
// signature.

#include <QStringList>

namespace kernelpad::cli {

/// init KERNEL.cu [--kernel NAME] [-o OUT.kpad] [--force]; returns the process exit code.
int runInit(const QStringList& args);

} // namespace kernelpad::cli
