// Two compiles compared: instruction classes of PTX and SASS opcodes,
// counts on recorded listings checked by hand (tests/data/sass), the line diff's rows, and
// NVRTC compiles of one kernel with and without --fmad.

#include "core/compile/CompileComparison.h"
#include "core/compile/InstructionClasses.h"
#include "core/compile/ListingDiff.h"
#include "core/compile/Program.h"
#include "core/compile/Sass.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QFile>
#include <QJsonArray>
#include <QtTest>

namespace tst_compilecomparison {

using namespace kernelpad;

namespace {

QString recorded(const QString& name) {
    QFile file(QStringLiteral(KERNELPAD_TEST_DATA_DIR "/sass/") + name);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("missing test data %s", qPrintable(file.fileName()));
    return QString::fromUtf8(file.readAll());
}

using Counts = std::array<int, kInstructionClassCount>;

const char* const kSaxpy = R"(
extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * x[i] + y[i];
}
)";

CompileResult compileSaxpy(bool fmad, const QString& extraSource = {}) {
    ProgramOptions options;
    options.fmad = fmad;
    options.extraFlags = QStringList{QStringLiteral("-Xptxas"), QStringLiteral("-v")};
    return Program(QString::fromLatin1(kSaxpy) + extraSource, QStringLiteral("saxpy.cu"), options)
        .compile(QStringLiteral("sm_90"));
}

