// parseSass and LineMap on nvdisasm and nvcc output recorded on the GPU machine
// (tests/data/sass/README.md), and on broken input.

#include "core/compile/LineMap.h"
#include "core/compile/Sass.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QFile>
#include <QtTest>

namespace tst_sass {

using namespace kernelpad;

namespace {

QString recorded(const QString& name) {
    QFile file(QStringLiteral(KERNELPAD_TEST_DATA_DIR "/sass/") + name);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("missing test data %s", qPrintable(file.fileName()));
    return QString::fromUtf8(file.readAll());
}

QVector<int> indicesFrom(int first, int last) {
    QVector<int> v;
    for (int i = first; i <= last; ++i)
        v << i;
    return v;
}

/// The instructions of `function` whose line in `sourceName` is `line`, straight from the
/// parser (independent of LineMap).
QVector<int> instructionsOfLine(const SassFunction& function, const QString& sourceName, int line) {
    QVector<int> indices;
    for (int i = 0; i < function.instructions.size(); ++i) {
        for (const SourcePos& pos : function.instructions[i].source) {
            if (pos.line == line && isSameSourceFile(pos.file, sourceName)) {
                indices << i;
                break;
            }
        }
    }
    return indices;
}

} // namespace

} // namespace tst_sass
Q_DECLARE_METATYPE(QVector<tst_sass::LineRange>)
namespace tst_sass {

class TestSass : public QObject {
    Q_OBJECT

private slots:
    void functionsAndCounts_data();
    void functionsAndCounts();
    void saxpyInstructions();
    void branchesAndLabels();
    void saxpySourceLines();
    void inlinedAtMapsToTheCaller();
    void withoutLineInfo();
    void brokenInput_data();
    void brokenInput();
    void ptxLocations();
    void lineMap_data();
    void lineMap();
    void lineMapBack();
    void lineMapOtherFileIgnored();
    void sameSourceFile_data();
    void sameSourceFile();
    void toRangesJoinsRuns();
};

void TestSass::functionsAndCounts_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("functions");
    QTest::addColumn<QVector<int>>("counts");
    // Counted in the files: one "/*addr*/" line per instruction, NOP padding included.
    QTest::newRow("saxpy") << "saxpy.sass-gi.txt" << QStringList{"saxpy"} << QVector<int>{40};
    QTest::newRow("reduction") << "reduction.sass-gi.txt"
                               << QStringList{"block_sum_reference", "block_sum"}
                               << QVector<int>{112, 80};
    QTest::newRow("transpose") << "transpose.sass-gi.txt"
                               << QStringList{"transpose_tiled", "transpose_naive"}
                               << QVector<int>{48, 32};
    QTest::newRow("convolution") << "convolution.sass-gi.txt"
                                 << QStringList{"convolve_reference", "convolve"}
                                 << QVector<int>{88, 88};
}

void TestSass::functionsAndCounts() {
    QFETCH(QString, file);
    QFETCH(QStringList, functions);
    QFETCH(QVector<int>, counts);
    const SassListing listing = parseSass(recorded(file));
    QStringList names;
    QVector<int> sizes;
    int total = 0;
    for (const SassFunction& f : listing.functions) {
        names << f.name;
        sizes << int(f.instructions.size());
        total += int(f.instructions.size());
        // Consecutive 16-byte instructions from 0 (sm_90), none lost or repeated.
        for (int i = 0; i < f.instructions.size(); ++i)
            QCOMPARE(f.instructions[i].address, qint64(i) * 16);
    }
    QCOMPARE(names, functions);
    QCOMPARE(sizes, counts);
    QCOMPARE(listing.instructionCount(), total);
}

