// What the GPU did while a run was timed (core/run/Telemetry.h): the clock-event names, the
// "SM clock moved more than 2 %" and throttling marks, whether the clocks were locked, the
// "too short to measure energy" rule, the JSON both ways (old results without telemetry still
// read), and the summaries the CLI prints and writes with --json.

#include "../support/TestMain.h"
#include "TestPaths.h"
#include "core/run/Summary.h"
#include "core/run/Telemetry.h"
#include "core/run/TelemetryClockLock.h"
#include "core/run/Timing.h"
#include "core/run/VersionHistory.h"
#include "core/sweep/SweepResults.h"

#include <QFile>
#include <QJsonDocument>

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

#include <cmath>

namespace tst_telemetrystats {

using namespace kernelpad;

namespace {

ChunkTelemetry chunk(int smMHz, std::optional<quint64> reasons = quint64(0)) {
    return ChunkTelemetry{100, smMHz, 2619, 312000, 61, reasons};
}

/// A run at 1755 MHz of three chunks, unlocked, with 0.5 s of energy over 1000 launches.
Telemetry steadyTelemetry() {
    Telemetry t;
    t.available = true;
    t.chunks = {chunk(1755), chunk(1755), chunk(1755)};
    t.smClockMaxMHz = 1980;
    t.smClockDefaultMHz = 1755;
    t.memClockMaxMHz = 2619;
    t.memClockDefaultMHz = 2619;
    t.powerLimitMw = 700000;
    t.energyMj = 150000.0;
    t.energyIntervalMs = 500.0;
    t.energyLaunches = 1000;
    return t;
}

RunResult runWith(const Telemetry& t) {
    RunResult r;
    r.kernelLowered = QStringLiteral("saxpy");
    r.timing = computeStats({0.4, 0.5, 0.6}, 300000000, 100000000);
    r.timing.telemetry = t;
    return r;
}

QString summaryText(const QVector<Summary>& s, const char* key) {
    const Summary* e = findSummary(s, QString::fromLatin1(key));
    return e ? formatSummaryValue(*e) : QStringLiteral("<absent>");
}

} // namespace

class TestTelemetryStats : public QObject {
    Q_OBJECT

private slots:
    void reasonNames_data() {
        QTest::addColumn<quint64>("bits");
        QTest::addColumn<QString>("names");
        QTest::newRow("none") << quint64(0) << QString();
        QTest::newRow("power cap") << clockEvent::SwPowerCap << "sw power cap";
        QTest::newRow("hw slowdown and hw thermal")
            << (clockEvent::HwSlowdown | clockEvent::HwThermalSlowdown)
            << "hw slowdown, hw thermal";
        QTest::newRow("sw thermal") << clockEvent::SwThermalSlowdown << "sw thermal";
        QTest::newRow("power brake") << clockEvent::HwPowerBrakeSlowdown << "hw power brake";
        QTest::newRow("idle and app clocks")
            << (clockEvent::GpuIdle | clockEvent::ApplicationsClocksSetting)
            << "gpu idle, applications clocks setting";
        QTest::newRow("unknown bit") << quint64(0x200) << "0x200";
    }
    void reasonNames() {
        QFETCH(quint64, bits);
        QFETCH(QString, names);
        QCOMPARE(clockEventNames(bits).join(QStringLiteral(", ")), names);
    }

