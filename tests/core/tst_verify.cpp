// Verification maths: compareBuffers for every kind of element, evaluateExpression over
// muParser, doublesToBytes.

#include "../support/TestMain.h"
#include "core/verify/Verify.h"

#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>

namespace tst_verify {

using namespace kernelpad;

namespace {

template <typename T> QByteArray bytesOf(std::initializer_list<T> values) {
    QByteArray bytes(qsizetype(values.size() * sizeof(T)), '\0');
    std::memcpy(bytes.data(), values.begin(), size_t(bytes.size()));
    return bytes;
}

QByteArray poisonBytes(int n) {
    return QByteArray(n, char(kPoisonByte));
}

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

/// struct Pair { int a; float b; } : 8 bytes, natural alignment.
ValueType pairType() {
    StructType s;
    s.name = QStringLiteral("Pair");
    s.fields = {StructField{QStringLiteral("a"), ScalarType::Int32, 1},
                StructField{QStringLiteral("b"), ScalarType::Float32, 1}};
    return ValueType::ofStruct(s);
}

QByteArray pairBytes(qint32 a, float b) {
    QByteArray bytes(8, '\0');
    std::memcpy(bytes.data(), &a, 4);
    std::memcpy(bytes.data() + 4, &b, 4);
    return bytes;
}

} // namespace

class TestVerify : public QObject {
    Q_OBJECT

private slots:
    void compare_data();
    void compare();
    void errorMaximaSkipUnwritten();
    void firstMismatchesOrderAndLimit();
    void sizeAndToleranceErrors();
    void largeBufferFindsTheOneMismatch();

    void expressionSaxpy();
    void expressionIndexAcrossChunks();
    void expressionInputTypes();
    void expressionErrors_data();
    void expressionErrors();
    void expressionUnusedShortBufferIsFine();
    void expressionLargeEveryElement();

