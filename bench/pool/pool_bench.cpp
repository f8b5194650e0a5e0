// bench/pool (the fast paths' per-configuration overhead): the cost of
// one job in a RunnerPool beyond the kernel's own time, on a compile-cache hit.
//
// For each runner count (default 1 and 2, all on one device) a pool is warmed (each runner
// runs the job once, untimed, so its compile cache holds the kernel), then `--jobs` copies of
// the tiny kernel are submitted at once and timed until the pool has drained:
//   jobs/s           = jobs / wall
//   kernel ms/job    = the job's median sample x every launch it made (warm-up, the verified
//                      launch and the timed repetitions): an estimate of its GPU time
//   overhead ms/job  = wall / jobs - kernel ms/job: everything else (protocol, JSON, compile
//                      cache lookup, module load, buffers, verification, process hops)
// Then one runner alone runs `--jobs` more with its stages timed from the client's side (the
// runner's progress messages), to show where the overhead goes.
//
// Without a driver the runner compiles and answers "driver unavailable": the numbers are then
// the protocol, JSON and compile-cache part alone (the status column says so).

#include "core/project/Project.h"
#include "core/runner/RunnerClient.h"
#include "core/runner/RunnerPool.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QTimer>

#include <cstdio>

using namespace kernelpad;

namespace {

struct Row {
    int runners = 0;
    int jobs = 0;
    double wallMs = 0;
    double kernelMsPerJob = 0;
    QMap<QString, int> statuses;
    int verified = 0;

