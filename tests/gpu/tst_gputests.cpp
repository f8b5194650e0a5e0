// A project's tests on the GPU (core/engine/EngineTests.h), small and quick: a kernel with a
// tail bug (it skips the last n % 32 elements) passes a normal run at its own size, 1024, and
// fails the test at n = 33 with the element never written; a float sum by atomicAdd over many
// blocks is reported not deterministic, the same sum over integers is deterministic.
// Every failure prints the whole report, so one run on the GPU machine says what to fix.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/engine/EngineTests.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QtTest>

namespace tst_gputests {

using namespace kernelpad;

namespace {

/// A tail bug: the last n % 32 elements are never written.
const char* const kTailBugSource = R"(extern "C" __global__
void twice(const float* x, float* out, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n - n % 32)
        out[i] = 2.0f * x[i];
}
)";

/// 32 sums over n values by atomicAdd, in T.
// The element type comes as the define ELEM (not T: a define named T breaks NVRTC's built-in
// headers, which use T as a template parameter).
const char* const kAtomicSumSource = R"(extern "C" __global__
void sums(const ELEM* x, ELEM* out, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&out[i % 32], x[i]);
}
)";

/// Each element records the block that wrote it, taken through KERNELPAD_REVERSED_BLOCKS: a
/// "reversed" second run writes other values wherever the define reached the kernel.
const char* const kBlockOrderSource = R"(extern "C" __global__
void order(unsigned* out, unsigned n)
{
#ifdef KERNELPAD_REVERSED_BLOCKS
    const unsigned block = gridDim.x - 1 - blockIdx.x;
#else
    const unsigned block = blockIdx.x;
#endif
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = block;
}
)";

QJsonObject scalarType(const char* type) {
    return QJsonObject{{"scalar", type}};
}

QJsonObject bufferArgument(const QString& name, const char* type, const QString& count,
                           const QJsonObject& init, const char* direction,
                           const QJsonObject& verify = {}) {
    QJsonObject buffer{
        {"type", scalarType(type)}, {"count", count}, {"init", init}, {"direction", direction}};
    if (!verify.isEmpty())
        buffer.insert("verify", verify);
    return QJsonObject{{"name", name}, {"kind", "buffer"}, {"buffer", buffer}};
}

Project makeProject(const QString& name, const QString& source, const QString& kernel,
                    const QJsonArray& arguments, int n, const QJsonValue& tests,
                    const QStringList& defines = {}) {
    QJsonObject json{{"format", "kernelpad-project"},
                     {"version", 1},
                     {"name", name},
                     {"source", source},
                     {"kernel", kernel},
                     {"options", QJsonObject{{"defines", QJsonArray::fromStringList(defines)}}},
                     {"arguments", arguments},
                     {"launch", QJsonObject{{"grid", QJsonArray{(n + 255) / 256, 1, 1}},
                                            {"block", QJsonArray{256, 1, 1}}}},
                     {"tests", tests}};
    QString error;
    std::optional<Project> p = Project::fromJson(json, &error);
    if (!p)
        qFatal("test project %s: %s", qPrintable(name), qPrintable(error));
    return *p;
}

QJsonObject nArgument(int n) {
    return QJsonObject{{"name", "n"},
                       {"kind", "scalar"},
                       {"type", scalarType("uint32")},
                       {"value", QString::number(n)}};
}

/// The report of `project`'s tests run through an Engine; empty with `*error` when it did not
/// end within two minutes.
std::optional<TestReport> runTests(Engine& engine, const Project& project, QString* error) {
    EngineTests tests(&engine);
    QSignalSpy finished(&tests, &EngineTests::finished);
    TestOrder order;
    order.base.project = project;
    order.base.projectDir = test::examplesDir();
    tests.start(order);
    if (!finished.wait(120000)) {
        *error = QStringLiteral("the test run did not end within 120 s");
        return std::nullopt;
    }
    return finished.first().at(0).value<TestReport>();
}

QString describe(const TestReport& report) {
    return QJsonDocument(report.toJson()).toJson(QJsonDocument::Indented);
}

Project atomicSum(const char* type, const char* ctype, bool determinism) {
    const int n = 1 << 18;
    QJsonObject init{{"kind", "uniform"}, {"low", -100}, {"high", 100}, {"seed", 3}};
    return makeProject(
        QStringLiteral("atomic sum %1").arg(QLatin1String(ctype)),
        QString::fromLatin1(kAtomicSumSource), QStringLiteral("sums"),
        QJsonArray{bufferArgument("x", type, "n", init, "in"),
                   bufferArgument("out", type, "32", QJsonObject{{"kind", "zeros"}}, "inout"),
                   nArgument(n)},
        n,
        QJsonObject{{"cases", QJsonArray{QJsonObject{{"values", QJsonObject{{"n", n}}}}}},
                    {"determinism", determinism}},
        {QStringLiteral("ELEM=%1").arg(QLatin1String(ctype))});
}

} // namespace