    void doublesToBytes_data();
    void doublesToBytes();
};

void TestVerify::compare_data() {
    QTest::addColumn<ValueType>("type");
    QTest::addColumn<QByteArray>("got");
    QTest::addColumn<QByteArray>("expected");
    QTest::addColumn<double>("atol");
    QTest::addColumn<double>("rtol");
    QTest::addColumn<qint64>("checked");
    QTest::addColumn<qint64>("mismatches");
    QTest::addColumn<qint64>("nanCount");
    QTest::addColumn<qint64>("unwritten");

    const ValueType f32 = ValueType::of(ScalarType::Float32);
    const ValueType f64 = ValueType::of(ScalarType::Float64);
    const ValueType i32 = ValueType::of(ScalarType::Int32);
    const ValueType i64 = ValueType::of(ScalarType::Int64);
    const ValueType u8 = ValueType::of(ScalarType::UInt8);
    const ValueType u64 = ValueType::of(ScalarType::UInt64);
    const ValueType c64 = ValueType::of(ScalarType::Complex64);
    const ValueType c128 = ValueType::of(ScalarType::Complex128);
    const ValueType f16 = ValueType::of(ScalarType::Float16);
    const ValueType boolean = ValueType::of(ScalarType::Bool);
    const qint64 big = qint64(1) << 53; // beyond it doubles skip odd integers

    QTest::newRow("float32 exact match")
        << f32 << bytesOf<float>({1, 2, 3}) << bytesOf<float>({1, 2, 3}) << 0.0 << 0.0 << qint64(3)
        << qint64(0) << qint64(0) << qint64(0);
    QTest::newRow("float32 within atol")
        << f32 << bytesOf<float>({1.0f, 2.0000005f}) << bytesOf<float>({1, 2}) << 1e-6 << 0.0
        << qint64(2) << qint64(0) << qint64(0) << qint64(0);
    QTest::newRow("float32 outside atol")
        << f32 << bytesOf<float>({1.0f, 2.001f}) << bytesOf<float>({1, 2}) << 1e-6 << 0.0
        << qint64(2) << qint64(1) << qint64(0) << qint64(0);
    QTest::newRow("float64 within rtol")
        << f64 << bytesOf<double>({1000.001}) << bytesOf<double>({1000}) << 0.0 << 1e-5 << qint64(1)
        << qint64(0) << qint64(0) << qint64(0);
    QTest::newRow("float64 outside rtol")
        << f64 << bytesOf<double>({1000.1}) << bytesOf<double>({1000}) << 0.0 << 1e-5 << qint64(1)
        << qint64(1) << qint64(0) << qint64(0);
    QTest::newRow("NaN got, finite expected")
        << f64 << bytesOf<double>({kNan, 1}) << bytesOf<double>({0, 1}) << 1e-6 << 1e-5 << qint64(2)
        << qint64(1) << qint64(1) << qint64(0);
    QTest::newRow("NaN both is a match")
        << f32 << bytesOf<float>({float(kNan)}) << bytesOf<float>({float(kNan)}) << 1e-6 << 1e-5
        << qint64(1) << qint64(0) << qint64(0) << qint64(0);
    QTest::newRow("finite got, NaN expected")
        << f32 << bytesOf<float>({1}) << bytesOf<float>({float(kNan)}) << 1e-6 << 1e-5 << qint64(1)
        << qint64(1) << qint64(0) << qint64(0);
    QTest::newRow("equal infinities")
        << f64 << bytesOf<double>({kInf, -kInf}) << bytesOf<double>({kInf, -kInf}) << 1e-6 << 1e-5
        << qint64(2) << qint64(0) << qint64(0) << qint64(0);
    QTest::newRow("infinity vs finite, huge rtol")
        << f64 << bytesOf<double>({1e300}) << bytesOf<double>({kInf}) << 1.0 << 1.0 << qint64(1)
        << qint64(1) << qint64(0) << qint64(0);
    QTest::newRow("unwritten float32")
        << f32 << (bytesOf<float>({1}) + poisonBytes(4)) << bytesOf<float>({1, 2}) << 1e-6 << 1e-5
        << qint64(2) << qint64(1) << qint64(0) << qint64(1);
    QTest::newRow("unwritten complex64")
        << c64 << poisonBytes(8) << bytesOf<float>({0, 0}) << 1e-6 << 1e-5 << qint64(2) << qint64(1)
        << qint64(0) << qint64(1);
    QTest::newRow("uint8 written as 165 equals poison")
        << u8 << poisonBytes(1) << poisonBytes(1) << 0.0 << 0.0 << qint64(1) << qint64(0)
        << qint64(0) << qint64(0);
    QTest::newRow("int32 off by one, exact")
        << i32 << bytesOf<qint32>({7, -3}) << bytesOf<qint32>({7, -2}) << 0.0 << 0.0 << qint64(2)
        << qint64(1) << qint64(0) << qint64(0);
    QTest::newRow("int32 off by one within atol 1")
        << i32 << bytesOf<qint32>({7, -3}) << bytesOf<qint32>({7, -2}) << 1.0 << 0.0 << qint64(2)
        << qint64(0) << qint64(0) << qint64(0);
    QTest::newRow("int64 above 2^53 compared exactly")
        << i64 << bytesOf<qint64>({big + 1}) << bytesOf<qint64>({big}) << 0.0 << 0.0 << qint64(1)
        << qint64(1) << qint64(0) << qint64(0);
    QTest::newRow("uint64 max") << u64 << bytesOf<quint64>({~quint64(0)})
                                << bytesOf<quint64>({~quint64(0)}) << 0.0 << 0.0 << qint64(1)
                                << qint64(0) << qint64(0) << qint64(0);
    QTest::newRow("bool: any non-zero byte is true")
        << boolean << bytesOf<quint8>({2, 0}) << bytesOf<quint8>({1, 0}) << 0.0 << 0.0 << qint64(2)
        << qint64(0) << qint64(0) << qint64(0);
    QTest::newRow("complex64 imaginary part off")
        << c64 << bytesOf<float>({1, 2, 3, 4}) << bytesOf<float>({1, 2, 3, 4.5f}) << 1e-6 << 1e-5
        << qint64(4) << qint64(1) << qint64(0) << qint64(0);
    QTest::newRow("complex128 match")
        << c128 << bytesOf<double>({1, -2}) << bytesOf<double>({1, -2}) << 0.0 << 0.0 << qint64(2)
        << qint64(0) << qint64(0) << qint64(0);
    // 0x3C00 is 1.0, 0x3C01 is 1 + 2^-10 = 1.0009765625.
    QTest::newRow("float16 within atol")
        << f16 << bytesOf<quint16>({0x3C00}) << bytesOf<quint16>({0x3C01}) << 1e-3 << 0.0
        << qint64(1) << qint64(0) << qint64(0) << qint64(0);
    QTest::newRow("float16 outside atol")
        << f16 << bytesOf<quint16>({0x3C00}) << bytesOf<quint16>({0x3C01}) << 1e-4 << 0.0
        << qint64(1) << qint64(1) << qint64(0) << qint64(0);
    QTest::newRow("float16 NaN got")
        << f16 << bytesOf<quint16>({0x7E00}) << bytesOf<quint16>({0x3C00}) << 1e-3 << 0.0
        << qint64(1) << qint64(1) << qint64(1) << qint64(0);
    QTest::newRow("struct within tolerance")
        << pairType() << pairBytes(5, 2.5f) << pairBytes(5, 2.5000002f) << 1e-6 << 0.0 << qint64(2)
        << qint64(0) << qint64(0) << qint64(0);
    QTest::newRow("struct int field differs")
        << pairType() << (pairBytes(5, 2.5f) + pairBytes(6, 1.0f))
        << (pairBytes(5, 2.5f) + pairBytes(7, 1.0f)) << 0.0 << 0.0 << qint64(4) << qint64(1)
        << qint64(0) << qint64(0);
    QTest::newRow("struct unwritten") << pairType() << poisonBytes(8) << pairBytes(1, 1.0f) << 1e-6
                                      << 1e-5 << qint64(2) << qint64(1) << qint64(0) << qint64(1);
}

void TestVerify::compare() {
    QFETCH(ValueType, type);
    QFETCH(QByteArray, got);
    QFETCH(QByteArray, expected);
    QFETCH(double, atol);
    QFETCH(double, rtol);
    QFETCH(qint64, checked);
    QFETCH(qint64, mismatches);
    QFETCH(qint64, nanCount);
    QFETCH(qint64, unwritten);

    const qint64 count = expected.size() / type.sizeBytes();
    const BufferVerification r = compareBuffers(type, got, expected, count, atol, rtol);
    QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
    QCOMPARE(r.checked, checked);
    QCOMPARE(r.mismatches, mismatches);
    QCOMPARE(r.nanCount, nanCount);
    QCOMPARE(r.unwritten, unwritten);
    QCOMPARE(r.passed, mismatches == 0);
    QCOMPARE(r.firstMismatches.size(), qsizetype(mismatches));
}

void TestVerify::errorMaximaSkipUnwritten() {
    // Errors 0.5 (rel 0.5), 2 (rel 0.25), and an unwritten element that must not count.
    const QByteArray got = bytesOf<double>({1.5, 10}) + poisonBytes(8);
    const QByteArray expected = bytesOf<double>({1, 8, 1e6});
    const BufferVerification r =
        compareBuffers(ValueType::of(ScalarType::Float64), got, expected, 3, 0.0, 0.0);
    QCOMPARE(r.maxAbsError, 2.0);
    QCOMPARE(r.maxRelError, 0.5);
    QCOMPARE(r.mismatches, qint64(3));
    QCOMPARE(r.unwritten, qint64(1));
    QCOMPARE(r.firstMismatches.at(2).index, qint64(2));
    QCOMPARE(r.firstMismatches.at(2).expected, 1e6);
    QVERIFY(!r.passed);
}

void TestVerify::firstMismatchesOrderAndLimit() {
    const int n = 100;
    QVector<float> got(n), expected(n);
    for (int k = 0; k < n; ++k) {
        expected[k] = float(k);
        got[k] = k % 3 == 0 ? float(k) + 1 : float(k); // 34 mismatches: 0, 3, ..., 99
    }
    const QByteArray g(reinterpret_cast<const char*>(got.constData()), n * 4);
    const QByteArray e(reinterpret_cast<const char*>(expected.constData()), n * 4);
    const BufferVerification r =
        compareBuffers(ValueType::of(ScalarType::Float32), g, e, n, 1e-6, 1e-5);
    QCOMPARE(r.mismatches, qint64(34));
    QCOMPARE(r.firstMismatches.size(), qsizetype(kMaxReportedMismatches));
    for (int m = 0; m < r.firstMismatches.size(); ++m) {
        QCOMPARE(r.firstMismatches[m].index, qint64(3 * m));
        QCOMPARE(r.firstMismatches[m].got, double(3 * m + 1));
        QCOMPARE(r.firstMismatches[m].expected, double(3 * m));
    }
}

void TestVerify::sizeAndToleranceErrors() {
    const ValueType f32 = ValueType::of(ScalarType::Float32);
    const QByteArray four = bytesOf<float>({1, 2, 3, 4});
    BufferVerification r = compareBuffers(f32, four.left(8), four, 4, 0, 0);
    QVERIFY(!r.passed);
    QVERIFY2(r.error.contains(QLatin1String("output")), qPrintable(r.error));
    r = compareBuffers(f32, four, four.left(12), 4, 0, 0);
    QVERIFY(!r.passed);
    QVERIFY2(r.error.contains(QLatin1String("expected")), qPrintable(r.error));
    r = compareBuffers(f32, four, four, 4, -1, 0);
    QVERIFY(!r.passed);
    QVERIFY2(r.error.contains(QLatin1String("tolerance")), qPrintable(r.error));
    r = compareBuffers(f32, QByteArray(), QByteArray(), 0, 0, 0);
    QVERIFY(r.passed);
    QCOMPARE(r.checked, qint64(0));
}

// Its speed is bench/verify's (verify_bench).
void TestVerify::largeBufferFindsTheOneMismatch() {
    const qint64 n = 16 << 20;
    QByteArray got(n * 4, Qt::Uninitialized);
    float* p = reinterpret_cast<float*>(got.data());
    for (qint64 k = 0; k < n; ++k)
        p[k] = float(k % 1000) * 0.5f;
    QByteArray expected = got;
    reinterpret_cast<float*>(expected.data())[n - 1] += 1.0f;

    const BufferVerification r =
        compareBuffers(ValueType::of(ScalarType::Float32), got, expected, n, 1e-6, 1e-5);
    QCOMPARE(r.checked, n);
    QCOMPARE(r.mismatches, qint64(1));
    QCOMPARE(r.firstMismatches.value(0).index, n - 1);
}

void TestVerify::expressionSaxpy() {
    const qint64 n = 1000;
    QVector<float> x(n), y(n);
    for (qint64 k = 0; k < n; ++k) {
        x[k] = float(k) * 0.5f;
        y[k] = float(n - k);
    }
    const QByteArray xb(reinterpret_cast<const char*>(x.constData()), n * 4);
    const QByteArray yb(reinterpret_cast<const char*>(y.constData()), n * 4);
    const ValueType f32 = ValueType::of(ScalarType::Float32);
    QString error;
    const auto values = evaluateExpression(
        QStringLiteral("a*x+y"), n, {{QStringLiteral("a"), 2.5}, {QStringLiteral("n"), double(n)}},
        {{QStringLiteral("x"), ExpressionInput{f32, &xb, n}},
         {QStringLiteral("y"), ExpressionInput{f32, &yb, n}}},
        &error);
    QVERIFY2(values, qPrintable(error));
    QCOMPARE(values->size(), n);
    for (qint64 k = 0; k < n; ++k) {
        const double want = 2.5 * double(x[k]) + double(y[k]);
        QVERIFY2(
            std::abs(values->at(k) - want) <= 1e-12 * std::abs(want),
            qPrintable(QStringLiteral("element %1: %2 vs %3").arg(k).arg(values->at(k)).arg(want)));
    }
}

void TestVerify::expressionIndexAcrossChunks() {
    // Many chunks, not a multiple of the chunk size, shared out between threads.
    const qint64 n = 1000003;
    QString error;
    const auto values = evaluateExpression(QStringLiteral("i*2+1"), n, {}, {}, &error);
    QVERIFY2(values, qPrintable(error));
    for (qint64 k = 0; k < n; ++k)
        if (values->at(k) != double(2 * k + 1))
            QFAIL(qPrintable(QStringLiteral("element %1 is %2").arg(k).arg(values->at(k))));
}

void TestVerify::expressionInputTypes() {
    const QByteArray ints = bytesOf<qint32>({-2, 5, 7});
    const QByteArray halves = bytesOf<quint16>({0x3C00, 0x4000, 0x3800}); // 1, 2, 0.5
    const QByteArray complexes = bytesOf<double>({3, 100, 4, 100, 5, 100});
    QString error;
    const auto values = evaluateExpression(
        QStringLiteral("p*h+c"), 3, {},
        {{QStringLiteral("p"), ExpressionInput{ValueType::of(ScalarType::Int32), &ints, 3}},
         {QStringLiteral("h"), ExpressionInput{ValueType::of(ScalarType::Float16), &halves, 3}},
         {QStringLiteral("c"),
          ExpressionInput{ValueType::of(ScalarType::Complex128), &complexes, 3}}},
        &error);
    QVERIFY2(values, qPrintable(error));
    QCOMPARE(*values, (QVector<double>{-2 * 1.0 + 3, 5 * 2.0 + 4, 7 * 0.5 + 5}));
}

void TestVerify::expressionErrors_data() {
    QTest::addColumn<QString>("expression");
    QTest::addColumn<QString>("message"); // exact when it starts with '=', else a substring

    QTest::newRow("unknown name") << "a*z"
                                  << "=unknown name 'z' in expression 'a*z'; known: a, n, x, y, i";
    QTest::newRow("two unknown names") << "q+w*x"
                                       << "unknown names 'q', 'w'";
    QTest::newRow("syntax error has position") << "a*x+"
                                               << "position";
    QTest::newRow("missing parenthesis has position") << "a*(x+y"
                                                      << "position";
    QTest::newRow("short buffer") << "x+s"
                                  << "'s' has 10 elements";
    QTest::newRow("empty") << "  "
                           << "empty";
}

void TestVerify::expressionErrors() {
    QFETCH(QString, expression);
    QFETCH(QString, message);
    const ValueType f32 = ValueType::of(ScalarType::Float32);
    const QByteArray full(100 * 4, '\0');
    const QByteArray shortData(10 * 4, '\0');
    QHash<QString, ExpressionInput> inputs{{QStringLiteral("x"), ExpressionInput{f32, &full, 100}},
                                           {QStringLiteral("y"), ExpressionInput{f32, &full, 100}}};
    QHash<QString, double> scalars{{QStringLiteral("a"), 2.0}, {QStringLiteral("n"), 100}};
    if (expression.contains(QLatin1Char('s')))
        inputs.insert(QStringLiteral("s"), ExpressionInput{f32, &shortData, 10});

    QString error;
    QVERIFY(!evaluateExpression(expression, 100, scalars, inputs, &error));
    if (message.startsWith(QLatin1Char('=')))
        QCOMPARE(error, message.mid(1));
    else
        QVERIFY2(error.contains(message), qPrintable(error));
}

void TestVerify::expressionUnusedShortBufferIsFine() {
    const ValueType f32 = ValueType::of(ScalarType::Float32);
    const QByteArray shortData(4, '\0');
    QString error;
    const auto values =
        evaluateExpression(QStringLiteral("i"), 5, {},
                           {{QStringLiteral("s"), ExpressionInput{f32, &shortData, 1}}}, &error);
    QVERIFY2(values, qPrintable(error));
    QCOMPARE(*values, (QVector<double>{0, 1, 2, 3, 4}));
}

// Its speed is bench/verify's (verify_bench).
void TestVerify::expressionLargeEveryElement() {
    const qint64 n = 16 << 20;
    QByteArray x(n * 4, Qt::Uninitialized), y(n * 4, Qt::Uninitialized);
    float* px = reinterpret_cast<float*>(x.data());
    float* py = reinterpret_cast<float*>(y.data());
    for (qint64 k = 0; k < n; ++k) {
        px[k] = float(k & 1023);
        py[k] = 1.0f;
    }
    const ValueType f32 = ValueType::of(ScalarType::Float32);
    QString error;
    const auto values = evaluateExpression(QStringLiteral("a*x+y"), n, {{QStringLiteral("a"), 2}},
                                           {{QStringLiteral("x"), ExpressionInput{f32, &x, n}},
                                            {QStringLiteral("y"), ExpressionInput{f32, &y, n}}},
                                           &error);
    QVERIFY2(values, qPrintable(error));
    QCOMPARE(values->size(), qsizetype(n));
    // Every element, since threads evaluate disjoint chunks of the result.
    for (qint64 k = 0; k < n; ++k)
        if (values->at(k) != 2.0 * double(k & 1023) + 1.0)
            QFAIL(qPrintable(QStringLiteral("element %1 is %2").arg(k).arg(values->at(k))));
}

void TestVerify::doublesToBytes_data() {
    QTest::addColumn<ValueType>("type");
    QTest::addColumn<QVector<double>>("values");
    QTest::addColumn<QByteArray>("bytes");

    QTest::newRow("int32 rounds half away from zero")
        << ValueType::of(ScalarType::Int32) << QVector<double>{2.5, -2.5, 1.4, kNan}
        << bytesOf<qint32>({3, -3, 1, 0});
    QTest::newRow("uint8 clamps") << ValueType::of(ScalarType::UInt8)
                                  << QVector<double>{300, -1, 200.6}
                                  << bytesOf<quint8>({255, 0, 201});
    QTest::newRow("int64 large") << ValueType::of(ScalarType::Int64) << QVector<double>{-1e18, 1e30}
                                 << bytesOf<qint64>({qint64(-1000000000000000000LL),
                                                     std::numeric_limits<qint64>::max()});
    QTest::newRow("bool") << ValueType::of(ScalarType::Bool) << QVector<double>{0, 0.5, -3}
                          << bytesOf<quint8>({0, 1, 1});
    QTest::newRow("float32") << ValueType::of(ScalarType::Float32) << QVector<double>{0.1, -2}
                             << bytesOf<float>({0.1f, -2.0f});
    // Hand-worked binary16: 1 = 0x3C00; 65504 = 0x7BFF (max); 2^-24 = 0x0001 (min subnormal);
    // 1 + 2^-11 is halfway between 0x3C00 and 0x3C01: ties to even gives 0x3C00;
    // 1 + 3*2^-11 is halfway between 0x3C01 and 0x3C02: even is 0x3C02;
    // 65520 is halfway between 65504 and 65536 (= overflow): even rounds up to infinity;
    // 2^-25 is halfway between 0 and 2^-24: even is 0; -2 = 0xC000.
    QTest::newRow("float16 round to nearest even")
        << ValueType::of(ScalarType::Float16)
        << QVector<double>{1.0,
                           65504,
                           std::ldexp(1.0, -24),
                           1 + std::ldexp(1.0, -11),
                           1 + 3 * std::ldexp(1.0, -11),
                           65520,
                           std::ldexp(1.0, -25),
                           -2.0,
                           kInf,
                           0.5}
        << bytesOf<quint16>(
               {0x3C00, 0x7BFF, 0x0001, 0x3C00, 0x3C02, 0x7C00, 0x0000, 0xC000, 0x7C00, 0x3800});
    QTest::newRow("complex64 real part")
        << ValueType::of(ScalarType::Complex64) << QVector<double>{1.5, -3}
        << bytesOf<float>({1.5f, 0, -3.0f, 0});
    QTest::newRow("complex128 real part") << ValueType::of(ScalarType::Complex128)
                                          << QVector<double>{0.25} << bytesOf<double>({0.25, 0});
    QTest::newRow("struct: first field")
        << pairType() << QVector<double>{7, -1} << (pairBytes(7, 0) + pairBytes(-1, 0));
}

void TestVerify::doublesToBytes() {
    QFETCH(ValueType, type);
    QFETCH(QVector<double>, values);
    QFETCH(QByteArray, bytes);
    QCOMPARE(kernelpad::doublesToBytes(type, values).toHex(' '), bytes.toHex(' '));
}

KERNELPAD_TEST_GUILESS_MAIN(TestVerify)
} // namespace tst_verify
#include "tst_verify.moc"
