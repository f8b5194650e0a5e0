// The expression translator (core/verify/ExpressionKernel): muParser's precedence and
// associativity in the generated CUDA, what it leaves to the host, and every translation of
// a corpus compiling with NVRTC (no GPU needed).

#include "../support/TestMain.h"
#include "core/compile/Program.h"
#include "core/verify/ExpressionKernel.h"

#include <QTest>

#include <muParser.h>

#include <cstdio>

namespace tst_expressionkernel {

using namespace kernelpad;

namespace {

const QHash<QString, ScalarType> kBuffers{{"x", ScalarType::Float32}, {"y", ScalarType::Float64},
                                          {"k", ScalarType::Int32},   {"u", ScalarType::UInt64},
                                          {"flag", ScalarType::Bool}, {"h", ScalarType::Float16}};
const QStringList kScalars{"a", "n"};

std::optional<ExpressionKernelSource> translate(const QString& expression, QString* why,
                                                ScalarType out = ScalarType::Float32) {
    return translateExpression(expression, out, kBuffers, kScalars, true, why);
}

/// The line that computes the value, without its surroundings.
QString valueLine(const ExpressionKernelSource& k) {
    const int at = int(k.source.indexOf(QLatin1String("const double v = ")));
    const int end = int(k.source.indexOf(QLatin1Char('\n'), at));
    return k.source.mid(at + 17, end - at - 18);
}

} // namespace

class TestExpressionKernel : public QObject {
    Q_OBJECT

private slots:
    void precedenceAsMuParser_data() {
        QTest::addColumn<QString>("expression");
        QTest::addColumn<QString>("code");
        // -a^2 is -(a^2); ^ groups right to left; ?: nests to the right.
        QTest::newRow("sign below power") << "-a^2"
                                          << "(-kp_pow(s0, (0x1p+1)))";
        QTest::newRow("power right to left") << "2^3^2"
                                             << "kp_pow((0x1p+1), kp_pow((0x1.8p+1), (0x1p+1)))";
        QTest::newRow("saxpy") << "a*x+y"
                               << "((s0 * ((double)b0[i])) + ((double)b1[i]))";
        QTest::newRow("left to right") << "x-y-a"
                                       << "((((double)b0[i]) - ((double)b1[i])) - s0)";
        QTest::newRow("ternary right")
            << "a?1:n?2:3"
            << "((s0) != 0.0 ? ((0x1p+0)) : (((s1) != 0.0 ? ((0x1p+1)) : ((0x1.8p+1)))))";
        QTest::newRow("and above or")
            << "a||n&&x"
            << "((s0) != 0.0 || (((s1) != 0.0 && (((double)b0[i])) != 0.0 ? 1.0 : 0.0)) != 0.0 ? "
               "1.0 : 0.0)";
        QTest::newRow("comparison below sum") << "a+1<=n"
                                              << "(((s0 + (0x1p+0))) <= (s1) ? 1.0 : 0.0)";
        QTest::newRow("sum from zero") << "sum(a,n)"
                                       << "((0.0 + s0) + s1)";
        QTest::newRow("avg") << "avg(a,n)"
                             << "(((0.0 + s0) + s1) / (0x1p+1))";
        QTest::newRow("min folds") << "min(a,n)"
                                   << "kp_min(kp_min(s0, s0), s1)";
        QTest::newRow("ln is log") << "ln(a)"
                                   << "log(s0)";
        QTest::newRow("abs") << "abs(x)"
                             << "fabs(((double)b0[i]))";
        QTest::newRow("bool input") << "flag"
                                    << "(b0[i] != 0 ? 1.0 : 0.0)";
        QTest::newRow("index") << "i*2"
                               << "(((double)i) * (0x1p+1))";
        QTest::newRow("exponent literal") << "2e-1"
                                          << "(0x1.999999999999ap-3)";
    }
    void precedenceAsMuParser() {
        QFETCH(QString, expression);
        QFETCH(QString, code);
        QString why;
        const std::optional<ExpressionKernelSource> k = translate(expression, &why);
        QVERIFY2(k, qPrintable(why));
        QCOMPARE(valueLine(*k), code);
    }

