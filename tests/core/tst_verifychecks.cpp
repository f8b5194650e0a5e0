// Checks that say what a passing verification does not: an expression check loose enough that
// an all-zero output (or an inout buffer left as it was) passes it is warned about; a real
// check is not.

#include "../support/TestMain.h"
#include "core/launch/ArgumentText.h"
#include "core/launch/BufferInit.h"
#include "core/verify/CheckAdvice.h"
#include "core/verify/Verify.h"

#include <QTest>

#include <QJsonObject>

#include <cstring>
#include <limits>

namespace tst_verifychecks {

using namespace kernelpad;

namespace {

constexpr qint64 kCount = 4096;

/// x: `count` float32 values uniform in [-spread, spread) (zero-mean).
QByteArray zeroMeanX(double spread, qint64 count = kCount) {
    BufferSpec spec;
    spec.elementType = ValueType::of(ScalarType::Float32);
    spec.init.kind = InitSpec::Kind::Uniform;
    spec.init.low = -spread;
    spec.init.high = spread;
    spec.init.seed = 3;
    QString error;
    const std::optional<QByteArray> x = makeBufferContents(spec, count, {}, &error);
    if (!x)
        qFatal("x: %s", qPrintable(error));
    return *x;
}

/// The expected values of "a*x" with a = 2 as float32 elements.
QByteArray expectedAx(const QByteArray& x, qint64 count = kCount) {
    const ValueType f32 = ValueType::of(ScalarType::Float32);
    QString error;
    const std::optional<QVector<double>> values =
        evaluateExpression(QStringLiteral("a*x"), count, {{QStringLiteral("a"), 2.0}},
                           {{QStringLiteral("x"), ExpressionInput{f32, &x, count}}}, &error);
    if (!values)
        qFatal("a*x: %s", qPrintable(error));
    return doublesToBytes(f32, *values);
}

} // namespace

class TestVerifyChecks : public QObject {
    Q_OBJECT

private slots:
    void zerosWouldPass_data() {
        QTest::addColumn<double>("spread");
        QTest::addColumn<double>("atol");
        QTest::addColumn<double>("rtol");
        QTest::addColumn<bool>("warns");
        QTest::newRow("x in +-0.01, atol 0.05: out[i] = 0 passes") << 0.01 << 0.05 << 0.0 << true;
        QTest::newRow("x in +-1, atol 1e-5: a real check") << 1.0 << 1e-5 << 1e-5 << false;
        QTest::newRow("rtol 1 lets every zero through") << 1.0 << 0.0 << 1.0 << true;
        QTest::newRow("one element out of reach is enough") << 1.0 << 1.9 << 0.0 << false;
    }

    void zerosWouldPass() {
        QFETCH(double, spread);
        QFETCH(double, atol);
        QFETCH(double, rtol);
        QFETCH(bool, warns);
        const ValueType f32 = ValueType::of(ScalarType::Float32);
        const QByteArray expected = expectedAx(zeroMeanX(spread));
        // What the kernel `out[i] = 0` leaves: the check itself passes exactly when warned.
        const QByteArray zeros(int(expected.size()), '\0');
        QCOMPARE(compareBuffers(f32, zeros, expected, kCount, atol, rtol).passed, warns);
        const QStringList warnings =
            passWarnings(QStringLiteral("out"), f32, expected, kCount, Tolerance{atol, rtol, 0});
        QCOMPARE(warnings.size(), warns ? 1 : 0);
        if (warns)
            QCOMPARE(warnings.front(), QStringLiteral("out: this check would also pass if the "
                                                      "kernel wrote nothing (all zeros)"));
    }

    void zerosAreComparedInChunks() {
        // More than one chunk of zeros: the last element alone decides.
        const qint64 count = (qint64(1) << 16) * 2 + 5;
        const ValueType f32 = ValueType::of(ScalarType::Float32);
        QByteArray expected = expectedAx(zeroMeanX(0.01, count), count);
        QVERIFY(kernelpad::zerosWouldPass(f32, expected, count, Tolerance{0.05, 0, 0}));
        const float far = 1.0f;
        std::memcpy(expected.data() + (count - 1) * 4, &far, 4);
        QVERIFY(!kernelpad::zerosWouldPass(f32, expected, count, Tolerance{0.05, 0, 0}));
    }

