// Live mode on a real GPU: edits of SAXPY (n = 1M) compile and run after the pause, and each
// run's result is that of the edited source: verified against the expression the edit
// matches, failing verification (and never compared as "faster") when it does not, and a
// burst of edits runs only the last one. gpu-labelled; without a driver every test skips.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include "core/engine/Engine.h"
#include "core/run/Significance.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/windows/MainWindow.h"

#include <QAction>
#include <QLabel>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

namespace tst_guilive {

using namespace kernelpad;

namespace {

constexpr int kDevicesTimeoutMs = 60000;
constexpr int kRunTimeoutMs = 120000;
constexpr qint64 kElements = 1 << 20;
const QString kAddition = QStringLiteral("out[tid] = a * x[tid] + y[tid];");

Project saxpy1M() {
    Project p = test::loadExample(QStringLiteral("saxpy.kpad"));
    for (ArgumentSpec& a : p.arguments)
        if (a.name == QLatin1String("n"))
            a.value = QString::number(kElements);
    p.launch.grid = {int(kElements / 256), 1, 1};
    return p;
}

void setExpression(ProjectDocument& document, const QString& expression) {
    QVector<ArgumentSpec> arguments = document.project().arguments;
    for (ArgumentSpec& a : arguments)
        if (a.name == QLatin1String("out"))
            a.buffer.verify.expression = expression;
    document.setArguments(arguments);
}

/// Waits for the next run the workbench records.
const RunRecord* nextRun(Workbench& workbench) {
    const int before = int(workbench.history().size());
    QSignalSpy shown(&workbench, &Workbench::runShown);
    while (workbench.history().size() == before)
        if (!shown.wait(kRunTimeoutMs))
            return nullptr;
    return &workbench.history().constLast();
}

} // namespace

class TestGuiLive : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { KERNELPAD_REQUIRE_DRIVER(); }
    void editsRunTheEditedSource();
    void typingInTheWindowRunsEachPause();
};

void TestGuiLive::editsRunTheEditedSource() {
    Engine engine;
    ProjectDocument document;
    Workbench workbench(&engine, &document);
    QSignalSpy devices(&engine, &Engine::devicesChanged);
    QVERIFY(workbench.devicesKnown() || devices.wait(kDevicesTimeoutMs));
    if (workbench.devices().isEmpty())
        QSKIP("found no device");
    document.replace(saxpy1M(), QString(), test::examplesDir());
    workbench.setLiveMode(true);

    // Switching on runs what is in the editor.
    const RunRecord* first = nextRun(workbench);
    QVERIFY(first);
    QVERIFY2(first->result.status == RunStatus::Ok, qPrintable(first->result.error));
    QVERIFY(first->live);
    QVERIFY(first->result.verified());
    QVERIFY(first->result.timing.reps() >= kMinSamples);
    // Live mode's short budget, not the project's 50 repetitions behind 5 warm-ups.
    QVERIFY(first->result.timing.stopReason != QLatin1String("fixed count"));
    QCOMPARE(first->project.timing.repetitions, 50);
    qInfo("first live run: median %.4f ms over %d samples (%s)", first->result.timing.medianMs,
          first->result.timing.reps(), qPrintable(first->result.timing.stopReason));

    // The edit and the check that matches it: subtract instead of add.
    setExpression(document, QStringLiteral("a*x-y"));
    QString source = document.project().source;
    QVERIFY(source.contains(kAddition));
    document.setSource(
        source.replace(kAddition, QStringLiteral("out[tid] = a * x[tid] - y[tid];")));
    const RunRecord* subtracted = nextRun(workbench);
    QVERIFY(subtracted);
    QVERIFY2(subtracted->result.status == RunStatus::Ok, qPrintable(subtracted->result.error));
    QVERIFY(subtracted->result.verified());
    QCOMPARE(subtracted->project.source, document.project().source);
    const QString comparison = workbench.comparisonText(*subtracted);
    QVERIFY2(comparison.startsWith(QStringLiteral("this edit: ")), qPrintable(comparison));
    qInfo("%s", qPrintable(comparison));

    // A burst of edits: only the last one runs, and it does not match a*x-y.
    const QString base = document.project().source;
    document.setSource(base + QStringLiteral("// edit 1\n"));
    QTest::qWait(30);
    document.setSource(
        QString(base).replace(QStringLiteral("- y[tid]"), QStringLiteral("- y[tid] + 1.0f")));
    const RunRecord* wrong = nextRun(workbench);
    QVERIFY(wrong);
    QCOMPARE(wrong->project.source, document.project().source);
    QCOMPARE(wrong->result.status, RunStatus::VerificationFailed);
    QCOMPARE(workbench.comparisonText(*wrong), QString());
    // Its output is what the edited kernel computes, out = a*x - y + 1: against a*x-y every
    // element is off by exactly 1.
    const BufferVerification* check = nullptr;
    for (const BufferVerification& v : wrong->result.verification)
        if (v.buffer == QLatin1String("out"))
            check = &v;
    QVERIFY(check);
    QCOMPARE(check->mismatches, kElements);
    QVERIFY(!check->firstMismatches.isEmpty());
    QVERIFY(std::abs(check->firstMismatches.first().got - check->firstMismatches.first().expected -
                     1.0) < 1e-5);
    QCOMPARE(workbench.history().size(), 3);
}

