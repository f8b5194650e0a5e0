// parsePtxEntries on PTX from NVRTC and on hand-written PTX, including hostile input.

#include "../support/TestMain.h"
#include "core/compile/KernelNames.h"
#include "core/compile/Program.h"
#include "core/compile/PtxParser.h"

#include <QtTest>

namespace tst_ptxparser {

using namespace kernelpad;

namespace {

/// One expected parameter: PTX type, size, alignment, .ptr.
struct Expected {
    QString ptxType;
    int sizeBytes;
    int alignBytes;
    bool isPointer;
};

QString ptxOf(const QString& source) {
    const CompileResult result = Program(source, QStringLiteral("ptx.cu"), ProgramOptions{})
                                     .compile(QStringLiteral("sm_90"));
    return result.ok ? result.ptx : QString();
}

} // namespace

} // namespace tst_ptxparser
Q_DECLARE_METATYPE(QVector<tst_ptxparser::Expected>)
namespace tst_ptxparser {
using Dims = std::array<int, 3>;
} // namespace tst_ptxparser
Q_DECLARE_METATYPE(tst_ptxparser::Dims)
namespace tst_ptxparser {

class TestPtxParser : public QObject {
    Q_OBJECT

private slots:
    void handWritten_data();
    void handWritten();
    void realPtxFromNvrtc();
    void realPtxStructAndManyKernels();
    void demangledNames_data();
    void demangledNames();
    void hostileInputNeverHangs_data();
    void hostileInputNeverHangs();
    void launchBoundsDirectives_data();
    void launchBoundsDirectives();
    void launchBoundsFromNvrtc();
};

void TestPtxParser::handWritten_data() {
    QTest::addColumn<QString>("ptx");
    QTest::addColumn<QString>("lowered");
    QTest::addColumn<QVector<Expected>>("params");

    QTest::newRow("pointer with .ptr .global .align")
        << ".visible .entry _Z1kPf(\n\t.param .u64 .ptr .global .align 1 "
           "_Z1kPf_param_0\n)\n{\n\tret;\n}\n"
        << "_Z1kPf" << QVector<Expected>{{".u64", 8, 8, true}};
    QTest::newRow("scalar float and plain u64 (not marked as pointer)")
        << ".visible .entry k(\n  .param .f32 k_param_0,\n  .param .u64 k_param_1\n)\n{ ret; }\n"
        << "k" << QVector<Expected>{{".f32", 4, 4, false}, {".u64", 8, 8, false}};
    QTest::newRow("struct by value: .align 4 .b8 [8]")
        << ".visible .entry s(\n\t.param .align 4 .b8 s_param_0[8],\n\t.param .u8 "
           "s_param_1\n)\n{}\n"
        << "s" << QVector<Expected>{{".b8", 8, 4, false}, {".u8", 1, 1, false}};
    QTest::newRow("array with spaces before the bracket")
        << ".entry a(.param .align 16 .b8 a_param_0 [ 32 ]) {}"
        << "a" << QVector<Expected>{{".b8", 32, 16, false}};
    QTest::newRow("no parameters") << ".visible .entry _Z4nonev()\n{\n\tret;\n}\n"
                                   << "_Z4nonev" << QVector<Expected>{};
    QTest::newRow("no parameter list at all") << ".entry bare\n{\n ret;\n}\n"
                                              << "bare" << QVector<Expected>{};
    QTest::newRow("comments, .func and a .file path are not entries")
        << "// .entry commented(\n/* .visible .entry blocked( .param .u32 x ) */\n"
           ".func (.param .b32 r) helper(.param .b32 p) { ret; }\n"
           ".weak .entry real(.param .s32 real_param_0, .param .f64 real_param_1) { ret; }\n"
           ".file 1 \"/tmp/a .entry b(/x.cu\"\n"
        << "real" << QVector<Expected>{{".s32", 4, 4, false}, {".f64", 8, 8, false}};
    QTest::newRow("half and 16-bit types")
        << ".entry h(.param .b16 h_param_0, .param .f16 h_param_1, .param .s16 h_param_2) {}"
        << "h"
        << QVector<Expected>{{".b16", 2, 2, false}, {".f16", 2, 2, false}, {".s16", 2, 2, false}};
    QTest::newRow("unknown type keeps the name, size 0")
        << ".entry u(.param .weird u_param_0) {}"
        << "u" << QVector<Expected>{{QString(), 0, 0, false}};
}

void TestPtxParser::handWritten() {
    QFETCH(QString, ptx);
    QFETCH(QString, lowered);
    QFETCH(QVector<Expected>, params);
    const QVector<KernelInfo> kernels = parsePtxEntries(ptx);
    QCOMPARE(kernels.size(), 1);
    const KernelInfo& kernel = kernels.first();
    QCOMPARE(kernel.lowered, lowered);
    QVERIFY(kernel.name.isEmpty()); // left for Program, which knows the name expressions
    QCOMPARE(kernel.params.size(), params.size());
    for (qsizetype i = 0; i < params.size(); ++i) {
        const PtxParam& p = kernel.params.at(i);
        QCOMPARE(p.ptxType, params.at(i).ptxType);
        QCOMPARE(p.sizeBytes, params.at(i).sizeBytes);
        QCOMPARE(p.alignBytes, params.at(i).alignBytes);
        QCOMPARE(p.isPointer, params.at(i).isPointer);
        QCOMPARE(p.name, QStringLiteral("%1_param_%2").arg(lowered).arg(i));
    }
}

void TestPtxParser::realPtxFromNvrtc() {
    const QString ptx = ptxOf("__global__ void saxpy(float a, const float* x, float* y, int n)\n"
                              "{ int i = threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }\n");
    QVERIFY(!ptx.isEmpty());
    const QVector<KernelInfo> kernels = parsePtxEntries(ptx);
    QCOMPARE(kernels.size(), 1);
    QCOMPARE(kernels.first().lowered, QStringLiteral("_Z5saxpyfPKfPfi"));
    const QVector<PtxParam>& params = kernels.first().params;
    QCOMPARE(params.size(), 4);
    QCOMPARE(params.at(0).sizeBytes, int(sizeof(float)));
    QCOMPARE(params.at(1).sizeBytes, int(sizeof(void*)));
    QCOMPARE(params.at(2).sizeBytes, int(sizeof(void*)));
    QCOMPARE(params.at(3).sizeBytes, int(sizeof(int)));
    QCOMPARE(params.at(3).name, QStringLiteral("_Z5saxpyfPKfPfi_param_3"));
}

void TestPtxParser::realPtxStructAndManyKernels() {
    const QString ptx = ptxOf(
        "struct alignas(16) Big { double v[3]; };\n"
        "struct Small { short a; char b; };\n"
        "__global__ void first(Big b, Small s, double* out) { out[0] = b.v[0] + s.a + s.b; }\n"
        "__device__ float helper(float x) { return x * 2; }\n"
        "__global__ void second() {}\n"
        "__global__ void third(char c, float* f) { f[0] = helper(c); }\n");
    QVERIFY(!ptx.isEmpty());
    const QVector<KernelInfo> kernels = parsePtxEntries(ptx);
    QCOMPARE(kernels.size(), 3);
    QCOMPARE(kernelDisplayName(kernels.at(0).lowered), QStringLiteral("first"));
    QCOMPARE(kernelDisplayName(kernels.at(1).lowered), QStringLiteral("second"));
    QCOMPARE(kernelDisplayName(kernels.at(2).lowered), QStringLiteral("third"));
    const QVector<PtxParam>& first = kernels.at(0).params;
    QCOMPARE(first.size(), 3);
    QCOMPARE(first.at(0).sizeBytes, 32); // sizeof(Big) with alignas(16)
    QCOMPARE(first.at(0).alignBytes, 16);
    QCOMPARE(first.at(1).sizeBytes, 4); // short + char, padded to alignof(short)
    QCOMPARE(first.at(1).alignBytes, 2);
    QVERIFY(kernels.at(1).params.isEmpty());
    QCOMPARE(kernels.at(2).params.at(0).sizeBytes, 1);
}

void TestPtxParser::demangledNames_data() {
    QTest::addColumn<QString>("lowered");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QStringList>("types");
    QTest::newRow("saxpy") << "_Z5saxpyfPKfPfi"
                           << "saxpy" << QStringList{"float", "float const*", "float*", "int"};
    QTest::newRow("template drops the return type")
        << "_Z10vector_addIfEvPKT_S2_PS0_m"
        << "vector_add<float>"
        << QStringList{"float const*", "float const*", "float*", "unsigned long"};
    QTest::newRow("namespace and two template arguments")
        << "_ZN2ns1kIjLi4EEEvPT_j"
        << "ns::k<unsigned int, 4>" << QStringList{"unsigned int*", "unsigned int"};
    QTest::newRow("no parameters") << "_Z4nonev"
                                   << "none" << QStringList{};
    QTest::newRow("extern C name is kept") << "plain_kernel"
                                           << "plain_kernel" << QStringList{};
    QTest::newRow("not really mangled") << "_Zgarbage"
                                        << "_Zgarbage" << QStringList{};
}

void TestPtxParser::demangledNames() {
    QFETCH(QString, lowered);
    QFETCH(QString, name);
    QFETCH(QStringList, types);
    QCOMPARE(kernelDisplayName(lowered), name);
    QCOMPARE(demangledParameterTypes(lowered), types);
}

void TestPtxParser::hostileInputNeverHangs_data() {
    QTest::addColumn<QString>("ptx");
    QTest::addColumn<int>("entries");
    QTest::newRow("empty") << QString() << 0;
    QTest::newRow(".entry at the very end") << ".visible .entry" << 0;
    QTest::newRow("name then end") << ".entry k" << 1;
    QTest::newRow("unclosed parameter list") << ".entry k(.param .u32 k_param_0, .param" << 1;
    QTest::newRow("unclosed comment") << "/* .entry k(" << 0;
    QTest::newRow("unclosed string") << ".file 1 \"abc .entry k(" << 0;
    QTest::newRow("bracket without close") << ".entry k(.param .b8 x[99999999999999999999" << 1;
    QTest::newRow("size overflow") << ".entry k(.param .b64 x[2147483647])" << 1;
    QTest::newRow("align without value") << ".entry k(.param .align)" << 1;
    QTest::newRow("many entries") << QString(".entry k()\n").repeated(5000) << 5000;
    QTest::newRow("one long line of parens") << ".entry k" + QString(100000, u'(') << 1;
    QTest::newRow("extern declaration is not a kernel") << ".extern .entry k(.param .u32 p);" << 0;
}

void TestPtxParser::hostileInputNeverHangs() {
    QFETCH(QString, ptx);
    QFETCH(int, entries);
    // A quadratic parser would run into ctest's time limit on the long rows; no clock here.
    const QVector<KernelInfo> kernels = parsePtxEntries(ptx);
    QCOMPARE(kernels.size(), entries);
    for (const KernelInfo& kernel : kernels) {
        for (const PtxParam& param : kernel.params)
            QVERIFY(param.sizeBytes >= 0 && param.alignBytes >= 0);
    }
}

void TestPtxParser::launchBoundsDirectives_data() {
    QTest::addColumn<QString>("ptx");
    QTest::addColumn<Dims>("maxntid");
    QTest::addColumn<Dims>("reqntid");
    const QString entry = QStringLiteral(".visible .entry k(\n\t.param .u64 k_param_0\n)\n");
    QTest::newRow("none") << entry + QStringLiteral("{\n\tret;\n}\n") << Dims{0, 0, 0}
                          << Dims{0, 0, 0};
    QTest::newRow("__launch_bounds__(256): maxntid 256, 1, 1")
        << entry + QStringLiteral(".maxntid 256, 1, 1\n{\n\tret;\n}\n") << Dims{256, 1, 1}
        << Dims{0, 0, 0};
    QTest::newRow("maxntid with x only")
        << entry + QStringLiteral(".maxntid 128\n{\n}\n") << Dims{128, 1, 1} << Dims{0, 0, 0};
    QTest::newRow("reqntid 32, 8 and minnctapersm")
        << entry + QStringLiteral(".reqntid 32, 8\n.minnctapersm 2\n{\n}\n") << Dims{0, 0, 0}
        << Dims{32, 8, 1};
    QTest::newRow("in a comment, not a directive")
        << entry + QStringLiteral("// .maxntid 64, 1, 1\n{\n}\n") << Dims{0, 0, 0} << Dims{0, 0, 0};
    QTest::newRow("in the body, not the entry's")
        << entry + QStringLiteral("{\n.maxntid 64\n}\n") << Dims{0, 0, 0} << Dims{0, 0, 0};
    QTest::newRow("malformed: no number")
        << entry + QStringLiteral(".maxntid ,\n{\n}\n") << Dims{0, 0, 0} << Dims{0, 0, 0};
    QTest::newRow("truncated after the directive")
        << entry + QStringLiteral(".maxntid 512, 2") << Dims{512, 2, 1} << Dims{0, 0, 0};
}

void TestPtxParser::launchBoundsDirectives() {
    QFETCH(QString, ptx);
    QFETCH(Dims, maxntid);
    QFETCH(Dims, reqntid);
    const QVector<KernelInfo> kernels = parsePtxEntries(ptx);
    QCOMPARE(kernels.size(), 1);
    QCOMPARE(kernels.first().maxntid, maxntid);
    QCOMPARE(kernels.first().reqntid, reqntid);
    // Survives the trip to the runner and back.
    QString error;
    const std::optional<KernelInfo> back = KernelInfo::fromJson(kernels.first().toJson(), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->maxntid, maxntid);
    QCOMPARE(back->reqntid, reqntid);
}

void TestPtxParser::launchBoundsFromNvrtc() {
    const QString ptx =
        ptxOf("__global__ void __launch_bounds__(256) bounded(float* x) { x[threadIdx.x] = 1; }\n"
              "__global__ void free_(float* x) { x[threadIdx.x] = 2; }\n");
    QVERIFY(!ptx.isEmpty());
    const QVector<KernelInfo> kernels = parsePtxEntries(ptx);
    QCOMPARE(kernels.size(), 2);
    for (const KernelInfo& k : kernels) {
        if (k.lowered.contains(QStringLiteral("bounded")))
            QCOMPARE(k.maxntid, (Dims{256, 1, 1}));
        else
            QCOMPARE(k.maxntid, (Dims{0, 0, 0}));
    }
}

KERNELPAD_TEST_GUILESS_MAIN(TestPtxParser)
} // namespace tst_ptxparser
#include "tst_ptxparser.moc"
