// Kernel signatures read from source text: parameters, structs, and the argument list the
// table and `kernelpad-cli init` start from.

#include "../support/TestMain.h"
#include "../support/TestProjects.h"
#include "core/compile/KernelSignature.h"

#include <QTest>

namespace tst_kernelsignature {

using namespace kernelpad;
using namespace kernelpad::test;
using kernelpad::test::describe; // overloads this file's describe(KernelSignature)

namespace {

/// "const float* x -> x:float:ptr:const" for every parameter.
QString describe(const KernelSignature& signature) {
    QStringList parts;
    for (const KernelParameter& p : signature.params) {
        QString s = QStringLiteral("%1:%2").arg(p.name, p.baseType);
        if (p.isPointer)
            s += QStringLiteral(":ptr");
        if (p.isConst)
            s += QStringLiteral(":const");
        parts << s;
    }
    return parts.join(QLatin1Char(','));
}

} // namespace

class TestKernelSignature : public QObject {
    Q_OBJECT
private slots:
    void find_data();
    void find();
    void kernelNames_data();
    void kernelNames();
    void structs();
    void argumentsForKernel_data();
    void argumentsForKernel();
    void argumentsKeepSettingsAcrossRenameAndReorder();
    void argumentsFromSourceAloneSizeBuffersByN();
};

void TestKernelSignature::find_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("kernel");
    QTest::addColumn<QString>("expected"); ///< "-" when not found

    QTest::newRow("saxpy-with-launch-bounds-and-commented-decoy")
        << QString::fromLatin1(kSaxpySource) << "saxpy"
        << "a:float,x:float:ptr:const,y:float:ptr,n:int";
    QTest::newRow("template-name-expression-matches-base-name")
        << "template <typename T>\n__global__ void scale(T* data, T factor, size_t n) {}"
        << "scale<double>"
        << "data:T:ptr,factor:T,n:size_t";
    QTest::newRow("definition-preferred-over-unnamed-declaration")
        << "__global__ void k(float*, int);\n__global__ void k(float* out, int n) {}"
        << "k"
        << "out:float:ptr,n:int";
    QTest::newRow("const-pointer-is-not-a-const-pointee")
        << "__global__ void k(float* const out, float const* in) {}"
        << "k"
        << "out:float:ptr,in:float:ptr:const";
    QTest::newRow("array-parameter-decays-to-pointer")
        << "__global__ void k(int v[16], unsigned int count) {}"
        << "k"
        << "v:int:ptr,count:unsigned int";
    QTest::newRow("void-parameter-list") << "__global__ void k(void) {}"
                                         << "k"
                                         << "";
    QTest::newRow("commented-out-kernel-is-not-found")
        << "// __global__ void gone(int n) {}\n__global__ void here() {}"
        << "gone"
        << "-";
    QTest::newRow("unbalanced-parameter-list") << "__global__ void k(int n"
                                               << "k"
                                               << "-";
}

void TestKernelSignature::find() {
    QFETCH(QString, source);
    QFETCH(QString, kernel);
    QFETCH(QString, expected);
    const std::optional<KernelSignature> signature = KernelSignature::find(source, kernel);
    if (expected == QLatin1String("-")) {
        QVERIFY(!signature);
        return;
    }
    QVERIFY(signature);
    QCOMPARE(describe(*signature), expected);
}

void TestKernelSignature::kernelNames_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("saxpy-only-the-live-kernel")
        << QString::fromLatin1(kSaxpySource) << QStringList{"saxpy"};
    QTest::newRow("declaration-and-definition-listed-once")
        << "__global__ void b(int);\n__global__ void a() {}\n__global__ void b(int n) {}"
        << QStringList{"b", "a"};
    QTest::newRow("no-kernel") << "__device__ int f(int x) { return x; }" << QStringList{};
}

void TestKernelSignature::kernelNames() {
    QFETCH(QString, source);
    QFETCH(QStringList, expected);
    QCOMPARE(KernelSignature::kernelNames(source), expected);
}

void TestKernelSignature::structs() {
    const QVector<StructType> structs =
        parseStructs(QStringLiteral("struct Params { float dt; int steps, flags; };\n"
                                    "typedef struct { double pos[3]; float mass; } Particle;\n"
                                    "struct Node { Node* next; };\n"));
    QCOMPARE(structs.size(), 2); // Node has a pointer field: not a simple struct
    QCOMPARE(structs.at(0).name, QStringLiteral("Params"));
    QCOMPARE(structs.at(0).fields.size(), 3);
    QCOMPARE(structs.at(1).name, QStringLiteral("Particle"));
    QCOMPARE(structs.at(1).fields.at(0).count, 3);
}

