// A faulted run explains itself in the window: the explanation and the
// offer of a memcheck run above the editor; accepting starts that run through the Workbench;
// its finding ends the message with the line, thread and block and marks the line; the
// preference starts it without asking. Results are constructed: no GPU is needed.

#include "../support/WindowParts.h"
#include "core/engine/Engine.h"
#include "core/run/ErrorText.h"
#include "ui/Preferences.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/FaultBanner.h"
#include "ui/windows/MainWindow.h"

#include "../support/TestMain.h"
#include "../support/TestProjects.h"

#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

#include <memory>

namespace tst_faultbanner {

using namespace kernelpad;
using namespace kernelpad::test;

namespace {

constexpr int kCompileTimeoutMs = 60000;
/// The line of `out[i] = 1.0f;` in fillProject()'s source: the one the report names.
constexpr int kWriteLine = 5;

/// The result the runner sends for a wild write that landed in another address space.
RunResult faultedRun(CUresult code, const char* name, const char* description) {
    RunResult r;
    r.status = RunStatus::CudaError;
    r.faultCode = int(code);
    r.error = explainCudaError(CudaError(code, QString::fromLatin1(name),
                                         QString::fromLatin1(description),
                                         QStringLiteral("cuStreamSynchronize")),
                               QStringLiteral("fill"));
    return r;
}

RunResult wildWrite() {
    return faultedRun(CUDA_ERROR_INVALID_ADDRESS_SPACE, "CUDA_ERROR_INVALID_ADDRESS_SPACE",
                      "operation not supported on global/shared address space");
}

/// What memcheck reports for that kernel: the write, its line, thread and block.
RunResult memcheckResult(const QString& sourceName) {
    RunResult r;
    r.status = RunStatus::CudaError;
    r.sanitizerTool = SanitizerTool::Memcheck;
    r.sanitizerErrors = 1;
    SanitizerReport report;
    report.kind = QStringLiteral("Invalid __global__ write of size 4 bytes");
    report.kernel = QStringLiteral("fill");
    report.file = sourceName;
    report.line = kWriteLine;
    report.thread = SanitizerReport::Dim3{7, 0, 0};
    report.block = SanitizerReport::Dim3{3, 0, 0};
    report.address = QStringLiteral("0x7f0000001000");
    report.detail = QStringLiteral("out of bounds");
    r.sanitizer << report;
    r.error = QStringLiteral("compute-sanitizer memcheck reported 1 error(s) in 'fill'");
    return r;
}

/// A window whose Workbench can run: the project compiled, a (fake) device listed. Kernels
/// would run in this process, so nothing here waits for a runner or compute-sanitizer; the
/// test answers each request itself before the Engine could.
struct Window {
    Engine engine{nullptr, Engine::Isolation::InProcess};
    std::unique_ptr<MainWindow> window;

    bool open() {
        window = std::make_unique<MainWindow>(&engine);
        window->setPromptsEnabled(false);
        Workbench* workbench = window->workbench();
        QSignalSpy compiled(workbench, &Workbench::compileShown);
        window->document()->replace(fillProject());
        if (!compiled.wait(kCompileTimeoutMs) && compiled.isEmpty())
            return false;
        QSignalSpy devices(&engine, &Engine::devicesChanged);
        if (!workbench->devicesKnown() && !devices.wait(kCompileTimeoutMs) && devices.isEmpty())
            return false;
        emit engine.devicesChanged({fakeDevice()}, QString());
        return workbench->runBlockedReason().isEmpty();
    }
    [[nodiscard]] Workbench* workbench() const { return window->workbench(); }
    [[nodiscard]] FaultBanner* banner() const { return part<FaultBanner>(window, "faultBanner"); }
};

} // namespace

class TestFaultBanner : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
    }
    void cleanup() { QSettings().clear(); }
    void faultShowsTheExplanationAndTheOffer();
    void acceptingRunsMemcheckAndEndsWithTheLine();
    void preferenceRunsMemcheckAtOnce();
    void faultsMemcheckCannotPlaceAreNotOffered();
    void otherErrorsAndNewRunsHideTheBanner();
};

void TestFaultBanner::faultShowsTheExplanationAndTheOffer() {
    Window w;
    QVERIFY2(w.open(), qPrintable(w.workbench()->runBlockedReason()));
    FaultBanner* banner = w.banner();
    QVERIFY(banner);
    QVERIFY(banner->isHidden());
    QSignalSpy requested(w.workbench(), &Workbench::runRequested);
    w.window->run();
    QCOMPARE(requested.count(), 1);
    emit w.engine.runFinished(requested.at(0).at(0).toULongLong(), wildWrite());

    QVERIFY(!banner->isHidden());
    const QString text = part<QLabel>(banner, "faultText")->text();
    QVERIFY2(text.startsWith(QLatin1String("The kernel 'fill' made a bad memory access "
                                           "(CUDA_ERROR_INVALID_ADDRESS_SPACE")),
             qPrintable(text));
    QVERIFY(text.contains(QLatin1String("an index past the end of a buffer")));
    auto* button = part<QPushButton>(banner, "faultMemcheckButton");
    QVERIFY(button && !button->isHidden() && button->isEnabled());
    QVERIFY(banner->offersMemcheck());
    QCOMPARE(requested.count(), 1); // offered, not started

    part<QPushButton>(banner, "faultDismissButton")->click();
    QVERIFY(banner->isHidden());
}

