// bench/verify: the host's verification speed over 16M float32 elements, timed here rather
// than asserted in tests/core/tst_verify.cpp (which checks the same calls' results), so that
// a loaded build machine cannot fail the test suite:
//   compare     compareBuffers over two 64 MiB buffers, one element differing; target < 1 s
//   expression  evaluateExpression "a*x+y" over two 64 MiB inputs; target < 3 s
// Each runs --runs times (default 5); the median is compared with its target. Exit 1 when a
// target is missed or a result is wrong. Needs no GPU.

#include "core/verify/Verify.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>

#include <algorithm>
#include <cstdio>
#include <functional>

using namespace kernelpad;

namespace {

constexpr qint64 kCount = 16 << 20;

/// The median wall time of `runs` calls of `work`, in ms; false from `work` ends it (-1).
double medianMs(int runs, const std::function<bool()>& work) {
    QVector<double> ms;
    for (int r = 0; r < runs; ++r) {
        QElapsedTimer timer;
        timer.start();
        if (!work())
            return -1;
        ms.append(double(timer.nsecsElapsed()) / 1e6);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

/// Prints one row; true when the median is a time within `targetMs`.
bool report(const char* name, double ms, double targetMs) {
    const bool ok = ms >= 0 && ms < targetMs;
    std::printf("%-12s %10.1f ms  target < %6.0f ms  %s\n", name, ms, targetMs,
                ms < 0 ? "WRONG RESULT"
                : ok   ? "ok"
                       : "MISSED");
    return ok;
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Host verification speed (bench/verify)"));
    parser.addHelpOption();
    const QCommandLineOption runsOption(QStringLiteral("runs"),
                                        QStringLiteral("Timed calls of each (default 5)."),
                                        QStringLiteral("n"), QStringLiteral("5"));
    parser.addOption(runsOption);
    parser.process(app);
    const int runs = std::max(1, parser.value(runsOption).toInt());

    const ValueType f32 = ValueType::of(ScalarType::Float32);
    QByteArray got(kCount * 4, Qt::Uninitialized);
    float* p = reinterpret_cast<float*>(got.data());
    for (qint64 k = 0; k < kCount; ++k)
        p[k] = float(k % 1000) * 0.5f;
    QByteArray expected = got;
    reinterpret_cast<float*>(expected.data())[kCount - 1] += 1.0f;
    const double compareMs = medianMs(runs, [&] {
        const BufferVerification r = compareBuffers(f32, got, expected, kCount, 1e-6, 1e-5);
        return r.mismatches == 1 && r.firstMismatches.value(0).index == kCount - 1;
    });

    QByteArray ones(kCount * 4, Qt::Uninitialized);
    std::fill_n(reinterpret_cast<float*>(ones.data()), kCount, 1.0f);
    const double expressionMs = medianMs(runs, [&] {
        QString error;
        const auto values =
            evaluateExpression(QStringLiteral("a*x+y"), kCount, {{QStringLiteral("a"), 2}},
                               {{QStringLiteral("x"), ExpressionInput{f32, &got, kCount}},
                                {QStringLiteral("y"), ExpressionInput{f32, &ones, kCount}}},
                               &error);
        return values && values->size() == kCount &&
               values->last() == 2.0 * double(p[kCount - 1]) + 1.0;
    });

    std::printf("16M float32, median of %d\n", runs);
    const bool compareOk = report("compare", compareMs, 1000);
    const bool expressionOk = report("expression", expressionMs, 3000);
    return compareOk && expressionOk ? 0 : 1;
}
