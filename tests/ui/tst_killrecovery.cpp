// No lost work after a real crash: a KernelPad window in a child process types text, autosaves,
// and is killed with SIGKILL (no destructor, no clean-close path, a stale lock file left
// behind); the next window in this process is offered the text back.
//
// The child is this same executable started with KERNELPAD_KILL_CHILD set: it opens a window,
// types, waits for the recovery file, prints "READY" and then just runs its event loop until
// it is killed.

#include "../support/TestMain.h"
#include "../support/WindowParts.h"
#include "core/engine/Engine.h"
#include "ui/ProjectDocument.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/windows/MainWindow.h"

#include <QApplication>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cstdio>

namespace tst_killrecovery {

using namespace kernelpad;

namespace {

const char* const kChildVariable = "KERNELPAD_KILL_CHILD";
const char* const kReady = "READY";

QString typedText() {
    return QStringLiteral("// typed just before the crash: keep me");
}

Project sampleProject() {
    Project p;
    p.name = QStringLiteral("Scale");
    p.source = QStringLiteral("extern \"C\" __global__ void scale(float* v, float s, int n)\n{\n"
                              "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                              "    if (i < n) v[i] *= s;\n}\n");
    p.kernel = QStringLiteral("scale");
    p.launch.block = {128, 1, 1};
    return p;
}

void setApplicationNames() {
    // The child and the test must agree on where recovery files live.
    QCoreApplication::setOrganizationName(QStringLiteral("KernelPad"));
    QCoreApplication::setApplicationName(QStringLiteral("KernelPadKillTest"));
}

/// The child: edit, autosave, announce, then wait to be killed.
int runChild(int argc, char** argv) {
    QApplication app(argc, argv);
    setApplicationNames();
    Engine engine;
    MainWindow window(&engine);
    window.setPromptsEnabled(false);
    window.setCompileWhileTyping(false);
    window.show();
    window.document()->replace(sampleProject());
    window.document()->setAutosaveIntervalMs(50);
    CodeEditor* editor = test::part<CodeEditor>(&window, "editor");
    editor->setAutoCompletionSource(QsciScintilla::AcsNone);
    editor->setFocus();
    editor->setCursorPosition(0, 0);
    QTest::keyClicks(editor, typedText());
    if (!QTest::qWaitFor([&] { return window.document()->hasRecoveryFile(); }, 10000)) {
        std::fprintf(stderr, "child: no recovery file after 10 s\n");
        return 1;
    }
    std::printf("%s\n", kReady);
    std::fflush(stdout);
    return QApplication::exec();
}

} // namespace

class TestKillRecovery : public QObject {
    Q_OBJECT
private slots:
    void textTypedBeforeSigkillIsOffered();
};

void TestKillRecovery::textTypedBeforeSigkillIsOffered() {
    QDir(ProjectDocument::recoveryDirectory()).removeRecursively();

    QProcess child;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QString::fromLatin1(kChildVariable), QStringLiteral("1"));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    child.setProcessEnvironment(env);
    child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    child.start(QCoreApplication::applicationFilePath(), {kptest::currentTestName()});
    QVERIFY2(child.waitForStarted(10000), qPrintable(child.errorString()));
    QByteArray out;
    QTRY_VERIFY_WITH_TIMEOUT((out += child.readAllStandardOutput()).contains(kReady), 30000);

    // SIGKILL: nothing of KernelPad runs after this line in the child.
    child.kill();
    QVERIFY(child.waitForFinished(10000));
    QCOMPARE(child.exitStatus(), QProcess::CrashExit);

    // The dead child's recovery file is found although its lock file is still on disk.
    const QVector<RecoveryEntry> found = ProjectDocument::findRecoveryFiles();
    QCOMPARE(found.size(), 1);

    Engine engine;
    MainWindow next(&engine);
    next.setPromptsEnabled(false);
    next.setCompileWhileTyping(false);
    QCOMPARE(next.restoreRecovery(), 1);
    const QString text = test::part<CodeEditor>(&next, "editor")->text();
    QVERIFY2(text.startsWith(typedText()), qPrintable(text.left(200)));
    QVERIFY(text.contains(QStringLiteral("v[i] *= s;")));
    QVERIFY(next.isWindowModified());

    // Discarding on close removes it, so the next start offers nothing.
    next.setUnsavedChoice(MainWindow::UnsavedChoice::Discard);
    QVERIFY(next.close());
    QVERIFY(ProjectDocument::findRecoveryFiles().isEmpty());
}

static int runTest(int argc, char** argv) {
    // Private data and config folders for both processes: no real recovery files are touched.
    // The child inherits them through its environment.
    if (qEnvironmentVariableIsSet(kChildVariable))
        return runChild(argc, argv);
    QTemporaryDir home;
    if (!home.isValid())
        return 1;
    qputenv("XDG_DATA_HOME", (home.path() + QStringLiteral("/data")).toUtf8());
    qputenv("XDG_CONFIG_HOME", (home.path() + QStringLiteral("/config")).toUtf8());
    qputenv("XDG_CACHE_HOME", (home.path() + QStringLiteral("/cache")).toUtf8());

    QApplication app(argc, argv);
    setApplicationNames();
    TestKillRecovery test;
    return QTest::qExec(&test, argc, argv);
}

KERNELPAD_TEST_CUSTOM_MAIN(runTest)
} // namespace tst_killrecovery
#include "tst_killrecovery.moc"