class TestGpuTests : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { KERNELPAD_REQUIRE_DRIVER(); }

    void tailBugCaughtByTestNotByRun() {
        const int n = 1024;
        const Project project = makeProject(
            QStringLiteral("tail bug"), QString::fromLatin1(kTailBugSource),
            QStringLiteral("twice"),
            QJsonArray{
                bufferArgument(
                    "x", "float32", "n",
                    QJsonObject{{"kind", "uniform"}, {"low", -1}, {"high", 1}, {"seed", 1}}, "in"),
                bufferArgument(
                    "out", "float32", "n", QJsonObject{{"kind", "zeros"}}, "out",
                    QJsonObject{
                        {"kind", "expression"}, {"expression", "2*x"}, {"atol", 0}, {"rtol", 0}}),
                nArgument(n)},
            n,
            QJsonObject{{"cases", QJsonArray{QJsonObject{{"values", QJsonObject{{"n", 64}}}},
                                             QJsonObject{{"values", QJsonObject{{"n", 33}}}}}},
                        {"grid", QJsonArray{"(n + bx - 1) / bx", "1", "1"}},
                        {"determinism", false}});
        Engine engine;
        const RunResult run = test::runAndWait(engine, project);
        QVERIFY2(run.status == RunStatus::Ok && run.verified(),
                 qPrintable(QStringLiteral("the plain run at n = 1024 should pass: %1 %2")
                                .arg(runStatusName(run.status), run.error)));

        QString error;
        const std::optional<TestReport> report = runTests(engine, project, &error);
        QVERIFY2(report, qPrintable(error));
        QVERIFY2(report->status == RunStatus::Ok && report->cases.size() == 2,
                 qPrintable(describe(*report)));
        const TestCaseResult& multiple = report->cases[0];
        const TestCaseResult& tail = report->cases[1];
        QCOMPARE(multiple.name, QStringLiteral("n = 64"));
        QVERIFY2(!multiple.failed(), qPrintable(describe(*report)));
        QCOMPARE(tail.name, QStringLiteral("n = 33"));
        QCOMPARE(tail.launch, QStringLiteral("grid 1x1x1, block 256x1x1"));
        const TestCheck* verify = tail.find(QStringLiteral("verify"));
        QVERIFY2(verify && verify->outcome == CheckOutcome::Failed, qPrintable(describe(*report)));
        QVERIFY2(verify->message.contains(QStringLiteral("1 never written")) &&
                     verify->details.join('\n').contains(QStringLiteral("out[32]")),
                 qPrintable(describe(*report)));
        QVERIFY(!report->passed());
        // The failing case keeps its outputs for the buffer viewer; the passing one does not.
        QVERIFY2(!tail.run.outputs.isEmpty() && multiple.run.outputs.isEmpty(),
                 qPrintable(describe(*report)));
    }

    void atomicFloatSumIsNotDeterministic() {
        Engine engine;
        QString error;
        const std::optional<TestReport> report =
            runTests(engine, atomicSum("float32", "float", true), &error);
        QVERIFY2(report, qPrintable(error));
        QVERIFY2(report->status == RunStatus::Ok && report->cases.size() == 1,
                 qPrintable(describe(*report)));
        const TestCheck* check = report->cases[0].find(QStringLiteral("determinism"));
        QVERIFY2(check && check->outcome == CheckOutcome::Failed, qPrintable(describe(*report)));
        QVERIFY2(check->message.startsWith(QStringLiteral("out: not deterministic: ")) &&
                     check->message.contains(QStringLiteral("ULP")),
                 qPrintable(check->message));
        qInfo("%s", qPrintable(check->message));
    }

    void reversedBlocksReachTheKernel() {
        const int n = 1024; // 4 blocks of 256
        const Project project = makeProject(
            QStringLiteral("block order"), QString::fromLatin1(kBlockOrderSource),
            QStringLiteral("order"),
            QJsonArray{bufferArgument("out", "uint32", "n", QJsonObject{{"kind", "zeros"}}, "out",
                                      QJsonObject{{"kind", "expression"},
                                                  {"expression", "rint((i - 127.5) / 256)"},
                                                  {"atol", 0},
                                                  {"rtol", 0}}),
                       nArgument(n)},
            n,
            QJsonObject{{"cases", QJsonArray{QJsonObject{{"values", QJsonObject{{"n", n}}}}}},
                        {"determinism", "reversed"}});
        Engine engine;
        QString error;
        const std::optional<TestReport> report = runTests(engine, project, &error);
        QVERIFY2(report, qPrintable(error));
        QVERIFY2(report->status == RunStatus::Ok && report->cases.size() == 1,
                 qPrintable(describe(*report)));
        const TestCaseResult& c = report->cases[0];
        const TestCheck* verify = c.find(QStringLiteral("verify"));
        QVERIFY2(verify && verify->outcome == CheckOutcome::Passed, qPrintable(describe(*report)));
        // Blocks 0 and 3 swap their values, 1 and 2 too: all 1024 elements differ.
        const TestCheck* check = c.find(QStringLiteral("determinism"));
        QVERIFY2(check && check->outcome == CheckOutcome::Failed, qPrintable(describe(*report)));
        QVERIFY2(check->message.startsWith(QStringLiteral("out: not deterministic: 1024 elements "
                                                          "differ")) &&
                     check->message.contains(QStringLiteral("blocks in reverse order")),
                 qPrintable(check->message));
    }

    void atomicIntegerSumIsDeterministic() {
        Engine engine;
        QString error;
        const std::optional<TestReport> report =
            runTests(engine, atomicSum("int32", "int", true), &error);
        QVERIFY2(report, qPrintable(error));
        QVERIFY2(report->status == RunStatus::Ok && report->cases.size() == 1,
                 qPrintable(describe(*report)));
        const TestCheck* check = report->cases[0].find(QStringLiteral("determinism"));
        QVERIFY2(check && check->outcome == CheckOutcome::Passed, qPrintable(describe(*report)));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestGpuTests)
} // namespace tst_gputests
#include "tst_gputests.moc"
