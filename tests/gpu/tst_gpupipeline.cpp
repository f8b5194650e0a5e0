// Pipelines on a GPU: the two-pass reduction example verifies with and
// without a CUDA graph, in this process and through the runner, with per-step times, a graph
// replay time and the time saved; ping-pong swaps leave each buffer what its name says; a
// step naming a missing buffer or binding a buffer to a value parameter is refused with the
// field named; `kernelpad-cli run --json` shows the pipeline's summaries.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/engine/Engine.h"
#include "core/run/ExecutionSession.h"
#include "core/run/Summary.h"
#include "core/runner/RunnerClient.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTest>

#include <cstring>

namespace tst_gpupipeline {

using namespace kernelpad;

namespace {

ArgumentSpec floatBuffer(const QString& name, const QString& expected) {
    ArgumentSpec a;
    a.name = name;
    a.kind = ArgumentSpec::Kind::Buffer;
    a.buffer.elementType = ValueType::of(ScalarType::Float32);
    a.buffer.count = QStringLiteral("n");
    a.buffer.init.kind = InitSpec::Kind::Zeros;
    a.buffer.direction = Direction::InOut;
    a.buffer.verify.kind = VerifySpec::Kind::Expression;
    a.buffer.verify.expression = expected;
    a.buffer.verify.atol = 0;
    a.buffer.verify.rtol = 0;
    return a;
}

/// `repeat` launches of b[i] = a[i] + 1 with a and b swapped after each: the buffer named `a`
/// ends holding `repeat`, `b` one less.
Project pingPong(int repeat, bool graph) {
    Project p;
    p.name = QStringLiteral("ping-pong");
    p.source =
        QStringLiteral("extern \"C\" __global__ void add_one(const float* a, float* b, int n) {\n"
                       "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                       "    if (i < n) b[i] = a[i] + 1.0f;\n"
                       "}\n");
    p.kernel = QStringLiteral("add_one");
    ArgumentSpec n;
    n.name = QStringLiteral("n");
    n.type = ValueType::of(ScalarType::Int32);
    n.value = QStringLiteral("1000");
    p.arguments = {floatBuffer(QStringLiteral("a"), QString::number(repeat)),
                   floatBuffer(QStringLiteral("b"), QString::number(repeat - 1)), n};
    p.launch.grid = {4, 1, 1};
    p.launch.block = {256, 1, 1};
    p.timing.repetitions = 5;
    p.timing.warmupLaunches = 1;
    PipelineStep step;
    step.kernel = QStringLiteral("add_one");
    step.launch = p.launch;
    step.args = {PipelineBinding{QStringLiteral("a"), std::nullopt},
                 PipelineBinding{QStringLiteral("b"), std::nullopt},
                 PipelineBinding{QStringLiteral("n"), std::nullopt}};
    step.repeat = repeat;
    step.swaps = {{QStringLiteral("a"), QStringLiteral("b")}};
    p.pipeline.steps = {step};
    p.pipeline.graph = graph;
    return p;
}

/// What every verified pipeline run of the reduction example must show.
void checkReduction(const RunResult& r, bool graph) {
    QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
    QCOMPARE(r.verification.size(), 1);
    QCOMPARE(r.verification[0].buffer, QStringLiteral("out"));
    QVERIFY2(r.verification[0].passed, qPrintable(r.verification[0].error));
    QCOMPARE(r.verification[0].checked, qint64(1));
    QCOMPARE(r.pipeline.steps.size(), 2);
    QCOMPARE(r.pipeline.steps[0].kernel, QStringLiteral("reduce_partials"));
    QCOMPARE(r.pipeline.steps[1].kernel, QStringLiteral("reduce_final"));
    QCOMPARE(r.pipeline.launches, qint64(2));
    for (const StepTiming& step : r.pipeline.steps) {
        QVERIFY(step.stats.reps() > 0);
        QVERIFY(step.stats.medianMs > 0);
    }
    QVERIFY(r.pipeline.sequence.medianMs > 0);
    QCOMPARE(r.timing.medianMs, r.pipeline.sequence.medianMs);
    QCOMPARE(r.pipeline.graph, graph);
    const QVector<Summary> s = summarize(r);
    QVERIFY(findSummary(s, "pipeline.step1.median"));
    QVERIFY(findSummary(s, "pipeline.step2.median"));
    QVERIFY(findSummary(s, "pipeline.stream"));
    if (graph) {
        QVERIFY(r.pipeline.graphReplay.reps() > 0);
        QVERIFY(r.pipeline.graphReplay.medianMs > 0);
        QVERIFY(r.pipeline.graphInstantiateMs > 0);
        QVERIFY(findSummary(s, "pipeline.graph"));
        QCOMPARE(findSummary(s, "pipeline.graphSaved")->value,
                 (r.pipeline.sequence.medianMs - r.pipeline.graphReplay.medianMs) / 1e3);
        qInfo("stream %.4f ms, graph %.4f ms, saved %.4f ms (%s)", r.pipeline.sequence.medianMs,
              r.pipeline.graphReplay.medianMs, r.pipeline.savedMs(),
              qPrintable(formatSummaryValue(*findSummary(s, "pipeline.graphSavedShare"))));
    } else {
        QVERIFY(!findSummary(s, "pipeline.graph"));
    }
}

} // namespace

class TestGpuPipeline : public QObject {
    Q_OBJECT

private:
    CompileCache m_cache;
    std::unique_ptr<ExecutionSession> m_session;
    std::atomic_bool m_cancel{false};