    [[nodiscard]] double jobsPerSecond() const { return wallMs > 0 ? jobs * 1000.0 / wallMs : 0; }
    [[nodiscard]] double overheadMsPerJob() const { return wallMs / jobs - kernelMsPerJob; }
};

/// The GPU time of one job, estimated: every launch it made at its median.
double kernelMs(const RunResult& r, const Project& p) {
    if (r.timing.timesMs.isEmpty())
        return 0;
    const int launches = int(r.timing.timesMs.size()) + p.timing.warmupLaunches + 1;
    return r.timing.medianMs * launches;
}

bool allVerified(const RunResult& r) {
    if (r.status != RunStatus::Ok || r.verification.isEmpty())
        return false;
    for (const BufferVerification& v : r.verification)
        if (!v.passed)
            return false;
    return true;
}

/// Waits for `pool` to drain, at most `ms`; false when it did not.
bool waitDrained(RunnerPool& pool, int ms) {
    QEventLoop loop;
    bool drained = false;
    const auto c = QObject::connect(&pool, &RunnerPool::drained, &loop, [&] {
        drained = true;
        loop.quit();
    });
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
    QObject::disconnect(c);
    return drained;
}

std::optional<Row> measurePool(const RunRequest& request, int runners, int jobs, int device,
                               const QString& runner, QString* error) {
    RunnerPool pool(QVector<int>(runners, device));
    if (!runner.isEmpty())
        pool.setCommand(runner, {QStringLiteral("serve")});
    Row row;
    row.runners = runners;
    row.jobs = jobs;
    double kernelTotal = 0;
    bool timing = false;
    QObject::connect(&pool, &RunnerPool::finished, &pool,
                     [&](quint64, const RunResult& r, int, int, const QString&) {
                         if (!timing)
                             return;
                         ++row.statuses[runStatusName(r.status)];
                         row.verified += allVerified(r);
                         kernelTotal += kernelMs(r, request.project);
                     });
    pool.warmUp();
    for (int k = 0; k < runners; ++k)
        pool.submit(quint64(k), request);
    if (!waitDrained(pool, 120000)) {
        *error = QStringLiteral("the warm-up jobs did not finish within 2 min");
        return std::nullopt;
    }
    timing = true;
    QElapsedTimer clock;
    clock.start();
    for (int k = 0; k < jobs; ++k)
        pool.submit(quint64(runners + k), request);
    if (!waitDrained(pool, 600000)) {
        *error = QStringLiteral("%1 jobs did not finish within 10 min").arg(jobs);
        return std::nullopt;
    }
    row.wallMs = double(clock.nsecsElapsed()) / 1e6;
    row.kernelMsPerJob = kernelTotal / jobs;
    return row;
}

/// Mean time per stage of one warm runner, from the client's side: "request → first stage",
/// each stage until the next, "last stage → answer" (the result's JSON, outputs, the hop).
QVector<std::pair<QString, double>> measureStages(const RunRequest& request, int jobs,
                                                  const QString& runner) {
    RunnerClient client;
    if (!runner.isEmpty())
        client.setCommand(runner, {QStringLiteral("serve")});
    QVector<QString> order;
    QMap<QString, double> totals;
    QElapsedTimer clock;
    QString last;
    qint64 lastNs = 0;
    QEventLoop loop;
    const auto mark = [&](const QString& segment) {
        const qint64 now = clock.nsecsElapsed();
        if (!totals.contains(segment))
            order.push_back(segment);
        totals[segment] += double(now - lastNs) / 1e6;
        lastNs = now;
    };
    QObject::connect(&client, &RunnerClient::runProgress, &loop,
                     [&](quint64, const QString& stage, int, int) {
                         if (stage == last)
                             return; // repeated counts of one stage
                         mark(last.isEmpty() ? QStringLiteral("request -> ") + stage
                                             : last + QStringLiteral(" -> ") + stage);
                         last = stage;
                     });
    QObject::connect(&client, &RunnerClient::runFinished, &loop, [&] {
        mark((last.isEmpty() ? QStringLiteral("request") : last) + QStringLiteral(" -> answer"));
        loop.quit();
    });
    for (int k = 0; k <= jobs; ++k) {
        if (k == 1)
            totals.clear(), order.clear(); // the first run fills the compile cache
        last.clear();
        clock.start();
        lastNs = 0;
        client.run(quint64(k + 1), request);
        loop.exec();
    }
    QVector<std::pair<QString, double>> stages;
    for (const QString& s : order)
        stages.push_back({s, totals.value(s) / jobs});
    return stages;
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Per-job overhead of KernelPad's runner pool on a compile-cache hit."));
    parser.addHelpOption();
    const QCommandLineOption projectOption(
        QStringLiteral("project"),
        QStringLiteral("The job (default bench/kernels/saxpy_1elem.kpad)."), QStringLiteral("file"),
        QStringLiteral(KERNELPAD_BENCH_DIR "/kernels/saxpy_1elem.kpad"));
    const QCommandLineOption jobsOption(QStringLiteral("jobs"), QStringLiteral("Jobs timed (64)."),
                                        QStringLiteral("n"), QStringLiteral("64"));
    const QCommandLineOption runnersOption(QStringLiteral("runners"),
                                           QStringLiteral("Runner counts, comma-separated (1,2)."),
                                           QStringLiteral("list"), QStringLiteral("1,2"));
    const QCommandLineOption deviceOption(QStringLiteral("device"),
                                          QStringLiteral("The device every runner uses (0)."),
                                          QStringLiteral("n"), QStringLiteral("0"));
    const QCommandLineOption repsOption(
        QStringLiteral("reps"), QStringLiteral("Timed repetitions per job, a fixed count (10)."),
        QStringLiteral("n"), QStringLiteral("10"));
    const QCommandLineOption runnerOption(
        QStringLiteral("runner"), QStringLiteral("kernelpad-cli to serve (default: found)."),
        QStringLiteral("path"));
    const QCommandLineOption jsonOption(QStringLiteral("json"), QStringLiteral("JSON output."));
    parser.addOptions({projectOption, jobsOption, runnersOption, deviceOption, repsOption,
                       runnerOption, jsonOption});
    parser.process(app);

    const auto number = [&](const QCommandLineOption& o, int least, int* out) {
        bool ok = false;
        *out = parser.value(o).toInt(&ok);
        if (!ok || *out < least) {
            std::fprintf(stderr,
                         "pool_bench: --%s must be a whole number of at least %d, got '%s'\n",
                         qPrintable(o.names().first()), least, qPrintable(parser.value(o)));
            return false;
        }
        return true;
    };
    int jobs = 0, device = 0, reps = 0;
    if (!number(jobsOption, 1, &jobs) || !number(deviceOption, 0, &device) ||
        !number(repsOption, 1, &reps))
        return 2;
    QVector<int> runnerCounts;
    for (const QString& s : parser.value(runnersOption).split(QLatin1Char(','))) {
        bool ok = false;
        const int n = s.trimmed().toInt(&ok);
        if (!ok || n < 1) {
            std::fprintf(stderr, "pool_bench: --runners: '%s' is not a runner count of 1 or more\n",
                         qPrintable(s));
            return 2;
        }
        runnerCounts.push_back(n);
    }

    QString error;
    const QString file = parser.value(projectOption);
    std::optional<Project> project = Project::load(file, &error);
    if (!project) {
        std::fprintf(stderr, "pool_bench: --project: %s\n", qPrintable(error));
        return 2;
    }
    RunRequest request;
    request.project = *project;
    request.project.timing.adaptive = false;
    request.project.timing.repetitions = reps;
    request.projectDir = QFileInfo(file).absolutePath();
    request.keepOutputs = false;
    const QString runner = parser.value(runnerOption);

    QVector<Row> rows;
    for (int runners : runnerCounts) {
        std::optional<Row> row = measurePool(request, runners, jobs, device, runner, &error);
        if (!row) {
            std::fprintf(stderr, "pool_bench: %d runner(s): %s\n", runners, qPrintable(error));
            return 1;
        }
        rows.push_back(*row);
    }
    const auto stages = measureStages(request, jobs, runner);

    if (parser.isSet(jsonOption)) {
        QJsonArray pools;
        for (const Row& r : rows) {
            QJsonObject statuses;
            for (auto it = r.statuses.begin(); it != r.statuses.end(); ++it)
                statuses.insert(it.key(), it.value());
            pools.append(QJsonObject{{"runners", r.runners},
                                     {"jobs", r.jobs},
                                     {"wallMs", r.wallMs},
                                     {"jobsPerSecond", r.jobsPerSecond()},
                                     {"kernelMsPerJob", r.kernelMsPerJob},
                                     {"overheadMsPerJob", r.overheadMsPerJob()},
                                     {"verified", r.verified},
                                     {"statuses", statuses}});
        }
        QJsonArray stageList;
        for (const auto& [name, ms] : stages)
            stageList.append(QJsonObject{{"stage", name}, {"meanMs", ms}});
        std::printf("%s\n", QJsonDocument(QJsonObject{{"project", file},
                                                      {"device", device},
                                                      {"reps", reps},
                                                      {"pools", pools},
                                                      {"stages", stageList}})
                                .toJson(QJsonDocument::Indented)
                                .constData());
        return 0;
    }
    std::printf("%s, %d timed repetitions per job, device %d\n", qPrintable(project->name), reps,
                device);
    std::printf("%-8s %5s %10s %8s %14s %16s %9s  %s\n", "runners", "jobs", "wall ms", "jobs/s",
                "kernel ms/job", "overhead ms/job", "verified", "statuses");
    for (const Row& r : rows) {
        QStringList statuses;
        for (auto it = r.statuses.begin(); it != r.statuses.end(); ++it)
            statuses << QStringLiteral("%1 %2").arg(it.value()).arg(it.key());
        std::printf("%-8d %5d %10.1f %8.1f %14.3f %16.2f %9d  %s\n", r.runners, r.jobs, r.wallMs,
                    r.jobsPerSecond(), r.kernelMsPerJob, r.overheadMsPerJob(), r.verified,
                    qPrintable(statuses.join(QStringLiteral(", "))));
    }
    std::printf("\none warm runner, mean per job, from the client's side:\n");
    for (const auto& [name, ms] : stages)
        std::printf("  %-40s %8.2f ms\n", qPrintable(name), ms);
    return 0;
}