void TestSass::saxpyInstructions() {
    const SassListing listing = parseSass(recorded(QStringLiteral("saxpy.sass-gi.txt")));
    const SassFunction* saxpy = listing.findFunction(QStringLiteral("saxpy"));
    QVERIFY(saxpy);
    QCOMPARE(saxpy->textLine, 6);
    const int exit = saxpy->indexOfAddress(0x80);
    QCOMPARE(exit, 8);
    const SassInstruction& predicated = saxpy->instructions[exit];
    QCOMPARE(predicated.predicate, QStringLiteral("@P0"));
    QCOMPARE(predicated.opcode, QStringLiteral("EXIT"));
    QCOMPARE(predicated.operands, QString());
    QCOMPARE(predicated.raw, QStringLiteral("        /*0080*/               @P0 EXIT ;"));
    QCOMPARE(predicated.textLine, 26);
    const SassInstruction& setp = saxpy->instructions[7];
    QCOMPARE(setp.predicate, QString());
    QCOMPARE(setp.opcode, QStringLiteral("ISETP.GE.U32.AND.EX"));
    QCOMPARE(setp.operands, QStringLiteral("P0, PT, RZ, UR5, PT, P0"));
    const SassInstruction& nop = saxpy->instructions.last();
    QCOMPARE(nop.opcode, QStringLiteral("NOP")); // printed as "NOP;" without a space
    QCOMPARE(nop.address, qint64(0x270));
    QCOMPARE(saxpy->indexOfAddress(0x280), -1);
}

void TestSass::branchesAndLabels() {
    const SassListing listing = parseSass(recorded(QStringLiteral("reduction.sass-gi.txt")));
    const SassFunction* reference = listing.findFunction(QStringLiteral("block_sum_reference"));
    QVERIFY(reference);
    // "@P0 BRA `(.L_x_0)" at 0x5d0 loops back to .L_x_0, which precedes the instruction at
    // 0xf0 (line 36 of the file, before "/*00f0*/").
    const SassInstruction& loop = reference->instructions[reference->indexOfAddress(0x5d0)];
    QCOMPARE(loop.opcode, QStringLiteral("BRA"));
    QCOMPARE(loop.predicate, QStringLiteral("@P0"));
    QCOMPARE(loop.branchTarget, QStringLiteral(".L_x_0"));
    QVERIFY(reference->labels.contains(loop.branchTarget));
    QCOMPARE(reference->instructions[reference->labels.value(loop.branchTarget)].address,
             qint64(0xf0));
    // The label after the last NOP marks the function's end.
    QCOMPARE(reference->labels.value(QStringLiteral(".L_x_3")),
             int(reference->instructions.size()));
    // Labels belong to their function: block_sum's own are not block_sum_reference's.
    const SassFunction* blockSum = listing.findFunction(QStringLiteral("block_sum"));
    QVERIFY(blockSum);
    QVERIFY(blockSum->labels.contains(QStringLiteral(".L_x_2")));
    QVERIFY(!reference->labels.contains(QStringLiteral(".L_x_2")));
}

void TestSass::saxpySourceLines() {
    const SassListing listing = parseSass(recorded(QStringLiteral("saxpy.sass-gi.txt")));
    const SassFunction& saxpy = listing.functions.first();
    const QString cu = QStringLiteral("saxpy.cu");
    // From the file: line 4 is /*0010*/-/*0040*/, line 5 /*0050*/-/*0090*/, line 6 (the
    // loads, the FFMA and the store) /*00a0*/-/*0190*/; line 8's EXIT and the padding after.
    QCOMPARE(instructionsOfLine(saxpy, cu, 2), QVector<int>{0});
    QCOMPARE(instructionsOfLine(saxpy, cu, 4), indicesFrom(1, 4));
    QCOMPARE(instructionsOfLine(saxpy, cu, 5), indicesFrom(5, 9));
    QCOMPARE(instructionsOfLine(saxpy, cu, 6), indicesFrom(10, 25));
    QCOMPARE(instructionsOfLine(saxpy, cu, 8), indicesFrom(26, 39));
    QCOMPARE(instructionsOfLine(saxpy, cu, 7), QVector<int>{});
    QCOMPARE(saxpy.instructions[24].opcode, QStringLiteral("FFMA"));
    QCOMPARE(saxpy.instructions[24].source,
             (QVector<SourcePos>{{QStringLiteral("/tmp/rec/saxpy.cu"), 6}}));
    // -g prints the same for saxpy (no inlining).
    const SassListing g = parseSass(recorded(QStringLiteral("saxpy.sass-g.txt")));
    QCOMPARE(instructionsOfLine(g.functions.first(), cu, 6), indicesFrom(10, 25));
}

