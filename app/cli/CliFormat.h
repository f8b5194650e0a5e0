#pragma once
// Human-readable output of kernelpad-cli: aligned tables, times with units (formatDuration(),
// core/run/Summary.h, the formatter the window uses too).

#include "core/compile/CompileResult.h"
#include "core/cuda/DeviceInfo.h"
#include "core/run/RunTypes.h"

#include <QString>
#include <QTextStream>
#include <QVector>

namespace kernelpad::cli {

void printCompile(QTextStream& out, const CompileResult& r, bool withPtx);
void printRun(QTextStream& out, const RunResult& r);
/// compute-sanitizer's reports like compiler diagnostics: "saxpy.cu:12: error: ..." and a
/// line with the kernel, thread and block; nothing for a run without a sanitizer.
void printSanitizer(QTextStream& out, const RunResult& r);
/// What the kernel printed, under a heading, with control characters shown as \xNN so that
/// a kernel cannot drive the terminal; nothing when it printed nothing.
void printConsole(QTextStream& out, const RunResult& r);
/// `text` with every control character but newline and tab written as \xNN.
[[nodiscard]] QString terminalSafe(const QString& text);
void printDevices(QTextStream& out, const QVector<DeviceInfo>& devices);

} // namespace kernelpad::cli