void TestKernelSignature::argumentsForKernel_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<KernelInfo>("kernel");
    QTest::addColumn<QString>("expected");

    QTest::newRow("saxpy-names-and-types-from-source")
        << QString::fromLatin1(kSaxpySource) << saxpyKernel()
        << QStringLiteral("a:scalar:float32,x:buffer:float32:in,y:buffer:float32:inout,"
                          "n:scalar:int32");

    QTest::newRow("unparsable-source-falls-back-to-ptx")
        << QStringLiteral("#define K(x) x\nK(__global__ void saxpy)") << saxpyKernel()
        << QStringLiteral("arg0:scalar:float32,arg1:buffer:float32:inout,"
                          "arg2:buffer:float32:inout,arg3:scalar:uint32");

    KernelInfo particles;
    particles.name = QStringLiteral("step");
    particles.params = {ptx(".b8", 12), ptx(".u64", 8, true), ptx(".u64", 8, true)};
    QTest::newRow("structs-defined-in-source")
        << QStringLiteral("struct Params { float dt; int steps, flags; };\n"
                          "typedef struct { double pos[3]; float mass; } Particle;\n"
                          "__global__ void step(const Params p, Particle* ps, unsigned int* hits)"
                          " {}\n")
        << particles
        << QStringLiteral("p:scalar:Params,ps:buffer:Particle:inout,hits:buffer:uint32:inout");

    KernelInfo templ;
    templ.name = QStringLiteral("scale<double>");
    templ.params = {ptx(".u64", 8, true), ptx(".f64", 8), ptx(".u64", 8)};
    QTest::newRow("template-name-expression")
        << QStringLiteral("template <typename T>\n__global__ void scale(T* data, T factor, "
                          "size_t n) {}\n")
        << templ
        << QStringLiteral("data:buffer:float32:inout,factor:scalar:float64,n:scalar:uint64");

    KernelInfo lowPrecision;
    lowPrecision.name = QStringLiteral("q");
    QTest::newRow("low-precision-spellings")
        << QStringLiteral("__global__ void q(const __nv_bfloat16* x, __nv_fp8_e4m3* y, "
                          "nv_bfloat16 s, __nv_fp4x2_e2m1* p, const __nv_fp8_e5m2 t) {}\n")
        << lowPrecision
        << QStringLiteral("x:buffer:bfloat16:in,y:buffer:float8_e4m3:inout,s:scalar:bfloat16,"
                          "p:buffer:float4_e2m1x2:inout,t:scalar:float8_e5m2");

    KernelInfo uncompiled;
    uncompiled.name = QStringLiteral("saxpy");
    QTest::newRow("not-compiled-yet-source-alone")
        << QString::fromLatin1(kSaxpySource) << uncompiled
        << QStringLiteral("a:scalar:float32,x:buffer:float32:in,y:buffer:float32:inout,"
                          "n:scalar:int32");
}

void TestKernelSignature::argumentsForKernel() {
    QFETCH(QString, source);
    QFETCH(KernelInfo, kernel);
    QFETCH(QString, expected);
    const QVector<ArgumentSpec> args = kernelpad::argumentsForKernel(kernel, source, {});
    QCOMPARE(describe(args), expected);
    // Fed back as the previous arguments, nothing changes.
    const QVector<ArgumentSpec> again = kernelpad::argumentsForKernel(kernel, source, args);
    QCOMPARE(again.size(), args.size());
    for (int i = 0; i < args.size(); ++i)
        QCOMPARE(again.at(i).toJson(), args.at(i).toJson());
}

void TestKernelSignature::argumentsKeepSettingsAcrossRenameAndReorder() {
    ArgumentSpec x;
    x.name = QStringLiteral("x");
    x.kind = ArgumentSpec::Kind::Buffer;
    x.buffer.init.kind = InitSpec::Kind::Uniform;
    x.buffer.init.seed = 42;
    ArgumentSpec n;
    n.name = QStringLiteral("n");
    n.type = ValueType::of(ScalarType::Int32);
    n.value = QStringLiteral("4096");
    // The author renamed a -> alpha and moved n to the front.
    const QString source =
        QStringLiteral("__global__ void saxpy(int n, float alpha, const float* x, float* y) {}");
    KernelInfo k = saxpyKernel();
    k.params = {ptx(".u32", 4), ptx(".f32", 4), ptx(".u64", 8, true), ptx(".u64", 8, true)};
    const QVector<ArgumentSpec> args = kernelpad::argumentsForKernel(k, source, {x, n});
    QCOMPARE(describe(args), QStringLiteral("n:scalar:int32,alpha:scalar:float32,"
                                            "x:buffer:float32:in,y:buffer:float32:inout"));
    QCOMPARE(args.at(0).value, QStringLiteral("4096"));
    QCOMPARE(args.at(2).buffer.init.seed, quint64(42));
    QCOMPARE(args.at(2).buffer.count, QStringLiteral("1")); // kept, not re-sized
    QCOMPARE(args.at(3).buffer.count, QStringLiteral("n")); // new: sized by n
}

void TestKernelSignature::argumentsFromSourceAloneSizeBuffersByN() {
    KernelInfo k;
    k.name = QStringLiteral("saxpy");
    const QVector<ArgumentSpec> args =
        kernelpad::argumentsForKernel(k, QString::fromLatin1(kSaxpySource), {});
    QCOMPARE(args.size(), 4);
    QCOMPARE(args.at(0).value, QStringLiteral("1"));    // float scalar
    QCOMPARE(args.at(3).value, QStringLiteral("1024")); // integer scalar: a size
    QCOMPARE(args.at(1).buffer.count, QStringLiteral("n"));
    QCOMPARE(args.at(2).buffer.count, QStringLiteral("n"));
    QCOMPARE(args.at(1).buffer.init.kind, InitSpec::Kind::Uniform);
}

KERNELPAD_TEST_GUILESS_MAIN(TestKernelSignature)
} // namespace tst_kernelsignature
#include "tst_kernelsignature.moc"