void TestSass::inlinedAtMapsToTheCaller() {
    // convolve's atomicAdd(&blocksDone, 1u) on line 33 is device_atomic_functions.hpp line 112
    // inlined at line 33: /*0470*/-/*0490*/.
    const SassListing gi = parseSass(recorded(QStringLiteral("convolution.sass-gi.txt")));
    const SassFunction* convolve = gi.findFunction(QStringLiteral("convolve"));
    QVERIFY(convolve);
    const int red = convolve->indexOfAddress(0x490);
    QCOMPARE(convolve->instructions[red].opcode, QStringLiteral("REDG.E.ADD.STRONG.GPU"));
    const QVector<SourcePos>& chain = convolve->instructions[red].source;
    QCOMPARE(chain.size(), 2);
    QVERIFY(chain[0].file.endsWith(QLatin1String("/device_atomic_functions.hpp")));
    QCOMPARE(chain[0].line, 112);
    QCOMPARE(chain[1], (SourcePos{QStringLiteral("/tmp/rec/convolution.cu"), 33}));
    QCOMPARE(instructionsOfLine(*convolve, QStringLiteral("convolution.cu"), 33),
             indicesFrom(0x470 / 16, 0x490 / 16));

    // nvdisasm -g names the header only: the same instructions have no line in the source.
    const SassListing g = parseSass(recorded(QStringLiteral("convolution.sass-g.txt")));
    const LineMap map = LineMap::build(QString(), g, QStringLiteral("convolution.cu"));
    QCOMPARE(map.sourceLineOfSass(1, red), 0);
    QCOMPARE(map.sassInstructions(33), QVector<SassRef>{});
}

void TestSass::withoutLineInfo() {
    const SassListing listing = parseSass(recorded(QStringLiteral("saxpy.sass.txt")));
    QCOMPARE(listing.functions.size(), 1);
    QCOMPARE(listing.functions.first().instructions.size(), 40);
    for (const SassInstruction& instruction : listing.functions.first().instructions)
        QVERIFY(instruction.source.isEmpty());
    QVERIFY(LineMap::build(QString(), listing, QStringLiteral("saxpy.cu")).isEmpty());
}

void TestSass::brokenInput_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("functions");
    QTest::addColumn<int>("instructions");
    const QString saxpy = recorded(QStringLiteral("saxpy.sass-gi.txt"));
    // Cut in the middle of "/*0130*/                   LDG.E R5, desc[UR4][R4.64] ;".
    const qsizetype cut = saxpy.indexOf(QLatin1String("/*0130*/")) + 20;
    QTest::newRow("empty") << QString() << 0 << 0;
    // The cut line holds an address only: the 19 instructions before it remain.
    QTest::newRow("truncated mid-instruction") << saxpy.left(cut) << 1 << 19;
    QTest::newRow("truncated in a File comment")
        << saxpy.left(saxpy.indexOf(QLatin1String(", line 6")) + 3) << 1 << 10;
    QTest::newRow("instructions before any function")
        << QStringLiteral("  /*0000*/ EXIT ;\n  /*0010*/ BRA `(.L_x_0);\n") << 0 << 0;
    QTest::newRow("header without a name")
        << QStringLiteral("//---- .text. ----\n/*0000*/ X;\n") << 0 << 0;
    QTest::newRow("garbage lines")
        << QStringLiteral("//--- .text.k ---\n/*zz*/ EXIT ;\n/**/\n/*00*/ ;\n/*10*/ @P0\n"
                          "//## File \"unterminated, line 4\n//## File \"a.cu\", line -3\n"
                          "/*20*/ BRA `(;\n.L:\n/*ffffffffffffffffffffffff*/ EXIT ;\n")
        << 1 << 1;
    // The line after the NUL does not start with an address, so only the first counts.
    QTest::newRow("nul and control characters")
        << QStringLiteral("//--- .text.k ---\n/*0000*/ \x01\x02 ;\n") + QChar(0) +
               QStringLiteral("/*0010*/ EXIT")
        << 1 << 1;
}

