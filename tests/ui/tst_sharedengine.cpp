// Several callers on one Engine, without a GPU (kernels "run" in this process and are answered
// with the missing driver): each window's Workbench has its own queue and cancel, so a request
// of one is never cancelled by another's newer request or by another's Cancel; and the Sweep
// dock builds its request as Run does, so a relative .npy beside an opened .cu is found by both.

#include "core/engine/Engine.h"
#include "core/sweep/SweepEvaluator.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/widgets/SweepPanel.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <memory>

#include "../support/TestMain.h"
#include "../support/TestProjects.h"

namespace tst_sharedengine {

using namespace kernelpad;
using kernelpad::test::fakeDevice;

namespace {

constexpr int kAnswerTimeoutMs = 60000;

Project scaleProject() {
    Project p;
    p.name = QStringLiteral("Shared engine test");
    p.source = QStringLiteral("__global__ void scale(float* data, int n) {\n"
                              "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                              "    if (i < n) data[i] *= 2.0f;\n"
                              "}\n");
    p.kernel = QStringLiteral("scale");
    p.launch.grid = {4, 1, 1};
    p.launch.block = {256, 1, 1};
    return p;
}

/// One window's document and workbench on the shared Engine.
struct Window {
    ProjectDocument document;
    Workbench workbench;
    QVector<RunResult> answers;

    explicit Window(Engine* engine)
        : workbench(engine, &document) {
        document.replace(scaleProject());
        QObject::connect(&workbench, &Workbench::runShown,
                         [this](const RunResult& r) { answers.append(r); });
    }
};

/// The Engine's own device answer comes once; the fake devices must come after it.
bool withFakeDevice(Engine& engine, Window& first) {
    QSignalSpy spy(&engine, &Engine::devicesChanged);
    if (!first.workbench.devicesKnown() && !spy.wait(kAnswerTimeoutMs) && spy.isEmpty())
        return false;
    emit engine.devicesChanged({fakeDevice()}, QString());
    return true;
}

bool replaced(const RunResult& r) {
    return r.status == RunStatus::Cancelled;
}

/// Captures the requests a sweep hands its evaluator, answering each at once as failed.
class CapturingEvaluator : public SweepEvaluator {
public:
    explicit CapturingEvaluator(std::shared_ptr<QVector<RunRequest>> seen)
        : m_seen(std::move(seen)) {}
    void start(quint64 tag, const RunRequest& request) override {
        m_seen->append(request);
        RunResult r;
        r.status = RunStatus::BadInput;
        r.error = QStringLiteral("stand-in");
        QMetaObject::invokeMethod(
            this, [this, tag, r] { emit finished(tag, r, QStringLiteral("Fake GPU")); },
            Qt::QueuedConnection);
    }
    [[nodiscard]] int capacity() const override { return 1; }
    void cancel() override {}

private:
    std::shared_ptr<QVector<RunRequest>> m_seen;
};

/// Answers each configuration after a pause, so that the sweep holds its device a while.
class SlowEvaluator : public SweepEvaluator {
public:
    void start(quint64 tag, const RunRequest&) override {
        QTimer::singleShot(100, this, [this, tag] {
            RunResult r;
            r.status = RunStatus::BadInput;
            r.error = QStringLiteral("stand-in");
            emit finished(tag, r, QStringLiteral("Fake GPU"));
        });
    }
    [[nodiscard]] int capacity() const override { return 1; }
    void cancel() override {}
};

/// The stages a window's panels are shown.
class StageViewer : public WorkbenchViewer {
public:
    QStringList stages;
    void runProgress(const Workbench&, const QString& stage, int, int) override {
        stages.append(stage);
    }
};

} // namespace

class TestSharedEngine : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // Window 1's run is in flight; window 2 and then window 3 ask for a run. Each run is of
    // its own window: none replaces another's (one shared queued slot cancelled window 2's).
    void aNewerRequestReplacesOnlyItsOwnCallersRequest() {
        Engine engine(nullptr, Engine::Isolation::InProcess);
        Window one(&engine), two(&engine), three(&engine);
        QVERIFY(withFakeDevice(engine, one));
        QString why;
        QVERIFY2(one.workbench.run(RunRequest(), &why), qPrintable(why));
        QVERIFY2(two.workbench.run(RunRequest(), &why), qPrintable(why));
        QVERIFY2(three.workbench.run(RunRequest(), &why), qPrintable(why));
        for (Window* w : {&one, &two, &three})
            QTRY_COMPARE_WITH_TIMEOUT(w->answers.size(), 1, kAnswerTimeoutMs);
        for (Window* w : {&one, &two, &three})
            QVERIFY2(!replaced(w->answers.first()), qPrintable(w->answers.first().error));
    }