QString rowKinds(const ListingDiff& diff) {
    QString kinds;
    for (const ListingDiffRow& row : diff.rows) {
        switch (row.kind) {
        case ListingDiffRow::Kind::Same:
            kinds += QLatin1Char('=');
            break;
        case ListingDiffRow::Kind::Removed:
            kinds += QLatin1Char('-');
            break;
        case ListingDiffRow::Kind::Added:
            kinds += QLatin1Char('+');
            break;
        case ListingDiffRow::Kind::Changed:
            kinds += QLatin1Char('~');
            break;
        }
    }
    return kinds;
}

} // namespace

} // namespace tst_compilecomparison
Q_DECLARE_METATYPE(kernelpad::InstructionClass)
namespace tst_compilecomparison {

class TestCompileComparison : public QObject {
    Q_OBJECT
private slots:
    void sassClass_data();
    void sassClass();
    void ptxClass_data();
    void ptxClass();
    void saxpyPtxCounts();
    void saxpySassCounts();
    void transposeCounts();
    void ptxBodiesSkipDirectivesAndNestedScopes();
    void diffRows_data();
    void diffRows();
    void lineInfoOnlyIsNoChange();
    void identicalCompilesHaveNoChanges();
    void fmadOffAddsAnInstruction();
    void kernelAddedAndRemoved();
    void localArrayOnTheStack();
    void manyEditsStopAligning();
    void rowText();
};

void TestCompileComparison::sassClass_data() {
    QTest::addColumn<QString>("opcode");
    QTest::addColumn<InstructionClass>("expected");
    QTest::newRow("global load") << "LDG.E.64" << InstructionClass::Memory;
    QTest::newRow("shared store") << "STS.128" << InstructionClass::Memory;
    QTest::newRow("local load (spill)") << "LDL.LU" << InstructionClass::Memory;
    QTest::newRow("uniform constant load") << "ULDC.64" << InstructionClass::Memory;
    QTest::newRow("atomic") << "ATOMG.E.ADD.F32.FTZ.RN.STRONG.GPU" << InstructionClass::Memory;
    QTest::newRow("reduction") << "RED.E.ADD.STRONG.GPU" << InstructionClass::Memory;
    QTest::newRow("fma") << "FFMA" << InstructionClass::Arithmetic;
    QTest::newRow("imad with modifiers") << "IMAD.WIDE.U32" << InstructionClass::Arithmetic;
    QTest::newRow("uniform add") << "UIADD3" << InstructionClass::Arithmetic;
    QTest::newRow("compare") << "ISETP.GE.U32.AND.EX" << InstructionClass::Arithmetic;
    QTest::newRow("tensor core") << "HMMA.16816.F32" << InstructionClass::Arithmetic;
    QTest::newRow("int to float") << "I2F.U32.RP" << InstructionClass::Conversion;
    QTest::newRow("branch") << "BRA" << InstructionClass::Control;
    QTest::newRow("exit") << "EXIT" << InstructionClass::Control;
    QTest::newRow("convergence") << "BSYNC" << InstructionClass::Control;
    QTest::newRow("warpsync") << "WARPSYNC.ALL" << InstructionClass::Control;
    QTest::newRow("barrier") << "BAR.SYNC.DEFER_BLOCKING" << InstructionClass::Sync;
    QTest::newRow("fence") << "MEMBAR.ALL.GPU" << InstructionClass::Sync;
    QTest::newRow("special register") << "S2R" << InstructionClass::Other;
    QTest::newRow("uniform special register") << "S2UR" << InstructionClass::Other;
    QTest::newRow("shuffle") << "SHFL.DOWN" << InstructionClass::Other;
    QTest::newRow("nop") << "NOP" << InstructionClass::Other;
    QTest::newRow("unknown") << "FROBNICATE" << InstructionClass::Other;
}

void TestCompileComparison::sassClass() {
    QFETCH(QString, opcode);
    QFETCH(InstructionClass, expected);
    QCOMPARE(classifySassOpcode(opcode), expected);
}

void TestCompileComparison::ptxClass_data() {
    QTest::addColumn<QString>("opcode");
    QTest::addColumn<InstructionClass>("expected");
    QTest::newRow("param load") << "ld.param.u64" << InstructionClass::Memory;
    QTest::newRow("global store") << "st.global.f32" << InstructionClass::Memory;
    QTest::newRow("atomic") << "atom.global.add.f32" << InstructionClass::Memory;
    QTest::newRow("async copy") << "cp.async.ca.shared.global" << InstructionClass::Memory;
    QTest::newRow("async copy wait") << "cp.async.wait_group" << InstructionClass::Sync;
    QTest::newRow("fma") << "fma.rn.f32" << InstructionClass::Arithmetic;
    QTest::newRow("mad") << "mad.lo.s32" << InstructionClass::Arithmetic;
    QTest::newRow("setp") << "setp.ge.u64" << InstructionClass::Arithmetic;
    QTest::newRow("selp") << "selp.b32" << InstructionClass::Arithmetic;
    QTest::newRow("cvt") << "cvt.rn.f32.s32" << InstructionClass::Conversion;
    QTest::newRow("cvta") << "cvta.to.global.u64" << InstructionClass::Conversion;
    QTest::newRow("branch") << "bra.uni" << InstructionClass::Control;
    QTest::newRow("ret") << "ret" << InstructionClass::Control;
    QTest::newRow("call") << "call.uni" << InstructionClass::Control;
    QTest::newRow("barrier") << "bar.sync" << InstructionClass::Sync;
    QTest::newRow("new barrier") << "barrier.sync.aligned" << InstructionClass::Sync;
    QTest::newRow("fence") << "membar.gl" << InstructionClass::Sync;
    QTest::newRow("mov") << "mov.u32" << InstructionClass::Other;
    QTest::newRow("shfl") << "shfl.sync.down.b32" << InstructionClass::Other;
}

void TestCompileComparison::ptxClass() {
    QFETCH(QString, opcode);
    QFETCH(InstructionClass, expected);
    QCOMPARE(classifyPtxOpcode(opcode), expected);
}

void TestCompileComparison::saxpyPtxCounts() {
    // Counted by hand in tests/data/sass/saxpy.ptx: 5 ld.param, 2 ld.global and 1 st.global;
    // mad, setp, shl, 3 add and fma; cvt and 3 cvta; bra and ret; 3 mov of special registers.
    const QVector<PtxFunctionBody> bodies = ptxFunctionBodies(recorded("saxpy.ptx"));
    QCOMPARE(bodies.size(), 1);
    QCOMPARE(bodies[0].name, QStringLiteral("saxpy"));
    QVERIFY(bodies[0].entry);
    QCOMPARE(bodies[0].opcodes.first(), QStringLiteral("ld.param.f32"));
    QCOMPARE(bodies[0].opcodes.last(), QStringLiteral("ret"));
    const InstructionCounts counts = countPtx(bodies[0]);
    QCOMPARE(counts.byClass, (Counts{8, 7, 4, 2, 0, 3}));
    QCOMPARE(counts.total, 24);
    QCOMPARE(counts.localLoads + counts.localStores, 0);
}

void TestCompileComparison::saxpySassCounts() {
    // Counted by hand in tests/data/sass/saxpy.sass-gi.txt (40 instructions, 0x000-0x270):
    // memory: 2 LDC, 6 ULDC(.64), 2 LDG, STG; arithmetic: 2 IMAD, 2 ISETP, SHF, 6 IADD3(.X),
    // FFMA; control: 2 EXIT, BRA; other: S2R, S2UR and 12 NOPs.
    const SassListing listing = parseSass(recorded("saxpy.sass-gi.txt"));
    const SassFunction* saxpy = listing.findFunction("saxpy");
    QVERIFY(saxpy);
    const InstructionCounts counts = countSass(*saxpy);
    QCOMPARE(counts.byClass, (Counts{11, 12, 0, 3, 0, 14}));
    QCOMPARE(counts.total, 40);
    QCOMPARE(counts.total, saxpy->instructions.size());
}

void TestCompileComparison::transposeCounts() {
    // The tiled transpose adds one barrier and a shared store and load to the naive one.
    const QVector<PtxFunctionBody> bodies = ptxFunctionBodies(recorded("transpose.ptx"));
    QCOMPARE(bodies.size(), 2);
    QCOMPARE(bodies[0].name, QStringLiteral("transpose_naive"));
    QCOMPARE(bodies[1].name, QStringLiteral("transpose_tiled"));
    const InstructionCounts naive = countPtx(bodies[0]);
    const InstructionCounts tiled = countPtx(bodies[1]);
    QCOMPARE(naive.count(InstructionClass::Sync), 0);
    QCOMPARE(tiled.count(InstructionClass::Sync), 1);
    QCOMPARE(bodies[1].opcodes.count(QStringLiteral("st.shared.f32")), 1);

    const SassListing sass = parseSass(recorded("transpose.sass-gi.txt"));
    const SassFunction* naiveSass = sass.findFunction("transpose_naive");
    const SassFunction* tiledSass = sass.findFunction("transpose_tiled");
    QVERIFY(naiveSass && tiledSass);
    QCOMPARE(countSass(*naiveSass).count(InstructionClass::Sync), 0);
    QCOMPARE(countSass(*tiledSass).count(InstructionClass::Sync), 1); // BAR.SYNC
    int shared = 0;
    for (const SassInstruction& i : tiledSass->instructions)
        shared += i.opcode.startsWith("LDS") || i.opcode.startsWith("STS") ? 1 : 0;
    QCOMPARE(shared, 2);
}

void TestCompileComparison::ptxBodiesSkipDirectivesAndNestedScopes() {
    // A call sequence in its own { } scope, a label on the line of its instruction, a
    // predicated branch, a .func beside the entry, .loc without ';', comments and an
    // initialised global whose braces are no function.
    const QString ptx = QStringLiteral(
        ".version 8.0\n.target sm_90\n"
        ".global .align 4 .b8 table[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n"
        ".func (.param .b32 r) twice(.param .b32 v);\n"
        ".visible .entry k(.param .u64 p)\n.maxntid 128, 1, 1\n{\n"
        "\t.reg .b32 %r<4>; // registers { not a scope\n"
        "\t.loc 1 4 2\n"
        "\tld.param.u64 %rd1, [p];\n"
        "\t{\n\t.reg .b32 temp;\n\tcall.uni (retval0), twice, (param0);\n\t}\n"
        "$L__BB0_1: add.s32 %r1, %r1, 1;\n"
        "\t@!%p1 bra $L__BB0_1;\n"
        "\tret;\n}\n"
        ".func (.param .b32 r) twice(.param .b32 v)\n{\n\tshl.b32 %r1, %r1, 1;\n\tret;\n}\n");
    const QVector<PtxFunctionBody> bodies = ptxFunctionBodies(ptx);
    QCOMPARE(bodies.size(), 2);
    QCOMPARE(bodies[0].name, QStringLiteral("k"));
    QVERIFY(bodies[0].entry);
    QCOMPARE(bodies[0].opcodes, (QStringList{"ld.param.u64", "call.uni", "add.s32", "bra", "ret"}));
    QCOMPARE(bodies[1].name, QStringLiteral("twice"));
    QVERIFY(!bodies[1].entry);
    QCOMPARE(bodies[1].opcodes, (QStringList{"shl.b32", "ret"}));
    // Cut short: what was read stays.
    const QVector<PtxFunctionBody> cut = ptxFunctionBodies(ptx.left(ptx.indexOf("$L__BB0_1")));
    QCOMPARE(cut.size(), 1);
    QCOMPARE(cut[0].opcodes, (QStringList{"ld.param.u64", "call.uni"}));
}

void TestCompileComparison::diffRows_data() {
    QTest::addColumn<QString>("before");
    QTest::addColumn<QString>("after");
    QTest::addColumn<QString>("kinds");
    QTest::addColumn<int>("changed");
    QTest::addColumn<int>("removed");
    QTest::addColumn<int>("added");
    QTest::newRow("identical") << "a;\nb;\nc;"
                               << "a;\nb;\nc;"
                               << "===" << 0 << 0 << 0;
    QTest::newRow("one changed in the middle") << "a;\nb;\nc;"
                                               << "a;\nx;\nc;"
                                               << "=~=" << 1 << 0 << 0;
    QTest::newRow("one added at the end") << "a;\nb;"
                                          << "a;\nb;\nc;"
                                          << "==+" << 0 << 0 << 1;
    QTest::newRow("one removed at the start") << "a;\nb;\nc;"
                                              << "b;\nc;"
                                              << "-==" << 0 << 1 << 0;
    QTest::newRow("fma split in two") << "ld;\nfma;\nst;"
                                      << "ld;\nmul;\nadd;\nst;"
                                      << "=~+=" << 1 << 0 << 1;
    QTest::newRow("comments and blanks are noise") << "a; // one\n\n  b;"
                                                   << "a;   // two\n// only a comment\nb;"
                                                   << "==" << 0 << 0 << 0;
    QTest::newRow("empty before") << ""
                                  << "a;\nb;"
                                  << "++" << 0 << 0 << 2;
}

void TestCompileComparison::diffRows() {
    QFETCH(QString, before);
    QFETCH(QString, after);
    QFETCH(QString, kinds);
    QFETCH(int, changed);
    QFETCH(int, removed);
    QFETCH(int, added);
    const ListingDiff diff = diffListings(before, after, ListingKind::Ptx);
    QCOMPARE(rowKinds(diff), kinds);
    QCOMPARE(diff.changed, changed);
    QCOMPARE(diff.removed, removed);
    QCOMPARE(diff.added, added);
    QCOMPARE(diff.identical(), changed + removed + added == 0);
    // Every line of both sides appears once, in order.
    int nextBefore = 0;
    int nextAfter = 0;
    for (const ListingDiffRow& row : diff.rows) {
        if (row.before >= 0)
            QCOMPARE(row.before, nextBefore++);
        if (row.after >= 0)
            QCOMPARE(row.after, nextAfter++);
    }
    QCOMPARE(nextBefore, diff.before.size());
    QCOMPARE(nextAfter, diff.after.size());
}

void TestCompileComparison::lineInfoOnlyIsNoChange() {
    // The same CUBIN disassembled with and without line comments, and PTX with and without its
    // .loc lines: nothing to show.
    const ListingDiff sass =
        diffListings(recorded("saxpy.sass.txt"), recorded("saxpy.sass-gi.txt"), ListingKind::Sass);
    QVERIFY(sass.identical());
    QCOMPARE(sass.before.size(), sass.after.size());
    QVERIFY(sass.before.size() > 40);
    QString ptxWithoutLoc;
    for (const QString& line : recorded("saxpy.ptx").split('\n'))
        if (!line.trimmed().startsWith(".loc"))
            ptxWithoutLoc += line + '\n';
    QVERIFY(diffListings(recorded("saxpy.ptx"), ptxWithoutLoc, ListingKind::Ptx).identical());
    // The address column and an encoding are no difference either.
    QCOMPARE(normalizeListingLine(
                 "        /*0130*/   LDG.E R5, desc[UR4][R4.64] ; /* 0x000ea8000c1e1900 */",
                 ListingKind::Sass),
             QStringLiteral("LDG.E R5, desc[UR4][R4.64] ;"));
    QVERIFY(normalizeListingLine("\t//## File \"/tmp/a.cu\", line 4", ListingKind::Sass).isEmpty());
}

void TestCompileComparison::identicalCompilesHaveNoChanges() {
    const CompileResult a = compileSaxpy(true);
    QVERIFY2(a.ok, qPrintable(a.log));
    const CompileComparison same = compareCompiles(a, nullptr, a, nullptr);
    QVERIFY(same.ptx.identical());
    QVERIFY(!same.hasSass);
    QCOMPARE(same.kernels.size(), 1);
    for (const ComparisonRow& row : same.kernels[0].rows)
        QVERIFY2(!row.changed(), qPrintable(row.key));
    // Recorded SASS on both sides gives SASS rows, also unchanged.
    const SassListing sass = parseSass(recorded("saxpy.sass-gi.txt"));
    const CompileComparison withSass = compareCompiles(a, &sass, a, &sass);
    QVERIFY(withSass.hasSass);
    QVERIFY(withSass.sass.identical());
    const ComparisonRow* sassTotal = withSass.kernels[0].row("sass.total");
    QVERIFY(sassTotal);
    QCOMPARE(sassTotal->before, std::optional<qint64>(40));
    QVERIFY(!sassTotal->changed());
}

void TestCompileComparison::fmadOffAddsAnInstruction() {
    const CompileResult fused = compileSaxpy(true);
    const CompileResult split = compileSaxpy(false);
    QVERIFY2(fused.ok && split.ok, qPrintable(fused.log + split.log));
    const CompileComparison c = compareCompiles(fused, nullptr, split, nullptr);
    QCOMPARE(c.kernels.size(), 1);
    const KernelComparison& k = c.kernels[0];
    QCOMPARE(k.name, QStringLiteral("saxpy"));
    QVERIFY(k.inBefore && k.inAfter);
    // fma.rn.f32 becomes mul.rn.f32 and add.rn.f32; nothing else changes class.
    const ComparisonRow* arithmetic = k.row("ptx.arithmetic");
    QVERIFY(arithmetic && arithmetic->before && arithmetic->after);
    QCOMPARE(*arithmetic->after - *arithmetic->before, qint64(1));
    QCOMPARE(*k.row("ptx.total")->after - *k.row("ptx.total")->before, qint64(1));
    QVERIFY(!k.row("ptx.memory")->changed());
    QVERIFY(!k.row("ptx.control")->changed());
    // ptxas -v reported both: registers known, no spills.
    QVERIFY(k.row("registers")->before.value_or(0) > 0);
    QVERIFY(k.row("registers")->after.value_or(0) > 0);
    QCOMPARE(k.row("spillStoreBytes")->after, std::optional<qint64>(0));
    QVERIFY(!c.ptx.identical());
    // The fma leaves, a mul and an add come (the registers after them are renumbered).
    QStringList gone;
    QStringList came;
    for (const ListingDiffRow& row : c.ptx.rows) {
        if (row.kind == ListingDiffRow::Kind::Same)
            continue;
        if (row.before >= 0)
            gone << c.ptx.before[row.before].simplified().section(' ', 0, 0);
        if (row.after >= 0)
            came << c.ptx.after[row.after].simplified().section(' ', 0, 0);
    }
    QCOMPARE(gone.count("fma.rn.f32"), 1);
    QCOMPARE(came.count("fma.rn.f32"), 0);
    QCOMPARE(came.count("mul.rn.f32"), 1);
    QCOMPARE(came.count("add.rn.f32"), 1);
    QCOMPARE(c.ptx.added, 1); // the add.rn.f32
    const QJsonObject json = c.toJson(true);
    const QJsonObject figures = json["kernels"].toArray().at(0).toObject()["figures"].toObject();
    QCOMPARE(figures["ptx.arithmetic"].toObject()["delta"].toInt(), 1);
    const QJsonObject ptx = json["ptx"].toObject();
    QCOMPARE(ptx["added"].toInt(), 1);
    QVERIFY(!ptx["rows"].toArray().isEmpty());
}

void TestCompileComparison::kernelAddedAndRemoved() {
    const CompileResult one = compileSaxpy(true);
    const CompileResult two = compileSaxpy(
        true, "extern \"C\" __global__ void zero(float* out) { out[threadIdx.x] = 0.0f; }\n");
    QVERIFY2(one.ok && two.ok, qPrintable(two.log));
    const CompileComparison grew = compareCompiles(one, nullptr, two, nullptr);
    QCOMPARE(grew.kernels.size(), 2);
    const KernelComparison* zero = grew.find("zero");
    QVERIFY(zero);
    QVERIFY(!zero->inBefore && zero->inAfter);
    QCOMPARE(zero->row("ptx.total")->before, std::optional<qint64>());
    QVERIFY(zero->row("ptx.total")->after.value_or(0) > 0);
    const CompileComparison shrank = compareCompiles(two, nullptr, one, nullptr);
    QCOMPARE(shrank.kernels.size(), 2);
    QCOMPARE(shrank.kernels.last().name, QStringLiteral("zero")); // the lost one comes last
    QVERIFY(shrank.kernels.last().inBefore && !shrank.kernels.last().inAfter);
}

void TestCompileComparison::localArrayOnTheStack() {
    // Indexed at run time for both a write and a read, the array stays in local memory:
    // ptxas's stack frame holds it (the PTX counts its ld.local/st.local).
    const auto compile = [](const char* source) {
        return Program(QString::fromLatin1(source), QStringLiteral("pick.cu"),
                       withPtxasReport(ProgramOptions{}))
            .compile(QStringLiteral("sm_90"));
    };
    const CompileResult direct = compile(R"(
extern "C" __global__ void pick(const float* in, float* out, int k)
{
    out[threadIdx.x] = in[(k + threadIdx.x) % 64 * blockDim.x + threadIdx.x];
})");
    const CompileResult stacked = compile(R"(
extern "C" __global__ void pick(const float* in, float* out, int k)
{
    float local[256];
    for (int j = 0; j < 256; ++j)
        local[j] = in[j * blockDim.x + threadIdx.x];
    local[k & 255] += 1.0f;
    out[threadIdx.x] = local[(k + threadIdx.x) & 255];
})");
    QVERIFY2(direct.ok && stacked.ok, qPrintable(direct.log + stacked.log));
    const CompileComparison c = compareCompiles(direct, nullptr, stacked, nullptr);
    const KernelComparison* pick = c.find("pick");
    QVERIFY(pick);
    QCOMPARE(pick->row("localBytes")->before, std::optional<qint64>(0));
    QVERIFY2(pick->row("localBytes")->after.value_or(0) >= 256 * 4,
             qPrintable(pick->row("localBytes")->text()));
    const CompileSummary summary = summarizeCompile(stacked);
    QCOMPARE(summary.kernels.size(), 1);
    QVERIFY(summary.kernels[0].ptx.localStores > 0);
    QVERIFY(summary.kernels[0].ptx.localLoads > 0);
    QCOMPARE(summarizeCompile(direct).kernels[0].ptx.localStores, 0);
    // The option adds -Xptxas -v once.
    const ProgramOptions twice = withPtxasReport(withPtxasReport(ProgramOptions{}));
    QCOMPARE(twice.extraFlags, (QStringList{"-Xptxas", "-v"}));
}

void TestCompileComparison::manyEditsStopAligning() {
    QString before;
    QString after;
    const int lines = kMaxListingEdits + 100;
    for (int i = 0; i < lines; ++i) {
        before += QStringLiteral("a%1;\n").arg(i);
        after += QStringLiteral("b%1;\n").arg(i);
    }
    const QString common = QStringLiteral("same;\n");
    const ListingDiff diff =
        diffListings(common + before + common, common + after + common, ListingKind::Ptx);
    QVERIFY(diff.truncated);
    QCOMPARE(diff.changed, lines);
    QCOMPARE(diff.rows.first().kind, ListingDiffRow::Kind::Same);
    QCOMPARE(diff.rows.last().kind, ListingDiffRow::Kind::Same);
    QCOMPARE(diff.rows.size(), lines + 2);
}

void TestCompileComparison::rowText() {
    ComparisonRow row{"registers", "registers", 12, 14};
    QCOMPARE(row.text(), QStringLiteral("12 -> 14 (+2)"));
    row.after = 10;
    QCOMPARE(row.text(), QStringLiteral("12 -> 10 (-2)"));
    row.after = 12;
    QCOMPARE(row.text(), QStringLiteral("12 -> 12"));
    row.before.reset();
    QCOMPARE(row.text(), QStringLiteral("- -> 12"));
}

KERNELPAD_TEST_GUILESS_MAIN(TestCompileComparison)
} // namespace tst_compilecomparison
#include "tst_compilecomparison.moc"