    void inoutLeftAsItWas() {
        // An inout check "x" with a loose tolerance: x + 0.001 is expected, x itself passes.
        const ValueType f32 = ValueType::of(ScalarType::Float32);
        const QByteArray initial = zeroMeanX(1.0);
        QVector<double> shifted;
        for (qint64 i = 0; i < kCount; ++i)
            shifted << elementAsDouble(f32, initial.constData(), i) + 0.001;
        const QByteArray expected = doublesToBytes(f32, shifted);
        const Tolerance loose{0.01, 0, 0};
        const QStringList warnings =
            passWarnings(QStringLiteral("acc"), f32, expected, kCount, loose, &initial);
        QCOMPARE(warnings, QStringList{QStringLiteral("acc: this check would also pass if the "
                                                      "kernel left the buffer as it was (its "
                                                      "initial contents)")});
        QVERIFY(passWarnings(QStringLiteral("acc"), f32, expected, kCount, Tolerance{1e-5, 0, 0},
                             &initial)
                    .isEmpty());
    }

    void nanComparison_data() {
        QTest::addColumn<int>("type");
        for (const ScalarType t :
             {ScalarType::Float16, ScalarType::Float32, ScalarType::Float64, ScalarType::BFloat16,
              ScalarType::Float8E4M3, ScalarType::Float8E5M2, ScalarType::Complex64,
              ScalarType::Complex128})
            QTest::newRow(scalarTypeInfo(t).numpyName) << int(t);
    }

    void nanComparison() {
        QFETCH(int, type);
        const ValueType vt = ValueType::of(ScalarType(type));
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const QByteArray both = doublesToBytes(vt, {1.0, nan, 2.0});
        // "equal" (the default): NaN where the reference has NaN passes.
        const BufferVerification equal = compareBuffers(vt, both, both, 3, 0, 0, 0);
        QVERIFY2(equal.passed, qPrintable(equal.failure));
        // "differ": NaN equals nothing, and the message says it is about NaN.
        const BufferVerification differ =
            compareBuffers(vt, both, both, 3, 0, 0, 0, NanComparison::Differ);
        QVERIFY(!differ.passed);
        QCOMPARE(differ.mismatches, 1);
        QCOMPARE(differ.nanCount, 0); // NaN was expected there: not a NaN the kernel made up
        QCOMPARE(differ.failure, QStringLiteral("element 1: NaN, expected NaN"));
        // NaN where a number is expected fails under both.
        const QByteArray oneNan = doublesToBytes(vt, {1.0, 1.0, 2.0});
        const BufferVerification got = compareBuffers(vt, both, oneNan, 3, 0.5, 0.5, 0);
        QVERIFY(!got.passed);
        QCOMPARE(got.nanCount, 1);
        QCOMPARE(got.failure, QStringLiteral("element 1: NaN, expected 1.0"));
    }

    void infinities_data() {
        QTest::addColumn<int>("type");
        // float8_e5m2 has infinities, but KernelPad rounds values to it saturating (as
        // __NV_SATFINITE does), so doublesToBytes cannot make one.
        for (const ScalarType t : {ScalarType::Float16, ScalarType::Float32, ScalarType::Float64,
                                   ScalarType::BFloat16, ScalarType::Complex64})
            QTest::newRow(scalarTypeInfo(t).numpyName) << int(t);
    }

    void infinities() {
        QFETCH(int, type);
        const ValueType vt = ValueType::of(ScalarType(type));
        const double inf = std::numeric_limits<double>::infinity();
        const QByteArray expected = doublesToBytes(vt, {inf, -inf, 0.5});
        for (const NanComparison mode : {NanComparison::Equal, NanComparison::Differ})
            QVERIFY(compareBuffers(vt, expected, expected, 3, 0, 0, 0, mode).passed);
        const QByteArray flipped = doublesToBytes(vt, {-inf, -inf, 0.5});
        const BufferVerification v = compareBuffers(vt, flipped, expected, 3, 1e30, 1, 0);
        QVERIFY(!v.passed);
        QCOMPARE(v.failure, QStringLiteral("element 0: -Inf, expected +Inf"));
    }

    void finiteMismatchHasNoNanMessage() {
        const ValueType f32 = ValueType::of(ScalarType::Float32);
        const BufferVerification v = compareBuffers(f32, doublesToBytes(f32, {1.0, 2.0}),
                                                    doublesToBytes(f32, {1.0, 3.0}), 2, 0, 0, 0);
        QVERIFY(!v.passed);
        QVERIFY(v.failure.isEmpty());
    }

    void nanModeInTheProjectFile() {
        QString error;
        std::optional<VerifySpec> spec = VerifySpec::fromJson(
            QJsonObject{{"kind", "expression"}, {"expression", "x"}, {"nan", "differ"}}, &error);
        QVERIFY2(spec, qPrintable(error));
        QCOMPARE(spec->nan, NanComparison::Differ);
        QCOMPARE(spec->toJson().value("nan").toString(), QStringLiteral("differ"));
        // The default is not written: files that never named it stay as they were.
        spec->nan = NanComparison::Equal;
        QVERIFY(!spec->toJson().contains("nan"));
        QVERIFY(!VerifySpec::fromJson(
            QJsonObject{{"kind", "expression"}, {"expression", "x"}, {"nan", "ignore"}}, &error));
        QVERIFY2(error.contains("nan"), qPrintable(error));
        QVERIFY2(error.contains("ignore"), qPrintable(error));
    }

