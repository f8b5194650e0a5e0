#pragma once
// nvdisasm output recorded on the GPU machine (tests/data/sass/) and the stand-in nvdisasm
// that prints it, for the window's tests of the SASS and Diff tabs, the register margin, the
// line colours and the edit's verdict: one copy of the fixture they all build on.

#include "TestPaths.h"
#include "TestProjects.h"
#include "core/compile/LineMap.h"
#include "core/compile/Sass.h"
#include "core/compile/SassReport.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QString>
#include <QTemporaryDir>

namespace kernelpad::test {

/// The path of the recorded file `name` ("saxpy.sass-gi.txt") in tests/data/sass/.
inline QByteArray recordedSassPath(const char* name) {
    return QByteArray(KERNELPAD_TEST_DATA_DIR "/sass/") + name;
}

/// The text of recorded file `name`; a missing file ends the test program.
inline QString recordedSass(const QString& name) {
    QFile file(QStringLiteral(KERNELPAD_TEST_DATA_DIR "/sass/") + name);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("missing test data %s", qPrintable(file.fileName()));
    return QString::fromUtf8(file.readAll());
}

/// The report of recorded `example` ("saxpy") as the compile worker makes it: its PTX, its
/// listing and the line map of both.
inline SassReport recordedSassReport(const QString& example) {
    SassReport report;
    report.compile.ok = true;
    report.compile.ptx = recordedSass(example + QStringLiteral(".ptx"));
    report.sourceName = example + QStringLiteral(".cu");
    report.sass.ok = true;
    report.sass.listing = parseSass(recordedSass(example + QStringLiteral(".sass-gi.txt")));
    report.lines = LineMap::build(report.compile.ptx, report.sass.listing, report.sourceName);
    return report;
}

/// The window's project on recorded `example`'s source ("saxpy": saxpy.cu, kernel saxpy),
/// with fillProject()'s arguments and launch.
inline Project recordedSassProject(const QString& example) {
    Project project = fillProject(recordedSass(example + QStringLiteral(".cu")));
    project.sourceName = example + QStringLiteral(".cu");
    project.kernel = example;
    return project;
}

/// Shell that ends a stand-in nvdisasm with exit 3 unless its last argument is an ELF file,
/// as the real one refuses anything but a CUBIN; "$f" names the file afterwards.
inline constexpr const char* kNvdisasmTakesACubin =
    "for f; do :; done\n"
    "head -c 4 \"$f\" | grep -q ELF || { echo 'not a CUBIN' >&2; exit 3; }\n";

/// Writes a stand-in nvdisasm running `body` (sh) into `dir`/cuda/bin and points CUDA_HOME
/// at it, CUDA_PATH unset; false when it could not be written.
[[nodiscard]] inline bool installNvdisasm(const QTemporaryDir& dir, const QByteArray& body) {
    const QString bin = dir.filePath(QStringLiteral("cuda/bin"));
    if (!dir.isValid() || !QDir().mkpath(bin))
        return false;
    QFile script(bin + QStringLiteral("/nvdisasm"));
    if (!script.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    const QByteArray text = "#!/bin/sh\n" + body;
    if (script.write(text) != text.size())
        return false;
    script.close();
    if (!script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner))
        return false;
    qputenv("CUDA_HOME", dir.filePath(QStringLiteral("cuda")).toUtf8());
    qunsetenv("CUDA_PATH");
    return true;
}

} // namespace kernelpad::test
