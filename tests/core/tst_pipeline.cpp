// Pipelines in .kpad files: the section parses, round-trips byte for byte,
// names its kernels for NVRTC, and every bad step is refused with a message naming its field;
// after a compile, unknown kernels and a buffer bound to a value parameter are named too.
// The timing of a pipeline run travels in RunResult's JSON and becomes summary entries.

#include "core/project/Project.h"
#include "core/run/ExecutionSession.h"
#include "core/run/Summary.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

namespace tst_pipeline {

using namespace kernelpad;

namespace {

QString examplePath() {
    return QStringLiteral(KERNELPAD_EXAMPLES_DIR "/reduction_pipeline.kpad");
}

QJsonObject exampleJson() {
    QFile file(examplePath());
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(examplePath()));
    return QJsonDocument::fromJson(file.readAll()).object();
}

/// The example with `edit` applied to its "pipeline" object.
QJsonObject withPipeline(const std::function<void(QJsonObject&)>& edit) {
    QJsonObject json = exampleJson();
    QJsonObject pipeline = json.value(QStringLiteral("pipeline")).toObject();
    edit(pipeline);
    json.insert(QStringLiteral("pipeline"), pipeline);
    return json;
}

/// Step `index` of `pipeline`, edited.
void editStep(QJsonObject& pipeline, int index, const std::function<void(QJsonObject&)>& edit) {
    QJsonArray steps = pipeline.value(QStringLiteral("steps")).toArray();
    QJsonObject step = steps[index].toObject();
    edit(step);
    steps[index] = step;
    pipeline.insert(QStringLiteral("steps"), steps);
}

Project load(const QJsonObject& json) {
    QString error;
    std::optional<Project> p = Project::fromJson(json, &error);
    if (!p)
        qFatal("project refused: %s", qPrintable(error));
    return *p;
}

} // namespace

class TestPipeline : public QObject {
    Q_OBJECT

private slots:
    void exampleParses() {
        QString error;
        const std::optional<Project> p = Project::load(examplePath(), &error);
        QVERIFY2(p, qPrintable(error));
        const Pipeline& pipeline = p->pipeline;
        QVERIFY(pipeline.graph);
        QCOMPARE(pipeline.steps.size(), 2);
        QCOMPARE(pipeline.steps[0].kernel, QStringLiteral("reduce_partials"));
        QCOMPARE(pipeline.steps[0].launch.grid, (std::array<int, 3>{256, 1, 1}));
        QCOMPARE(pipeline.steps[1].launch.block, (std::array<int, 3>{256, 1, 1}));
        QCOMPARE(pipeline.steps[1].args.size(), 3);
        QCOMPARE(pipeline.steps[1].args[2].argument, QStringLiteral("n"));
        QCOMPARE(pipeline.steps[1].args[2].value, std::optional<QString>(QStringLiteral("256")));
        QCOMPARE(pipeline.launchCount(), qint64(2));
        // The step's own value replaces the project's n; the project's n is untouched.
        const QVector<ArgumentSpec> bound = pipeline.stepArguments(1, p->arguments);
        QCOMPARE(bound.size(), 3);
        QCOMPARE(bound[2].value, QStringLiteral("256"));
        QCOMPARE(p->findArgument(QStringLiteral("n"))->value, QStringLiteral("1048576"));
        QCOMPARE(pipeline.steps[0].label(),
                 QStringLiteral("reduce_partials <<<(256,1,1), (256,1,1)>>> x1"));
    }

    void roundTripIsByteStable() {
        Project p = load(exampleJson());
        p.pipeline.steps[0].repeat = 3;
        p.pipeline.steps[0].swaps = {{QStringLiteral("in"), QStringLiteral("in2")}};
        ArgumentSpec in2 = *p.findArgument(QStringLiteral("in"));
        in2.name = QStringLiteral("in2");
        p.arguments.append(in2);
        const QByteArray first = QJsonDocument(p.toJson()).toJson();
        QString error;
        const std::optional<Project> back =
            Project::fromJson(QJsonDocument::fromJson(first).object(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(QJsonDocument(back->toJson()).toJson(), first);
        QVERIFY(*back == p);
        QCOMPARE(back->pipeline, p.pipeline);
        QCOMPARE(back->pipeline.steps[0].swaps.size(), 1);
    }

    void withoutPipelineNothingIsWritten() {
        Project p = load(exampleJson());
        p.pipeline = {};
        QVERIFY(!p.toJson().contains(QStringLiteral("pipeline")));
        QVERIFY(load(p.toJson()).pipeline.isEmpty());
    }

    void saveAndLoad() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("p.kpad"));
        const Project p = load(exampleJson());
        QString error;
        QVERIFY2(p.save(path, &error), qPrintable(error));
        const std::optional<Project> back = Project::load(path, &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->pipeline, p.pipeline);
    }

