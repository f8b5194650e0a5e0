// The real nvdisasm on NVRTC's CUBINs of every example (the GPU machine's toolkit has it; the
// build machines do not): each kernel has SASS, the line map reaches the source, and -lineinfo
// leaves the instructions as they are (docs/cli.md); the life ranges of a second process give
// every instruction its live registers, and the unrolled and spilling kernels of tests/data/sass
// peak and spill at their loops.

#include "core/compile/CompileComparison.h"
#include "core/compile/SassCache.h"
#include "core/compile/SassRegisters.h"
#include "core/compile/SassReport.h"
#include "core/project/Project.h"
#include "core/run/ExecutionSession.h"

#include "../support/TestMain.h"
#include "../support/TestProjects.h"
#include "TestPaths.h"
#include <QDir>
#include <QFile>
#include <QtTest>

namespace tst_gpusass {

using namespace kernelpad;

namespace {

/// "opcode operands" of every instruction, function by function: what must not change.
QStringList instructionTexts(const SassListing& listing) {
    QStringList texts;
    for (const SassFunction& f : listing.functions) {
        for (const SassInstruction& i : f.instructions)
            texts << f.name + QLatin1Char(' ') + i.predicate + QLatin1Char(' ') + i.opcode +
                         QLatin1Char(' ') + i.operands;
    }
    return texts;
}

/// tests/data/sass/`example`.cu compiled by NVRTC for sm_90 with -lineinfo and ptxas -v,
/// disassembled with its life ranges (no cache).
SassReport recordedSourceReport(const QString& example, std::optional<int> maxRegisters) {
    QFile file(QStringLiteral(KERNELPAD_TEST_DATA_DIR "/sass/") + example + QStringLiteral(".cu"));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(file.fileName()));
    Project project = test::fillProject(QString::fromUtf8(file.readAll()));
    project.sourceName = example + QStringLiteral(".cu");
    project.kernel = example;
    project.options.lineInfo = true;
    project.options.maxRegisters = maxRegisters;
    project.options = withPtxasReport(project.options);
    return makeSassReport(compileProject(project, QString(), QStringLiteral("sm_90"), nullptr),
                          project.sourceName, {}, nullptr);
}

/// "line 10: 45 live, 2 STL, 1 LDL; ..." for a failure message.
QString linesText(const FunctionRegisterUse& f) {
    QStringList parts;
    for (const LineRegisterUse& line : f.lines)
        parts << QStringLiteral("line %1: %2 live, %3 STL, %4 LDL")
                     .arg(line.line)
                     .arg(line.peak.gprs)
                     .arg(line.localStores)
                     .arg(line.localLoads);
    return QStringLiteral("%1 (%2 registers, peak %3): ")
               .arg(f.name)
               .arg(f.registers)
               .arg(f.peak.gprs) +
           parts.join(QStringLiteral("; "));
}

} // namespace

class TestGpuSass : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void examples_data();
    void examples();
    void unrolledPeaksOnItsLoop();
    void spillsAtTheirLines();
};

void TestGpuSass::initTestCase() {
    const NvdisasmLocation location = findNvdisasm();
    if (location.path.isEmpty())
        QSKIP(qPrintable(location.notFoundMessage()));
}

void TestGpuSass::examples_data() {
    QTest::addColumn<QString>("path");
    const QDir dir(
        qEnvironmentVariable("KERNELPAD_EXAMPLES", QStringLiteral(KERNELPAD_EXAMPLES_DIR)));
    for (const QString& name : dir.entryList({QStringLiteral("*.kpad")}, QDir::Files))
        QTest::newRow(qPrintable(name)) << dir.filePath(name);
}

