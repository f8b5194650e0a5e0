// Canaries on the GPU: a kernel that writes one element past the end of its output, or before
// the start of an input, is caught by the guard bytes around every buffer without
// compute-sanitizer; a kernel that stays in bounds reports nothing, also in the same session
// after a run whose kernel wrote into the guards (they are filled again on every run); a
// kernel that writes out of bounds only on its later calls is caught after the timing.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/compile/CompileCache.h"
#include "core/run/ExecutionSession.h"

#include <QTest>

#include <algorithm>
#include <atomic>

namespace tst_gpuguards {

using namespace kernelpad;

namespace {

constexpr int kElements = 1024;
constexpr int kBlock = 256;

/// saxpy over kElements floats in kElements / kBlock + 1 blocks: one block more than needed,
/// so a guard-less bound lets a thread reach element kElements.
RunRequest smallSaxpy(const QString& source) {
    RunRequest r;
    r.project = test::loadExample("saxpy.kpad");
    r.projectDir = test::examplesDir();
    r.keepOutputs = false;
    r.repetitions = 2;
    r.project.arguments[4].value = QString::number(kElements);
    r.project.launch.grid = {kElements / kBlock + 1, 1, 1};
    r.project.launch.block = {kBlock, 1, 1};
    r.project.timing.warmupLaunches = 1;
    r.project.source = source;
    return r;
}

const char* const kInBounds = "extern \"C\" __global__\n"
                              "void saxpy(float a, float *x, float *y, float *out, size_t n)\n"
                              "{\n"
                              "    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;\n"
                              "    if (tid < n) out[tid] = a * x[tid] + y[tid];\n"
                              "}\n";

/// `<=` for `<`: thread n writes out[n], one float past the end (and reads x[n], y[n]).
const char* const kOnePastTheEnd = "extern \"C\" __global__\n"
                                   "void saxpy(float a, float *x, float *y, float *out, size_t n)\n"
                                   "{\n"
                                   "    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                   "    if (tid <= n) out[tid] = a * (tid < n ? x[tid] : 0.f)\n"
                                   "                           + (tid < n ? y[tid] : 0.f);\n"
                                   "}\n";

/// Thread 0 writes a double just before x, an "in" buffer: 8 bytes, two floats before it.
const char* const kBeforeTheStart =
    "extern \"C\" __global__\n"
    "void saxpy(float a, float *x, float *y, float *out, size_t n)\n"
    "{\n"
    "    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (tid < n) out[tid] = a * x[tid] + y[tid];\n"
    "    if (tid == 0) reinterpret_cast<double*>(x)[-1] = 1.0;\n"
    "}\n";

/// In bounds on its first call, the verified launch; every later call (the warm-up and the
/// timed launches) writes one float past the end of out.
const char* const kPastTheEndWhenTimed =
    "__device__ unsigned int kp_guard_calls;\n"
    "extern \"C\" __global__\n"
    "void saxpy(float a, float *x, float *y, float *out, size_t n)\n"
    "{\n"
    "    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (tid < n) out[tid] = a * x[tid] + y[tid];\n"
    "    if (tid == 0 && atomicAdd(&kp_guard_calls, 1u) > 0) out[n] = 1.f;\n"
    "}\n";

} // namespace

class TestGpuGuards : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { KERNELPAD_REQUIRE_DRIVER(); }

    void guardsCatchWritesOutsideTheBuffers() {
        CompileCache cache;
        ExecutionSession session(&cache);
        std::atomic_bool cancel{false};

        const RunResult past = session.run(smallSaxpy(QString::fromLatin1(kOnePastTheEnd)), cancel);
        QVERIFY2(past.guards.size() == 1, qPrintable(test::describeRun(past)));
        QCOMPARE(past.guards.front().message(),
                 QStringLiteral("out: 4 bytes written past the end (element 1024)"));
        QCOMPARE(past.status, RunStatus::VerificationFailed);
        const auto row = std::find_if(
            past.verification.cbegin(), past.verification.cend(),
            [](const BufferVerification& v) { return v.method == QLatin1String("guard bytes"); });
        QVERIFY2(row != past.verification.cend() && !row->passed,
                 qPrintable(test::describeRun(past)));

        const RunResult before =
            session.run(smallSaxpy(QString::fromLatin1(kBeforeTheStart)), cancel);
        QVERIFY2(before.guards.size() == 1, qPrintable(test::describeRun(before)));
        QCOMPARE(before.guards.front().message(),
                 QStringLiteral("x: 8 bytes written before the start (element -2)"));

        // The same session reuses the allocations: their guards are filled again.
        const RunResult clean = session.run(smallSaxpy(QString::fromLatin1(kInBounds)), cancel);
        QVERIFY2(clean.guards.isEmpty(), qPrintable(test::describeRun(clean)));
        QVERIFY2(clean.status == RunStatus::Ok && clean.verified(),
                 qPrintable(test::describeRun(clean)));
    }

    // The guards are read again after the timed launches: a write outside a buffer that only
    // a later launch makes fails the run too, named as made while timing.
    void guardsCatchWritesOnlyTheTimedLaunchesMake() {
        CompileCache cache;
        ExecutionSession session(&cache); // a fresh module: the call counter starts at 0
        std::atomic_bool cancel{false};
        const RunResult r =
            session.run(smallSaxpy(QString::fromLatin1(kPastTheEndWhenTimed)), cancel);
        QVERIFY2(r.guards.size() == 1, qPrintable(test::describeRun(r)));
        QVERIFY2(r.guards.front().duringTiming, qPrintable(test::describeRun(r)));
        QCOMPARE(r.guards.front().message(),
                 QStringLiteral("out: 4 bytes written past the end (element 1024) during the "
                                "timed launches, not the verified one"));
        QVERIFY2(r.status == RunStatus::VerificationFailed, qPrintable(test::describeRun(r)));
        QVERIFY2(r.timing.reps() > 0, qPrintable(test::describeRun(r))); // the timing itself ran
        for (const BufferVerification& v : r.verification) {
            const bool guardRow = v.method == QLatin1String("guard bytes");
            // The verified launch stayed in bounds: only the guard row fails.
            QVERIFY2(v.passed != guardRow, qPrintable(test::describeRun(r)));
        }
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestGpuGuards)
} // namespace tst_gpuguards
#include "tst_gpuguards.moc"
