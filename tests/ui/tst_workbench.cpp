// The Workbench without a window: what its viewers are told and when, how a compile writes the
// kernel and its arguments into the document, and why Run cannot start.

#include "core/engine/Engine.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"

#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

#include <memory>

#include "../support/TestMain.h"
#include "../support/TestProjects.h"

namespace tst_workbench {

using namespace kernelpad;
using kernelpad::test::fakeDevice;

namespace {

constexpr int kCompileTimeoutMs = 60000;

/// Writes down what it was told, in order.
class RecordingViewer : public QObject, public WorkbenchViewer {
public:
    QStringList calls;
    void workbenchCleared(const Workbench&) override { calls << QStringLiteral("cleared"); }
    void devicesChanged(const Workbench&) override { calls << QStringLiteral("devices"); }
    void compileStarted(const Workbench&) override { calls << QStringLiteral("compileStarted"); }
    void compiled(const Workbench& s) override {
        calls << (s.lastCompile()->ok ? QStringLiteral("compiled") : QStringLiteral("failed"));
    }
    void runFinished(const Workbench&, const RunRecord&) override {
        calls << QStringLiteral("run");
    }
};

Project twoArgumentKernel(const QString& kernel) {
    Project p;
    p.name = QStringLiteral("Workbench test");
    p.source = QStringLiteral("__global__ void scale(float* data, int n) {\n"
                              "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                              "    if (i < n) data[i] *= 2.0f;\n"
                              "}\n");
    p.kernel = kernel;
    p.launch.grid = {4, 1, 1};
    p.launch.block = {256, 1, 1};
    return p;
}

/// The engine's own answer to the device query arrives once; the fake devices a test emits
/// must come after it or it would overwrite them.
bool devicesAnswered(Workbench& workbench) {
    QSignalSpy spy(workbench.engine(), &Engine::devicesChanged);
    return workbench.devicesKnown() || spy.wait(kCompileTimeoutMs) || spy.count() > 0;
}

bool compileAndWait(Workbench& workbench) {
    QSignalSpy spy(&workbench, &Workbench::compileShown);
    workbench.compile();
    return spy.wait(kCompileTimeoutMs) || spy.count() > 0;
}

} // namespace

class TestWorkbench : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void lateViewerReceivesTheCurrentState();
    void replacingTheProjectClearsAndCompiles();
    void compileFollowsTheKernelAndItsSignature();
    void runBlockedReasons();
    void destroyedViewerIsForgotten();
    void kernelEditIsNotACompile();
};

void TestWorkbench::lateViewerReceivesTheCurrentState() {
    Engine engine;
    ProjectDocument document;
    Workbench workbench(&engine, &document);
    document.replace(twoArgumentKernel(QStringLiteral("scale")));
    QVERIFY(compileAndWait(workbench));
    QVERIFY(devicesAnswered(workbench));
    emit engine.devicesChanged({fakeDevice()}, QString());

    RecordingViewer late;
    workbench.addViewer(&late);
    // Everything an early viewer has seen, at once, in the order it happened.
    QCOMPARE(late.calls, (QStringList{QStringLiteral("cleared"), QStringLiteral("devices"),
                                      QStringLiteral("compiled")}));

    RecordingViewer early;
    workbench.addViewer(&early);
    early.calls.clear();
    emit engine.devicesChanged({fakeDevice(), fakeDevice()}, QString());
    QCOMPARE(early.calls, QStringList{QStringLiteral("devices")});
    QCOMPARE(workbench.devices().size(), 2);
}

void TestWorkbench::replacingTheProjectClearsAndCompiles() {
    Engine engine;
    ProjectDocument document;
    Workbench workbench(&engine, &document);
    RecordingViewer viewer;
    workbench.addViewer(&viewer);
    viewer.calls.clear();
    QSignalSpy shown(&workbench, &Workbench::compileShown);
    document.replace(twoArgumentKernel(QStringLiteral("scale")));
    QCOMPARE(viewer.calls.value(0), QStringLiteral("cleared"));
    QCOMPARE(viewer.calls.value(1), QStringLiteral("compileStarted"));
    QVERIFY(shown.wait(kCompileTimeoutMs) || shown.count() > 0);
    QCOMPARE(viewer.calls.constLast(), QStringLiteral("compiled"));
    QVERIFY(workbench.lastCompile() && workbench.lastCompile()->ok);

    // A project with a compile error: the next replace forgets the old compile at once.
    Project broken = twoArgumentKernel(QStringLiteral("scale"));
    broken.source = QStringLiteral("__global__ void scale(float* data) { oops; }\n");
    document.replace(broken);
    QVERIFY(!workbench.lastCompile());
    QVERIFY(shown.wait(kCompileTimeoutMs));
    QCOMPARE(viewer.calls.constLast(), QStringLiteral("failed"));
}