    // Window 1 cancels its run while window 2's waits in the queue: window 2's still runs.
    void cancelEndsOnlyTheCallersOwnRequests() {
        Engine engine(nullptr, Engine::Isolation::InProcess);
        Window one(&engine), two(&engine);
        QVERIFY(withFakeDevice(engine, one));
        QString why;
        QVERIFY2(one.workbench.run(RunRequest(), &why), qPrintable(why));
        QVERIFY2(two.workbench.run(RunRequest(), &why), qPrintable(why));
        one.workbench.cancel();
        QTRY_COMPARE_WITH_TIMEOUT(two.answers.size(), 1, kAnswerTimeoutMs);
        QVERIFY2(!replaced(two.answers.first()), qPrintable(two.answers.first().error));
        QTRY_COMPARE_WITH_TIMEOUT(one.answers.size(), 1, kAnswerTimeoutMs);
        QVERIFY(!one.workbench.isRunning() && !two.workbench.isRunning());
    }

    // A window's Run while a sweep holds its GPU waits, and its panels are told why.
    void aRunWaitingForTheSweepSaysWhy() {
        QTemporaryDir dir;
        Engine engine(nullptr, Engine::Isolation::InProcess);
        Window window(&engine);
        QVERIFY(withFakeDevice(engine, window));
        StageViewer viewer;
        window.workbench.addViewer(&viewer);
        SweepOrder order;
        order.base.project = scaleProject();
        SweepTunable bx;
        bx.name = QStringLiteral("bx");
        bx.role = SweepTunable::Role::Block;
        bx.values.kind = SweepValues::Kind::List;
        bx.values.list = {32, 64, 128};
        order.base.project.sweep.tunables = {bx};
        order.resultsPath = dir.filePath(QStringLiteral("sweep.jsonl"));
        order.evaluator = [] { return std::make_unique<SlowEvaluator>(); };
        QSignalSpy sweepEnded(&engine, &Engine::sweepFinished);
        engine.sweep(order);
        QString why;
        QVERIFY2(window.workbench.run(RunRequest(), &why), qPrintable(why));
        QTRY_VERIFY_WITH_TIMEOUT(!viewer.stages.isEmpty(), kAnswerTimeoutMs);
        QCOMPARE(viewer.stages.first(), QStringLiteral("waiting: sweep running on GPU 0"));
        QTRY_COMPARE_WITH_TIMEOUT(window.answers.size(), 1, kAnswerTimeoutMs);
        QCOMPARE(sweepEnded.count(), 1); // the run was answered after the sweep ended
        window.workbench.removeViewer(&viewer);
    }

    // A .cu opened as an untitled copy, with its input beside it: Run and Run Sweep resolve
    // the project folder alike (the sweep used the document's path, empty while untitled).
    void sweepAndRunBuildTheSameRequest() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QFile npy(dir.filePath(QStringLiteral("in.npy")));
        QVERIFY(npy.open(QIODevice::WriteOnly));
        npy.write("placeholder");
        npy.close();

        Engine engine(nullptr, Engine::Isolation::InProcess);
        Window window(&engine);
        Project project = scaleProject();
        SweepTunable bx;
        bx.name = QStringLiteral("bx");
        bx.role = SweepTunable::Role::Block;
        bx.axis = 0;
        bx.values.kind = SweepValues::Kind::List;
        bx.values.list = {64, 128};
        project.sweep.tunables = {bx};
        window.document.replace(project, QString(), dir.path());
        QVERIFY(window.document.isUntitled());
        QVERIFY(withFakeDevice(engine, window));

        QSignalSpy requested(&window.workbench, &Workbench::runRequested);
        QString why;
        QVERIFY2(window.workbench.run(RunRequest(), &why), qPrintable(why));
        QCOMPARE(requested.count(), 1);
        const RunRequest run = requested.first().at(1).value<RunRequest>();

        SweepPanel panel;
        panel.setDocument(&window.document);
        panel.setEngine(&engine);
        panel.setDevice(0, QString(), QStringLiteral("Test GPU"));
        auto seen = std::make_shared<QVector<RunRequest>>();
        panel.setEvaluatorFactory([seen] { return std::make_unique<CapturingEvaluator>(seen); });
        panel.setResumeQuestion(
            [](int, const QString&) { return SweepPanel::ResumeChoice::StartOver; });
        QVERIFY2(panel.runSweep(), qPrintable(panel.message()));
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isRunning(), kAnswerTimeoutMs);
        QVERIFY(!seen->isEmpty());

        const RunRequest& swept = seen->first();
        QCOMPARE(swept.projectDir, run.projectDir);
        QCOMPARE(swept.device, run.device);
        for (const QString& folder : {run.projectDir, swept.projectDir})
            QVERIFY2(QFileInfo::exists(QDir(folder).filePath(QStringLiteral("in.npy"))),
                     qPrintable(folder));
    }
};

KERNELPAD_TEST_MAIN(TestSharedEngine)

} // namespace tst_sharedengine

#include "tst_sharedengine.moc"
