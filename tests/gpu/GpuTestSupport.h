#pragma once
// Shared by the gpu-labelled tests: skip with the reason when there is no driver.

#include "core/cuda/DriverApi.h"
#include "core/engine/Engine.h"
#include "core/project/Project.h"

#include "TestPaths.h"
#include <QSignalSpy>
#include <QTest>

#define KERNELPAD_REQUIRE_DRIVER()                                                                 \
    do {                                                                                           \
        QString why_;                                                                              \
        if (!kernelpad::DriverApi::load(&why_))                                                    \
            QSKIP(qPrintable(QStringLiteral("needs a CUDA driver: %1").arg(why_)));                \
    } while (false)

namespace kernelpad::test {

/// The examples folder: $KERNELPAD_EXAMPLES (set on the GPU machine, where the tree lives
/// elsewhere), else the source tree's.
inline QString examplesDir() {
    return qEnvironmentVariable("KERNELPAD_EXAMPLES", QStringLiteral(KERNELPAD_EXAMPLES_DIR));
}

inline Project loadExample(const QString& file) {
    QString error;
    std::optional<Project> p = Project::load(examplesDir() + QLatin1Char('/') + file, &error);
    if (!p)
        qFatal("cannot load example %s: %s", qPrintable(file), qPrintable(error));
    return *p;
}

/// Runs `p` (relative paths from the examples folder) through `engine` and waits up to a
/// minute; a run that never answers comes back as a Timeout saying so.
inline RunResult runAndWait(Engine& engine, const Project& p) {
    QSignalSpy finished(&engine, &Engine::runFinished);
    RunRequest r;
    r.project = p;
    r.projectDir = examplesDir();
    r.keepOutputs = false;
    engine.run(r);
    if (!finished.wait(60000)) {
        RunResult none;
        none.status = RunStatus::Timeout;
        none.error = QStringLiteral("no answer within 60 s");
        return none;
    }
    return finished.first().at(1).value<RunResult>();
}

/// A run's status, its guard findings and each buffer's verification, one per line: what a
/// failing check prints.
inline QString describeRun(const RunResult& r) {
    QStringList lines{QStringLiteral("status %1: %2").arg(runStatusName(r.status), r.error)};
    for (const GuardFinding& g : r.guards)
        lines << QStringLiteral("guard: %1").arg(g.message());
    for (const BufferVerification& v : r.verification)
        lines << QStringLiteral("%1 %2 %3 %4")
                     .arg(v.buffer, v.method,
                          v.passed ? QStringLiteral("PASS") : QStringLiteral("FAIL"), v.failure);
    return lines.join(QLatin1Char('\n'));
}

} // namespace kernelpad::test
