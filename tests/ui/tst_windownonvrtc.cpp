// The window on a computer without the CUDA toolkit, played by pointing
// $KERNELPAD_NVRTC_LIBRARY at a file that does not exist: an example opens, and where its
// diagnostics would be the window says NVRTC was not found and what to do, without crashing and
// with the text intact.

#include "../support/WindowParts.h"
#include "core/engine/Engine.h"
#include "core/project/Project.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/DiagnosticsList.h"
#include "ui/windows/MainWindow.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QLabel>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

namespace tst_windownonvrtc {

using namespace kernelpad;

namespace {

constexpr int kCompileTimeoutMs = 60000;
const QString kSaxpy = QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad");
constexpr int kMessageColumn = 2; // DiagnosticsList: severity, location, message

bool waitForCompile(QSignalSpy& shown) {
    return shown.wait(kCompileTimeoutMs) || !shown.isEmpty();
}

} // namespace

class TestWindowNoNvrtc : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void anExampleSaysNvrtcIsNotFound();
};

void TestWindowNoNvrtc::initTestCase() {
    // Before anything loads NVRTC: the load happens once per process.
    qputenv("KERNELPAD_NVRTC_LIBRARY", "/nonexistent/libnvrtc.so");
    qputenv("KERNELPAD_NVJITLINK_LIBRARY", "/nonexistent/libnvJitLink.so");
    qunsetenv("KERNELPAD_NO_NVRTC");
    qunsetenv("KERNELPAD_RUNNER_SPEC");
    qputenv("KERNELPAD_CACHE_DIR", "off");
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear(); // the runner is this computer's
}

void TestWindowNoNvrtc::anExampleSaysNvrtcIsNotFound() {
    Engine engine;
    MainWindow window(&engine);
    window.setPromptsEnabled(false);
    window.show();
    QSignalSpy shown(window.workbench(), &Workbench::compileShown);
    QVERIFY(window.openExample(kSaxpy)); // opening compiles at once
    QVERIFY(waitForCompile(shown));

    const std::optional<CompileResult>& compile = window.workbench()->lastCompile();
    QVERIFY(compile);
    QVERIFY(!compile->ok);
    QVERIFY(compile->compilerMissing);

    // Where the diagnostics go: the one message, naming the library and what to do.
    auto* diagnostics = test::part<DiagnosticsList>(&window, "diagnostics");
    QVERIFY(diagnostics);
    QCOMPARE(diagnostics->topLevelItemCount(), 1);
    const QString message = diagnostics->topLevelItem(0)->text(kMessageColumn);
    QVERIFY2(message.startsWith(QLatin1String("NVRTC not found on this computer")),
             qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("Edit ▸ Preferences ▸ Runners")), qPrintable(message));

    auto* status = test::part<QLabel>(&window, "compileStatus");
    QVERIFY(status);
    QCOMPARE(status->text(), QStringLiteral("NVRTC not found"));
    QCOMPARE(status->toolTip(), compile->error);

    auto* log = test::part<QPlainTextEdit>(&window, "programLog");
    QVERIFY(log);
    QVERIFY2(log->toPlainText().startsWith(QLatin1String("NVRTC not found, sm_")),
             qPrintable(log->toPlainText()));
    QVERIFY2(log->toPlainText().contains(compile->error), qPrintable(log->toPlainText()));

    QVERIFY2(window.aboutText().contains(QLatin1String("NVRTC not found on this computer")),
             qPrintable(window.aboutText()));

    // The work is intact, and editing and compiling again changes nothing but the text.
    QString error;
    const std::optional<Project> saxpy = Project::load(kSaxpy, &error);
    QVERIFY2(saxpy, qPrintable(error));
    auto* editor = test::part<CodeEditor>(&window, "editor");
    QCOMPARE(editor->text(), saxpy->source);
    editor->append(QStringLiteral("// my change\n"));
    shown.clear();
    window.compile();
    QVERIFY(waitForCompile(shown));
    QVERIFY(window.workbench()->lastCompile()->compilerMissing);
    QCOMPARE(diagnostics->topLevelItemCount(), 1);
    QVERIFY(editor->text().endsWith(QLatin1String("// my change\n")));
}

KERNELPAD_TEST_MAIN(TestWindowNoNvrtc)
} // namespace tst_windownonvrtc
#include "tst_windownonvrtc.moc"
