// Live registers per instruction and per source line, on listings recorded on the GPU machine
// (tests/data/sass/README.md): the life-range parser, its join with the -gi listing by
// address, the peak per source line of an unrolled kernel and the spills of one held to 32
// registers.

#include "../support/TestMain.h"
#include "TestPaths.h"
#include "core/compile/SassLiveRanges.h"
#include "core/compile/SassRegisters.h"

#include <QFile>
#include <QtTest>

#include <algorithm>

namespace tst_sassliveranges {

using namespace kernelpad;

namespace {

QString recorded(const QString& name) {
    QFile file(QStringLiteral(KERNELPAD_TEST_DATA_DIR "/sass/") + name);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(file.fileName()));
    return QString::fromUtf8(file.readAll());
}

/// The report the SASS view gets for a recorded example: its -gi listing joined with its life
/// ranges, the line map from the SASS, ptxas's -v report as the compile log.
SassReport recordedReport(const QString& example) {
    SassReport report;
    report.sourceName = example + QStringLiteral(".cu");
    report.compile.ok = true;
    report.compile.log = recorded(example + QStringLiteral(".ptxas-v.txt"));
    report.sass.ok = true;
    report.sass.listing = parseSass(recorded(example + QStringLiteral(".sass-gi.txt")));
    report.sass.liveRanges =
        joinLiveRanges(
            &report.sass.listing,
            parseLiveRanges(recorded(example + QStringLiteral(".sass-life-count.txt")))) > 0;
    report.lines = LineMap::build(QString(), report.sass.listing, report.sourceName);
    return report;
}

/// The most GPRs any instruction of the life-range listing has live, read from its text
/// alone: the last `|  N  |` cells' first number on each `/*addr*/` line.
int maxCountInText(const QString& text) {
    int most = 0;
    for (const QString& line : text.split(u'\n')) {
        if (!line.trimmed().startsWith(QLatin1String("/*")))
            continue;
        const qsizetype table = line.indexOf(QLatin1String("// |"));
        if (table < 0)
            continue;
        most = std::max(most, line.mid(table + 4).section(u'|', 0, 0).trimmed().toInt());
    }
    return most;
}

/// The unrolled loops of unrolled.cu: `for` lines and their bodies (9-10, 13-16, 19-20).
const QVector<int> kUnrolledLoopLines{9, 10, 13, 14, 15, 16, 19, 20};

} // namespace

class TestSassLiveRanges : public QObject {
    Q_OBJECT
private slots:
    void parsesTheRecordedCounts();
    void robustParse_data();
    void robustParse();
    void joinsByAddress();
    void unrolledPeaksOnItsLoop();
    void spillLinesAreMarked();
    void withoutLiveCountsSpillsStay();
    void mergedLinesTakeTheHigherPeak();
    void jsonCarriesTheFigures();
};

void TestSassLiveRanges::parsesTheRecordedCounts() {
    const LiveRangeListing listing =
        parseLiveRanges(recorded(QStringLiteral("unrolled.sass-life-count.txt")));
    QCOMPARE(listing.functions.size(), 1);
    QCOMPARE(listing.functions.first().name, QStringLiteral("unrolled"));
    QCOMPARE(listing.instructionCount(), 764);
    const LiveRangeFunction* f = listing.findFunction(QStringLiteral("unrolled"));
    QVERIFY(f);
    // `/*0030*/ ULDC UR4, c[0x0][0x0] ;  // |   3   |        |   1    |`
    QCOMPARE(f->byAddress.value(0x30), (LiveRegisters{3, 0, 1}));
    // `/*0060*/ ISETP.GE.AND P0, PT, R2, R41, PT ;  // |   3   |   1    |        |`
    QCOMPARE(f->byAddress.value(0x60), (LiveRegisters{3, 1, 0}));
    QVERIFY(!listing.findFunction(QStringLiteral("SYMBOLS")));
}

