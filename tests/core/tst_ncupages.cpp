// The Nsight Compute page readers on every recording in tests/data/ncu (ncu 2025.3.1 on an H100,
// see its README.md): the numbers asserted are the files' own.
#include "app/cli/CliProfile.h"
#include "core/profile/Ncu.h"
#include "core/profile/NcuPages.h"
#include "core/profile/ProfileReport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>
#include <QTextStream>

#include "../support/NcuRecordings.h"
#include "../support/TestMain.h"
#include "TestPaths.h"
#include <cmath>

namespace tst_ncupages {

using namespace kernelpad;

namespace {

QString dataFile(const QString& name) {
    return test::ncuRecording(name);
}

const ProfileMetric* metric(const DetailsPage& page, const QString& section, const QString& name) {
    for (const ProfileMetric& m : page.metrics)
        if (m.section == section && m.name == name)
            return &m;
    return nullptr;
}

ProfileReport report(const QString& kernel, const QString& set) {
    return test::recordedProfile(kernel, set);
}

} // namespace

class TestNcuPages : public QObject {
    Q_OBJECT
private slots:
    void csvQuotingAndSeparators();
    void csvMalformed();
    void numbers();
    void units();
    void detailsOfEverySet();
    void detailsMalformed();
    void rawSaxpy();
    void sourceStridedAgainstContiguous();
    void sourceConflictsAgainstPadded();
    void sourceWithoutLineInfo();
    void sourceSassOnlyIsRefused();
    void reportSaxpyFull();
    void reportSaxpyBasic();
    void reportJsonRoundTrip();
    void reportJsonErrorsNameTheField();
    void flagRules();
    void cliWarningsAndText();
    void ncuLogDiagnosis();
    void ncuArguments();
    void ncuMissingListsPlaces();
};

void TestNcuPages::csvQuotingAndSeparators() {
    QString error;
    const auto rows = parseCsv(QStringLiteral("\"a\",\"b,c\",\"say \"\"hi\"\"\",\n"
                                              "plain,\"two\nlines\",\r\n\n\"\",x"),
                               &error);
    QVERIFY2(rows, qPrintable(error));
    // The blank line is skipped; a trailing separator leaves an empty last field.
    QCOMPARE(rows->size(), 3);
    QCOMPARE((*rows)[0], (QStringList{"a", "b,c", "say \"hi\"", ""}));
    QCOMPARE((*rows)[1], (QStringList{"plain", "two\nlines", ""}));
    QCOMPARE((*rows)[2], (QStringList{"", "x"}));
    // The row after the blank line.
    const auto more = parseCsv(QStringLiteral("x\n\n\"\",y\n"), &error);
    QVERIFY(more);
    QCOMPARE(more->size(), 2);
    QCOMPARE((*more)[1], (QStringList{"", "y"}));
}

void TestNcuPages::csvMalformed() {
    QString error;
    QVERIFY(!parseCsv(QStringLiteral("\"a\",\"b\n\"c"), &error));
    QCOMPARE(error, QStringLiteral("line 2: text after a closing quote"));
    QVERIFY(!parseCsv(QStringLiteral("\"a\"\n\"b,c"), &error));
    QCOMPARE(error, QStringLiteral("line 2: a quoted field is not closed"));
    // A details page cut short says which column is missing.
    QVERIFY(!parseDetailsPage(QStringLiteral("\"ID\",\"Kernel Name\"\n\"0\",\"k\"\n"), &error));
    QVERIFY2(error.contains(QStringLiteral("'Block Size'")), qPrintable(error));
}

void TestNcuPages::numbers() {
    QCOMPARE(parseNcuNumber(QStringLiteral("115,962")).value_or(-1), 115962.0);
    QCOMPARE(parseNcuNumber(QStringLiteral("111,029.82")).value_or(-1), 111029.82);
    QCOMPARE(parseNcuNumber(QStringLiteral("2,758,200,789,127.58")).value_or(-1), 2758200789127.58);
    QCOMPARE(parseNcuNumber(QStringLiteral("78.22")).value_or(-1), 78.22);
    QVERIFY(!parseNcuNumber(QStringLiteral("-")));
    QVERIFY(!parseNcuNumber(QStringLiteral("n/a")));
    QVERIFY(!parseNcuNumber(QStringLiteral("nan")));
    QVERIFY(!parseNcuNumber(QString()));
    QVERIFY(!parseNcuNumber(QStringLiteral("PolicySpread")));
}

void TestNcuPages::units() {
    const ScaledValue tb = scaleToBaseUnit(2.62, QStringLiteral("Tbyte/s"));
    QCOMPARE(tb.unit, QStringLiteral("byte/s"));
    QCOMPARE(tb.value, 2.62e12);
    const ScaledValue kb = scaleToBaseUnit(1.28, QStringLiteral("Kbyte/cycle"));
    QCOMPARE(kb.unit, QStringLiteral("byte/cycle"));
    QCOMPARE(kb.value, 1280.0);
    QCOMPARE(scaleToBaseUnit(134.226176, QStringLiteral("Mbyte")).value, 134226176.0);
    const ScaledValue ghz = scaleToBaseUnit(1.59, QStringLiteral("Ghz"));
    QCOMPARE(ghz.unit, QStringLiteral("hz"));
    QCOMPARE(ghz.value, 1.59e9);
    const ScaledValue us = scaleToBaseUnit(72.99, QStringLiteral("us"));
    QCOMPARE(us.unit, QStringLiteral("s"));
    QVERIFY(std::abs(us.value - 72.99e-6) < 1e-15);
    QCOMPARE(scaleToBaseUnit(5, QStringLiteral("cycle")).unit, QStringLiteral("cycle"));
    QCOMPARE(scaleToBaseUnit(5, QStringLiteral("%")).value, 5.0);
}

void TestNcuPages::detailsOfEverySet() {
    const QStringList kernels{"saxpy", "read_strided", "read_contiguous", "transpose_conflicts",
                              "transpose_padded"};
    for (const QString& kernel : kernels) {
        for (const QString& set : {QStringLiteral("basic"), QStringLiteral("full")}) {
            QString error;
            const auto page = parseDetailsPage(
                dataFile(kernel + QLatin1Char('.') + set + QStringLiteral(".details.csv")), &error);
            QVERIFY2(page,
                     qPrintable(kernel + QLatin1Char(' ') + set + QStringLiteral(": ") + error));
            QCOMPARE(page->kernel, kernel);
            QCOMPARE(page->launches, 1);
            const ProfileMetric* dram =
                metric(*page, QStringLiteral("GPU Speed Of Light Throughput"),
                       QStringLiteral("DRAM Throughput"));
            QVERIFY(dram);
            QCOMPARE(dram->unit, QStringLiteral("%"));
            QVERIFY(dram->value);
            QVERIFY(
                metric(*page, QStringLiteral("Occupancy"), QStringLiteral("Achieved Occupancy")));
            // The full set has the sections the basic one lacks.
            const bool hasWarpState =
                metric(*page, QStringLiteral("Warp State Statistics"),
                       QStringLiteral("Warp Cycles Per Issued Instruction")) != nullptr;
            QCOMPARE(hasWarpState, set == QLatin1String("full"));
        }
    }
    QString error;
    const auto saxpy = parseDetailsPage(dataFile(QStringLiteral("saxpy.full.details.csv")), &error);
    QVERIFY(saxpy);
    QCOMPARE(saxpy->blockSize, QStringLiteral("(256, 1, 1)"));
    QCOMPARE(saxpy->gridSize, QStringLiteral("(65536, 1, 1)"));
    const ProfileMetric* dram = metric(*saxpy, QStringLiteral("GPU Speed Of Light Throughput"),
                                       QStringLiteral("DRAM Throughput"));
    QCOMPARE(dram->text, QStringLiteral("78.22"));
    QCOMPARE(*dram->value, 78.22);
    const ProfileMetric* cycles = metric(*saxpy, QStringLiteral("GPU Speed Of Light Throughput"),
                                         QStringLiteral("Elapsed Cycles"));
    QCOMPARE(*cycles->value, 115962.0);
    QCOMPARE(cycles->unit, QStringLiteral("cycle"));
    const ProfileMetric* policy = metric(*saxpy, QStringLiteral("Launch Statistics"),
                                         QStringLiteral("Cluster Scheduling Policy"));
    QCOMPARE(policy->text, QStringLiteral("PolicySpread"));
    QVERIFY(!policy->value);
    QVERIFY(!saxpy->rules.isEmpty());
    QCOMPARE(saxpy->rules.first().section, QStringLiteral("SpeedOfLight"));
    QCOMPARE(saxpy->rules.first().name, QStringLiteral("SOLBottleneck"));
    QCOMPARE(saxpy->rules.first().type, QStringLiteral("OPT"));
    QVERIFY(saxpy->rules.first().description.startsWith(
        QStringLiteral("Memory is more heavily utilized than Compute")));
}

void TestNcuPages::detailsMalformed() {
    QString error;
    QVERIFY(!parseDetailsPage(dataFile(QStringLiteral("nomatch.ncu.log")), &error));
    QVERIFY2(error.contains(QStringLiteral("no header row")), qPrintable(error));
    QVERIFY(!parseDetailsPage(QStringLiteral("\"ID\",\"Kernel Name\",\"x"), &error));
    QVERIFY2(error.contains(QStringLiteral("not closed")), qPrintable(error));
}

void TestNcuPages::rawSaxpy() {
    QString error;
    const auto raw = parseRawPage(dataFile(QStringLiteral("saxpy.full.raw.csv")), &error);
    QVERIFY2(raw, qPrintable(error));
    QCOMPARE(raw->launches, 1);
    QCOMPARE(raw->text(QStringLiteral("device__attribute_display_name")),
             QStringLiteral("NVIDIA H100 80GB HBM3"));
    QCOMPARE(*raw->base(QStringLiteral("dram__bytes.sum.per_second")), 2.620966e12);
    QCOMPARE(*raw->base(QStringLiteral("dram__bytes.sum.peak_sustained")), 1280.0);
    QCOMPARE(*raw->base(QStringLiteral("dram__bytes_read.sum")), 134226176.0);
    QCOMPARE(*raw->base(QStringLiteral("device__attribute_clock_rate")), 1980000.0);
    QCOMPARE(raw->metrics.value(QStringLiteral("dram__bytes.sum.per_second")).unit,
             QStringLiteral("Tbyte/s"));
    QVERIFY(!raw->base(QStringLiteral("no_such_metric")));
    QVERIFY(!parseRawPage(QStringLiteral("\"ID\",\"a\"\n\"\",\"%\"\n"), &error));
    QVERIFY2(error.contains(QStringLiteral("no values")), qPrintable(error));
}

void TestNcuPages::sourceStridedAgainstContiguous() {
    QString error;
    const auto strided =
        parseSourcePage(dataFile(QStringLiteral("read_strided.full.source-cuda-sass.csv")), &error);
    QVERIFY2(strided, qPrintable(error));
    QCOMPARE(strided->size(), 1);
    const SourcePage& s = strided->first();
    QCOMPARE(s.filePath, QStringLiteral("/work/main/read_strided.cu"));
    QCOMPARE(s.functionName, QStringLiteral("read_strided"));
    const LineProfile* six = nullptr;
    for (const LineProfile& l : s.lines) {
        if (l.line == 6)
            six = &l;
        else
            QVERIFY2(!l.uncoalesced, qPrintable(QString::number(l.line)));
    }
    QVERIFY(six);
    QCOMPARE(six->l2SectorsGlobal, qint64(4718592));
    QCOMPARE(six->l2SectorsGlobalIdeal, qint64(1048576));
    QCOMPARE(six->l2SectorsGlobalExcessive, qint64(3670016));
    QVERIFY(six->uncoalesced);
    QVERIFY(!six->bankConflicts);
    QVERIFY(!six->sass.isEmpty());
    bool load = false;
    for (const ProfileSassRow& row : six->sass)
        load = load || row.instruction.startsWith(QStringLiteral("LDG"));
    QVERIFY(load);
    QCOMPARE(s.lines.first().line, 2);
    QCOMPARE(s.lines.first().stallSamples, qint64(13));
    QCOMPARE(s.lines.first().notIssuedStallSamples, qint64(11));
    QCOMPARE(s.lines.first().instructionsExecuted, qint64(131072));
    QCOMPARE(s.lines.first().sass.size(), 1);
    QCOMPARE(s.lines.first().sass.first().address, QStringLiteral("0x7f079b7ac200"));
    QCOMPARE(s.lines.first().sass.first().instruction, QStringLiteral("LDC R1, c[0x0][0x28]"));

    const auto contiguous = parseSourcePage(
        dataFile(QStringLiteral("read_contiguous.full.source-cuda-sass.csv")), &error);
    QVERIFY2(contiguous, qPrintable(error));
    bool sawLoad = false;
    for (const LineProfile& l : contiguous->first().lines) {
        QVERIFY2(!l.uncoalesced, qPrintable(QString::number(l.line)));
        if (l.line == 14) { // out[i] = in[i] in read_contiguous.kpad
            sawLoad = true;
            QCOMPARE(l.l2SectorsGlobal, l.l2SectorsGlobalIdeal);
            QVERIFY(l.l2SectorsGlobal > 0);
            QCOMPARE(l.l2SectorsGlobalExcessive, qint64(0));
        }
    }
    QVERIFY(sawLoad);
}

void TestNcuPages::sourceConflictsAgainstPadded() {
    QString error;
    const auto conflicts = parseSourcePage(
        dataFile(QStringLiteral("transpose_conflicts.full.source-cuda-sass.csv")), &error);
    QVERIFY2(conflicts, qPrintable(error));
    QList<int> flagged;
    for (const LineProfile& l : conflicts->first().lines) {
        if (l.bankConflicts)
            flagged << l.line;
        if (l.line == 12) {
            QCOMPARE(l.sharedConflictsNWay, 32.0);
            QCOMPARE(l.sharedWavefrontsExcessive, qint64(4063232));
            QCOMPARE(l.stallSamples, qint64(1173));
            QVERIFY(!l.stalls.isEmpty());
            // Stall columns are in the raw page's names, most samples first.
            for (qsizetype k = 1; k < l.stalls.size(); ++k)
                QVERIFY(l.stalls[k - 1].samples >= l.stalls[k].samples);
            QVERIFY(!l.stalls.first().name.contains(QLatin1Char(' ')));
        }
    }
    QCOMPARE(flagged, QList<int>{12});

    const auto padded = parseSourcePage(
        dataFile(QStringLiteral("transpose_padded.full.source-cuda-sass.csv")), &error);
    QVERIFY2(padded, qPrintable(error));
    // Line 25 of transpose_padded.kpad is line 12's twin: the column read of the padded tile.
    bool sawRead = false;
    for (const LineProfile& l : padded->first().lines) {
        QVERIFY2(!l.bankConflicts, qPrintable(QString::number(l.line)));
        if (l.line == 25) {
            sawRead = true;
            QCOMPARE(l.sharedConflictsNWay, 1.0);
            QCOMPARE(l.sharedWavefrontsExcessive, qint64(0));
            QVERIFY(l.sharedWavefronts > 0);
        }
    }
    QVERIFY(sawRead);
}

void TestNcuPages::sourceWithoutLineInfo() {
    QString error;
    const auto page =
        parseSourcePage(dataFile(QStringLiteral("saxpy.full.source-cuda-sass.csv")), &error);
    QVERIFY2(page, qPrintable(error));
    QCOMPARE(page->size(), 1);
    QVERIFY(page->first().lines.isEmpty());
    QCOMPARE(page->first().warnings,
             QStringList{QStringLiteral("==WARNING== No lineinfo available to show CUDA-C "
                                        "source related to 'saxpy'.")});
}

void TestNcuPages::sourceSassOnlyIsRefused() {
    // --print-source sass has no "Line No" column: the reader says what it misses.
    QString error;
    QVERIFY(
        !parseSourcePage(dataFile(QStringLiteral("read_strided.full.source-sass.csv")), &error));
    QVERIFY2(error.contains(QStringLiteral("Line No")) ||
                 error.contains(QStringLiteral("File Path")),
             qPrintable(error));
}

void TestNcuPages::reportSaxpyFull() {
    const ProfileReport r = report(QStringLiteral("saxpy"), QStringLiteral("full"));
    QCOMPARE(r.kernel, QStringLiteral("saxpy"));
    QCOMPARE(r.device, QStringLiteral("NVIDIA H100 80GB HBM3"));
    QCOMPARE(r.set, QStringLiteral("full"));
    QCOMPARE(*r.speedOfLight.dramThroughputPct, 78.22);
    QCOMPARE(*r.speedOfLight.memoryThroughputPct, 78.22);
    QCOMPARE(*r.speedOfLight.computeThroughputPct, 24.35);
    QCOMPARE(*r.speedOfLight.l1ThroughputPct, 19.28);
    QCOMPARE(*r.speedOfLight.l2ThroughputPct, 78.06);
    QCOMPARE(*r.speedOfLight.achievedOccupancyPct, 75.52);
    QCOMPARE(*r.speedOfLight.theoreticalOccupancyPct, 100.0);
    QCOMPARE(*r.speedOfLight.l2HitRatePct, 34.07);
    QCOMPARE(*r.speedOfLight.l1HitRatePct, 0.0);
    QCOMPARE(*r.speedOfLight.elapsedCycles, 115962.0);
    QCOMPARE(*r.speedOfLight.smFrequencyHz, 1.59e9);
    QCOMPARE(*r.speedOfLight.dramBytes, 134226176.0 + 57083392.0);
    QCOMPARE(*r.speedOfLight.l2Bytes, 9553609.0 * 32);
    QVERIFY(std::abs(*r.durationNs - 72992.0) < 1e-6);
    // Roofline: peaks from peak_sustained x clocks.
    QVERIFY(std::abs(*r.roofline.peakFp32FlopsPerSecond - 16896.0 * 2 * 1.564605e9) < 1e3);
    QVERIFY(std::abs(*r.roofline.peakFp64FlopsPerSecond - 8448.0 * 2 * 1.564605e9) < 1e3);
    QVERIFY(std::abs(*r.roofline.peakDramBytesPerSecond - 1280.0 * 2.617624e9) < 1e3);
    QCOMPARE(*r.roofline.dramBytesPerSecond, 2.620966e12);
    // SAXPY: one FMUL and one FADD per element here, no FFMA, no FP64.
    QVERIFY(std::abs(*r.roofline.achievedFp32FlopsPerSecond -
                     (146.906165 + 146.906165) * 1.564605e9) < 1e3);
    QCOMPARE(*r.roofline.achievedFp64FlopsPerSecond, 0.0);
    QVERIFY(*r.roofline.arithmeticIntensity > 0.1 && *r.roofline.arithmeticIntensity < 0.2);
    // Stalls from the PC samples, most first, with descriptions.
    QVERIFY(r.stalls.size() >= 3);
    QCOMPARE(r.stalls.first().name, QStringLiteral("long_scoreboard"));
    QCOMPARE(r.stalls.first().samples, qint64(6291));
    QCOMPARE(r.stalls.first().notIssuedSamples, qint64(4814));
    QVERIFY(!r.stalls.first().description.isEmpty());
    for (qsizetype k = 1; k < r.stalls.size(); ++k)
        QVERIFY(r.stalls[k - 1].samples >= r.stalls[k].samples);
    // No -lineinfo in this recording: no lines, and ncu's warning kept.
    QVERIFY(r.lines.isEmpty());
    QVERIFY(r.warnings.join(QLatin1Char('\n')).contains(QStringLiteral("No lineinfo")));
}

void TestNcuPages::reportSaxpyBasic() {
    const ProfileReport r = report(QStringLiteral("saxpy"), QStringLiteral("basic"));
    QVERIFY(r.speedOfLight.dramThroughputPct);
    QVERIFY(r.speedOfLight.achievedOccupancyPct);
    // The plain basic set has neither the memory section nor the roofline's metrics (the
    // profile adds them to the basic set; these recordings are ncu's own basic set).
    QVERIFY(!r.speedOfLight.l2HitRatePct);
    QVERIFY(!r.roofline.peakFp32FlopsPerSecond);
    QVERIFY(r.stalls.isEmpty());
    QVERIFY(r.durationNs);
}

void TestNcuPages::reportJsonRoundTrip() {
    for (const QString& kernel : {QStringLiteral("transpose_conflicts"), QStringLiteral("saxpy"),
                                  QStringLiteral("read_strided")}) {
        ProfileReport r = report(kernel, QStringLiteral("full"));
        r.ncuVersion = QStringLiteral("2025.3.1.0");
        r.commandLine =
            QStringList{QStringLiteral("ncu"), QStringLiteral("--set"), QStringLiteral("full")};
        const QByteArray text = QJsonDocument(r.toJson()).toJson();
        QString error;
        const auto back = ProfileReport::fromJson(QJsonDocument::fromJson(text).object(), &error);
        QVERIFY2(back, qPrintable(error));
        QVERIFY(*back == r);
    }
    const ProfileReport conflicts =
        report(QStringLiteral("transpose_conflicts"), QStringLiteral("full"));
    QCOMPARE(conflicts.flaggedLines().size(), 1);
    QCOMPARE(conflicts.flaggedLines().first().line, 12);
    QVERIFY(conflicts.lineProfile(12));
    QVERIFY(!conflicts.lineProfile(999));
}

void TestNcuPages::reportJsonErrorsNameTheField() {
    ProfileReport r = report(QStringLiteral("read_strided"), QStringLiteral("full"));
    QJsonObject o = r.toJson();
    QJsonArray lines = o.value(QStringLiteral("lines")).toArray();
    QJsonObject second = lines[1].toObject();
    second.insert(QStringLiteral("line"), QStringLiteral("six"));
    lines[1] = second;
    o.insert(QStringLiteral("lines"), lines);
    QString error;
    QVERIFY(!ProfileReport::fromJson(o, &error));
    QVERIFY2(error.startsWith(QStringLiteral("lines[1].line: expected")), qPrintable(error));

    QJsonObject sol = r.toJson();
    sol.insert(QStringLiteral("speedOfLight"),
               QJsonObject{{QStringLiteral("dramThroughputPct"), QStringLiteral("high")}});
    QVERIFY(!ProfileReport::fromJson(sol, &error));
    QVERIFY2(error.startsWith(QStringLiteral("speedOfLight.dramThroughputPct:")),
             qPrintable(error));
}

void TestNcuPages::flagRules() {
    LineProfile l;
    l.l2SectorsGlobalIdeal = 100;
    l.l2SectorsGlobal = 200; // exactly 2x: not flagged
    flagLine(&l);
    QVERIFY(!l.uncoalesced);
    l.l2SectorsGlobal = 201;
    flagLine(&l);
    QVERIFY(l.uncoalesced);
    QCOMPARE(l.flagMessages(),
             QStringList{QStringLiteral("uncoalesced global access: 201 sectors where 100 are "
                                        "ideal (2.0x)")});
    l = LineProfile{};
    l.sharedConflictsNWay = 1;
    flagLine(&l);
    QVERIFY(!l.bankConflicts);
    l.sharedWavefrontsExcessive = 1;
    flagLine(&l);
    QVERIFY(l.bankConflicts);
    l.sharedWavefrontsExcessive = 0;
    l.sharedConflictsNWay = 2;
    flagLine(&l);
    QVERIFY(l.bankConflicts);
}

void TestNcuPages::cliWarningsAndText() {
    // Line 6 runs one load (32 sectors where 4 are ideal) and one store (4 and 4): 18 sectors
    // per request on average where 4 are ideal.
    QCOMPARE(cli::profileWarnings(report(QStringLiteral("read_strided"), QStringLiteral("full"))),
             QStringList{QStringLiteral("read_strided.cu:6: warning: uncoalesced global access: "
                                        "18 sectors per request, ideal 4")});
    QVERIFY(cli::profileWarnings(report(QStringLiteral("read_contiguous"), QStringLiteral("full")))
                .isEmpty());
    QCOMPARE(
        cli::profileWarnings(report(QStringLiteral("transpose_conflicts"), QStringLiteral("full"))),
        QStringList{QStringLiteral("transpose_conflicts.cu:12: warning: shared-memory bank "
                                   "conflicts: 32-way, 4,063,232 excessive wavefronts")});
    QVERIFY(cli::profileWarnings(report(QStringLiteral("transpose_padded"), QStringLiteral("full")))
                .isEmpty());

    QString text;
    QTextStream out(&text);
    ProfileReport saxpy = report(QStringLiteral("saxpy"), QStringLiteral("full"));
    saxpy.ncuVersion = QStringLiteral("2025.3.1.0");
    cli::printProfile(out, saxpy);
    out.flush();
    QVERIFY2(text.startsWith(QStringLiteral("Profile of saxpy on NVIDIA H100 80GB HBM3 (ncu "
                                            "2025.3.1.0, full set)")),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("DRAM throughput          78.22 %")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("75.52 % achieved of 100.00 % theoretical")),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("long_scoreboard")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("DRAM 2.62 TB/s of 3.35 TB/s")), qPrintable(text));
}