    void parametersInFirstUseOrder() {
        QString why;
        const std::optional<ExpressionKernelSource> k = translate("y + a*k + x*a + n", &why);
        QVERIFY2(k, qPrintable(why));
        QCOMPARE(k->buffers, (QStringList{"y", "k", "x"}));
        QCOMPARE(k->scalars, (QStringList{"a", "n"}));
        QVERIFY(k->source.contains(
            "kpExpression(float* __restrict__ out, unsigned long long n, const double* "
            "__restrict__ b0, const int* __restrict__ b1, const float* __restrict__ b2, double "
            "s0, double s1)"));
    }

    void constantsAreMuParsers() {
        // muParser 2.3's _pi is 3.141592653589 (not M_PI): the kernel must use its value.
        QString why;
        const std::optional<ExpressionKernelSource> k = translate("_pi", &why);
        QVERIFY2(k, qPrintable(why));
        mu::Parser parser;
        parser.SetExpr("_pi");
        char text[64];
        std::snprintf(text, sizeof text, "(%a)", parser.Eval());
        QCOMPARE(valueLine(*k), QString::fromLatin1(text));
    }

    void leftToTheHost_data() {
        QTest::addColumn<QString>("expression");
        QTest::addColumn<int>("outType");
        const int f32 = int(ScalarType::Float32);
        QTest::newRow("two signs") << "--x" << f32;
        QTest::newRow("assignment") << "a = 2" << f32;
        QTest::newRow("unknown function") << "atan2(x, y)" << f32;
        QTest::newRow("unknown name") << "x + z" << f32;
        QTest::newRow("modulo") << "x % 2" << f32;
        QTest::newRow("unbalanced") << "(x + 1" << f32;
        QTest::newRow("empty") << "" << f32;
        QTest::newRow("two arguments to sin") << "sin(x, y)" << f32;
        QTest::newRow("float16 input") << "h * 2" << f32;
        QTest::newRow("int32 output") << "x" << int(ScalarType::Int32);
        QTest::newRow("float16 output") << "x" << int(ScalarType::Float16);
        QTest::newRow("complex output") << "x" << int(ScalarType::Complex64);
        QTest::newRow("non-ASCII name") << QString::fromUtf8("x + \u00e9") << f32;
    }
    void leftToTheHost() {
        QFETCH(QString, expression);
        QFETCH(int, outType);
        QString why;
        QVERIFY(!translate(expression, &why, ScalarType(outType)));
        QVERIFY(!why.isEmpty());
    }

    void argumentNamedLikeAFunction() {
        QString why;
        QVERIFY(!translateExpression("min(x)", ScalarType::Float32, kBuffers, {"min"}, true, &why));
        QVERIFY(why.contains("min"));
        // Without the index (an argument named i shadows it) "i" is unknown here.
        QVERIFY(!translateExpression("i", ScalarType::Float32, kBuffers, kScalars, false, &why));
    }

    void corpusCompilesWithNvrtc() {
        const QStringList corpus{
            "a*x+y",
            "-a^2 + x^-1 + 2^3^2",
            "x < y ? sin(x) : cos(y)",
            "(x >= 0 && y != 0) || k == 3",
            "sqrt(abs(x)) + exp(-y) + log(1 + abs(x)) + ln(2) + log2(8) + log10(100)",
            "tan(x) + asin(x/2) + acos(x/2) + atan(y) + sinh(x) + cosh(x) + tanh(y)",
            "sign(x) * rint(y * 10) / 10",
            "min(x, y, a) + max(x, y) + sum(x, y, k) + avg(x, u)",
            "_pi * x + _e",
            "i * 0.5 + n",
            "flag ? x : -x",
            "1e3 * x + .5 - 1.e-3",
        };
        for (const QString& expression : corpus)
            for (ScalarType out : {ScalarType::Float32, ScalarType::Float64}) {
                QString why;
                const std::optional<ExpressionKernelSource> k = translate(expression, &why, out);
                QVERIFY2(k, qPrintable(expression + ": " + why));
                ProgramOptions options;
                options.fmad = false;
                const CompileResult compiled =
                    Program(k->source, "kernelpad_expression.cu", options).compile("sm_90");
                QVERIFY2(compiled.ok, qPrintable(expression + ":\n" + compiled.log +
                                                 compiled.error + "\n" + k->source));
                QVERIFY(!compiled.cubin.isEmpty());
                QVERIFY(compiled.findKernel(kExpressionKernelName));
            }
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestExpressionKernel)
} // namespace tst_expressionkernel
#include "tst_expressionkernel.moc"
