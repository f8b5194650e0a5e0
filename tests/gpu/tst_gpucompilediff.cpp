// Two compiles compared on the real nvdisasm's SASS (the GPU machine's toolkit has it; the
// build machines do not): SAXPY with and without --fmad splits FFMA into FMUL and FADD, a
// local array indexed at run time shows as STL/LDL and a stack frame, and every example's SASS
// compared with itself, and with its -lineinfo compile, has no changed line.

#include "core/compile/CompileComparison.h"
#include "core/compile/Program.h"
#include "core/compile/Sass.h"
#include "core/project/Project.h"
#include "core/run/ExecutionSession.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QDir>
#include <QtTest>

namespace tst_gpucompilediff {

using namespace kernelpad;

namespace {

const char* const kSaxpy = R"(
extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * x[i] + y[i];
}
)";

// `pick` writes and reads its array at indices known only at run time, so ptxas keeps it on
// the stack (1024 bytes of local memory with CUDA 13.0's ptxas) rather than in registers.
const char* const kLocal = R"(
extern "C" __global__ void pick(const float* in, float* out, int k)
{
    float local[256];
    for (int j = 0; j < 256; ++j)
        local[j] = in[j * blockDim.x + threadIdx.x];
    local[k & 255] += 1.0f;
    out[threadIdx.x] = local[(k + threadIdx.x) & 255];
}
)";

const char* const kRegisters = R"(
extern "C" __global__ void pick(const float* in, float* out, int k)
{
    out[threadIdx.x] = in[(k + threadIdx.x) % 64 * blockDim.x + threadIdx.x];
}
)";

struct Compiled {
    CompileResult compile;
    SassResult sass;
};

Compiled compileAndDisassemble(const char* source, ProgramOptions options) {
    Compiled c;
    c.compile = Program(QString::fromLatin1(source), QStringLiteral("k.cu"),
                        withPtxasReport(std::move(options)))
                    .compile(QStringLiteral("sm_90"));
    if (c.compile.ok)
        c.sass = disassembleCubin(c.compile.cubin);
    return c;
}

int opcodeCount(const SassListing& listing, const QString& base) {
    int n = 0;
    for (const SassFunction& f : listing.functions)
        for (const SassInstruction& i : f.instructions)
            n += i.opcode == base || i.opcode.startsWith(base + QLatin1Char('.')) ? 1 : 0;
    return n;
}

} // namespace

class TestGpuCompileDiff : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void fmadOffSplitsFfma();
    void localArrayShowsAsLocalMemory();
    void examplesAgainstThemselves_data();
    void examplesAgainstThemselves();
};

void TestGpuCompileDiff::initTestCase() {
    const NvdisasmLocation location = findNvdisasm();
    if (location.path.isEmpty())
        QSKIP(qPrintable(location.notFoundMessage()));
}

void TestGpuCompileDiff::fmadOffSplitsFfma() {
    ProgramOptions fused;
    fused.fmad = true;
    ProgramOptions split;
    split.fmad = false;
    const Compiled before = compileAndDisassemble(kSaxpy, fused);
    const Compiled after = compileAndDisassemble(kSaxpy, split);
    QVERIFY2(before.sass.ok && after.sass.ok, qPrintable(before.sass.error + after.sass.error));
    QCOMPARE(opcodeCount(before.sass.listing, "FFMA"), 1);
    QCOMPARE(opcodeCount(after.sass.listing, "FFMA"), 0);
    QCOMPARE(opcodeCount(after.sass.listing, "FMUL"), 1);
    QCOMPARE(opcodeCount(after.sass.listing, "FADD"), 1);

    const CompileComparison c =
        compareCompiles(before.compile, &before.sass.listing, after.compile, &after.sass.listing);
    QVERIFY(c.hasSass);
    const KernelComparison* saxpy = c.find("saxpy");
    QVERIFY(saxpy);
    const ComparisonRow* arithmetic = saxpy->row("sass.arithmetic");
    QVERIFY(arithmetic && arithmetic->before && arithmetic->after);
    qInfo("SASS arithmetic %s, total %s, registers %s", qPrintable(arithmetic->text()),
          qPrintable(saxpy->row("sass.total")->text()),
          qPrintable(saxpy->row("registers")->text()));
    QCOMPARE(*arithmetic->after - *arithmetic->before, qint64(1));
    QVERIFY(!saxpy->row("sass.memory")->changed());
    // The registers come from ptxas's -v report in NVRTC's log: show the log when it is not there.
    QVERIFY2(saxpy->row("registers")->before.value_or(0) > 0,
             qPrintable(QStringLiteral("no register count in the log of the first compile:\n") +
                        before.compile.log));
    QVERIFY2(saxpy->row("registers")->after.value_or(0) > 0,
             qPrintable(QStringLiteral("no register count in the log of the second compile:\n") +
                        after.compile.log));
    // The FFMA line is changed or removed, FMUL and FADD among the new lines.
    QStringList gone;
    QStringList came;
    for (const ListingDiffRow& row : c.sass.rows) {
        if (row.kind == ListingDiffRow::Kind::Same)
            continue;
        if (row.before >= 0)
            gone << c.sass.before.at(row.before);
        if (row.after >= 0)
            came << c.sass.after.at(row.after);
    }
    QVERIFY(gone.filter(QRegularExpression(QStringLiteral("\\bFFMA\\b"))).size() == 1);
    QVERIFY(came.filter(QRegularExpression(QStringLiteral("\\bFMUL\\b"))).size() == 1);
    QVERIFY(came.filter(QRegularExpression(QStringLiteral("\\bFADD\\b"))).size() == 1);
    // Addresses moved after the split: they are no difference of their own.
    QVERIFY2(c.sass.changed + c.sass.added + c.sass.removed < 12,
             qPrintable(QStringLiteral("%1 changed, %2 added, %3 removed")
                            .arg(c.sass.changed)
                            .arg(c.sass.added)
                            .arg(c.sass.removed)));
}

