// The argument table against the compiled kernel's instantiated signature:
// after recompiling vector_add<double>, float32 buffers are named with the reason, and the
// update keeps everything but the types.

#include "../support/TestMain.h"
#include "../support/TestProjects.h"
#include "core/compile/KernelTypeCheck.h"

#include <QTest>

namespace tst_kerneltypecheck {

using namespace kernelpad;
using namespace kernelpad::test;

namespace {

KernelInfo kernelNamed(const QString& name, const QString& lowered) {
    KernelInfo k;
    k.name = name;
    k.lowered = lowered;
    return k;
}

/// A, B (in), C (out) float32 buffers of n elements and the int32 n, as vector_add<float> had.
QVector<ArgumentSpec> vectorAddArguments() {
    ArgumentSpec a = buffer(QStringLiteral("A"), QStringLiteral("n"), Direction::In);
    a.buffer.init.kind = InitSpec::Kind::Uniform;
    a.buffer.init.seed = 7;
    ArgumentSpec b = buffer(QStringLiteral("B"), QStringLiteral("n"), Direction::In);
    ArgumentSpec c = buffer(QStringLiteral("C"), QStringLiteral("n"), Direction::Out);
    c.buffer.verify.kind = VerifySpec::Kind::Expression;
    c.buffer.verify.expression = QStringLiteral("A+B");
    return {a, b, c, scalar(QStringLiteral("n"), ScalarType::Int32, QStringLiteral("4096"))};
}

} // namespace

class TestKernelTypeCheck : public QObject {
    Q_OBJECT
private slots:
    void mismatches_data();
    void mismatches();
    void updateKeepsValues();
    void structsMatchByName();
};

void TestKernelTypeCheck::mismatches_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("lowered");
    QTest::addColumn<QString>("expected"); ///< "index:message" joined by '|'

    QTest::newRow("vector_add<double> with float32 buffers")
        << "vector_add<double>"
        << "_Z10vector_addIdEvPKT_S2_PS0_i"
        << "0:A is float32 but vector_add<double> takes double const*|"
           "1:B is float32 but vector_add<double> takes double const*|"
           "2:C is float32 but vector_add<double> takes double*";
    QTest::newRow("vector_add<float> matches") << "vector_add<float>"
                                               << "_Z10vector_addIfEvPKT_S2_PS0_i" << QString();
    QTest::newRow("extern C keeps no types: nothing to judge") << "vector_add"
                                                               << "vector_add" << QString();
    QTest::newRow("a value where a buffer is")
        << "scale<double>"
        << "_Z5scaleIdEvT_PS0_i"
        << "0:A is a buffer of float32 but scale<double> takes double, a value|"
           "1:B is float32 but scale<double> takes double*|"
           "2:C is float32 but scale<double> takes int";
}

void TestKernelTypeCheck::mismatches() {
    QFETCH(QString, name);
    QFETCH(QString, lowered);
    QFETCH(QString, expected);
    QVector<ArgumentSpec> args = vectorAddArguments();
    if (name.startsWith(QLatin1String("scale"))) {
        // scale(T a, T* x, int n) against A (buffer), B (buffer), C as a float32 scalar.
        args.resize(3);
        args[2] = scalar(QStringLiteral("C"), ScalarType::Float32, QStringLiteral("1"));
    }
    const QVector<ArgumentTypeMismatch> found =
        argumentTypeMismatches(args, kernelNamed(name, lowered));
    QStringList parts;
    for (const ArgumentTypeMismatch& m : found)
        parts << QStringLiteral("%1:%2").arg(m.index).arg(m.message);
    QCOMPARE(parts.join(QLatin1Char('|')), expected);
}

void TestKernelTypeCheck::updateKeepsValues() {
    const QVector<ArgumentSpec> before = vectorAddArguments();
    const KernelInfo kernel = kernelNamed(QStringLiteral("vector_add<double>"),
                                          QStringLiteral("_Z10vector_addIdEvPKT_S2_PS0_i"));
    const QVector<ArgumentTypeMismatch> found = argumentTypeMismatches(before, kernel);
    QCOMPARE(found.size(), 3);
    const QVector<ArgumentSpec> after = withKernelTypes(before, found);
    QCOMPARE(describe(after), QStringLiteral("A:buffer:float64:in,B:buffer:float64:in,"
                                             "C:buffer:float64:out,n:scalar:int32"));
    // Everything but the element type is as it was.
    for (int i = 0; i < before.size(); ++i) {
        ArgumentSpec expected = before.at(i);
        if (expected.isBuffer())
            expected.buffer.elementType = ValueType::of(ScalarType::Float64);
        QCOMPARE(after.at(i).toJson(), expected.toJson());
    }
    QVERIFY(argumentTypeMismatches(after, kernel).isEmpty());
}

void TestKernelTypeCheck::structsMatchByName() {
    StructType particle;
    particle.name = QStringLiteral("Particle");
    particle.fields << StructField{QStringLiteral("x"), ScalarType::Float32, 3};
    ArgumentSpec p = buffer(QStringLiteral("p"), QStringLiteral("n"), Direction::InOut);
    const ArgumentSpec n = scalar(QStringLiteral("n"), ScalarType::Int32, QStringLiteral("64"));
    const KernelInfo move =
        kernelNamed(QStringLiteral("move"), QStringLiteral("_Z4moveP8Particlei"));

    // float32 elements where the kernel takes Particle*: known from the source's structs.
    QVector<ArgumentTypeMismatch> found = argumentTypeMismatches({p, n}, move, {particle});
    QCOMPARE(found.size(), 1);
    QVERIFY(found.first().expected && found.first().expected->isStruct());
    const QVector<ArgumentSpec> fixed = withKernelTypes({p, n}, found);
    QCOMPARE(fixed.first().buffer.elementType.structType.name, QStringLiteral("Particle"));
    QVERIFY(argumentTypeMismatches(fixed, move, {particle}).isEmpty());

    // Without the source's structs, a type the table does not know is not judged.
    QVERIFY(argumentTypeMismatches({p, n}, move).isEmpty());
    // void* takes any buffer, but not a value.
    const KernelInfo fill = kernelNamed(QStringLiteral("fill"), QStringLiteral("_Z4fillPvi"));
    QVERIFY(argumentTypeMismatches({p, n}, fill).isEmpty());
    found = argumentTypeMismatches({n, n}, fill);
    QCOMPARE(found.size(), 1);
    QCOMPARE(found.first().message,
             QStringLiteral("n is a value (int32) but fill takes void*, a pointer to a buffer"));
    QVERIFY(found.first().takesPointer && !found.first().expected);
    QCOMPARE(withKernelTypes({n, n}, found).first().isBuffer(), true);
}

KERNELPAD_TEST_MAIN(TestKernelTypeCheck)
} // namespace tst_kerneltypecheck
#include "tst_kerneltypecheck.moc"