void TestSassLiveRanges::robustParse_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("functions");
    QTest::addColumn<int>("instructions");
    QTest::addColumn<int>("gprsAt0x10"); // in the last function; -1 when not listed

    const QString info = QStringLiteral(
        "nvdisasm info    : Options --print-line-info and its variants are ignored\n");
    const QString header = QStringLiteral("      // +-----+------+------+\n"
                                          "      // | GPR | PRED | UGPR |\n"
                                          "      // |  #  |  #   |  #   |\n"
                                          "      // +-----+------+------+\n");
    const auto function = [](const QString& name) {
        return QStringLiteral("//--------------------- .text.%1   ---------------\n").arg(name);
    };
    QTest::newRow("info line, header, two functions one after another")
        << info + function(QStringLiteral("a")) + header +
               QStringLiteral("  .global a    // |     |      |      |\n"
                              "  /*0000*/ LDC R1, c[0x0][0x28] ;  // |  1  |      |      |\n") +
               function(QStringLiteral("b")) + header +
               QStringLiteral("  /*0000*/ LDC R1, c[0x0][0x28] ;  // |  1  |      |      |\n"
                              ".L_x_0:                            // +.....+......+......+\n"
                              "  /*0010*/ BRA `(.L_x_0) ;         // |  7  |  1   |  2   |\n")
        << QStringList{QStringLiteral("a"), QStringLiteral("b")} << 3 << 7;
    QTest::newRow("columns in another order follow the header")
        << function(QStringLiteral("k")) +
               QStringLiteral("      // | UGPR | GPR | PRED |\n"
                              "  /*0010*/ EXIT ;  // |  4   |  9  |      |\n")
        << QStringList{QStringLiteral("k")} << 1 << 9;
    QTest::newRow("lines without counts are left out")
        << function(QStringLiteral("k")) + header +
               QStringLiteral("  /*0000*/ EXIT ;\n"
                              "  /*0010*/ EXIT ;  // | : v |      |      |\n"
                              "  /*0020*/ EXIT ;  // |  3\n"
                              "  /*0030*/ EXIT ;  // |  99999999  |  |  |\n")
        << QStringList{QStringLiteral("k")} << 0 << -1;
    QTest::newRow("no function: nothing")
        << header + QStringLiteral("  /*0010*/ EXIT ; // | 3 |\n") << QStringList{} << 0 << -1;
    QTest::newRow("truncated in a row")
        << function(QStringLiteral("k")) + header +
               QStringLiteral("  /*0010*/ EXIT ;  // |  5  |  1  |   2  |\n  /*0020*/ EX")
        << QStringList{QStringLiteral("k")} << 1 << 5;
    QTest::newRow("empty") << QString() << QStringList{} << 0 << -1;
}

void TestSassLiveRanges::robustParse() {
    QFETCH(QString, text);
    QFETCH(QStringList, functions);
    QFETCH(int, instructions);
    QFETCH(int, gprsAt0x10);
    const LiveRangeListing listing = parseLiveRanges(text);
    QStringList names;
    for (const LiveRangeFunction& f : listing.functions)
        names << f.name;
    QCOMPARE(names, functions);
    QCOMPARE(listing.instructionCount(), instructions);
    const int gprs =
        listing.functions.isEmpty() || !listing.functions.last().byAddress.contains(0x10)
            ? -1
            : listing.functions.last().byAddress.value(0x10).gprs;
    QCOMPARE(gprs, gprsAt0x10);
}

