// Instruction help: every instruction of the PTX ISA's instruction chapter has an entry, every
// opcode in the SASS recorded on the GPU machine (nvdisasm listings, Nsight Compute source
// pages) has one, and lookups read modifiers and find opcodes in listing lines.
#include "core/compile/InstructionHelp.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QtTest>

namespace tst_instructionhelp {

using namespace kernelpad;

namespace {

/// The PTX ISA's instructions (PTX ISA 8.7, chapter "Instruction Set"), by section.
const QStringList& ptxIsaOpcodes() {
    static const QStringList opcodes = {
        // Integer arithmetic
        "add", "sub", "mul", "mad", "mul24", "mad24", "sad", "div", "rem", "abs", "neg", "min",
        "max", "popc", "clz", "bfind", "fns", "brev", "bfe", "bfi", "szext", "bmsk", "dp4a", "dp2a",
        // Extended-precision integer arithmetic
        "add.cc", "addc", "sub.cc", "subc", "mad.cc", "madc",
        // Floating point (half precision and mixed precision use the same opcodes)
        "testp", "copysign", "fma", "rcp", "rcp.approx.ftz.f64", "sqrt", "rsqrt",
        "rsqrt.approx.ftz.f64", "sin", "cos", "lg2", "ex2", "tanh",
        // Comparison and selection
        "set", "setp", "selp", "slct",
        // Logic and shift
        "and", "or", "xor", "not", "cnot", "lop3", "shf", "shl", "shr",
        // Data movement and conversion
        "mov", "shfl", "shfl.sync", "prmt", "ld", "ld.global.nc", "ldu", "st", "st.async",
        "st.bulk", "red.async", "multimem.ld_reduce", "multimem.st", "multimem.red", "prefetch",
        "prefetchu", "applypriority", "discard", "createpolicy", "isspacep", "cvta", "cvt",
        "cvt.pack", "mapa", "getctarank", "cp.async", "cp.async.commit_group",
        "cp.async.wait_group", "cp.async.wait_all", "cp.async.bulk", "cp.reduce.async.bulk",
        "cp.async.bulk.prefetch", "cp.async.bulk.tensor", "cp.reduce.async.bulk.tensor",
        "cp.async.bulk.prefetch.tensor", "cp.async.bulk.commit_group", "cp.async.bulk.wait_group",
        "tensormap.replace",
        // Texture and surface
        "tex", "tld4", "txq", "istypep", "suld", "sust", "sured", "suq",
        // Control flow
        "bra", "brx.idx", "call", "ret", "exit",
        // Parallel synchronisation and communication
        "bar", "barrier", "bar.warp.sync", "barrier.cluster", "membar", "fence", "atom", "red",
        "vote", "vote.sync", "match.sync", "activemask", "redux.sync", "griddepcontrol",
        "elect.sync", "mbarrier.init", "mbarrier.inval", "mbarrier.expect_tx",
        "mbarrier.complete_tx", "mbarrier.arrive", "mbarrier.arrive_drop",
        "cp.async.mbarrier.arrive", "mbarrier.test_wait", "mbarrier.try_wait",
        "mbarrier.pending_count", "tensormap.cp_fenceproxy", "clusterlaunchcontrol.try_cancel",
        "clusterlaunchcontrol.query_cancel",
        // Warp-level matrix multiply-accumulate
        "wmma.load", "wmma.store", "wmma.mma", "mma", "mma.sp", "ldmatrix", "stmatrix", "movmatrix",
        // Asynchronous warpgroup matrix multiply-accumulate
        "wgmma.mma_async", "wgmma.mma_async.sp", "wgmma.fence", "wgmma.commit_group",
        "wgmma.wait_group",
        // Fifth-generation tensor core
        "tcgen05.alloc", "tcgen05.dealloc", "tcgen05.relinquish_alloc_permit", "tcgen05.ld",
        "tcgen05.st", "tcgen05.wait", "tcgen05.cp", "tcgen05.shift", "tcgen05.mma",
        "tcgen05.mma.sp", "tcgen05.mma.ws", "tcgen05.commit", "tcgen05.fence",
        // Stack manipulation
        "stacksave", "stackrestore", "alloca",
        // Video
        "vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset", "vadd2",
        "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2", "vadd4", "vsub4", "vavrg4",
        "vabsdiff4", "vmin4", "vmax4", "vset4",
        // Miscellaneous
        "brkpt", "nanosleep", "pmevent", "trap", "setmaxnreg"};
    return opcodes;
}

/// The SASS families the tooltips must cover whatever the recordings hold.
const QStringList& commonSassOpcodes() {
    static const QStringList opcodes = {
        "LDG",  "STG",    "LDS",   "STS",     "LDL",      "STL",  "LDC",   "LD",    "ST",
        "ATOM", "ATOMG",  "ATOMS", "RED",     "REDG",     "FFMA", "FADD",  "FMUL",  "FMNMX",
        "MUFU", "IMAD",   "IADD3", "LEA",     "SHF",      "LOP3", "ISETP", "FSETP", "BRA",
        "EXIT", "BAR",    "BSSY",  "BSYNC",   "WARPSYNC", "S2R",  "S2UR",  "CS2R",  "MOV",
        "SEL",  "SHFL",   "VOTE",  "PRMT",    "F2F",      "I2F",  "F2I",   "HMMA",  "IMMA",
        "DMMA", "LDGSTS", "LDSM",  "UTMALDG", "UTMASTG",  "DFMA", "DADD",  "DMUL"};
    return opcodes;
}

QString readFile(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("missing test data %s", qPrintable(path));
    return QString::fromUtf8(file.readAll());
}

/// Every opcode (modifiers included) in the recorded nvdisasm listings and the SASS columns of
/// the recorded Nsight Compute source pages.
QStringList recordedSassOpcodes() {
    QStringList found;
    const QDir data(QStringLiteral(KERNELPAD_TEST_DATA_DIR));
    static const QRegularExpression listing(
        QStringLiteral("^\\s*/\\*[0-9a-f]{4,}\\*/\\s+(?:@!?U?P[0-9T]\\s+)?([A-Z][A-Z0-9_.]*)"),
        QRegularExpression::MultilineOption);
    const QDir sassDir(data.filePath(QStringLiteral("sass")));
    for (const QString& name : sassDir.entryList({QStringLiteral("*.txt")}, QDir::Files)) {
        auto it = listing.globalMatch(readFile(sassDir.filePath(name)));
        while (it.hasNext())
            found << it.next().captured(1);
    }
    static const QRegularExpression csv(
        QStringLiteral("^\"0x[0-9a-f]+\",\"\\s*(?:@!?U?P[0-9T]\\s+)?([A-Z][A-Z0-9_.]*)"),
        QRegularExpression::MultilineOption);
    const QDir ncuDir(data.filePath(QStringLiteral("ncu")));
    for (const QString& name : ncuDir.entryList({QStringLiteral("*sass*.csv")}, QDir::Files)) {
        auto it = csv.globalMatch(readFile(ncuDir.filePath(name)));
        while (it.hasNext())
            found << it.next().captured(1);
    }
    found.removeDuplicates();
    found.sort();
    return found;
}

} // namespace

class TestInstructionHelp : public QObject {
    Q_OBJECT

private slots:
    void everyPtxIsaOpcodeHasHelp();
    void commonSassOpcodesHaveHelp();
    void everyRecordedSassOpcodeHasHelp();
    void ptxModifiersAreExplained();
    void ptxLongestPrefixWins_data();
    void ptxLongestPrefixWins();
    void sassModifiersAndUniformTwins();
    void unknownOpcodesHaveNoHelp();
    void opcodeAtColumn_data();
    void opcodeAtColumn();
    void htmlIsEscaped();
};

void TestInstructionHelp::everyPtxIsaOpcodeHasHelp() {
    QStringList missing;
    for (const QString& opcode : ptxIsaOpcodes()) {
        const InstructionHelp help = instructionHelp(InstructionSet::Ptx, opcode);
        if (help.isEmpty())
            missing << opcode;
    }
    QVERIFY2(missing.isEmpty(), qPrintable(missing.join(u' ')));
    // The list above is the instruction chapter, not a copy of the table: the table may not
    // hold entries the ISA does not name.
    QStringList extra;
    for (const QString& opcode : instructionHelpOpcodes(InstructionSet::Ptx)) {
        if (!ptxIsaOpcodes().contains(opcode))
            extra << opcode;
    }
    QVERIFY2(extra.isEmpty(), qPrintable(extra.join(u' ')));
}

void TestInstructionHelp::commonSassOpcodesHaveHelp() {
    QStringList missing;
    for (const QString& opcode : commonSassOpcodes()) {
        const InstructionHelp help = instructionHelp(InstructionSet::Sass, opcode);
        if (help.isEmpty() || help.opcode != opcode)
            missing << opcode;
    }
    QVERIFY2(missing.isEmpty(), qPrintable(missing.join(u' ')));
}

void TestInstructionHelp::everyRecordedSassOpcodeHasHelp() {
    const QStringList recorded = recordedSassOpcodes();
    // The recordings hold at least the loads, the FFMA and the control flow of SAXPY.
    QVERIFY(recorded.contains(QStringLiteral("FFMA")));
    QVERIFY(recorded.contains(QStringLiteral("LDG.E")));
    QVERIFY2(recorded.size() > 30, qPrintable(recorded.join(u' ')));
    QStringList missing;
    for (const QString& opcode : recorded) {
        if (instructionHelp(InstructionSet::Sass, opcode).isEmpty())
            missing << opcode;
    }
    QVERIFY2(missing.isEmpty(), qPrintable(missing.join(u' ')));
}

void TestInstructionHelp::ptxModifiersAreExplained() {
    const InstructionHelp help =
        instructionHelp(InstructionSet::Ptx, QStringLiteral("ld.global.nc.v4.f32"));
    QCOMPARE(help.opcode, QStringLiteral("ld"));
    QStringList names;
    for (const ModifierHelp& m : help.modifiers)
        names << m.modifier;
    QCOMPARE(names, (QStringList{".global", ".nc", ".v4", ".f32"}));
    QVERIFY(help.modifiers[1].text.contains(QLatin1String("read-only")));
    const QString text = help.toPlainText();
    QVERIFY(text.startsWith(QLatin1String("ld: Loads from memory")));
    QVERIFY(text.contains(QLatin1String("\n  .v4: four elements at once")));
}

void TestInstructionHelp::ptxLongestPrefixWins_data() {
    QTest::addColumn<QString>("instruction");
    QTest::addColumn<QString>("opcode");
    QTest::addColumn<QStringList>("modifiers");
    QTest::newRow("tma tile load")
        << "cp.async.bulk.tensor.2d.shared::cluster.global"
        << "cp.async.bulk.tensor" << QStringList{".shared::cluster", ".global"};
    QTest::newRow("carry add") << "add.cc.u32"
                               << "add.cc" << QStringList{".u32"};
    QTest::newRow("plain add") << "add.s32"
                               << "add" << QStringList{".s32"};
    QTest::newRow("guarded branch") << "@%p1 bra.uni"
                                    << "bra" << QStringList{".uni"};
    QTest::newRow("fast reciprocal") << "rcp.approx.ftz.f64"
                                     << "rcp.approx.ftz.f64" << QStringList{};
    QTest::newRow("compare") << "setp.ge.s32"
                             << "setp" << QStringList{".ge", ".s32"};
    QTest::newRow("with operands") << "  st.global.v2.f32 [%rd1], {%f1, %f2};"
                                   << "st" << QStringList{".global", ".v2", ".f32"};
}

void TestInstructionHelp::ptxLongestPrefixWins() {
    QFETCH(QString, instruction);
    QFETCH(QString, opcode);
    QFETCH(QStringList, modifiers);
    const InstructionHelp help = instructionHelp(InstructionSet::Ptx, instruction);
    QCOMPARE(help.opcode, opcode);
    QStringList names;
    for (const ModifierHelp& m : help.modifiers)
        names << m.modifier;
    QCOMPARE(names, modifiers);
}

void TestInstructionHelp::sassModifiersAndUniformTwins() {
    const InstructionHelp isetp =
        instructionHelp(InstructionSet::Sass, QStringLiteral("@!P0 ISETP.GE.U32.AND.EX"));
    QCOMPARE(isetp.opcode, QStringLiteral("ISETP"));
    QCOMPARE(isetp.modifiers.size(), 4);
    QCOMPARE(isetp.modifiers[1].modifier, QStringLiteral("U32"));
    QVERIFY(!isetp.uniform);
    const InstructionHelp ulea = instructionHelp(InstructionSet::Sass, QStringLiteral("ULEA.HI"));
    QCOMPARE(ulea.opcode, QStringLiteral("ULEA"));
    QVERIFY(ulea.uniform);
    QCOMPARE(ulea.summary, instructionHelp(InstructionSet::Sass, QStringLiteral("LEA")).summary);
    QVERIFY(ulea.toPlainText().contains(QLatin1String("uniform datapath")));
    // UTMALDG has its own entry, not LDG... through a "TMALDG" twin.
    const InstructionHelp tma = instructionHelp(InstructionSet::Sass, QStringLiteral("UTMALDG.2D"));
    QVERIFY(!tma.uniform);
    QVERIFY(tma.summary.contains(QLatin1String("TMA")));
}

void TestInstructionHelp::unknownOpcodesHaveNoHelp() {
    QVERIFY(instructionHelp(InstructionSet::Ptx, QStringLiteral("frobnicate.u32")).isEmpty());
    QVERIFY(instructionHelp(InstructionSet::Sass, QStringLiteral("FROB.E")).isEmpty());
    QVERIFY(instructionHelp(InstructionSet::Sass, QStringLiteral("U")).isEmpty());
    QVERIFY(instructionHelp(InstructionSet::Ptx, QString()).isEmpty());
    QVERIFY(instructionHelp(InstructionSet::Ptx, QStringLiteral("@%p1")).isEmpty());
    QCOMPARE(instructionHelp(InstructionSet::Ptx, QStringLiteral("bogus")).toHtml(), QString());
}

void TestInstructionHelp::opcodeAtColumn_data() {
    QTest::addColumn<int>("set");
    QTest::addColumn<QString>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("opcode");
    const int ptx = int(InstructionSet::Ptx);
    const int sass = int(InstructionSet::Sass);
    const QString ld = QStringLiteral("\tld.global.nc.f32 \t%f1, [%rd8];");
    QTest::newRow("ptx on the opcode") << ptx << ld << 3 << "ld.global.nc.f32";
    QTest::newRow("ptx on an operand") << ptx << ld << 22 << "";
    QTest::newRow("ptx guarded") << ptx << "\t@%p1 bra.uni \t$L__BB0_2;" << 8 << "bra.uni";
    QTest::newRow("ptx directive") << ptx << "\t.reg .b32 \t%r<5>;" << 3 << "";
    QTest::newRow("ptx label") << ptx << "$L__BB0_2:" << 2 << "";
    QTest::newRow("sass view line") << sass << "  0180  FFMA R9, R2, UR6, R5" << 9 << "FFMA";
    QTest::newRow("sass address") << sass << "  0180  FFMA R9, R2, UR6, R5" << 3 << "";
    QTest::newRow("sass predicated") << sass << "  0070  @P0 EXIT" << 14 << "EXIT";
    QTest::newRow("sass nvdisasm")
        << sass << "        /*0090*/                   LDG.E R2, desc[UR4][R2.64] ;" << 37
        << "LDG.E";
    QTest::newRow("sass comment") << sass << "// saxpy.cu:6" << 4 << "";
}

void TestInstructionHelp::opcodeAtColumn() {
    QFETCH(int, set);
    QFETCH(QString, line);
    QFETCH(int, column);
    QFETCH(QString, opcode);
    QCOMPARE(kernelpad::opcodeAtColumn(InstructionSet(set), line, column), opcode);
}

void TestInstructionHelp::htmlIsEscaped() {
    const QString html = instructionHelp(InstructionSet::Ptx, QStringLiteral("shl.b32")).toHtml();
    QVERIFY(html.contains(QLatin1String("<b>shl</b>")));
    QVERIFY(html.contains(QLatin1String("<li><b>.b32</b>")));
    // LEA's text reads "(a << shift) + b": escaped, it stays text.
    const QString lea = instructionHelp(InstructionSet::Sass, QStringLiteral("LEA.HI")).toHtml();
    QVERIFY(lea.contains(QLatin1String("(a &lt;&lt; shift)")));
    QVERIFY(!lea.contains(QLatin1String("a << shift")));
    QVERIFY(instructionHelp(InstructionSet::Sass, QStringLiteral("SEL"))
                .toHtml()
                .contains(QLatin1String("branch-free")));
}

KERNELPAD_TEST_APPLESS_MAIN(TestInstructionHelp)
} // namespace tst_instructionhelp
#include "tst_instructionhelp.moc"
