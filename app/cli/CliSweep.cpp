#include "app/cli/CliSweep.h"

#include "app/cli/CliCommands.h"
#include "app/cli/CliEngine.h"
#include "app/cli/CliSweepArgs.h"
#include "core/engine/Engine.h"
#include "core/engine/RunnerProbe.h"
#include "core/io/ErrorOut.h"
#include "core/io/Trace.h"
#include "core/run/Summary.h"
#include "core/sweep/SweepResultsPath.h"
#include "core/sweep/SweepSpace.h"

#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTextStream>

#include <cmath>
#include <memory>

namespace kernelpad::cli {
namespace {

int badInput(const QString& message, bool json) {
    if (json)
        QTextStream(stdout) << QJsonDocument(
                                   QJsonObject{{"error", message}, {"status", "bad-input"}})
                                   .toJson(QJsonDocument::Indented);
    else
        QTextStream(stderr) << "kernelpad-cli: sweep: " << message << '\n';
    return kExitBadInput;
}

/// --fresh's start over: only a results file KernelPad wrote is removed (readSweepResults'
/// rules: its header, every line read; a symbolic link is refused, never followed). Its records
/// go to `*previous`: their times order the new run longest first.
bool removeForFresh(const QString& path, QVector<SweepRecord>* previous, QString* error) {
    const QFileInfo info(path);
    if (!info.exists() && !info.isSymLink())
        return true;
    QString why;
    std::optional<QVector<SweepRecord>> records = readSweepResults(path, &why);
    if (!records)
        return fail(error, QStringLiteral("--fresh: %1 is not removed: %2")
                               .arg(QDir::toNativeSeparators(path), why));
    *previous = std::move(*records);
    if (!QFile::remove(path))
        return fail(error, QStringLiteral("--fresh: cannot remove %1 to start over")
                               .arg(QDir::toNativeSeparators(path)));
    return true;
}

QString cell(double value, const QString& text) {
    return std::isfinite(value) ? text : QStringLiteral("-");
}

void printTable(QTextStream& out, const QVector<SweepRecord>& sorted, const QStringList& names) {
    QVector<QStringList> rows;
    QStringList header = names;
    header << "status"
           << "median"
           << "min"
           << "GB/s"
           << "device";
    rows.append(header);
    QStringList failures;
    for (const SweepRecord& record : sorted) {
        QStringList row;
        for (double v : record.values)
            row.append(SweepSpace::formatValue(v));
        row << record.status << cell(record.medianMs, formatDurationMs(record.medianMs))
            << cell(record.minMs, formatDurationMs(record.minMs))
            << cell(record.bandwidthGBs, QString::number(record.bandwidthGBs, 'f', 1))
            << (record.device.isEmpty() ? QStringLiteral("-") : record.device);
        rows.append(row);
        if (!record.passed())
            failures.append(
                QStringLiteral("  %1: %2: %3").arg(record.key, record.status, record.error));
    }
    QVector<int> widths(header.size(), 0);
    for (const QStringList& row : rows)
        for (qsizetype c = 0; c < row.size() && c < widths.size(); ++c)
            widths[c] = std::max(widths[c], int(row[c].size()));
    for (const QStringList& row : rows) {
        QStringList padded;
        for (qsizetype c = 0; c < row.size(); ++c)
            padded.append(c + 1 == row.size() ? row[c] : row[c].leftJustified(widths[c]));
        out << padded.join(QStringLiteral("  ")) << '\n';
    }
    if (!failures.isEmpty())
        out << "\nFailed configurations:\n" << failures.join(QLatin1Char('\n')) << '\n';
}

/// "best: KEY  median …" with the accurate re-timing of a sweep timed with another budget.
void printBest(QTextStream& out, const SweepRecord& best) {
    out << "best: " << best.key << "  median " << formatDurationMs(best.medianMs);
    if (best.timingBudget != QLatin1String("accurate"))
        out << " (" << best.timingBudget << ')';
    if (best.isRetimed())
        out << "  accurate " << formatDurationMs(best.accurateMedianMs) << " (min "
            << formatDurationMs(best.accurateMinMs) << ')';
    if (std::isfinite(best.bandwidthGBs))
        out << QStringLiteral("  %1 GB/s").arg(best.bandwidthGBs, 0, 'f', 1);
    if (std::isfinite(best.baselineRatio))
        out << QStringLiteral("  %1 the baseline").arg(formatRatio(best.baselineRatio));
    if (std::isfinite(best.energyJ))
        out << QStringLiteral("  %1 mJ per launch").arg(best.energyJ * 1e3, 0, 'g', 3);
    out << "  on " << best.device << '\n';
    if (!best.accurateError.isEmpty())
        out << "timing the best again with the project's timing failed: " << best.accurateError
            << '\n';
    if (best.confirmation)
        out << best.confirmation->text(best.key) << '\n';
}

/// "busy: GPU … 97 %, … of 3.21 s (the best's re-timing and A/B 0.40 s more); longest first
/// by buffer bytes": how the configurations kept the devices busy.
void printBalance(QTextStream& out, const SweepBalance& balance) {
    if (balance.isEmpty())
        return;
    out << "busy: " << balance.text();
    if (balance.followUpMs >= 1)
        out << QStringLiteral(" (then %1 s for the best's re-timing and A/B)")
                   .arg(balance.followUpMs / 1000.0, 0, 'f', 2);
    out << "; order: "
        << (balance.orderedBy.isEmpty() ? QStringLiteral("the space's")
                                        : QStringLiteral("longest first by ") + balance.orderedBy)
        << '\n';
    out << "time: " << balance.stagesText() << '\n';
}

/// The best's A/B against the runner-up for --json: its fields and the line the text prints.
QJsonObject confirmationJson(const SweepRecord& best) {
    QJsonObject json = best.confirmation->toJson();
    json.insert(QStringLiteral("best"), best.key);
    json.insert(QStringLiteral("text"), best.confirmation->text(best.key));
    return json;
}

/// Every device of each of `runners`, asked side by side (RunnerProbe, behind the Engine's
/// door); one line per runner left out in `*problems`.
QVector<PoolEntry> surveyRunners(const QVector<RunnerSpec>& runners, QStringList* problems) {
    RunnerProbe probe;
    QEventLoop loop;
    QObject::connect(&probe, &RunnerProbe::surveyed, &loop, &QEventLoop::quit);
    probe.survey(runners);
    if (probe.isSurveying())
        loop.exec();
    *problems = probe.problems();
    return probe.entries();
}

/// The runner of a sweep with at most one --runner: that one, else $KERNELPAD_RUNNER's, else
/// this computer's.
RunnerSpec sweepRunnerOf(const SweepArgs& a) {
    if (!a.runners.isEmpty())
        return a.runners.first();
    QString ignored; // the survey reports a bad $KERNELPAD_RUNNER
    const std::optional<RunnerSpec> spec = RunnerSpec::fromEnvironment(&ignored);
    return spec ? *spec : RunnerSpec::local();
}

/// `ordinals` of `runner`, each named as the runner lists the device (`listed`): the results
/// file is keyed by the names.
QVector<PoolEntry> entriesOn(const RunnerSpec& runner, const QVector<int>& ordinals,
                             const QVector<DeviceInfo>& listed) {
    QVector<PoolEntry> entries;
    for (int ordinal : ordinals)
        entries.append(
            PoolEntry{runner, ordinal,
                      ordinal >= 0 && ordinal < listed.size() ? listed[ordinal].name : QString()});
    return entries;
}

/// The ordinals --device or --devices name ("all" and no option: none); an item that is not
/// an ordinal sets `*badItem`.
QVector<int> namedOrdinals(const SweepArgs& a, QString* badItem) {
    if (a.deviceGiven)
        return {a.device};
    QVector<int> out;
    if (a.devices.isEmpty() || a.devices == QLatin1String("all"))
        return out;
    for (const QString& item : a.devices.split(QLatin1Char(','))) {
        bool ok = false;
        const int ordinal = item.trimmed().toInt(&ok);
        if (!ok || ordinal < 0) {
            *badItem = item;
            return {};
        }
        out.append(ordinal);
    }
    return out;
}

/// The sweep's devices when the options name them (--device N, --devices 0,1 with at most one
/// --runner), before any device is listed: their runners may start at once. Empty otherwise.
QVector<PoolEntry> entriesBeforeSurvey(const SweepArgs& a) {
    QString badItem;
    if (a.runners.size() > 1)
        return {};
    const QVector<int> ordinals = namedOrdinals(a, &badItem);
    return badItem.isEmpty() ? entriesOn(sweepRunnerOf(a), ordinals, {}) : QVector<PoolEntry>{};
}

/// The runners' devices: --device N is one runner there; --devices lists them ("all", or
/// ordinals, one runner each, repeats allowed); neither is every device of the runner (this
/// computer, or the one --runner names). Several --runner: every device of each, a runner that
/// cannot be reached reported on stderr and left out. Empty when the driver or its devices are
/// missing: the single runner then says so.
std::optional<QVector<PoolEntry>> runnerEntries(const SweepArgs& a, QString* error) {
    if (a.runners.size() > 1) {
        QStringList problems;
        const QVector<PoolEntry> entries = surveyRunners(a.runners, &problems);
        QTextStream err(stderr);
        for (const QString& problem : problems)
            err << "sweep: left out runner " << problem << '\n';
        if (entries.isEmpty()) {
            *error = QStringLiteral("no CUDA device on any of the %1 runners: %2")
                         .arg(a.runners.size())
                         .arg(problems.join(QStringLiteral("; ")));
            return std::nullopt;
        }
        return entries;
    }
    const RunnerSpec runner = sweepRunnerOf(a);
    QString driverError;
    // With --runner elsewhere, "every device" is every device of that runner.
    const QVector<DeviceInfo> local = devicesThroughEngine(runner, &driverError);
    if (!a.deviceGiven && (a.devices.isEmpty() || a.devices == QLatin1String("all"))) {
        QVector<PoolEntry> entries;
        for (const DeviceInfo& d : local)
            entries.append(PoolEntry{runner, d.ordinal, d.name});
        return entries;
    }
    if (a.deviceGiven)
        return entriesOn(runner, {a.device}, local);
    QVector<int> ordinals;
    for (const QString& item : a.devices.split(QLatin1Char(','))) {
        bool ok = false;
        const int ordinal = item.trimmed().toInt(&ok);
        if (!ok || ordinal < 0) {
            *error = QStringLiteral("--devices: '%1' is not a device ordinal (expected all or a "
                                    "list such as 0,1)")
                         .arg(item);
            return std::nullopt;
        }
        if (driverError.isEmpty() && ordinal >= local.size()) {
            *error = QStringLiteral("--devices: there is no device %1 (%2 has %3)")
                         .arg(ordinal)
                         .arg(runner.displayName())
                         .arg(local.size());
            return std::nullopt;
        }
        ordinals.append(ordinal);
    }
    return entriesOn(runner, ordinals, local);
}

/// How the sweep spreads over `devices`: one device of this computer is one warm runner (the
/// base request's device); several, or a runner elsewhere, a pool that gives each runner the
/// next configuration when it is free and names each result's runner.
void spreadOver(const QVector<PoolEntry>& devices, SweepOrder* order) {
    if (devices.size() > 1 || (devices.size() == 1 && !devices.first().spec.isLocal())) {
        order->devices = devices;
    } else {
        if (devices.size() == 1)
            order->base.device = devices.first().device;
        order->singleRunner = true;
    }
}

/// The sweep's runners start now when the options name its devices (entriesBeforeSurvey):
/// each initialises the driver while this process lists the devices (whose names key the
/// results file, and which say whether --devices' ordinals exist). A sweep that never starts
/// stops them with `engine`.
void startRunnersEarly(const SweepArgs& a, const RunRequest& base, Engine* engine) {
    const QVector<PoolEntry> early = entriesBeforeSurvey(a);
    if (early.isEmpty())
        return;
    SweepOrder warm;
    warm.base = base;
    spreadOver(early, &warm);
    engine->prepareSweep(warm);
    tracePhase("sweep: runners starting");
}

/// The devices' names as the results file's key takes them (unnamed ones left out).
QStringList namesOf(const QVector<PoolEntry>& devices) {
    QStringList names;
    for (const PoolEntry& entry : devices)
        if (!entry.deviceName.isEmpty())
            names.append(entry.deviceName);
    return names;
}

/// How `budget` times a configuration, for the head.
QString budgetText(const SweepTimingBudget& budget) {
    if (budget.kind == SweepTimingBudget::Kind::Fast)
        return QStringLiteral("fast (%1 samples after %2 warm-up launches)")
            .arg(SweepTimingBudget::kFastRepetitions)
            .arg(SweepTimingBudget::kFastWarmupLaunches);
    return QStringLiteral("for at most %1 ms").arg(budget.ms);
}

/// The sweep's head on stderr: what the space keeps, what the strategy evaluates, the results
/// file it resumes or starts.
void printHead(QTextStream& err, const SweepSpace& space, const SweepOrder& order,
               qsizetype resumed, int total, const QString& projectPath) {
    err << "sweep: " << space.size() << " of " << space.fullSize() << " configurations kept";
    for (const RestrictionCount& count : space.restrictionCounts())
        err << "; \"" << count.restriction << "\" removes " << count.removed;
    err << "; " << strategyKindName(order.base.project.sweep.strategy.kind) << " evaluates up to "
        << total << '\n';
    const SweepTimingBudget& budget = order.base.project.sweep.timingBudget;
    if (!budget.isAccurate())
        err << "sweep: each configuration timed " << budgetText(budget)
            << "; the best is timed again with the project's timing (accurate)\n";
    if (resumed > 0)
        err << "sweep: resuming " << QDir::toNativeSeparators(order.resultsPath) << ": " << resumed
            << " of " << total << " configurations already done (--fresh starts over)\n";
    else
        err << "sweep: recording into " << QDir::toNativeSeparators(order.resultsPath) << '\n';
    if (const QStringList beside = sweepResultsBesideProject(projectPath); !beside.isEmpty())
        err << "sweep: ignoring " << QDir::toNativeSeparators(beside.first())
            << (beside.size() > 1 ? QStringLiteral(" and %1 more").arg(beside.size() - 1)
                                  : QString())
            << ": results beside a project are no longer read or written\n";
    err.flush();
}

/// What runSweepThroughEngine() saw: the records the sweep reached and why it stopped.
struct SweepRun {
    bool started = false;   ///< false: it never started (the results file; `stopped` says why)
    bool fileError = false; ///< it stopped because the results file could not be written
    QString stopped;
    QVector<SweepRecord> records;
    SweepBalance balance;
};

/// Runs `order` through `engine` (its own thread and runners, docs/ARCHITECTURE.md), printing
/// its head and one line per new record to `err` as they come.
SweepRun runSweepThroughEngine(Engine& engine, const SweepOrder& order, const SweepSpace& space,
                               const QString& projectPath, QTextStream& err) {
    SweepRun run;
    int done = 0;
    int total = 0;
    bool announced = false;
    // Records of the file the sweep takes as done count without a sweepRecord(): those of
    // this space, in the file's order.
    QVector<SweepRecord> resumed;
    QObject::connect(&engine, &Engine::sweepStarted, &engine,
                     [&](quint64, const QVector<SweepRecord>& existing, int all) {
                         run.started = true;
                         total = all;
                         QSet<QString> keys;
                         for (const SweepPoint& point : space.points())
                             keys.insert(space.key(point));
                         for (const SweepRecord& record : existing)
                             if (keys.contains(record.key))
                                 resumed.append(record);
                         printHead(err, space, order, existing.size(), total, projectPath);
                     });
    QObject::connect(
        &engine, &Engine::sweepRecord, &engine, [&](quint64, const SweepRecord& record) {
            run.records.append(record);
            announced = true;
            // Its progress follows it: it is the sweep's done + 1th.
            err << '[' << done + 1 << '/' << total << "] " << record.key << "  " << record.status;
            if (record.passed())
                err << "  " << formatDurationMs(record.medianMs);
            err << '\n';
            err.flush();
        });
    QObject::connect(&engine, &Engine::sweepRetiming, &engine,
                     [&](quint64, const SweepRecord& record) {
                         err << "sweep: timing the best, " << record.key
                             << ", again with the project's timing (accurate)\n";
                         err.flush();
                     });
    const auto replace = [&run](quint64, const SweepRecord& record) {
        for (SweepRecord& held : run.records)
            if (held.key == record.key)
                held = record;
    };
    QObject::connect(&engine, &Engine::sweepRetimed, &engine, replace);
    QObject::connect(&engine, &Engine::sweepConfirming, &engine,
                     [&](quint64, const SweepRecord& best, const SweepRecord& runnerUp) {
                         err << "sweep: confirming the best, " << best.key
                             << ", by an interleaved A/B against the runner-up, " << runnerUp.key
                             << '\n';
                         err.flush();
                     });
    QObject::connect(&engine, &Engine::sweepConfirmed, &engine, replace);
    QObject::connect(&engine, &Engine::sweepProgress, &engine, [&](quint64, int now, int) {
        if (!announced && !resumed.isEmpty())
            run.records.append(resumed.takeFirst());
        announced = false;
        done = now;
    });
    QObject::connect(&engine, &Engine::sweepBalance, &engine,
                     [&run](quint64, const SweepBalance& balance) { run.balance = balance; });
    QEventLoop loop;
    QObject::connect(&engine, &Engine::sweepFinished, &loop, [&](quint64, const QString& why) {
        run.stopped = why;
        loop.quit();
    });
    engine.sweep(order);
    loop.exec();
    run.fileError = run.started && !run.stopped.isEmpty() &&
                    run.stopped != QLatin1String("cancelled") &&
                    !run.stopped.startsWith(QLatin1String("no CUDA device"));
    return run;
}

/// The exit when the sweep's devices cannot be listed: several runners none of which answered
/// is the driver's failure, one runner's problem is the input's.
int devicesUnavailable(const SweepArgs& a, const QString& error) {
    if (a.runners.size() <= 1)
        return badInput(error, a.json);
    if (a.json)
        QTextStream(stdout) << QJsonDocument(
                                   QJsonObject{{"status", "driver-unavailable"}, {"error", error}})
                                   .toJson(QJsonDocument::Indented);
    else
        QTextStream(stderr) << "kernelpad-cli: sweep: " << error << '\n';
    return kExitCudaError;
}

} // namespace

int runSweep(const QStringList& args) {
    QString error;
    const std::optional<SweepArgs> a = parseSweepArgs(args, &error);
    if (!a)
        return badInput(error, args.contains(QStringLiteral("--json")));
    std::optional<Project> project = Project::load(a->project, &error);
    if (!project)
        return badInput(error, a->json);
    if (!applySweepOverrides(*a, &*project, &error))
        return badInput(error, a->json);

    RunRequest base;
    base.project = *project;
    base.projectDir = QFileInfo(a->project).absolutePath();
    base.device = a->device;
    base.repetitions = a->repetitions;
    auto engine = std::make_unique<Engine>();
    startRunnersEarly(*a, base, engine.get());
    const std::optional<QVector<PoolEntry>> devices = runnerEntries(*a, &error);
    if (!devices)
        return devicesUnavailable(*a, error);
    tracePhase("sweep: devices surveyed"); // KERNELPAD_TRACE: where the start-up goes
    const QStringList deviceNames = namesOf(*devices);
    SweepOrder order;
    order.base = base;
    spreadOver(*devices, &order);
    // The space as the sweep will build it: its counts head the output, its names the table.
    const std::unique_ptr<SweepSpace> space = SweepSpace::create(base.project, &error);
    if (!space)
        return badInput(error, a->json);

    // The window's file for the same project, sweep and devices: either resumes the other's.
    const QString resultsPath =
        a->results.isEmpty() ? sweepResultsPath(*project, QFileInfo(a->project).absoluteFilePath(),
                                                sweepDeviceKey(deviceNames))
                             : a->results;
    if (a->fresh && !removeForFresh(resultsPath, &order.previous, &error))
        return badInput(error, a->json);
    order.resultsPath = resultsPath;
    order.resume = true; // --fresh removed the file above
    order.confirm = a->confirm;

    QTextStream err(stderr);
    const SweepRun run = runSweepThroughEngine(*engine, order, *space, a->project, err);
    if (!run.started) // the results file could not be opened
        return badInput(run.stopped, a->json);
    const QString& stopped = run.stopped;

    if (run.fileError)
        return badInput(stopped, a->json);
    if (stopped.startsWith(QLatin1String("no CUDA device"))) {
        const QString message =
            QStringLiteral("%1%2 A sweep needs a device: compiling the configurations alone "
                           "measures nothing.")
                .arg(stopped, stopped.endsWith(QLatin1Char('.')) ? QString() : QStringLiteral("."));
        if (a->json)
            QTextStream(stdout) << QJsonDocument(QJsonObject{{"status", "driver-unavailable"},
                                                             {"error", message}})
                                       .toJson(QJsonDocument::Indented);
        else
            err << "kernelpad-cli: sweep: " << message << '\n';
        return kExitCudaError;
    }

    const SweepObjective objective = project->sweep.objective;
    const QVector<SweepRecord> sorted = sortedRecords(run.records, objective);
    const std::optional<SweepRecord> best = bestRecord(sorted, objective);
    int passed = 0;
    for (const SweepRecord& record : sorted)
        passed += record.passed() ? 1 : 0;
    QTextStream out(stdout);
    if (a->json) {
        QJsonObject object{{"status", best ? "ok" : "no-configuration-passed"},
                           {"evaluated", int(sorted.size())},
                           {"passed", passed},
                           {"configurations", int(space->size())},
                           {"results", recordsToJson(sorted)},
                           {"resultsFile", QDir::toNativeSeparators(resultsPath)}};
        if (best)
            object.insert("best", best->toJson());
        if (best && best->confirmation)
            object.insert("confirmation", confirmationJson(*best));
        if (const std::optional<double> ceiling = recordsCeilingGBs(sorted))
            object.insert("ceilingGBs", *ceiling);
        if (!stopped.isEmpty())
            object.insert("stopped", stopped);
        if (!run.balance.isEmpty())
            object.insert("balance", run.balance.toJson());
        out << QJsonDocument(object).toJson(QJsonDocument::Indented);
    } else if (a->csv) {
        out << recordsToCsv(sorted, space->names());
    } else {
        printTable(out, sorted, space->names());
        out << '\n' << passed << " of " << sorted.size() << " configurations passed";
        if (!stopped.isEmpty())
            out << " (stopped: " << stopped << ')';
        out << '\n';
        if (best)
            printBest(out, *best);
        else if (passed > 0 &&
                 (objective == SweepObjective::Energy || objective == SweepObjective::Edp))
            out << "no configuration has an energy figure (it needs 250 ms of timed launches)\n";
        else
            out << "no configuration passed\n";
        // What a size sweep's GB/s approach: the device's measured copy ceiling.
        if (const std::optional<double> ceiling = recordsCeilingGBs(sorted))
            out << "copy ceiling: " << QString::number(*ceiling, 'f', 1) << " GB/s\n";
        printBalance(out, run.balance);
    }
    err << "sweep: results in " << QDir::toNativeSeparators(resultsPath) << '\n';
    out.flush();
    err.flush();
    tracePhase("sweep: results printed");
    // Only then are the runners told to exit (not waited for: RunnerConnection::letGo) and the
    // threads ended: the results reach the caller as soon as the last answer is recorded.
    engine.reset();
    tracePhase("sweep: engine closed");
    return best ? kExitOk : kExitVerificationFailed;
}

} // namespace kernelpad::cli