void TestNcuPages::ncuLogDiagnosis() {
    const NcuLogDiagnosis none = diagnoseNcuLog(dataFile(QStringLiteral("nomatch.ncu.log")));
    QVERIFY(none.noKernelProfiled);
    QCOMPARE(none.availableKernels,
             (QStringList{"kpBlockStream", "kpCompare_float32", "kpGatherMismatches", "saxpy"}));
    QVERIFY(!none.counterPermission);
    const QString message = noKernelProfiledMessage(QStringLiteral("_Z4sumsPf"), none);
    QVERIFY2(message.contains(QStringLiteral("_Z4sumsPf")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("kpBlockStream, kpCompare_float32, "
                                             "kpGatherMismatches, saxpy")),
             qPrintable(message));

    const NcuLogDiagnosis ok = diagnoseNcuLog(dataFile(QStringLiteral("saxpy.basic.ncu.log")));
    QVERIFY(!ok.noKernelProfiled);
    QVERIFY(!ok.counterPermission);
    QCOMPARE(ok.warnings,
             QStringList{QStringLiteral("==WARNING== No source files were imported. Check that the "
                                        "target application was compiled with -lineinfo.")});

    const NcuLogDiagnosis perm = diagnoseNcuLog(
        QStringLiteral("==PROF== Connected to process 12 (/x/kernelpad-cli)\n"
                       "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access "
                       "NVIDIA GPU Performance Counters on the target device 0.\n"));
    QVERIFY(perm.counterPermission);
    const QString permMessage = counterPermissionMessage();
    QVERIFY(permMessage.contains(QStringLiteral("NVreg_RestrictProfilingToAdminUsers=0")));
    QVERIFY(permMessage.contains(QStringLiteral("/etc/modprobe.d")));
    QVERIFY(permMessage.contains(QStringLiteral("https://developer.nvidia.com/ERR_NVGPUCTRPERM")));
}