    void nanModeInTheArgumentText() {
        VerifySpec spec;
        spec.kind = VerifySpec::Kind::Expression;
        spec.expression = "a * x";
        spec.nan = NanComparison::Differ;
        const QString text = formatVerifySpec(spec);
        QVERIFY2(text.endsWith(" nan=differ"), qPrintable(text));
        QString error;
        const std::optional<VerifySpec> back = parseVerifySpec(text, &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->nan, NanComparison::Differ);
        QCOMPARE(back->expression, QStringLiteral("a * x"));
        QVERIFY(!parseVerifySpec("expression x nan=maybe", &error));
        QVERIFY2(error.contains("nan must be equal or differ"), qPrintable(error));
    }

    void toleranceAdviceForAReduction() {
        // What a float32 sum of 4096 terms may show: 26 ulp, 3.1e-6 relative.
        BufferVerification seen;
        seen.checked = 16;
        seen.passed = true;
        seen.maxUlpError = 26;
        seen.maxRelError = 3.1e-6;
        seen.maxAbsError = 4.2e-7;
        const ToleranceAdvice advice = adviseTolerance(seen, ScalarType::Float32, 4096);
        QCOMPARE(advice.suggestedRtol, 1e-5); // 3 x 3.1e-6, rounded up to 1, 2 or 5
        QVERIFY2(advice.text.startsWith("worst error 26 ulp (3.1e-06 relative, 4.2e-07 absolute; "
                                        "float32 epsilon 1.2e-07); rtol=1e-05 (about 3x the "
                                        "worst seen) would still catch a 1-ulp-per-term error "
                                        "over 4096 terms"),
                 qPrintable(advice.text));
        // Two terms cannot drift as far as 3x a 1e-3 error.
        seen.maxRelError = 1e-3;
        QVERIFY2(adviseTolerance(seen, ScalarType::Float32, 2).text.contains("would not catch"),
                 qPrintable(adviseTolerance(seen, ScalarType::Float32, 2).text));
    }

    void toleranceAdviceNeverBelowEpsilon() {
        BufferVerification exact;
        exact.checked = 8;
        exact.passed = true;
        const ToleranceAdvice advice = adviseTolerance(exact, ScalarType::BFloat16, 1);
        QCOMPARE(advice.suggestedRtol, 0.01); // bfloat16's epsilon 2^-7, rounded up
        QVERIFY2(advice.text.startsWith("no error seen (bfloat16 epsilon 0.0078); rtol=0.01 (one "
                                        "epsilon"),
                 qPrintable(advice.text));
        QVERIFY(!advice.text.contains("terms"));
        // Integers get none, nor does a check that could not run.
        QVERIFY(adviseTolerance(exact, ScalarType::Int32, 1).text.isEmpty());
        exact.error = "bad expression";
        QVERIFY(adviseTolerance(exact, ScalarType::Float32, 1).text.isEmpty());
    }

    void adviceAndWarningsTravelInJson() {
        BufferVerification v;
        v.buffer = "out";
        v.method = "expression a*x";
        v.passed = true;
        v.warnings << "out: this check would also pass if the kernel wrote nothing (all zeros)";
        v.advice = "worst error 1 ulp";
        v.suggestedRtol = 2e-7;
        v.failure = "element 5: NaN, expected 1.0";
        QString error;
        const std::optional<BufferVerification> back =
            BufferVerification::fromJson(v.toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->warnings, v.warnings);
        QCOMPARE(back->advice, v.advice);
        QCOMPARE(back->suggestedRtol, v.suggestedRtol);
        QCOMPARE(back->failure, v.failure);
        // Unset, none of them is written.
        const QJsonObject plain = BufferVerification().toJson();
        for (const char* key : {"warnings", "advice", "suggestedRtol", "failure"})
            QVERIFY2(!plain.contains(key), key);
    }

    void integerOutputsExpectedZeroWarn() {
        // An exact integer check of an all-zero expectation: a kernel that writes nothing but
        // zeros passes it.
        const ValueType i32 = ValueType::of(ScalarType::Int32);
        const QByteArray expected(int(4 * kCount), '\0');
        QCOMPARE(passWarnings(QStringLiteral("hist"), i32, expected, kCount, Tolerance{}).size(),
                 1);
        QByteArray one = expected;
        one[0] = 1;
        QVERIFY(passWarnings(QStringLiteral("hist"), i32, one, kCount, Tolerance{}).isEmpty());
    }
};

KERNELPAD_TEST_APPLESS_MAIN(TestVerifyChecks)
} // namespace tst_verifychecks
#include "tst_verifychecks.moc"