    void stepKernelsAreNameExpressions() {
        Project p = load(exampleJson());
        p.pipeline.steps[1].kernel = QStringLiteral("scale<float>");
        QVERIFY(p.nameExpressions().contains(QStringLiteral("scale<float>")));
        QVERIFY(!p.nameExpressions().contains(QStringLiteral("reduce_partials")));
    }

    void badInput_data() {
        using Edit = std::function<void(QJsonObject&)>;
        QTest::addColumn<Edit>("edit");
        QTest::addColumn<QString>("message");
        const auto step = [](int index, const Edit& e) -> Edit {
            return [=](QJsonObject& pipeline) { editStep(pipeline, index, e); };
        };
        QTest::newRow("a step names a buffer that does not exist")
            << step(1,
                    [](QJsonObject& s) {
                        s.insert("args", QJsonArray{"partials", "tmp", "n"});
                    })
            << "pipeline.steps[1].args[1]: no argument named 'tmp' in the project (it has: in, "
               "partials, out, n)";
        QTest::newRow("a value for a buffer")
            << step(0,
                    [](QJsonObject& s) {
                        s.insert("args", QJsonArray{QJsonObject{{"name", "in"}, {"value", "3"}},
                                                    "partials", "n"});
                    })
            << "pipeline.steps[0].args[0].value: 'in' is not a scalar; only a scalar argument "
               "takes a value of the step's own";
        QTest::newRow("a value that is no int32") << step(1, [](QJsonObject& s) {
            s.insert("args",
                     QJsonArray{"partials", "out", QJsonObject{{"name", "n"}, {"value", "x"}}});
        }) << "pipeline.steps[1].args[2].value: ";
        QTest::newRow("an argument that is a number") << step(0, [](QJsonObject& s) {
            s.insert("args", QJsonArray{"in", 3, "n"});
        }) << "pipeline.steps[0].args[1]: expected an argument name or an object, got a number";
        QTest::newRow("no kernel") << step(0, [](QJsonObject& s) { s.remove("kernel"); })
                                   << "pipeline.steps[0].kernel: missing";
        QTest::newRow("an empty kernel")
            << step(0, [](QJsonObject& s) { s.insert("kernel", "  "); })
            << "pipeline.steps[0].kernel: must name the kernel to launch";
        QTest::newRow("no launch") << step(1, [](QJsonObject& s) { s.remove("launch"); })
                                   << "pipeline.steps[1].launch: missing";
        QTest::newRow("a block of 0") << step(1, [](QJsonObject& s) {
            s.insert("launch", QJsonObject{{"grid", 1}, {"block", QJsonArray{0}}});
        }) << "pipeline.steps[1].launch.block[0]: ";
        QTest::newRow("a cluster") << step(0, [](QJsonObject& s) {
            s.insert("launch", QJsonObject{{"grid", 8}, {"block", 32}, {"cluster", 2}});
        }) << "pipeline.steps[0].launch.cluster: a pipeline step is a plain launch";
        QTest::newRow("repeat 0") << step(0, [](QJsonObject& s) { s.insert("repeat", 0); })
                                  << "pipeline.steps[0].repeat: ";
        QTest::newRow("swap with a missing buffer") << step(0, [](QJsonObject& s) {
            s.insert("swap", QJsonArray{QJsonArray{"in", "b"}});
        }) << "pipeline.steps[0].swap[0]: no argument named 'b' in the project";
        QTest::newRow("swap a scalar") << step(0, [](QJsonObject& s) {
            s.insert("swap", QJsonArray{QJsonArray{"in", "n"}});
        }) << "pipeline.steps[0].swap[0]: 'n' is not a buffer; only buffers can be swapped";
        QTest::newRow("swap buffers of different counts")
            << step(0,
                    [](QJsonObject& s) {
                        s.insert("swap", QJsonArray{QJsonArray{"in", "partials"}});
                    })
            << "pipeline.steps[0].swap[0]: 'in' (n x float32) and 'partials' (256 x float32) "
               "differ; swapped buffers must have the same type and count";
        QTest::newRow("swap a buffer with itself") << step(0, [](QJsonObject& s) {
            s.insert("swap", QJsonArray{QJsonArray{"in", "in"}});
        }) << "pipeline.steps[0].swap[0]: swaps 'in' with itself";
        QTest::newRow("a swap that is no pair")
            << step(0, [](QJsonObject& s) { s.insert("swap", QJsonArray{QJsonArray{"in"}}); })
            << "pipeline.steps[0].swap[0]: expected a pair of buffer names, got an array";
        QTest::newRow("steps missing")
            << Edit([](QJsonObject& p) { p.remove("steps"); }) << "pipeline.steps: missing";
        QTest::newRow("a step that is no object")
            << Edit([](QJsonObject& p) { p.insert("steps", QJsonArray{1}); })
            << "pipeline.steps[0]: expected an object, got a number";
        QTest::newRow("graph of nothing")
            << Edit([](QJsonObject& p) { p.insert("steps", QJsonArray{}); })
            << "pipeline.steps: a graph needs at least one step";
        QTest::newRow("graph not a boolean")
            << Edit([](QJsonObject& p) { p.insert("graph", "yes"); })
            << "pipeline.graph: expected a boolean, got a string";
    }
    void badInput() {
        using Edit = std::function<void(QJsonObject&)>;
        QFETCH(Edit, edit);
        QFETCH(QString, message);
        QString error;
        QVERIFY(!Project::fromJson(withPipeline(edit), &error));
        QVERIFY2(error.startsWith(message), qPrintable(error));
    }