void TestSass::brokenInput() {
    QFETCH(QString, text);
    QFETCH(int, functions);
    QFETCH(int, instructions);
    const SassListing listing = parseSass(text);
    QCOMPARE(listing.functions.size(), functions);
    QCOMPARE(listing.instructionCount(), instructions);
    // What is read is usable: line maps and lookups stay in range.
    const LineMap map = LineMap::build(text, listing, QStringLiteral("saxpy.cu"));
    for (const int line : map.sourceLines()) {
        for (const SassRef& ref : map.sassInstructions(line)) {
            QVERIFY(ref.function < listing.functions.size());
            QVERIFY(ref.instruction < listing.functions[ref.function].instructions.size());
        }
    }
    QCOMPARE(map.sourceLineOfSass(functions, 0), 0);
    QCOMPARE(map.sourceLineOfSass(-1, -1), 0);
}

void TestSass::ptxLocations() {
    const QVector<PtxLocation> locations = parsePtxLocations(recorded(QStringLiteral("saxpy.ptx")));
    // 24 instruction lines follow a .loc: 5 ld.param, then the body down to ret.
    QCOMPARE(locations.size(), 24);
    QCOMPARE(locations.first().ptxLine, 30);
    QCOMPARE(locations.first().source,
             (QVector<SourcePos>{{QStringLiteral("/tmp/rec/saxpy.cu"), 2}}));
    QCOMPARE(locations.last().ptxLine, 65); // ret
    QCOMPARE(locations.last().source.first().line, 8);

    // convolve's atomicAdd: `.loc 2 112 3, function_name ..., inlined_at 1 33 9`.
    const QVector<PtxLocation> conv =
        parsePtxLocations(recorded(QStringLiteral("convolution.ptx")));
    const auto atom = std::find_if(conv.begin(), conv.end(),
                                   [](const PtxLocation& l) { return l.ptxLine == 135; });
    QVERIFY(atom != conv.end());
    QCOMPARE(atom->source.size(), 2);
    QVERIFY(atom->source[0].file.endsWith(QLatin1String("device_atomic_functions.hpp")));
    QCOMPARE(atom->source[0].line, 112);
    QCOMPARE(atom->source[1], (SourcePos{QStringLiteral("/tmp/rec/convolution.cu"), 33}));

    // No .loc before the first instruction, a .loc without numbers, no .file table.
    const QVector<PtxLocation> odd = parsePtxLocations(
        QStringLiteral(".entry k()\n{\nmov.u32 %r1, 0;\n.loc 1\n.loc 9 4 1\nret;\n}\nret;\n"));
    QCOMPARE(odd.size(), 1);
    QCOMPARE(odd.first().ptxLine, 6);
    QCOMPARE(odd.first().source, (QVector<SourcePos>{{QString(), 4}}));
}

void TestSass::lineMap_data() {
    QTest::addColumn<QString>("example");
    QTest::addColumn<int>("sourceLine");
    QTest::addColumn<QVector<LineRange>>("ptx");
    QTest::addColumn<int>("function");
    QTest::addColumn<QVector<int>>("sass");
    // PTX lines and instruction indices read off the recorded files (address / 16).
    QTest::newRow("saxpy: the FMA line")
        << "saxpy" << 6 << QVector<LineRange>{{48, 50}, {54, 56}, {60, 61}} << 0
        << indicesFrom(10, 25);
    QTest::newRow("saxpy: the index")
        << "saxpy" << 4 << QVector<LineRange>{{36, 40}, {46, 46}, {52, 52}, {58, 58}} << 0
        << indicesFrom(1, 4);
    QTest::newRow("saxpy: the bounds check")
        << "saxpy" << 5 << QVector<LineRange>{{42, 43}} << 0 << indicesFrom(5, 9);
    QTest::newRow("saxpy: a line without code")
        << "saxpy" << 3 << QVector<LineRange>{} << 0 << QVector<int>{};
    QTest::newRow("transpose_naive: the copy")
        << "transpose" << 7 << QVector<LineRange>{{51, 55}, {59, 61}} << 1 << indicesFrom(11, 19);
    QTest::newRow("transpose_naive: the condition")
        << "transpose" << 6 << QVector<LineRange>{{43, 46}} << 1 << QVector<int>{2, 7, 10};
    QTest::newRow("transpose_tiled: the load into shared memory")
        << "transpose" << 15 << QVector<LineRange>{{105, 113}} << 0
        << QVector<int>{11, 12, 13, 14, 15, 18, 21, 22, 23, 24};
    QTest::newRow("convolve: atomicAdd inlined from a header")
        << "convolution" << 33 << QVector<LineRange>{{134, 135}} << 1 << QVector<int>{71, 72, 73};
}