void TestSassLiveRanges::joinsByAddress() {
    SassListing listing = parseSass(recorded(QStringLiteral("unrolled.sass-gi.txt")));
    const LiveRangeListing ranges =
        parseLiveRanges(recorded(QStringLiteral("unrolled.sass-life-count.txt")));
    // Every instruction but the NOPs that pad the function after its last branch.
    QCOMPARE(joinLiveRanges(&listing, ranges), 764);
    const SassFunction& f = listing.functions.first();
    for (const SassInstruction& instruction : f.instructions) {
        const bool padding = instruction.opcode == QLatin1String("NOP");
        QVERIFY2(instruction.live.has_value() != padding,
                 qPrintable(QStringLiteral("%1 at %2")
                                .arg(instruction.opcode)
                                .arg(instruction.address, 0, 16)));
    }
    const SassInstruction& isetp = f.instructions[f.indexOfAddress(0x60)];
    QVERIFY(isetp.live);
    QCOMPARE(*isetp.live, (LiveRegisters{3, 1, 0}));
    // Another function's counts never land on this one, and a new join replaces the old.
    LiveRangeListing other = ranges;
    other.functions.first().name = QStringLiteral("unrolled2");
    QCOMPARE(joinLiveRanges(&listing, other), 0);
    const QVector<SassInstruction>& after = listing.functions.first().instructions;
    QVERIFY(std::none_of(after.cbegin(), after.cend(),
                         [](const SassInstruction& i) { return i.live.has_value(); }));
}

void TestSassLiveRanges::unrolledPeaksOnItsLoop() {
    const SassReport report = recordedReport(QStringLiteral("unrolled"));
    QVERIFY(report.sass.liveRanges);
    const QVector<FunctionRegisterUse> use = registerUse(report);
    QCOMPARE(use.size(), 1);
    const FunctionRegisterUse& f = use.first();
    QCOMPARE(f.registers, 48); // ptxas: "Used 48 registers"
    const int listed = maxCountInText(recorded(QStringLiteral("unrolled.sass-life-count.txt")));
    QCOMPARE(f.peak.gprs, listed);
    QVERIFY2(f.peak.gprs <= 48, qPrintable(QString::number(f.peak.gprs)));
    // The peak is on a line of the unrolled loops, and every line near it is too.
    const auto top = std::max_element(f.lines.cbegin(), f.lines.cend(),
                                      [](const LineRegisterUse& a, const LineRegisterUse& b) {
                                          return a.peak.gprs < b.peak.gprs;
                                      });
    QCOMPARE(top->peak.gprs, f.peak.gprs);
    QVERIFY2(kUnrolledLoopLines.contains(top->line), qPrintable(QString::number(top->line)));
    QCOMPARE(top->line, 10);
    for (const LineRegisterUse& line : f.lines) {
        if (line.peak.gprs >= f.peak.gprs / 2)
            QVERIFY2(kUnrolledLoopLines.contains(line.line),
                     qPrintable(QStringLiteral("line %1: %2").arg(line.line).arg(line.peak.gprs)));
    }
    // The 32 accumulators stay live through the multiply-add loop and the sum.
    QVERIFY(f.findLine(16) && f.findLine(16)->peak.gprs >= 40);
    QVERIFY(f.findLine(20) && f.findLine(20)->peak.gprs >= 40);
    QVERIFY(f.findLine(4) && f.findLine(4)->peak.gprs < 10);
    QCOMPARE(f.localStores + f.localLoads, 0);
    QVERIFY(f.ptxasReported);
    QCOMPARE(f.spillStoreBytes, 0);
    QCOMPARE(f.findLine(10)->summary(),
             QStringLiteral("45 live registers (of 48), 7 predicates, 2 uniform"));
}

void TestSassLiveRanges::spillLinesAreMarked() {
    const SassReport report = recordedReport(QStringLiteral("spill"));
    const QVector<FunctionRegisterUse> use = registerUse(report);
    QCOMPARE(use.size(), 1);
    const FunctionRegisterUse& f = use.first();
    QCOMPARE(f.registers, 32);
    QVERIFY2(f.peak.gprs <= 32, qPrintable(QString::number(f.peak.gprs)));
    QCOMPARE(f.peak.gprs, maxCountInText(recorded(QStringLiteral("spill.sass-life-count.txt"))));
    QVERIFY(f.ptxasReported);
    QCOMPARE(f.spillStoreBytes, 528);
    QCOMPARE(f.spillLoadBytes, 596);
    QCOMPARE(f.ptxasSpillText(),
             QStringLiteral("ptxas: 528 bytes spill stores, 596 bytes spill loads"));
    // Every STL and LDL of the listing, at its line: the loads of v[] (10), the sum (14) and
    // v[i % 48] (15), which indexes the array at run time.
    QCOMPARE(f.localStores, 128);
    QCOMPARE(f.localLoads, 122);
    QMap<int, QPair<int, int>> spilling;
    for (const LineRegisterUse& line : f.lines) {
        QVERIFY(line.peak.gprs <= 32);
        if (line.spills())
            spilling.insert(line.line, {line.localStores, line.localLoads});
    }
    const QMap<int, QPair<int, int>> expected{{10, {115, 91}}, {14, {12, 29}}, {15, {1, 2}}};
    QCOMPARE(spilling, expected);
    QCOMPARE(f.findLine(15)->spillText(), QStringLiteral("spill: 1 store, 2 loads"));
    QVERIFY2(f.findLine(14)->summary().endsWith(QStringLiteral("; spill: 12 stores, 29 loads")),
             qPrintable(f.findLine(14)->summary()));
    QVERIFY(f.findLine(4)->spillText().isEmpty());
}

