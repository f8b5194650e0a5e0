// The real nvdisasm on NVRTC's CUBINs of every example (the GPU machine's toolkit has it; the
// build machines do not): each kernel has SASS, the line map reaches the source, and -lineinfo
// leaves the instructions as they are (docs/cli.md).

#include "core/compile/SassCache.h"
#include "core/compile/SassReport.h"
#include "core/project/Project.h"
#include "core/run/ExecutionSession.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QDir>
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

} // namespace

class TestGpuSass : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void examples_data();
    void examples();
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
    QCOMPARE(first.sass.processes, 1);
    QVERIFY(!first.sass.cacheHit);
    qInfo("%s: nvdisasm %.1f ms, parse %.1f ms, map %.1f ms",
          qPrintable(QFileInfo(path).fileName()), first.sass.processMs, first.sass.parseMs,
          first.mapMs);
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

KERNELPAD_TEST_GUILESS_MAIN(TestGpuSass)
} // namespace tst_gpusass
#include "tst_gpusass.moc"
