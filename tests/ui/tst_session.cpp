// The Session without a window: what its viewers are told and when, how a compile writes the
// kernel and its arguments into the document, and why Run cannot start.

#include "core/engine/Engine.h"
#include "ui/ProjectDocument.h"
#include "ui/Session.h"

#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

#include <memory>

#include "../support/TestMain.h"
#include "../support/TestProjects.h"

namespace tst_session {

using namespace kernelpad;
using kernelpad::test::fakeDevice;

namespace {

constexpr int kCompileTimeoutMs = 60000;

/// Writes down what it was told, in order.
class RecordingViewer : public QObject, public SessionViewer {
public:
    QStringList calls;
    void sessionCleared(const Session&) override { calls << QStringLiteral("cleared"); }
    void devicesChanged(const Session&) override { calls << QStringLiteral("devices"); }
    void compileStarted(const Session&) override { calls << QStringLiteral("compileStarted"); }
    void compiled(const Session& s) override {
        calls << (s.lastCompile()->ok ? QStringLiteral("compiled") : QStringLiteral("failed"));
    }
    void runFinished(const Session&, const RunRecord&) override { calls << QStringLiteral("run"); }
};

Project twoArgumentKernel(const QString& kernel) {
    Project p;
    p.name = QStringLiteral("Session test");
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
bool devicesAnswered(Session& session) {
    QSignalSpy spy(session.engine(), &Engine::devicesChanged);
    return session.devicesKnown() || spy.wait(kCompileTimeoutMs) || spy.count() > 0;
}

bool compileAndWait(Session& session) {
    QSignalSpy spy(&session, &Session::compileShown);
    session.compile();
    return spy.wait(kCompileTimeoutMs) || spy.count() > 0;
}

} // namespace

class TestSession : public QObject {
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

void TestSession::lateViewerReceivesTheCurrentState() {
    Engine engine;
    ProjectDocument document;
    Session session(&engine, &document);
    document.replace(twoArgumentKernel(QStringLiteral("scale")));
    QVERIFY(compileAndWait(session));
    QVERIFY(devicesAnswered(session));
    emit engine.devicesChanged({fakeDevice()}, QString());

    RecordingViewer late;
    session.addViewer(&late);
    // Everything an early viewer has seen, at once, in the order it happened.
    QCOMPARE(late.calls, (QStringList{QStringLiteral("cleared"), QStringLiteral("devices"),
                                      QStringLiteral("compiled")}));

    RecordingViewer early;
    session.addViewer(&early);
    early.calls.clear();
    emit engine.devicesChanged({fakeDevice(), fakeDevice()}, QString());
    QCOMPARE(early.calls, QStringList{QStringLiteral("devices")});
    QCOMPARE(session.devices().size(), 2);
}

void TestSession::replacingTheProjectClearsAndCompiles() {
    Engine engine;
    ProjectDocument document;
    Session session(&engine, &document);
    RecordingViewer viewer;
    session.addViewer(&viewer);
    viewer.calls.clear();
    QSignalSpy shown(&session, &Session::compileShown);
    document.replace(twoArgumentKernel(QStringLiteral("scale")));
    QCOMPARE(viewer.calls.value(0), QStringLiteral("cleared"));
    QCOMPARE(viewer.calls.value(1), QStringLiteral("compileStarted"));
    QVERIFY(shown.wait(kCompileTimeoutMs) || shown.count() > 0);
    QCOMPARE(viewer.calls.constLast(), QStringLiteral("compiled"));
    QVERIFY(session.lastCompile() && session.lastCompile()->ok);

    // A project with a compile error: the next replace forgets the old compile at once.
    Project broken = twoArgumentKernel(QStringLiteral("scale"));
    broken.source = QStringLiteral("__global__ void scale(float* data) { oops; }\n");
    document.replace(broken);
    QVERIFY(!session.lastCompile());
    QVERIFY(shown.wait(kCompileTimeoutMs));
    QCOMPARE(viewer.calls.constLast(), QStringLiteral("failed"));
}

void TestSession::compileFollowsTheKernelAndItsSignature() {
    Engine engine;
    ProjectDocument document;
    Session session(&engine, &document);
    // The project names a kernel the source no longer has, and no arguments.
    document.replace(twoArgumentKernel(QStringLiteral("renamed_away")));
    QVERIFY(!document.isDirty());
    QSignalSpy kernelChanged(&document, &ProjectDocument::kernelChanged);
    QSignalSpy argumentsChanged(&document, &ProjectDocument::argumentsChanged);
    QVERIFY(compileAndWait(session));

    QCOMPARE(document.project().kernel, QStringLiteral("scale"));
    QCOMPARE(document.project().arguments.size(), 2);
    QCOMPARE(document.project().arguments.at(0).name, QStringLiteral("data"));
    QCOMPARE(document.project().arguments.at(0).kind, ArgumentSpec::Kind::Buffer);
    QCOMPARE(document.project().arguments.at(1).name, QStringLiteral("n"));
    QCOMPARE(kernelChanged.count(), 1);
    QCOMPARE(argumentsChanged.count(), 1);
    QVERIFY(document.isDirty()); // the project changed: saving it keeps the new kernel
    QVERIFY(session.currentKernel());

    // Compiling again changes nothing, so nothing is signalled.
    QVERIFY(compileAndWait(session));
    QCOMPARE(kernelChanged.count(), 1);
    QCOMPARE(argumentsChanged.count(), 1);
}

void TestSession::runBlockedReasons() {
    Engine engine;
    ProjectDocument document;
    Session session(&engine, &document);
    Project project = twoArgumentKernel(QStringLiteral("scale"));
    document.replace(project);
    // Before the device list is known, and in compile-only mode.
    if (!session.devicesKnown())
        QVERIFY(session.runBlockedReason().contains(QStringLiteral("Looking")));
    QVERIFY(devicesAnswered(session));
    emit engine.devicesChanged({}, QStringLiteral("libcuda.so.1 not found"));
    QVERIFY2(session.runBlockedReason().contains(QStringLiteral("compile-only")),
             qPrintable(session.runBlockedReason()));
    QString why;
    QVERIFY(!session.run(RunRequest(), &why));
    QCOMPARE(why, session.runBlockedReason());

    emit engine.devicesChanged({fakeDevice()}, QString());
    QVERIFY(compileAndWait(session));
    QVERIFY2(session.runBlockedReason().isEmpty(), qPrintable(session.runBlockedReason()));

    LaunchConfig tooBig = document.project().launch;
    tooBig.block = {2048, 1, 1};
    document.setLaunch(tooBig);
    QVERIFY2(session.runBlockedReason().startsWith(QStringLiteral("Launch:")),
             qPrintable(session.runBlockedReason()));
    document.setLaunch(project.launch);

    QVector<ArgumentSpec> arguments = document.project().arguments;
    QVERIFY(!arguments.isEmpty());
    arguments[0].buffer.count = QStringLiteral("no_such_scalar * 2");
    document.setArguments(arguments);
    QVERIFY2(session.runBlockedReason().startsWith(QStringLiteral("Arguments:")),
             qPrintable(session.runBlockedReason()));
    QVERIFY(session.runBlockedReason().contains(QStringLiteral("'data'")));

    document.setSource(QStringLiteral("__global__ void scale(float* data, int n) { oops; }\n"));
    QVERIFY(compileAndWait(session));
    QCOMPARE(session.runBlockedReason(), QStringLiteral("The source has compile errors"));
}

void TestSession::destroyedViewerIsForgotten() {
    Engine engine;
    ProjectDocument document;
    Session session(&engine, &document);
    QVERIFY(devicesAnswered(session));
    auto viewer = std::make_unique<RecordingViewer>();
    session.addViewer(viewer.get());
    viewer.reset();
    // Telling a destroyed viewer would crash here.
    emit engine.devicesChanged({fakeDevice()}, QString());
    document.replace(twoArgumentKernel(QStringLiteral("scale")));
    QVERIFY(compileAndWait(session));
}

// Typing in the kernel box is an edit of the document, not a compile: viewers are not told
// "compiled" (before any compile there is nothing to show, and a null compile would crash).
void TestSession::kernelEditIsNotACompile() {
    ProjectDocument document;
    Session session(nullptr, &document);
    RecordingViewer viewer;
    session.addViewer(&viewer);
    viewer.calls.clear();
    document.setKernel(QStringLiteral("scale<float>"));
    document.setKernel(QStringLiteral("scale<double>"));
    QVERIFY(viewer.calls.isEmpty());
    QVERIFY(!session.lastCompile());
}

KERNELPAD_TEST_MAIN(TestSession)
} // namespace tst_session
#include "tst_session.moc"