    RunResult run(const Project& p, bool keepOutputs = false) {
        RunRequest r;
        r.project = p;
        r.projectDir = test::examplesDir();
        r.keepOutputs = keepOutputs;
        return m_session->run(r, m_cancel);
    }

private slots:
    void initTestCase() {
        KERNELPAD_REQUIRE_DRIVER();
        m_session = std::make_unique<ExecutionSession>(&m_cache);
    }

    void reductionExample_data() {
        QTest::addColumn<bool>("graph");
        QTest::newRow("with a CUDA graph") << true;
        QTest::newRow("on the stream only") << false;
    }
    void reductionExample() {
        QFETCH(bool, graph);
        Project p = test::loadExample("reduction_pipeline.kpad");
        QVERIFY(p.pipeline.graph);
        p.pipeline.graph = graph;
        const RunResult r = run(p);
        checkReduction(r, graph);
    }

    // The result of the same pipeline comes back whole from the runner process.
    void reductionThroughTheRunner() {
        Engine engine(nullptr, Engine::Isolation::Process);
        const RunResult r = test::runAndWait(engine, test::loadExample("reduction_pipeline.kpad"));
        checkReduction(r, true);
    }

    void pingPongSwaps_data() {
        QTest::addColumn<int>("repeat");
        QTest::addColumn<bool>("graph");
        QTest::newRow("5 repetitions, odd: a lives in b's memory") << 5 << false;
        QTest::newRow("6 repetitions, even") << 6 << false;
        QTest::newRow("5 repetitions captured as a graph") << 5 << true;
    }
    void pingPongSwaps() {
        QFETCH(int, repeat);
        QFETCH(bool, graph);
        const RunResult r = run(pingPong(repeat, graph), true);
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
        QCOMPARE(r.verification.size(), 2);
        for (const BufferVerification& v : r.verification)
            QVERIFY2(v.passed, qPrintable(v.buffer + QStringLiteral(": ") + v.error));
        QCOMPARE(r.pipeline.launches, qint64(repeat));
        QCOMPARE(r.pipeline.steps.size(), 1);
        QCOMPARE(r.pipeline.steps[0].repeat, repeat);
        // The outputs returned are the verified ones: a holds `repeat`, b one less.
        for (const OutputBuffer& o : r.outputs) {
            QCOMPARE(o.count, qint64(1000));
            float first = 0, last = 0;
            std::memcpy(&first, o.data.constData(), sizeof first);
            std::memcpy(&last, o.data.constData() + o.data.size() - sizeof last, sizeof last);
            const float expected = o.name == QStringLiteral("a") ? repeat : repeat - 1;
            QCOMPARE(first, expected);
            QCOMPARE(last, expected);
        }
        if (graph)
            QVERIFY(r.pipeline.graphReplay.medianMs > 0);
    }

    // A second run in the same session starts again from the buffers' initial contents,
    // though the first run's steps (and its timed passes) wrote every buffer.
    void secondRunStartsFresh() {
        const RunResult first = run(pingPong(3, false));
        QVERIFY2(first.status == RunStatus::Ok, qPrintable(first.error));
        const RunResult second = run(pingPong(3, false));
        QVERIFY2(second.status == RunStatus::Ok, qPrintable(second.error));
    }

    void missingBufferIsRefused() {
        Project p = test::loadExample("reduction_pipeline.kpad");
        p.pipeline.steps[1].args[0].argument = QStringLiteral("tmp");
        const RunResult r = run(p);
        QCOMPARE(r.status, RunStatus::BadInput);
        QVERIFY2(r.error.startsWith(QStringLiteral(
                     "pipeline.steps[1].args[0]: no argument named 'tmp' in the project")),
                 qPrintable(r.error));
    }

    // extern "C" kernels keep no types: a buffer bound where an int goes is caught by the
    // parameter sizes cuFuncGetParamInfo gives, as for a single launch.
    void bufferBoundToAValueParameter() {
        Project p = test::loadExample("reduction_pipeline.kpad");
        p.pipeline.steps[1].args[2] = PipelineBinding{QStringLiteral("in"), std::nullopt};
        const RunResult r = run(p);
        QCOMPARE(r.status, RunStatus::BadInput);
        QVERIFY2(r.error.startsWith(QStringLiteral("pipeline.steps[1]: argument 'in' (a buffer, "
                                                   "passed as an 8-byte pointer) does not match "
                                                   "parameter 3 of kernel 'reduce_final'")),
                 qPrintable(r.error));
    }

    void cliShowsThePipeline() {
        QProcess cli;
        cli.start(RunnerClient::findRunner(),
                  {QStringLiteral("run"), test::examplesDir() + "/reduction_pipeline.kpad",
                   QStringLiteral("--json"), QStringLiteral("--reps"), QStringLiteral("5")});
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitCode(), 0);
        const QJsonObject json = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
        QCOMPARE(json.value("status").toString(), QStringLiteral("ok"));
        QStringList keys;
        for (const QJsonValue& s : json.value("summaries").toArray())
            keys << s.toObject().value("key").toString();
        for (const char* key : {"pipeline.step1.median", "pipeline.step2.median", "pipeline.stream",
                                "pipeline.graph", "pipeline.graphSaved"})
            QVERIFY2(keys.contains(QLatin1String(key)), key);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestGpuPipeline)
} // namespace tst_gpupipeline
#include "tst_gpupipeline.moc"
