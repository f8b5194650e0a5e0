// A reference kernel's copies of the outputs keep their allocations from one run of a session to
// the next (RunVerifier::referenceOutputs, docs/ARCHITECTURE.md): a copy taken over is filled
// again with this run's initial contents, so the reference never starts from what an earlier
// run left, and a wrong kernel still fails against it.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/compile/CompileCache.h"
#include "core/run/ExecutionSession.h"
#include "core/run/RunVerification.h"

#include <QJsonDocument>
#include <QTest>

#include <atomic>

namespace tst_gpureferencecopies {

using namespace kernelpad;

namespace {

/// Over the GPU comparer's threshold, so the output is compared on the device.
constexpr qint64 kElements = kGpuVerifyMinElements * 2;

/// `data` (inout, uniform from `seed`) becomes data * 2 + `add`; the reference adds 1.
RunRequest doubling(int seed, int add) {
    const QString source =
        QStringLiteral("extern \"C\" __global__ void twice(float* data, unsigned int n)\n"
                       "{\n"
                       "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                       "    if (i < n) data[i] = data[i] * 2.0f + %1.0f;\n"
                       "}\n"
                       "extern \"C\" __global__ void twice_reference(float* data, "
                       "unsigned int n)\n"
                       "{\n"
                       "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                       "    if (i < n) data[i] = data[i] * 2.0f + 1.0f;\n"
                       "}\n")
            .arg(add);
    const QJsonObject json{
        {"format", "kernelpad-project"},
        {"version", 1},
        {"name", "twice"},
        {"sourceName", "twice.cu"},
        {"source", source},
        {"kernel", "twice"},
        {"arguments",
         QJsonArray{
             QJsonObject{
                 {"name", "data"},
                 {"kind", "buffer"},
                 {"buffer",
                  QJsonObject{
                      {"type", QJsonObject{{"scalar", "float32"}}},
                      {"count", "n"},
                      {"init",
                       QJsonObject{{"kind", "uniform"}, {"low", -1}, {"high", 1}, {"seed", seed}}},
                      {"direction", "inout"},
                      {"verify", QJsonObject{{"kind", "reference"},
                                             {"referenceKernel", "twice_reference"},
                                             {"atol", 0},
                                             {"rtol", 0}}}}}},
             QJsonObject{{"name", "n"},
                         {"kind", "scalar"},
                         {"type", QJsonObject{{"scalar", "uint32"}}},
                         {"value", QString::number(kElements)}}}},
        {"launch", QJsonObject{{"grid", QJsonArray{int(kElements / 256), 1, 1}},
                               {"block", QJsonArray{256, 1, 1}}}},
        {"timing", QJsonObject{{"warmupLaunches", 1}, {"repetitions", 3}}}};
    QString error;
    std::optional<Project> p = Project::fromJson(json, &error);
    if (!p)
        qFatal("%s", qPrintable(error));
    RunRequest r;
    r.project = *p;
    r.keepOutputs = false;
    return r;
}

} // namespace

class TestGpuReferenceCopies : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { KERNELPAD_REQUIRE_DRIVER(); }

    void aKeptCopyStartsFromThisRunsContents() {
        CompileCache cache;
        ExecutionSession session(&cache);
        std::atomic_bool cancel{false};
        // Each run's inputs differ: a reference copy that kept the last run's contents (its
        // result, or its own) would disagree with the kernel everywhere.
        for (int seed : {1, 2, 3}) {
            const RunResult r = session.run(doubling(seed, 1), cancel);
            QVERIFY2(r.status == RunStatus::Ok && r.verified(), qPrintable(test::describeRun(r)));
            QVERIFY2(r.verification.size() == 1 &&
                         r.verification.front().method.contains(QLatin1String("on the GPU")),
                     qPrintable(test::describeRun(r)));
        }
        // A wrong kernel after them fails on every element.
        const RunResult wrong = session.run(doubling(4, 2), cancel);
        QCOMPARE(wrong.status, RunStatus::VerificationFailed);
        QVERIFY2(!wrong.verification.isEmpty() && !wrong.verification.front().passed &&
                     wrong.verification.front().mismatches == kElements,
                 qPrintable(test::describeRun(wrong)));
        // And a right one after the failure passes again.
        const RunResult again = session.run(doubling(5, 1), cancel);
        QVERIFY2(again.status == RunStatus::Ok && again.verified(),
                 qPrintable(test::describeRun(again)));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestGpuReferenceCopies)
} // namespace tst_gpureferencecopies
#include "tst_gpureferencecopies.moc"
