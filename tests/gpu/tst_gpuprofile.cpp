// Nsight Compute on a real GPU, through the Engine and through kernelpad-cli: the stride-32 read
// is flagged uncoalesced at its line and the contiguous one is not; the 32-way bank conflicts
// of the unpadded transpose tile are flagged at their line and the padded tile's are not; SAXPY
// reaches at least 60 % of the DRAM peak and has a point at every memory level.

#include "GpuTestSupport.h"

#include "core/profile/Ncu.h"
#include "core/profile/ProfileReport.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTest>

namespace tst_gpuprofile {

using namespace kernelpad;

namespace {

/// tests/data/ncu: $KERNELPAD_TEST_DATA/ncu on the GPU machine, else the source tree's.
QString ncuDataDir() {
    return qEnvironmentVariable("KERNELPAD_TEST_DATA", QStringLiteral(KERNELPAD_TEST_DATA_DIR)) +
           QStringLiteral("/ncu");
}

/// The line of each project's access that the flags are about (1-based, in its .kpad source).
constexpr int kStridedReadLine = 6;     // out[i] = in[(size_t)i * 32];
constexpr int kContiguousReadLine = 14; // out[i] = in[i];
constexpr int kConflictLine = 12;       // out[...] = tile[threadIdx.x][threadIdx.y];
constexpr int kPaddedReadLine = 25;     // the same read of the padded tile
constexpr double kSaxpyDramFloorPct = 60.0;

Project loadData(const QString& file) {
    QString error;
    std::optional<Project> p = Project::load(ncuDataDir() + QLatin1Char('/') + file, &error);
    if (!p)
        qFatal("cannot load %s: %s", qPrintable(file), qPrintable(error));
    return *p;
}

ProfileOutcome profileThroughEngine(const Project& p, const QString& dir, ProfileSet set) {
    Engine engine;
    QSignalSpy finished(&engine, &Engine::profileFinished);
    RunRequest r;
    r.project = p;
    r.projectDir = dir;
    r.keepOutputs = false;
    engine.profile(r, set);
    if (!finished.wait(300000)) {
        ProfileOutcome none;
        none.error = QStringLiteral("no answer within 300 s");
        return none;
    }
    return finished.first().at(1).value<ProfileOutcome>();
}

struct CliProfile {
    int exitCode = -1;
    QJsonObject json;
    QString text;
};

CliProfile profileThroughCli(const QString& kpad, const QStringList& extra) {
    QProcess p;
    // The GPU machine runs a bundle outside the build tree: $KERNELPAD_CLI names its CLI.
    const QString cli = qEnvironmentVariableIsSet("KERNELPAD_CLI")
                            ? qEnvironmentVariable("KERNELPAD_CLI")
                            : QStringLiteral(KERNELPAD_CLI_PATH);
    p.start(cli, QStringList{QStringLiteral("profile"), kpad} << extra);
    CliProfile out;
    if (!p.waitForFinished(300000)) {
        p.kill();
        p.waitForFinished(5000);
        out.text = QStringLiteral("kernelpad-cli profile did not finish in 300 s");
        return out;
    }
    out.exitCode = p.exitCode();
    const QByteArray stdoutText = p.readAllStandardOutput();
    out.text = QString::fromUtf8(stdoutText) + QString::fromUtf8(p.readAllStandardError());
    if (extra.contains(QStringLiteral("--json")))
        out.json = QJsonDocument::fromJson(stdoutText).object();
    return out;
}

} // namespace

class TestGpuProfile : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        qRegisterMetaType<kernelpad::ProfileOutcome>();
        KERNELPAD_REQUIRE_DRIVER();
        const NcuLocation ncu = findNcu();
        if (ncu.path.isEmpty())
            QSKIP(qPrintable(ncu.notFoundMessage()));
    }

    void stridedReadIsFlaggedContiguousIsNot() {
        const ProfileOutcome strided = profileThroughEngine(
            loadData(QStringLiteral("read_strided.kpad")), ncuDataDir(), ProfileSet::Basic);
        QVERIFY2(strided.ok(), qPrintable(strided.error));
        const LineProfile* line = strided.report.lineProfile(kStridedReadLine);
        QVERIFY2(line, "no per-line record of the strided read");
        QVERIFY2(line->uncoalesced, qPrintable(line->flagMessages().join(QLatin1Char(' '))));
        QVERIFY(line->l2SectorsGlobal > 2 * line->l2SectorsGlobalIdeal);
        for (const LineProfile& l : strided.report.lines)
            if (l.line != kStridedReadLine)
                QVERIFY2(!l.uncoalesced, qPrintable(QString::number(l.line)));

        const ProfileOutcome contiguous = profileThroughEngine(
            loadData(QStringLiteral("read_contiguous.kpad")), ncuDataDir(), ProfileSet::Basic);
        QVERIFY2(contiguous.ok(), qPrintable(contiguous.error));
        const LineProfile* read = contiguous.report.lineProfile(kContiguousReadLine);
        QVERIFY2(read, "no per-line record of the contiguous read");
        QVERIFY(read->l2SectorsGlobal > 0);
        QVERIFY(contiguous.report.flaggedLines().isEmpty());
    }

    void bankConflictsAreFlaggedPaddedAreNot() {
        const ProfileOutcome conflicts = profileThroughEngine(
            loadData(QStringLiteral("transpose_conflicts.kpad")), ncuDataDir(), ProfileSet::Basic);
        QVERIFY2(conflicts.ok(), qPrintable(conflicts.error));
        const LineProfile* line = conflicts.report.lineProfile(kConflictLine);
        QVERIFY2(line, "no per-line record of the tile's column read");
        QVERIFY(line->bankConflicts);
        QCOMPARE(line->sharedConflictsNWay, 32.0);
        QVERIFY(line->sharedWavefrontsExcessive > 0);

        const ProfileOutcome padded = profileThroughEngine(
            loadData(QStringLiteral("transpose_padded.kpad")), ncuDataDir(), ProfileSet::Basic);
        QVERIFY2(padded.ok(), qPrintable(padded.error));
        QVERIFY(padded.report.lineProfile(kPaddedReadLine));
        for (const LineProfile& l : padded.report.lines)
            QVERIFY2(!l.bankConflicts, qPrintable(QString::number(l.line)));
    }

    void saxpyReachesSixtyPercentOfDram() {
        const ProfileOutcome saxpy = profileThroughEngine(test::loadExample("saxpy.kpad"),
                                                          test::examplesDir(), ProfileSet::Basic);
        QVERIFY2(saxpy.ok(), qPrintable(saxpy.error));
        const ProfileReport& r = saxpy.report;
        QVERIFY(r.speedOfLight.dramThroughputPct);
        QVERIFY2(*r.speedOfLight.dramThroughputPct >= kSaxpyDramFloorPct,
                 qPrintable(QString::number(*r.speedOfLight.dramThroughputPct)));
        // The basic set plus the added sections fills the stalls, the lines and the roofline.
        QVERIFY(!r.stalls.isEmpty());
        QVERIFY(!r.lines.isEmpty());
        QVERIFY(r.roofline.peakDramBytesPerSecond);
        QVERIFY(r.roofline.dramBytesPerSecond);
        QVERIFY(*r.roofline.dramBytesPerSecond >=
                kSaxpyDramFloorPct / 100.0 * *r.roofline.peakDramBytesPerSecond);
        QVERIFY(r.roofline.peakFp32FlopsPerSecond);
        // The hierarchical sections added to the basic set fill every level: an FP32 point at
        // L1, L2 and DRAM (2/12 FLOP/byte at L1), under the DRAM roof.
        const HierarchicalRoofline& h = r.hierarchy;
        for (const HierarchyPoint& p : h.points())
            qInfo("%s at %s: %.4g FLOP/byte, %.4g FLOP/s, roof %.4g",
                  qPrintable(precisionName(p.precision)), qPrintable(memoryLevelName(p.level)),
                  p.flopsPerByte, p.flopsPerSecond, p.roofFlopsPerSecond.value_or(-1));
        const std::optional<RooflineBound> bound = h.bound();
        qInfo("%s", bound ? qPrintable(bound->sentence) : "no bound");
        QVERIFY2(h.l1.peak && h.l2.peak && h.dram.peak && h.fp32.peak,
                 "a level's or FP32's peak is missing from the raw page");
        QCOMPARE(h.points().size(), 3);
        QVERIFY(bound && bound->memory && bound->level == MemoryLevel::Dram);
        QVERIFY(!r.ncuVersion.isEmpty());
        QString error;
        const auto back = ProfileReport::fromJson(r.toJson(), &error);
        QVERIFY2(back && *back == r, qPrintable(error));
    }

    void fullSetFillsTheSameReport() {
        const ProfileOutcome full = profileThroughEngine(
            loadData(QStringLiteral("read_strided.kpad")), ncuDataDir(), ProfileSet::Full);
        QVERIFY2(full.ok(), qPrintable(full.error));
        QCOMPARE(full.report.set, QStringLiteral("full"));
        QVERIFY(full.report.lineProfile(kStridedReadLine));
        QVERIFY(full.report.lineProfile(kStridedReadLine)->uncoalesced);
        QVERIFY(full.report.speedOfLight.l2HitRatePct);
    }

    void cliFlagsTheLinesAndSaxpy() {
        const CliProfile strided =
            profileThroughCli(ncuDataDir() + QStringLiteral("/read_strided.kpad"), {});
        QVERIFY2(strided.exitCode == 0, qPrintable(strided.text));
        QVERIFY2(strided.text.contains(QStringLiteral("read_strided.cu:%1: warning: uncoalesced "
                                                      "global access: ")
                                           .arg(kStridedReadLine)),
                 qPrintable(strided.text));
        QVERIFY2(strided.text.contains(QStringLiteral("sectors per request, ideal")),
                 qPrintable(strided.text));

        const CliProfile contiguous = profileThroughCli(
            ncuDataDir() + QStringLiteral("/read_contiguous.kpad"), {QStringLiteral("--json")});
        QVERIFY2(contiguous.exitCode == 0, qPrintable(contiguous.text));
        QCOMPARE(contiguous.json.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
        QVERIFY(contiguous.json.value(QStringLiteral("flags")).toArray().isEmpty());

        const CliProfile conflicts =
            profileThroughCli(ncuDataDir() + QStringLiteral("/transpose_conflicts.kpad"), {});
        QVERIFY2(conflicts.exitCode == 0, qPrintable(conflicts.text));
        QVERIFY2(conflicts.text.contains(
                     QStringLiteral("transpose_conflicts.cu:%1: warning: shared-memory bank "
                                    "conflicts: 32-way")
                         .arg(kConflictLine)),
                 qPrintable(conflicts.text));

        const CliProfile padded = profileThroughCli(
            ncuDataDir() + QStringLiteral("/transpose_padded.kpad"), {QStringLiteral("--json")});
        QVERIFY2(padded.exitCode == 0, qPrintable(padded.text));
        QVERIFY(padded.json.value(QStringLiteral("flags")).toArray().isEmpty());

        const CliProfile saxpy = profileThroughCli(
            test::examplesDir() + QStringLiteral("/saxpy.kpad"), {QStringLiteral("--json")});
        QVERIFY2(saxpy.exitCode == 0, qPrintable(saxpy.text));
        QString error;
        const auto report =
            ProfileReport::fromJson(saxpy.json.value(QStringLiteral("profile")).toObject(), &error);
        QVERIFY2(report, qPrintable(error));
        QVERIFY(report->speedOfLight.dramThroughputPct);
        QVERIFY2(*report->speedOfLight.dramThroughputPct >= kSaxpyDramFloorPct,
                 qPrintable(QString::number(*report->speedOfLight.dramThroughputPct)));
    }

    void unknownSetIsBadInput() {
        const CliProfile bad =
            profileThroughCli(ncuDataDir() + QStringLiteral("/read_strided.kpad"),
                              {QStringLiteral("--set"), QStringLiteral("huge")});
        QCOMPARE(bad.exitCode, 4);
        QVERIFY2(bad.text.contains(QStringLiteral("--set takes basic or full")),
                 qPrintable(bad.text));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestGpuProfile)
} // namespace tst_gpuprofile
#include "tst_gpuprofile.moc"