void TestFaultBanner::acceptingRunsMemcheckAndEndsWithTheLine() {
    Window w;
    QVERIFY2(w.open(), qPrintable(w.workbench()->runBlockedReason()));
    FaultBanner* banner = w.banner();
    QSignalSpy requested(w.workbench(), &Workbench::runRequested);
    w.window->run();
    QCOMPARE(requested.count(), 1);
    emit w.engine.runFinished(requested.at(0).at(0).toULongLong(), wildWrite());
    QVERIFY(banner->offersMemcheck());

    part<QPushButton>(banner, "faultMemcheckButton")->click();
    QCOMPARE(requested.count(), 2);
    const RunRequest request = requested.at(1).at(1).value<RunRequest>();
    QCOMPARE(request.sanitizer, SanitizerTool::Memcheck);
    QCOMPARE(request.project.source, w.window->document()->project().source);
    QCOMPARE(request.project.kernel, QStringLiteral("fill"));
    QVERIFY(w.workbench()->isRunning());
    QVERIFY(!banner->offersMemcheck()); // one memcheck run, not two
    QVERIFY(banner->text().contains(QLatin1String("Running the kernel once under memcheck")));

    const QString sourceName = w.window->document()->project().sourceName;
    emit w.engine.runFinished(requested.at(1).at(0).toULongLong(), memcheckResult(sourceName));
    const QString text = banner->text();
    QVERIFY2(text.startsWith(QLatin1String("The kernel 'fill' made a bad memory access")),
             qPrintable(text));
    QVERIFY2(text.endsWith(QStringLiteral("in 'fill' at %1:%2, thread (7,0,0), block (3,0,0).")
                               .arg(sourceName)
                               .arg(kWriteLine)),
             qPrintable(text));
    QVERIFY(!banner->isHidden());
    // The line is marked in the editor and the cursor is on it.
    auto* editor = part<CodeEditor>(w.window, "editor");
    QVERIFY(editor);
    bool marked = false;
    for (const Diagnostic& d : editor->diagnostics())
        marked = marked || (d.line == kWriteLine && d.severity == Diagnostic::Severity::Error);
    QVERIFY(marked);
    int line = -1;
    int index = -1;
    editor->getCursorPosition(&line, &index);
    QCOMPARE(line + 1, kWriteLine);
}

void TestFaultBanner::preferenceRunsMemcheckAtOnce() {
    Preferences preferences = Preferences::load();
    preferences.memcheckAfterFault = true;
    QSettings settings;
    preferences.save(settings);
    QVERIFY(Preferences::load().memcheckAfterFault);

    Window w;
    QVERIFY2(w.open(), qPrintable(w.workbench()->runBlockedReason()));
    QSignalSpy requested(w.workbench(), &Workbench::runRequested);
    w.window->run();
    QCOMPARE(requested.count(), 1);
    emit w.engine.runFinished(requested.at(0).at(0).toULongLong(), wildWrite());
    QVERIFY(!w.banner()->offersMemcheck());
    // Started once every panel has seen the fault: on the next turn of the event loop.
    QTRY_COMPARE(requested.count(), 2);
    QCOMPARE(requested.at(1).at(1).value<RunRequest>().sanitizer, SanitizerTool::Memcheck);
    QVERIFY(w.banner()->text().contains(QLatin1String("Running the kernel once under memcheck")));
    emit w.engine.runFinished(requested.at(1).at(0).toULongLong(),
                              memcheckResult(w.window->document()->project().sourceName));
    QVERIFY2(w.banner()->text().endsWith(QLatin1String("block (3,0,0).")),
             qPrintable(w.banner()->text()));
    QTest::qWait(50);
    QCOMPARE(requested.count(), 2); // the memcheck run's own fault starts nothing more
}

void TestFaultBanner::faultsMemcheckCannotPlaceAreNotOffered() {
    Window w;
    QVERIFY2(w.open(), qPrintable(w.workbench()->runBlockedReason()));
    QSignalSpy requested(w.workbench(), &Workbench::runRequested);
    w.window->run();
    emit w.engine.runFinished(
        requested.at(0).at(0).toULongLong(),
        faultedRun(CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out"));
    QVERIFY(!w.banner()->isHidden());
    QVERIFY2(w.banner()->text().contains(QLatin1String("display watchdog")),
             qPrintable(w.banner()->text()));
    QVERIFY(!w.banner()->offersMemcheck());
    QVERIFY(part<QPushButton>(w.banner(), "faultMemcheckButton")->isHidden());
}

void TestFaultBanner::otherErrorsAndNewRunsHideTheBanner() {
    Window w;
    QVERIFY2(w.open(), qPrintable(w.workbench()->runBlockedReason()));
    QSignalSpy requested(w.workbench(), &Workbench::runRequested);
    w.window->run();
    emit w.engine.runFinished(requested.at(0).at(0).toULongLong(), wildWrite());
    QVERIFY(!w.banner()->isHidden());

    // The next run of the user's clears it; an error that is no fault shows nothing here.
    w.window->run();
    QCOMPARE(requested.count(), 2);
    QVERIFY(w.banner()->isHidden());
    RunResult oom;
    oom.status = RunStatus::CudaError;
    oom.error = QStringLiteral("The GPU ran out of memory while cuMemAlloc");
    emit w.engine.runFinished(requested.at(1).at(0).toULongLong(), oom);
    QVERIFY(w.banner()->isHidden());
}

KERNELPAD_TEST_MAIN(TestFaultBanner)
} // namespace tst_faultbanner
#include "tst_faultbanner.moc"