void TestSass::lineMap() {
    QFETCH(QString, example);
    QFETCH(int, sourceLine);
    QFETCH(QVector<LineRange>, ptx);
    QFETCH(int, function);
    QFETCH(QVector<int>, sass);
    const QString ptxText = recorded(example + QStringLiteral(".ptx"));
    const SassListing listing = parseSass(recorded(example + QStringLiteral(".sass-gi.txt")));
    const LineMap map = LineMap::build(ptxText, listing, example + QStringLiteral(".cu"));
    QCOMPARE(map.ptxRanges(sourceLine), ptx);
    QCOMPARE(map.sassInstructions(sourceLine, function), sass);
    // And back: every PTX line and instruction of the source line maps to it.
    for (const LineRange& range : ptx) {
        for (int l = range.first; l <= range.last; ++l)
            QCOMPARE(map.sourceLineOfPtx(l), sourceLine);
    }
    for (const int index : sass)
        QCOMPARE(map.sourceLineOfSass(function, index), sourceLine);
}

void TestSass::lineMapBack() {
    const SassListing listing = parseSass(recorded(QStringLiteral("saxpy.sass-gi.txt")));
    const LineMap map = LineMap::build(recorded(QStringLiteral("saxpy.ptx")), listing,
                                       QStringLiteral("/tmp/rec/saxpy.cu"));
    QCOMPARE(map.sourceLines(), (QVector<int>{2, 4, 5, 6, 8}));
    QCOMPARE(map.sourceLineOfPtx(56), 6);     // fma.rn.f32
    QCOMPARE(map.sourceLineOfPtx(47), 0);     // the .loc itself
    QCOMPARE(map.sourceLineOfPtx(63), 0);     // $L__BB0_2:
    QCOMPARE(map.sourceLineOfSass(0, 24), 6); // FFMA
    QCOMPARE(map.sourceLineOfSass(0, 40), 0);
    QCOMPARE(map.sassInstructions(6).size(), 16);
    QCOMPARE(map.sassInstructions(6).first(), (SassRef{0, 10}));
}

void TestSass::lineMapOtherFileIgnored() {
    // A source of another name maps nothing, and a different folder is another file.
    const QString ptx = recorded(QStringLiteral("saxpy.ptx"));
    const SassListing listing = parseSass(recorded(QStringLiteral("saxpy.sass-gi.txt")));
    QVERIFY(LineMap::build(ptx, listing, QStringLiteral("other.cu")).isEmpty());
    QVERIFY(LineMap::build(ptx, listing, QStringLiteral("/elsewhere/saxpy.cu")).isEmpty());
    QVERIFY(!LineMap::build(ptx, listing, QStringLiteral("saxpy.cu")).isEmpty());
}

void TestSass::sameSourceFile_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("source");
    QTest::addColumn<bool>("same");
    QTest::newRow("same path") << "/tmp/a.cu"
                               << "/tmp/a.cu" << true;
    QTest::newRow("bare source name") << "/tmp/a.cu"
                                      << "a.cu" << true;
    QTest::newRow("bare file name") << "a.cu"
                                    << "/home/u/a.cu" << true;
    QTest::newRow("other folder") << "/tmp/a.cu"
                                  << "/home/a.cu" << false;
    QTest::newRow("other name") << "/tmp/a.cu"
                                << "b.cu" << false;
    QTest::newRow("suffix only") << "/tmp/xa.cu"
                                 << "a.cu" << false;
    QTest::newRow("empty") << ""
                           << "" << false;
}

void TestSass::sameSourceFile() {
    QFETCH(QString, file);
    QFETCH(QString, source);
    QFETCH(bool, same);
    QCOMPARE(isSameSourceFile(file, source), same);
}

void TestSass::toRangesJoinsRuns() {
    QCOMPARE(toRanges({3, 4, 5, 9}), (QVector<LineRange>{{3, 5}, {9, 9}}));
    QCOMPARE(toRanges({}), QVector<LineRange>{});
    QCOMPARE(toRanges({7}), (QVector<LineRange>{{7, 7}}));
}

KERNELPAD_TEST_GUILESS_MAIN(TestSass)
} // namespace tst_sass
#include "tst_sass.moc"