void TestSassLiveRanges::withoutLiveCountsSpillsStay() {
    SassReport report = recordedReport(QStringLiteral("spill"));
    SassListing plain = parseSass(recorded(QStringLiteral("spill.sass-gi.txt")));
    report.sass.listing = plain;
    report.sass.liveRanges = false;
    const FunctionRegisterUse f = registerUse(report).first();
    QVERIFY(!f.counted);
    QCOMPARE(f.peak.gprs, 0);
    QVERIFY(!f.findLine(10)->counted);
    QCOMPARE(f.findLine(10)->summary(), QStringLiteral("spill: 115 stores, 91 loads"));
}

void TestSassLiveRanges::mergedLinesTakeTheHigherPeak() {
    FunctionRegisterUse a;
    a.name = QStringLiteral("a");
    LineRegisterUse a7;
    a7.line = 7;
    a7.counted = true;
    a7.peak = {12, 1, 0};
    a7.localStores = 1;
    a7.function = a.name;
    a7.registers = 16;
    a.lines = {a7};
    FunctionRegisterUse b = a;
    b.name = QStringLiteral("b");
    b.lines[0].peak = {30, 0, 0};
    b.lines[0].function = b.name;
    b.lines[0].registers = 40;
    LineRegisterUse b9 = b.lines[0];
    b9.line = 9;
    b.lines.append(b9);
    const QVector<LineRegisterUse> merged = mergedLines({a, b});
    QCOMPARE(merged.size(), 2);
    QCOMPARE(merged[0].line, 7);
    QCOMPARE(merged[0].peak.gprs, 30);
    QCOMPARE(merged[0].function, QStringLiteral("b"));
    QCOMPARE(merged[0].registers, 40);
    QCOMPARE(merged[0].localStores, 2); // both functions' stores on the line
    QCOMPARE(merged[1].line, 9);
}

void TestSassLiveRanges::jsonCarriesTheFigures() {
    const FunctionRegisterUse f = registerUse(recordedReport(QStringLiteral("spill"))).first();
    const QJsonObject json = registerUseJson(f);
    QCOMPARE(json.value("registers").toInt(), 32);
    QCOMPARE(json.value("peakRegisters").toInt(), f.peak.gprs);
    QCOMPARE(json.value("ptxasSpillStoreBytes").toInt(), 528);
    const QJsonArray lines = json.value("lines").toArray();
    QCOMPARE(lines.size(), f.lines.size());
    bool sawLine10 = false;
    for (const QJsonValue& value : lines) {
        const QJsonObject line = value.toObject();
        if (line.value("line").toInt() == 10) {
            sawLine10 = true;
            QCOMPARE(line.value("spillStores").toInt(), 115);
            QCOMPARE(line.value("spillLoads").toInt(), 91);
            QCOMPARE(line.value("peakRegisters").toInt(), f.findLine(10)->peak.gprs);
        }
    }
    QVERIFY(sawLine10);
}

KERNELPAD_TEST_GUILESS_MAIN(TestSassLiveRanges)
} // namespace tst_sassliveranges
#include "tst_sassliveranges.moc"