    void instability_data() {
        QTest::addColumn<QVector<int>>("clocks");
        QTest::addColumn<quint64>("reasons");
        QTest::addColumn<QString>("expected");
        QTest::newRow("steady") << QVector<int>{1755, 1755, 1755} << quint64(0) << QString();
        QTest::newRow("one chunk") << QVector<int>{1410} << quint64(0) << QString();
        QTest::newRow("moved 1.7 %: under the mark")
            << QVector<int>{1755, 1725} << quint64(0) << QString();
        QTest::newRow("moved 2.6 %") << QVector<int>{1755, 1710, 1755} << quint64(0)
                                     << "SM clock moved 2.6 % (1710-1755 MHz)";
        QTest::newRow("idle is not throttling")
            << QVector<int>{1755, 1755} << clockEvent::GpuIdle << QString();
        QTest::newRow("app clocks are not throttling")
            << QVector<int>{1755, 1755} << clockEvent::ApplicationsClocksSetting << QString();
        QTest::newRow("power cap")
            << QVector<int>{1755, 1755} << clockEvent::SwPowerCap << "throttled: sw power cap";
        QTest::newRow("both") << QVector<int>{1980, 1700}
                              << (clockEvent::SwPowerCap | clockEvent::HwThermalSlowdown)
                              << "SM clock moved 14.1 % (1700-1980 MHz); throttled: sw power "
                                 "cap, hw thermal";
    }
    void instability() {
        QFETCH(QVector<int>, clocks);
        QFETCH(quint64, reasons);
        QFETCH(QString, expected);
        Telemetry t;
        t.available = true;
        for (int i = 0; i < clocks.size(); ++i) // the reason in the last chunk only
            t.chunks << chunk(clocks[i], i + 1 == clocks.size() ? reasons : quint64(0));
        QCOMPARE(t.instability(), expected);
    }

    void clockLock() {
        Telemetry t = steadyTelemetry();
        QCOMPARE(t.clockLock(), ClockLock::NotLocked);
        for (ChunkTelemetry& c : t.chunks)
            c.clockEventReasons = clockEvent::ApplicationsClocksSetting;
        QCOMPARE(t.clockLock(), ClockLock::Locked);
        t.chunks[1].clockEventReasons = clockEvent::SwPowerCap; // one chunk ran unheld
        QCOMPARE(t.clockLock(), ClockLock::NotLocked);
        for (ChunkTelemetry& c : t.chunks)
            c.clockEventReasons.reset();
        QCOMPARE(t.clockLock(), ClockLock::Unknown);
        t.lockedByKernelPad = true;
        QCOMPARE(t.clockLock(), ClockLock::Locked);
    }

    void energy_data() {
        QTest::addColumn<double>("energyMj"); // negative: NVML has no counter
        QTest::addColumn<double>("intervalMs");
        QTest::addColumn<double>("perLaunchJ"); // NaN: not measured
        QTest::addColumn<QString>("note");
        QTest::newRow("half a second") << 150000.0 << 500.0 << 0.15 << QString();
        QTest::newRow("exactly the minimum") << 75000.0 << 250.0 << 0.075 << QString();
        QTest::newRow("too short") << 30000.0 << 100.0 << std::nan("")
                                   << "too short to measure energy (100 ms timed; it needs 250 ms)";
        QTest::newRow("counter did not move")
            << 0.0 << 600.0 << std::nan("")
            << "too short to measure energy (600 ms timed; it needs 250 ms)";
        QTest::newRow("no counter")
            << -1.0 << 600.0 << std::nan("") << "no energy counter (NVML has one from Volta on)";
    }
    void energy() {
        QFETCH(double, energyMj);
        QFETCH(double, intervalMs);
        QFETCH(double, perLaunchJ);
        QFETCH(QString, note);
        Telemetry t = steadyTelemetry();
        t.energyMj = energyMj < 0 ? std::nullopt : std::optional<double>(energyMj);
        t.energyIntervalMs = intervalMs;
        QCOMPARE(t.energyNote(), note);
        QCOMPARE(t.energyMeasured(), note.isEmpty());
        if (std::isnan(perLaunchJ)) {
            QVERIFY(std::isnan(t.energyPerLaunchJ()));
            QVERIFY(std::isnan(t.averagePowerW()));
        } else {
            QVERIFY(std::abs(t.energyPerLaunchJ() - perLaunchJ) < 1e-12);
            QVERIFY(std::abs(t.averagePowerW() - 300.0) < 1e-9); // mJ / ms = W
        }
    }