void TestWorkbench::compileFollowsTheKernelAndItsSignature() {
    Engine engine;
    ProjectDocument document;
    Workbench workbench(&engine, &document);
    // The project names a kernel the source no longer has, and no arguments.
    document.replace(twoArgumentKernel(QStringLiteral("renamed_away")));
    QVERIFY(!document.isDirty());
    QSignalSpy kernelChanged(&document, &ProjectDocument::kernelChanged);
    QSignalSpy argumentsChanged(&document, &ProjectDocument::argumentsChanged);
    QVERIFY(compileAndWait(workbench));

    QCOMPARE(document.project().kernel, QStringLiteral("scale"));
    QCOMPARE(document.project().arguments.size(), 2);
    QCOMPARE(document.project().arguments.at(0).name, QStringLiteral("data"));
    QCOMPARE(document.project().arguments.at(0).kind, ArgumentSpec::Kind::Buffer);
    QCOMPARE(document.project().arguments.at(1).name, QStringLiteral("n"));
    QCOMPARE(kernelChanged.count(), 1);
    QCOMPARE(argumentsChanged.count(), 1);
    QVERIFY(document.isDirty()); // the project changed: saving it keeps the new kernel
    QVERIFY(workbench.currentKernel());

    // Compiling again changes nothing, so nothing is signalled.
    QVERIFY(compileAndWait(workbench));
    QCOMPARE(kernelChanged.count(), 1);
    QCOMPARE(argumentsChanged.count(), 1);
}

void TestWorkbench::runBlockedReasons() {
    Engine engine;
    ProjectDocument document;
    Workbench workbench(&engine, &document);
    Project project = twoArgumentKernel(QStringLiteral("scale"));
    document.replace(project);
    // Before the device list is known, and in compile-only mode.
    if (!workbench.devicesKnown())
        QVERIFY(workbench.runBlockedReason().contains(QStringLiteral("Looking")));
    QVERIFY(devicesAnswered(workbench));
    emit engine.devicesChanged({}, QStringLiteral("libcuda.so.1 not found"));
    QVERIFY2(workbench.runBlockedReason().contains(QStringLiteral("compile-only")),
             qPrintable(workbench.runBlockedReason()));
    QString why;
    QVERIFY(!workbench.run(RunRequest(), &why));
    QCOMPARE(why, workbench.runBlockedReason());

    emit engine.devicesChanged({fakeDevice()}, QString());
    QVERIFY(compileAndWait(workbench));
    QVERIFY2(workbench.runBlockedReason().isEmpty(), qPrintable(workbench.runBlockedReason()));

    LaunchConfig tooBig = document.project().launch;
    tooBig.block = {2048, 1, 1};
    document.setLaunch(tooBig);
    QVERIFY2(workbench.runBlockedReason().startsWith(QStringLiteral("Launch:")),
             qPrintable(workbench.runBlockedReason()));
    document.setLaunch(project.launch);

    QVector<ArgumentSpec> arguments = document.project().arguments;
    QVERIFY(!arguments.isEmpty());
    arguments[0].buffer.count = QStringLiteral("no_such_scalar * 2");
    document.setArguments(arguments);
    QVERIFY2(workbench.runBlockedReason().startsWith(QStringLiteral("Arguments:")),
             qPrintable(workbench.runBlockedReason()));
    QVERIFY(workbench.runBlockedReason().contains(QStringLiteral("'data'")));

    document.setSource(QStringLiteral("__global__ void scale(float* data, int n) { oops; }\n"));
    QVERIFY(compileAndWait(workbench));
    QCOMPARE(workbench.runBlockedReason(), QStringLiteral("The source has compile errors"));
}

void TestWorkbench::destroyedViewerIsForgotten() {
    Engine engine;
    ProjectDocument document;
    Workbench workbench(&engine, &document);
    QVERIFY(devicesAnswered(workbench));
    auto viewer = std::make_unique<RecordingViewer>();
    workbench.addViewer(viewer.get());
    viewer.reset();
    // Telling a destroyed viewer would crash here.
    emit engine.devicesChanged({fakeDevice()}, QString());
    document.replace(twoArgumentKernel(QStringLiteral("scale")));
    QVERIFY(compileAndWait(workbench));
}

// Typing in the kernel box is an edit of the document, not a compile: viewers are not told
// "compiled" (before any compile there is nothing to show, and a null compile would crash).
void TestWorkbench::kernelEditIsNotACompile() {
    ProjectDocument document;
    Workbench workbench(nullptr, &document);
    RecordingViewer viewer;
    workbench.addViewer(&viewer);
    viewer.calls.clear();
    document.setKernel(QStringLiteral("scale<float>"));
    document.setKernel(QStringLiteral("scale<double>"));
    QVERIFY(viewer.calls.isEmpty());
    QVERIFY(!workbench.lastCompile());
}

KERNELPAD_TEST_MAIN(TestWorkbench)
} // namespace tst_workbench
#include "tst_workbench.moc"
