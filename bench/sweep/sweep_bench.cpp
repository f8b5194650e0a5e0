// bench/sweep: the cost of a sweep (held to: the transpose kernel over its block
// shapes in total wall time <= 3 s plus the kernels' own time; each configuration's overhead,
// everything but the kernel's own time, <= 10 ms on a compile-cache hit and <= 40 ms when
// NVRTC runs). Three passes through core/sweep's Sweep over one RunnerSweepEvaluator:
//   cold    - the transpose example's 66 block shapes from a runner not yet started: the wall
//             time the issue holds to (runner start and the one NVRTC compile included);
//   hit     - the same sweep again in the now warm runner: every configuration a compile-cache
//             hit, so the overhead per configuration is the sweep's and the runner's own;
//   nvrtc   - 66 configurations of one block shape, each with its own -D value (salted with
//             the clock, so neither the memory nor the disk cache has them): NVRTC each time.
// The kernels' own time of a configuration is its median times the launches it ran (warm-up,
// timed repetitions, the verified launch and the reference kernel's). Prints one line per pass
// and exits 1 when a target is missed, 3 without a device, 4 on bad arguments.

#include "core/project/Project.h"
#include "core/sweep/Sweep.h"
#include "core/sweep/SweepEvaluator.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QTextStream>

#include <cmath>

using namespace kernelpad;

namespace {

struct Pass {
    QString error;
    int configurations = 0;
    int passed = 0;
    double wallMs = 0;
    double kernelsMs = 0;
    [[nodiscard]] double overheadPerConfigurationMs() const {
        return configurations > 0 ? (wallMs - kernelsMs) / configurations : 0;
    }
};

Pass runPass(const Project& project, const QString& projectDir, SweepEvaluator& evaluator) {
    Pass pass;
    RunRequest base;
    base.project = project;
    base.projectDir = projectDir;
    Sweep sweep(base, &evaluator);
    if (!sweep.prepare(&pass.error))
        return pass;
    QEventLoop loop;
    QObject::connect(&sweep, &Sweep::finished, &loop, [&](const QString& why) {
        pass.error = why;
        loop.quit();
    });
    QElapsedTimer wall;
    wall.start();
    sweep.start();
    loop.exec();
    pass.wallMs = double(wall.nsecsElapsed()) / 1e6;
    // Launches per configuration: warm-up, the timed repetitions, the verified launch and the
    // reference kernel's.
    const int launches = project.timing.warmupLaunches + project.timing.repetitions + 2;
    for (const SweepRecord& r : sweep.records()) {
        ++pass.configurations;
        if (r.passed()) {
            ++pass.passed;
            pass.kernelsMs += r.medianMs * launches;
        }
    }
    return pass;
}

void print(QTextStream& out, const char* name, const Pass& pass, double targetMs,
           const QString& target, bool* missed) {
    const double overhead = pass.overheadPerConfigurationMs();
    const bool met = overhead <= targetMs;
    *missed = *missed || !met;
    out << QStringLiteral("%1  %2 configurations (%3 passed)  wall %4 ms  kernels %5 ms  "
                          "overhead %6 ms/configuration  target %7: %8\n")
               .arg(QLatin1String(name), -6)
               .arg(pass.configurations)
               .arg(pass.passed)
               .arg(pass.wallMs, 0, 'f', 1)
               .arg(pass.kernelsMs, 0, 'f', 1)
               .arg(overhead, 0, 'f', 2)
               .arg(target, met ? QStringLiteral("met") : QStringLiteral("MISSED"));
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QTextStream out(stdout);
    QTextStream err(stderr);
    const QStringList args = app.arguments().mid(1);
    // The GPU machine runs a bundle outside the build tree: $KERNELPAD_EXAMPLES names the examples.
    const QString path = args.value(
        0, qEnvironmentVariable("KERNELPAD_EXAMPLES",
                                QStringLiteral(KERNELPAD_SOURCE_DIR "/resources/examples")) +
               QStringLiteral("/transpose_sweep.kpad"));
    if (args.size() > 1 || path.startsWith(QLatin1String("-"))) {
        err << "usage: sweep_bench [TRANSPOSE_SWEEP.kpad]\n";
        return 4;
    }
    QString error;
    std::optional<Project> project = Project::load(path, &error);
    if (!project) {
        err << "sweep_bench: " << error << '\n';
        return 4;
    }
    const QString dir = QFileInfo(path).absolutePath();
    RunnerSweepEvaluator evaluator;

    bool missed = false;
    const Pass cold = runPass(*project, dir, evaluator);
    if (!cold.error.isEmpty()) {
        err << "sweep_bench: " << cold.error << '\n';
        return cold.error.startsWith(QLatin1String("no CUDA device")) ? 3 : 1;
    }
    const bool coldMet = cold.wallMs <= 3000 + cold.kernelsMs;
    missed = !coldMet;
    out << QStringLiteral("cold    %1 configurations (%2 passed)  wall %3 ms  kernels %4 ms  "
                          "target wall <= 3000 ms + kernels: %5\n")
               .arg(cold.configurations)
               .arg(cold.passed)
               .arg(cold.wallMs, 0, 'f', 1)
               .arg(cold.kernelsMs, 0, 'f', 1)
               .arg(coldMet ? QStringLiteral("met") : QStringLiteral("MISSED"));

    const Pass hit = runPass(*project, dir, evaluator);
    print(out, "hit", hit, 10, QStringLiteral("<= 10 ms"), &missed);

    // One block shape, one -D value per configuration, salted so no cache holds them.
    Project salted = *project;
    salted.sweep.tunables.clear();
    SweepTunable salt;
    salt.role = SweepTunable::Role::Define;
    salt.name = QStringLiteral("KERNELPAD_BENCH_SALT");
    salt.values.kind = SweepValues::Kind::Step;
    salt.values.from = double(QDateTime::currentMSecsSinceEpoch() % 1000000000) * 100;
    salt.values.to = salt.values.from + cold.configurations - 1;
    salt.values.step = 1;
    salted.sweep.tunables.append(salt);
    salted.sweep.grid.reset();
    salted.sweep.restrictions.clear();
    salted.launch.block = {32, 8, 1};
    salted.launch.grid = {64, 256, 1};
    const Pass nvrtc = runPass(salted, dir, evaluator);
    print(out, "nvrtc", nvrtc, 40, QStringLiteral("<= 40 ms"), &missed);
    return missed ? 1 : 0;
}