// The window as a user meets live mode: the toolbar's Live Mode switched on, keys typed into
// the editor, and after each pause a run of what was typed, its comparison with the previous
// edit in the status bar. With $KERNELPAD_SCREENSHOT_DIR set it saves the window for the docs.
void TestGuiLive::typingInTheWindowRunsEachPause() {
    Engine engine;
    MainWindow window(&engine);
    window.setPromptsEnabled(false);
    window.resize(1600, 1000);
    QSignalSpy devices(&engine, &Engine::devicesChanged);
    window.show();
    Workbench* workbench = window.workbench();
    QVERIFY(workbench->devicesKnown() || devices.wait(kDevicesTimeoutMs));
    if (workbench->devices().isEmpty())
        QSKIP("found no device");
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("saxpy.kpad"));
    QString error;
    QVERIFY2(saxpy1M().save(path, &error), qPrintable(error));
    QVERIFY2(window.openProject(path), qPrintable(window.lastError()));

    auto* live = window.findChild<QAction*>(QStringLiteral("liveModeAction"));
    auto* editor = window.findChild<CodeEditor*>(QStringLiteral("editor"));
    QVERIFY(live && editor);
    live->setChecked(true);
    const RunRecord* first = nextRun(*workbench);
    QVERIFY(first);
    QVERIFY2(first->result.status == RunStatus::Ok, qPrintable(first->result.error));
    QVERIFY(first->live);

    // Keys typed at the end of the kernel's line (a comment, then three more bursts into it):
    // each pause runs what the editor holds then.
    const QString source = window.document()->project().source;
    const int line = int(source.left(source.indexOf(kAddition)).count(QLatin1Char('\n')));
    editor->setFocus();
    editor->setCursorPosition(line, editor->text(line).length() - 1);
    QTest::keyClicks(editor, QStringLiteral(" // live"));
    const RunRecord* commented = nextRun(*workbench);
    QVERIFY(commented);
    QVERIFY2(commented->result.verified(), qPrintable(commented->result.error));
    QVERIFY(commented->project.source.contains(QStringLiteral("// live")));
    QCOMPARE(commented->project.source, window.document()->project().source);

    for (int edit = 0; edit < 3; ++edit) {
        editor->setCursorPosition(line, editor->text(line).length() - 1);
        QTest::keyClicks(editor, QStringLiteral(" x%1").arg(edit));
        const RunRecord* run = nextRun(*workbench);
        QVERIFY(run);
        QVERIFY2(run->result.verified(), qPrintable(run->result.error));
        QVERIFY(run->live);
        QCOMPARE(run->project.source, window.document()->project().source);
    }
    // Every pause ran once: the switch-on run, the comment, three edits.
    QCOMPARE(workbench->history().size(), 5);

    // The run label carries the comparison of the last edit with the one before.
    const QString comparison = workbench->comparisonText(workbench->history().constLast());
    QVERIFY2(comparison.startsWith(QStringLiteral("this edit: ")), qPrintable(comparison));
    bool shown = false;
    for (const QLabel* label : window.statusBar()->findChildren<QLabel*>())
        shown = shown || label->text().contains(comparison);
    QVERIFY2(shown, qPrintable(comparison));
    qInfo("after typing in the window: %s", qPrintable(comparison));

    if (const QString shots = qEnvironmentVariable("KERNELPAD_SCREENSHOT_DIR"); !shots.isEmpty()) {
        // The timing panel's session history: each live run's median with its interval.
        for (QTabWidget* tabs : window.findChildren<QTabWidget*>())
            for (int i = 0; i < tabs->count(); ++i)
                if (tabs->tabText(i) == QLatin1String("Session history"))
                    tabs->setCurrentIndex(i);
        QTest::qWait(300);
        QVERIFY(window.grab().save(shots + QStringLiteral("/screenshot-live.png")));
    }
}

KERNELPAD_TEST_MAIN(TestGuiLive)
} // namespace tst_guilive
#include "tst_guilive.moc"