void TestNcuPages::ncuArguments() {
    const QStringList basic =
        ncuProfileArguments(ProfileSet::Basic, QStringLiteral("_Z3fooPf"),
                            QStringLiteral("/tmp/x/report"), QStringLiteral("/tmp/x/ncu.log"));
    const QString joined = basic.join(QLatin1Char(' '));
    QVERIFY2(joined.contains(QStringLiteral("--kernel-name-base mangled -k regex:^_Z3fooPf$ -c 1")),
             qPrintable(joined));
    QVERIFY(joined.contains(QStringLiteral("--set basic")));
    QVERIFY(joined.contains(QStringLiteral("--section SourceCounters")));
    QVERIFY(joined.contains(QStringLiteral("--section WarpStateStats")));
    QVERIFY(joined.contains(QStringLiteral("--section SpeedOfLight_RooflineChart")));
    QVERIFY(joined.contains(QStringLiteral("--import-source yes")));
    QVERIFY(joined.contains(QStringLiteral("-o /tmp/x/report")));
    QVERIFY(joined.contains(QStringLiteral("--log-file /tmp/x/ncu.log")));
    const QStringList full = ncuProfileArguments(ProfileSet::Full, QStringLiteral("k$1"),
                                                 QStringLiteral("r"), QStringLiteral("l"));
    QVERIFY(full.join(QLatin1Char(' ')).contains(QStringLiteral("--set full")));
    // A regex character in a name is escaped.
    QVERIFY(full.join(QLatin1Char(' ')).contains(QStringLiteral("regex:^k\\$1$")));
    QCOMPARE(ncuImportArguments(QStringLiteral("r.ncu-rep"), NcuPage::Source),
             (QStringList{"-i", "r.ncu-rep", "--csv", "--page", "source", "--print-source",
                          "cuda,sass"}));
}

void TestNcuPages::ncuMissingListsPlaces() {
    qputenv("CUDA_HOME", "/nonexistent/cuda-home");
    qputenv("CUDA_PATH", "/nonexistent/cuda-path");
    const QByteArray path = qgetenv("PATH");
    qputenv("PATH", "/nonexistent/bin-a:/nonexistent/bin-b");
    qputenv("KERNELPAD_NCU", "");
    const NcuLocation location = findNcu();
    qputenv("PATH", path);
    qunsetenv("CUDA_HOME");
    qunsetenv("CUDA_PATH");
    if (!location.path.isEmpty())
        QSKIP("an ncu was found in the toolkit on this machine");
    const QString message = location.notFoundMessage();
    for (const char* place : {"/nonexistent/cuda-home/bin/ncu", "/nonexistent/cuda-path/bin/ncu",
                              "/nonexistent/bin-a/ncu", "/nonexistent/bin-b/ncu"})
        QVERIFY2(message.contains(QLatin1String(place)), qPrintable(message));
}

KERNELPAD_TEST_GUILESS_MAIN(TestNcuPages)
} // namespace tst_ncupages
#include "tst_ncupages.moc"