    void pipelineNotAnObject() {
        QJsonObject json = exampleJson();
        json.insert(QStringLiteral("pipeline"), QJsonArray{});
        QString error;
        QVERIFY(!Project::fromJson(json, &error));
        QCOMPARE(error, QStringLiteral("pipeline: expected an object, got an array"));
    }

    // A file with a bad pipeline is refused whole: Project::load keeps nothing half-read, and
    // a save of a project whose pipeline names a removed argument is refused, the file kept.
    void nothingLostOnABadStep() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("p.kpad"));
        Project p = load(exampleJson());
        QString error;
        QVERIFY2(p.save(path, &error), qPrintable(error));
        const QByteArray saved = [&] {
            QFile f(path);
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        }();
        p.arguments.removeAt(1); // "partials", still bound by both steps
        QVERIFY(!p.save(path, &error));
        QVERIFY2(error.contains(QStringLiteral("pipeline.steps[0].args[1]: no argument named "
                                               "'partials' in the project")),
                 qPrintable(error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), saved);
    }

    // After NVRTC: every step kernel is found, and kinds are checked where names are mangled.
    void compiledChecks() {
        Project p = load(exampleJson());
        CompileResult compiled = compileProject(p, QString(), QStringLiteral("sm_90"), nullptr);
        QVERIFY2(compiled.ok, qPrintable(compiled.log + compiled.error));
        QCOMPARE(p.pipeline.problemWithCompiled(p.arguments, compiled), QString());

        p.pipeline.steps[1].kernel = QStringLiteral("reduce_last");
        QCOMPARE(p.pipeline.problemWithCompiled(p.arguments, compiled),
                 QStringLiteral("pipeline.steps[1].kernel: kernel 'reduce_last' is not in the "
                                "compiled module; it has: reduce_partials, reduce_final, "
                                "sum_reference"));

        p.pipeline.steps[1].kernel = QStringLiteral("reduce_final");
        p.pipeline.steps[1].args.removeLast();
        QCOMPARE(p.pipeline.problemWithCompiled(p.arguments, compiled),
                 QStringLiteral("pipeline.steps[1].args: kernel 'reduce_final' takes 3 "
                                "parameter(s) but the step binds 2"));
    }

    // A run names a step's unknown kernel after the compile, whether or not there is a driver.
    void runNamesAnUnknownStepKernel() {
        Project p = load(exampleJson());
        p.pipeline.steps[0].kernel = QStringLiteral("reduce_partial");
        p.options.arch = QStringLiteral("sm_90");
        ExecutionSession session(nullptr);
        const std::atomic_bool cancel{false};
        RunRequest request;
        request.project = p;
        const RunResult r = session.run(request, cancel);
        QCOMPARE(r.status, RunStatus::BadInput);
        QVERIFY2(r.error.startsWith(QStringLiteral("pipeline.steps[0].kernel: kernel "
                                                   "'reduce_partial' is not in the compiled "
                                                   "module; it has: ")),
                 qPrintable(r.error));
        QVERIFY(r.compile.ok);

        // A project built in code (not read from a file) is checked all the same.
        p.pipeline.steps[0].kernel = QStringLiteral("reduce_partials");
        p.pipeline.steps[1].args[0].argument = QStringLiteral("tmp");
        request.project = p;
        const RunResult missing = session.run(request, cancel);
        QCOMPARE(missing.status, RunStatus::BadInput);
        QCOMPARE(missing.error, QStringLiteral("pipeline.steps[1].args[0]: no argument named "
                                               "'tmp' in the project (it has: in, partials, "
                                               "out, n)"));
    }

    void bufferBoundToAValueParameter() {
        Project p = load(exampleJson());
        // A C++ kernel: its mangled name says which parameter is a pointer.
        p.source += QStringLiteral("\n__global__ void scale(float* x, int n) {}\n");
        PipelineStep step;
        step.kernel = QStringLiteral("scale");
        step.launch.grid = {1, 1, 1};
        step.args = {PipelineBinding{QStringLiteral("n"), std::nullopt},
                     PipelineBinding{QStringLiteral("out"), std::nullopt}};
        p.pipeline.steps.append(step);
        const CompileResult compiled =
            compileProject(p, QString(), QStringLiteral("sm_90"), nullptr);
        QVERIFY2(compiled.ok, qPrintable(compiled.log + compiled.error));
        const QString problem = p.pipeline.problemWithCompiled(p.arguments, compiled);
        QVERIFY2(problem.startsWith(QStringLiteral("pipeline.steps[2].args[0]: 'n' is a scalar "
                                                   "but parameter 1 of kernel 'scale' is float")),
                 qPrintable(problem));
    }

    void timingTravelsAndIsSummarized() {
        RunResult r;
        r.status = RunStatus::Ok;
        r.kernelLowered = QStringLiteral("reduce_partials");
        r.pipeline.launches = 3;
        StepTiming first{QStringLiteral("reduce_partials"), 1, computeStats({0.010, 0.012, 0.011})};
        StepTiming second{QStringLiteral("add_one"), 2, computeStats({0.004, 0.004, 0.006})};
        r.pipeline.steps = {first, second};
        r.pipeline.sequence = computeStats({0.040, 0.041, 0.039});
        r.pipeline.graph = true;
        r.pipeline.graphReplay = computeStats({0.025, 0.026, 0.024});
        r.pipeline.graphInstantiateMs = 0.5;
        r.timing = r.pipeline.sequence;

        const QByteArray text = QJsonDocument(r.toJson()).toJson(QJsonDocument::Compact);
        QString error;
        const std::optional<RunResult> back =
            RunResult::fromJson(QJsonDocument::fromJson(text).object(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->pipeline, r.pipeline);
        QCOMPARE(back->pipeline.steps[1].repeat, 2);
        QCOMPARE(back->pipeline.savedMs(), 0.015);
        QVERIFY(!RunResult().toJson().contains(QStringLiteral("pipeline")));

        const QVector<Summary> s = summarize(*back);
        QCOMPARE(findSummary(s, "pipeline.step1.median")->value, 0.011e-3);
        QCOMPARE(findSummary(s, "pipeline.step2.median")->name,
                 QStringLiteral("step 2: add_one x2"));
        QCOMPARE(findSummary(s, "pipeline.launches")->value, 3.0);
        QCOMPARE(formatSummaryValue(*findSummary(s, "pipeline.stream")), QStringLiteral("40.0 µs"));
        QCOMPARE(formatSummaryValue(*findSummary(s, "pipeline.graph")), QStringLiteral("25.0 µs"));
        QCOMPARE(formatSummaryValue(*findSummary(s, "pipeline.graphSaved")),
                 QStringLiteral("15.0 µs"));
        QCOMPARE(formatSummaryValue(*findSummary(s, "pipeline.graphSavedShare")),
                 QStringLiteral("37.5 %"));

        RunResult slower = *back;
        slower.pipeline.graphReplay = computeStats({0.045});
        QCOMPARE(formatSummaryValue(*findSummary(summarize(slower), "pipeline.graphSaved")),
                 QStringLiteral("-5.00 µs"));
        RunResult noGraph = *back;
        noGraph.pipeline.graph = false;
        QVERIFY(!findSummary(summarize(noGraph), "pipeline.graph"));
        QVERIFY(findSummary(summarize(noGraph), "pipeline.stream"));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestPipeline)
} // namespace tst_pipeline
#include "tst_pipeline.moc"