void TestGpuCompileDiff::localArrayShowsAsLocalMemory() {
    const Compiled before = compileAndDisassemble(kRegisters, {});
    const Compiled after = compileAndDisassemble(kLocal, {});
    QVERIFY2(before.sass.ok && after.sass.ok, qPrintable(before.sass.error + after.sass.error));
    const CompileComparison c =
        compareCompiles(before.compile, &before.sass.listing, after.compile, &after.sass.listing);
    const KernelComparison* pick = c.find("pick");
    QVERIFY(pick);
    qInfo("local stores %s, local loads %s, local bytes %s",
          qPrintable(pick->row("sass.localStores")->text()),
          qPrintable(pick->row("sass.localLoads")->text()),
          qPrintable(pick->row("localBytes")->text()));
    QCOMPARE(pick->row("sass.localStores")->before, std::optional<qint64>(0));
    QVERIFY(pick->row("sass.localStores")->after.value_or(0) > 0);
    QVERIFY(pick->row("sass.localLoads")->after.value_or(0) > 0);
    QCOMPARE(pick->row("localBytes")->before, std::optional<qint64>(0));
    QVERIFY(pick->row("localBytes")->after.value_or(0) >= 256 * 4); // the array, on the stack
}

void TestGpuCompileDiff::examplesAgainstThemselves_data() {
    QTest::addColumn<QString>("path");
    const QDir dir(
        qEnvironmentVariable("KERNELPAD_EXAMPLES", QStringLiteral(KERNELPAD_EXAMPLES_DIR)));
    for (const QString& name : dir.entryList({QStringLiteral("*.kpad")}, QDir::Files))
        QTest::newRow(qPrintable(name)) << dir.filePath(name);
}

void TestGpuCompileDiff::examplesAgainstThemselves() {
    QFETCH(QString, path);
    QString error;
    std::optional<Project> project = Project::load(path, &error);
    QVERIFY2(project, qPrintable(error));
    const QString dir = QFileInfo(path).absolutePath();
    Project plain = *project;
    plain.options.lineInfo = false;
    Project lines = *project;
    lines.options.lineInfo = true;
    // As tst_gpusass: a CUBIN for every example, for sm_90 or the real arch it names (sm_90a).
    const QString arch = project->options.arch.value_or(QStringLiteral("sm_90"));
    const CompileResult a = compileProject(plain, dir, arch, nullptr);
    const CompileResult b = compileProject(lines, dir, arch, nullptr);
    QVERIFY2(a.ok && b.ok, qPrintable(a.log + b.log));
    const SassResult sassA = disassembleCubin(a.cubin);
    const SassResult sassB = disassembleCubin(b.cubin);
    QVERIFY2(sassA.ok && sassB.ok, qPrintable(sassA.error + sassB.error));

    const CompileComparison same = compareCompiles(a, &sassA.listing, a, &sassA.listing);
    QVERIFY(same.sass.identical());
    // -lineinfo leaves the SASS alone (//## comments aside). Its PTX is not always the same
    // apart from .loc lines: on the H100 (CUDA 13.0) the texture, cluster, cooperative and
    // pipeline examples' PTX differed in other lines too, so only the SASS is held to it and
    // the PTX difference is reported.
    const CompileComparison withLines = compareCompiles(a, &sassA.listing, b, &sassB.listing);
    QVERIFY2(withLines.sass.identical(), qPrintable(QString::number(withLines.sass.changed)));
    if (!withLines.ptx.identical())
        qInfo("PTX with -lineinfo: %d changed, %d added, %d removed lines", withLines.ptx.changed,
              withLines.ptx.added, withLines.ptx.removed);
    // Every instruction is counted once, and what the table counts as "other" is listed, so
    // that an opcode missing from the classes is seen.
    QSet<QString> other;
    for (const SassFunction& f : sassA.listing.functions) {
        const InstructionCounts counts = countSass(f);
        int sum = 0;
        for (const InstructionClass kind : instructionClasses())
            sum += counts.count(kind);
        QCOMPARE(sum, f.instructions.size());
        for (const SassInstruction& i : f.instructions)
            if (classifySassOpcode(i.opcode) == InstructionClass::Other)
                other.insert(i.opcode.section(QLatin1Char('.'), 0, 0));
    }
    QStringList sorted(other.begin(), other.end());
    sorted.sort();
    qInfo("counted as other: %s", qPrintable(sorted.join(QStringLiteral(", "))));
}

KERNELPAD_TEST_GUILESS_MAIN(TestGpuCompileDiff)
} // namespace tst_gpucompilediff
#include "tst_gpucompilediff.moc"