void TestGpuSass::examples() {
    QFETCH(QString, path);
    QString error;
    std::optional<Project> project = Project::load(path, &error);
    QVERIFY2(project, qPrintable(error));
    const QString dir = QFileInfo(path).absolutePath();
    const QString sourceName =
        project->sourceName.isEmpty() ? QStringLiteral("kernel.cu") : project->sourceName;

    Project plain = *project;
    plain.options.lineInfo = false;
    Project withLines = *project;
    withLines.options.lineInfo = true;
    // sm_90, or the real arch the example names (wgmma needs sm_90a).
    const QString arch = project->options.arch.value_or(QStringLiteral("sm_90"));
    const SassReport without =
        makeSassReport(compileProject(plain, dir, arch, nullptr), sourceName);
    const SassReport with =
        makeSassReport(compileProject(withLines, dir, arch, nullptr), sourceName);
    QVERIFY2(without.ok(), qPrintable(without.sass.error + without.compile.log));
    QVERIFY2(with.ok(), qPrintable(with.sass.error + with.compile.log));

    // One nvdisasm process reads the whole CUBIN, every kernel and its lines; the same CUBIN
    // again starts none and gives the same SASS.
    SassCache cache;
    const SassReport first = makeSassReport(with.compile, sourceName, {}, &cache);
    QVERIFY2(first.ok(), qPrintable(first.sass.error));
    // Two: the listing with its lines, and the life ranges beside it (they ignore -gi).
    QCOMPARE(first.sass.processes, 2);
    QVERIFY(!first.sass.cacheHit);
    qInfo("%s: nvdisasm %.1f ms (life ranges alone %.1f ms), parse and join %.1f ms, map %.1f ms",
          qPrintable(QFileInfo(path).fileName()), first.sass.processMs,
          first.sass.liveRangeProcessMs, first.sass.parseMs, first.mapMs);
    QVERIFY2(first.sass.liveRanges, qPrintable(first.sass.liveRangeError));
    for (const FunctionRegisterUse& f : registerUse(first)) {
        const SassFunction* function = first.sass.listing.findFunction(f.name);
        QVERIFY(function);
        QStringList missing;
        for (const SassInstruction& i : function->instructions) {
            if (!i.live && i.opcode != QLatin1String("NOP"))
                missing << QStringLiteral("%1 %2")
                               .arg(i.address, 4, 16, QLatin1Char('0'))
                               .arg(i.opcode);
        }
        qInfo("  %s: %d registers, at most %d live; %lld instructions without counts (not NOP): %s",
              qPrintable(f.name), f.registers, f.peak.gprs, static_cast<long long>(missing.size()),
              qPrintable(missing.mid(0, 5).join(QStringLiteral(", "))));
        QVERIFY2(f.counted, qPrintable(f.name));
        // nvdisasm counts R0..Rn the kernel uses; the CUBIN's count adds the registers the
        // hardware reserves, never fewer.
        QVERIFY2(f.registers == 0 || f.peak.gprs <= f.registers, qPrintable(linesText(f)));
    }
    const SassReport again = makeSassReport(with.compile, sourceName, {}, &cache);
    QVERIFY(again.sass.cacheHit);
    QCOMPARE(again.sass.processes, 0);
    QCOMPARE(again.sass.listing.text, first.sass.listing.text);
    QCOMPARE(again.lines.sourceLines(), first.lines.sourceLines());

    // Every kernel entry of the module is a function of the listing, with instructions.
    for (const KernelInfo& kernel : with.compile.kernels) {
        const SassFunction* function = with.sass.listing.findFunction(kernel.lowered);
        QVERIFY2(function, qPrintable(kernel.lowered));
        QVERIFY(!function->instructions.isEmpty());
    }
    // -lineinfo adds line tables only.
    QCOMPARE(instructionTexts(with.sass.listing), instructionTexts(without.sass.listing));
    // Hand-written PTX has no .loc lines: -lineinfo has nothing to carry, so nothing maps.
    if (project->language == SourceLanguage::Ptx &&
        !project->source.contains(QLatin1String(".loc"))) {
        QVERIFY(with.lines.isEmpty());
        return;
    }
    // The line map reaches the source from both sides, and only its real lines.
    QVERIFY(!with.lines.isEmpty());
    const int sourceLines = int(project->source.count(QLatin1Char('\n'))) + 1;
    for (const int line : with.lines.sourceLines()) {
        QVERIFY2(line >= 1 && line <= sourceLines, qPrintable(QString::number(line)));
    }
    int mappedSass = 0;
    int mappedPtx = 0;
    for (const int line : with.lines.sourceLines()) {
        mappedSass += int(with.lines.sassInstructions(line).size());
        mappedPtx += int(with.lines.ptxLines(line).size());
    }
    QVERIFY(mappedSass > 0);
    QVERIFY(mappedPtx > 0);
    // Without -lineinfo there is nothing to map.
    QVERIFY(without.lines.isEmpty());
}

// The real tool on unrolled.cu: the most live registers are on a line of its unrolled loops.
void TestGpuSass::unrolledPeaksOnItsLoop() {
    const SassReport report = recordedSourceReport(QStringLiteral("unrolled"), std::nullopt);
    QVERIFY2(report.ok(), qPrintable(report.sass.error + report.compile.log));
    QVERIFY2(report.sass.liveRanges, qPrintable(report.sass.liveRangeError));
    const QVector<FunctionRegisterUse> use = registerUse(report);
    QCOMPARE(use.size(), 1);
    const FunctionRegisterUse& f = use.first();
    qInfo("%s", qPrintable(linesText(f)));
    const QVector<int> loopLines{9, 10, 13, 14, 15, 16, 19, 20};
    int top = 0;
    int topLine = 0;
    for (const LineRegisterUse& line : f.lines) {
        if (line.peak.gprs > top) {
            top = line.peak.gprs;
            topLine = line.line;
        }
    }
    QCOMPARE(top, f.peak.gprs);
    QVERIFY2(loopLines.contains(topLine), qPrintable(linesText(f)));
    QVERIFY2(f.peak.gprs <= f.registers, qPrintable(linesText(f)));
}

// spill.cu held to 32 registers: STL/LDL only at the lines of the array v (10, 14, 15), and
// ptxas's spill bytes from the log.
void TestGpuSass::spillsAtTheirLines() {
    const SassReport report = recordedSourceReport(QStringLiteral("spill"), 32);
    QVERIFY2(report.ok(), qPrintable(report.sass.error + report.compile.log));
    QVERIFY2(report.sass.liveRanges, qPrintable(report.sass.liveRangeError));
    const FunctionRegisterUse f = registerUse(report).value(0);
    qInfo("%s; %s", qPrintable(linesText(f)), qPrintable(f.ptxasSpillText()));
    QVERIFY2(f.registers > 0 && f.registers <= 32, qPrintable(linesText(f)));
    QVERIFY2(f.peak.gprs <= 32, qPrintable(linesText(f)));
    QVERIFY2(f.localStores > 0 && f.localLoads > 0, qPrintable(linesText(f)));
    for (const LineRegisterUse& line : f.lines) {
        if (line.spills())
            QVERIFY2(line.line == 10 || line.line == 14 || line.line == 15,
                     qPrintable(linesText(f)));
    }
    QVERIFY2(f.ptxasReported && f.spillStoreBytes > 0, qPrintable(report.compile.log));
}

KERNELPAD_TEST_GUILESS_MAIN(TestGpuSass)
} // namespace tst_gpusass
#include "tst_gpusass.moc"