    void jsonRoundTrip() {
        TimingStats stats = computeStats({0.1, 0.2}, 64, 8);
        stats.mode = QStringLiteral("hot");
        stats.stopReason = QStringLiteral("fixed count");
        stats.telemetry = steadyTelemetry();
        stats.telemetry.chunks[2].clockEventReasons =
            clockEvent::SwPowerCap | clockEvent::ApplicationsClocksSetting;
        stats.telemetry.chunks[1].clockEventReasons.reset(); // NVML refused the reasons once
        stats.telemetry.lockedByKernelPad = true;
        QString error;
        const std::optional<TimingStats> back = TimingStats::fromJson(stats.toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        const Telemetry& t = back->telemetry;
        QVERIFY(t.available);
        QVERIFY(t.chunks == stats.telemetry.chunks);
        QCOMPARE(t.smClockMaxMHz, 1980);
        QCOMPARE(t.smClockDefaultMHz, 1755);
        QCOMPARE(t.memClockMaxMHz, 2619);
        QCOMPARE(t.memClockDefaultMHz, 2619);
        QCOMPARE(t.powerLimitMw, 700000);
        QVERIFY(t.lockedByKernelPad);
        QVERIFY(t.energyMj && *t.energyMj == 150000.0);
        QCOMPARE(t.energyIntervalMs, 500.0);
        QCOMPARE(t.energyLaunches, 1000);
    }

    void jsonWithoutTelemetry() {
        TimingStats stats = computeStats({0.1}, 64);
        stats.mode = QStringLiteral("hot");
        stats.stopReason = QStringLiteral("fixed count");
        const QJsonObject json = stats.toJson(); // no NVML: nothing written
        QVERIFY(!json.contains(QStringLiteral("telemetry")));
        QString error;
        const std::optional<TimingStats> back = TimingStats::fromJson(json, &error);
        QVERIFY2(back, qPrintable(error));
        QVERIFY(!back->telemetry.available);
        QVERIFY(!back->telemetry.energyMj);
    }

    void jsonRefusals_data() {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QJsonValue>("value");
        QTest::addColumn<QString>("message");
        QTest::newRow("power a string")
            << "chunks.1.powerMw" << QJsonValue("hot") << "timing.telemetry.chunks[1].powerMw";
        QTest::newRow("negative temperature") << "chunks.0.temperatureC" << QJsonValue(-5)
                                              << "timing.telemetry.chunks[0].temperatureC";
        QTest::newRow("negative energy")
            << "energyMj" << QJsonValue(-1.0) << "timing.telemetry.energyMj: must not be negative";
        QTest::newRow("reasons a fraction") << "chunks.2.clockEventReasons" << QJsonValue(0.5)
                                            << "timing.telemetry.chunks[2].clockEventReasons";
        QTest::newRow("chunks not an array")
            << "chunks" << QJsonValue(3) << "timing.telemetry.chunks";
        QTest::newRow("lock missing") << "lockedByKernelPad" << QJsonValue(QJsonValue::Undefined)
                                      << "timing.telemetry.lockedByKernelPad: missing";
    }
    void jsonRefusals() {
        QFETCH(QString, field);
        QFETCH(QJsonValue, value);
        QFETCH(QString, message);
        TimingStats stats = computeStats({0.1}, 64);
        stats.telemetry = steadyTelemetry();
        QJsonObject json = stats.toJson();
        QJsonObject telemetry = json.value(QStringLiteral("telemetry")).toObject();
        const QStringList path = field.split(QLatin1Char('.'));
        if (path.size() == 3) {
            QJsonArray chunks = telemetry.value(path[0]).toArray();
            QJsonObject c = chunks[path[1].toInt()].toObject();
            c.insert(path[2], value);
            chunks[path[1].toInt()] = c;
            telemetry.insert(path[0], chunks);
        } else if (value.isUndefined()) {
            telemetry.remove(field);
        } else {
            telemetry.insert(field, value);
        }
        json.insert(QStringLiteral("telemetry"), telemetry);
        QString error;
        QVERIFY(!TimingStats::fromJson(json, &error, QStringLiteral("timing")));
        QVERIFY2(error.startsWith(message), qPrintable(error));
    }

    void summaries() {
        Telemetry t = steadyTelemetry();
        t.chunks[1].smClockMHz = 1700;
        t.chunks[2].clockEventReasons = clockEvent::SwPowerCap;
        t.chunks[2].powerMw = 699000;
        t.chunks[0].temperatureC = 74;
        const QVector<Summary> s = summarize(runWith(t));
        QCOMPARE(summaryText(s, "telemetry"), QStringLiteral("<absent>"));
        QCOMPARE(summaryText(s, "clock.locked"), QStringLiteral("no"));
        QCOMPARE(summaryText(s, "clock.lockCommand"),
                 QStringLiteral("sudo nvidia-smi --lock-gpu-clocks=1755,1755 "
                                "--lock-memory-clocks=2619,2619"));
        QCOMPARE(summaryText(s, "clock.smSpread"), QStringLiteral("3.1 %"));
        QCOMPARE(summaryText(s, "power.max"), QStringLiteral("699.0 W"));
        QCOMPARE(summaryText(s, "temperature.max"), QStringLiteral("74 °C"));
        QCOMPARE(summaryText(s, "clock.events"), QStringLiteral("sw power cap"));
        QCOMPARE(summaryText(s, "timing.unstable"),
                 QStringLiteral("SM clock moved 3.1 % (1700-1755 MHz); throttled: sw power cap"));
        QCOMPARE(summaryText(s, "energy.perLaunch"), QStringLiteral("150 mJ"));
        QCOMPARE(summaryText(s, "energy.power"), QStringLiteral("300.0 W"));
        QCOMPARE(summaryText(s, "energy.bytesPerJoule"), QStringLiteral("2.00 GB/J"));
        QCOMPARE(summaryText(s, "energy.flopsPerJoule"), QStringLiteral("0.67 GFLOP/J"));
        QCOMPARE(summaryText(s, "energy.note"), QStringLiteral("<absent>"));
    }

    void summariesWithoutNvml() {
        const QVector<Summary> s = summarize(runWith(Telemetry{}));
        QCOMPARE(summaryText(s, "telemetry"), QStringLiteral("no NVML"));
        for (const char* key : {"clock.locked", "power.max", "temperature.max", "energy.perLaunch",
                                "energy.note", "timing.unstable"})
            QCOMPARE(summaryText(s, key), QStringLiteral("<absent>"));
    }

    void summariesOfShortRun() {
        Telemetry t = steadyTelemetry();
        t.energyIntervalMs = 40;
        for (ChunkTelemetry& c : t.chunks)
            c.clockEventReasons = clockEvent::ApplicationsClocksSetting;
        const QVector<Summary> s = summarize(runWith(t));
        QCOMPARE(summaryText(s, "clock.locked"), QStringLiteral("yes"));
        QCOMPARE(summaryText(s, "clock.lockCommand"), QStringLiteral("<absent>"));
        QCOMPARE(summaryText(s, "timing.unstable"), QStringLiteral("<absent>"));
        QCOMPARE(summaryText(s, "energy.perLaunch"), QStringLiteral("<absent>"));
        QCOMPARE(summaryText(s, "energy.note"),
                 QStringLiteral("too short to measure energy (40 ms timed; it needs 250 ms)"));
    }

    void energyFormat_data() {
        QTest::addColumn<double>("joules");
        QTest::addColumn<QString>("text");
        QTest::newRow("joules") << 2.1 << "2.10 J";
        QTest::newRow("millijoules") << 0.15 << "150 mJ";
        QTest::newRow("microjoules") << 12.34e-6 << "12.3 µJ";
        QTest::newRow("nanojoules") << 5e-9 << "5.00 nJ";
        QTest::newRow("zero") << 0.0 << "0.00 nJ";
    }
    void energyFormat() {
        QFETCH(double, joules);
        QFETCH(QString, text);
        Summary e;
        e.hint = SummaryHint::Energy;
        e.value = joules;
        QCOMPARE(formatSummaryValue(e), text);
    }

    void versionKeepsEnergy() {
        // A version records the run's timing with its telemetry, so its energy survives a
        // restart (the versions file is the TimingStats JSON of each run).
        RunResult r = runWith(steadyTelemetry());
        r.timing.mode = QStringLiteral("hot");
        r.timing.stopReason = QStringLiteral("fixed count");
        QString error;
        const std::optional<Project> project =
            Project::load(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad"), &error);
        QVERIFY2(project, qPrintable(error));
        const Version v =
            Version::fromRun(3, QDateTime::currentDateTimeUtc(), *project, r, {}, false);
        const std::optional<Version> back = Version::fromJson(v.toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QVERIFY(back->timing.telemetry.energyMeasured());
        QVERIFY(std::abs(back->timing.telemetry.energyPerLaunchJ() - 0.15) < 1e-12);
        QCOMPARE(back->timing.telemetry.chunks.size(), 3);
    }

    void sweepObjectives_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("objective");
        QTest::newRow("energy") << "energy" << int(SweepObjective::Energy);
        QTest::newRow("edp") << "edp" << int(SweepObjective::Edp);
        QTest::newRow("time still reads") << "time" << int(SweepObjective::Time);
    }
    void sweepObjectives() {
        QFETCH(QString, name);
        QFETCH(int, objective);
        QFile f(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/transpose_sweep.kpad"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QJsonObject json = QJsonDocument::fromJson(f.readAll()).object();
        QJsonObject sweep = json.value(QStringLiteral("sweep")).toObject();
        sweep.insert(QStringLiteral("objective"), name);
        json.insert(QStringLiteral("sweep"), sweep);
        QString error;
        const std::optional<Project> p = Project::fromJson(json, &error);
        QVERIFY2(p, qPrintable(error));
        QCOMPARE(int(p->sweep.objective), objective);
        QCOMPARE(p->toJson().value("sweep").toObject().value("objective").toString(), name);
        sweep.insert(QStringLiteral("objective"), QStringLiteral("joules"));
        json.insert(QStringLiteral("sweep"), sweep);
        QVERIFY(!Project::fromJson(json, &error));
        QVERIFY2(error.startsWith(QStringLiteral("sweep.objective: expected one of")) &&
                     error.contains(QStringLiteral("\"edp\"")),
                 qPrintable(error));
    }

    void sweepScoresEnergy() {
        SweepRecord frugal, fast, unmeasured;
        for (SweepRecord* r : {&frugal, &fast, &unmeasured})
            r->status = QStringLiteral("ok");
        frugal.key = QStringLiteral("bx=32");
        frugal.medianMs = 2.0;
        frugal.energyJ = 0.1; // edp 2e-4 J s
        fast.key = QStringLiteral("bx=64");
        fast.medianMs = 1.0;
        fast.energyJ = 0.15; // edp 1.5e-4 J s
        unmeasured.key = QStringLiteral("bx=128");
        unmeasured.medianMs = 0.5; // too short for energy: never the best by it
        const QVector<SweepRecord> all{frugal, fast, unmeasured};
        QCOMPARE(bestRecord(all, SweepObjective::Time)->key, unmeasured.key);
        QCOMPARE(bestRecord(all, SweepObjective::Energy)->key, frugal.key);
        QCOMPARE(bestRecord(all, SweepObjective::Edp)->key, fast.key);
        QVERIFY(std::abs(fast.score(SweepObjective::Edp) - 1.5e-4) < 1e-15);
        QString error;
        const std::optional<SweepRecord> back = SweepRecord::fromJson(frugal.toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->energyJ, 0.1);
        const std::optional<SweepRecord> none = SweepRecord::fromJson(unmeasured.toJson(), &error);
        QVERIFY2(none, qPrintable(error));
        QVERIFY(std::isnan(none->energyJ)); // absent in the file, NaN again
    }

    void requestCarriesTheLock() {
        QString error;
        const std::optional<Project> project =
            Project::load(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad"), &error);
        QVERIFY2(project, qPrintable(error));
        RunRequest request;
        request.project = *project;
        QVERIFY(!request.toJson().contains(QStringLiteral("lockClocks"))); // off: not written
        request.lockClocks = true;
        const std::optional<RunRequest> back = RunRequest::fromJson(request.toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QVERIFY(back->lockClocks);
        QJsonObject wrong = request.toJson();
        wrong.insert(QStringLiteral("lockClocks"), QStringLiteral("yes"));
        QVERIFY(!RunRequest::fromJson(wrong, &error));
        QVERIFY2(error.startsWith(QStringLiteral("lockClocks")), qPrintable(error));
    }

    void lockCommand() {
        QCOMPARE(lockClocksCommand(1980, 0),
                 QStringLiteral("sudo nvidia-smi --lock-gpu-clocks=1980,1980"));
        QVERIFY(!clocksLockedByKernelPad(QStringLiteral("0000:00:06.0")));
        QCOMPARE(unlockClocks(QStringLiteral("0000:00:06.0")), QString()); // nothing was locked
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestTelemetryStats)
} // namespace tst_telemetrystats
#include "tst_telemetrystats.moc"
