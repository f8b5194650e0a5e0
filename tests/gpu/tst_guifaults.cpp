// The window on a real GPU: with "after a memory fault, re-run under
// memcheck automatically" on, a wild write shows its explanation above the editor, the
// memcheck run starts by itself, and the message ends with the faulting line, thread and
// block, which the editor marks. gpu-labelled; without a driver or compute-sanitizer it skips
// with the reason.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "../support/WindowParts.h"
#include "core/engine/Engine.h"
#include "core/runner/SanitizerRun.h"
#include "ui/Preferences.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/FaultBanner.h"
#include "ui/windows/MainWindow.h"

#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

namespace tst_guifaults {

using namespace kernelpad;

namespace {

constexpr int kDevicesTimeoutMs = 60000;
/// The faulting run, the runner's restart and the run under compute-sanitizer.
constexpr int kFaultAndMemcheckTimeoutMs = 300000;
constexpr int kSmallGrid = 4096; // 1,048,576 / 256
constexpr int kWildWriteLine = 6;

/// SAXPY whose last block writes 4 TiB past `out` (as tst_gpufaults).
Project wildWriteSaxpy() {
    Project p = test::loadExample("saxpy.kpad");
    p.arguments[4].value = QStringLiteral("1048576");
    p.launch.grid = {kSmallGrid, 1, 1};
    p.source = QStringLiteral(
        "extern \"C\" __global__\n"                                                // 1
        "void saxpy(float a, float *x, float *y, float *out, size_t n)\n"          // 2
        "{\n"                                                                      // 3
        "    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;\n"                // 4
        "    size_t wild = blockIdx.x + 1 == gridDim.x ? (size_t(1) << 40) : 0;\n" // 5
        "    if (tid < n) out[tid + wild] = a * x[tid] + y[tid];\n"                // 6
        "}\n");
    return p;
}

} // namespace

class TestGuiFaults : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        KERNELPAD_REQUIRE_DRIVER();
        if (findComputeSanitizer().isEmpty()) {
            QStringList searched;
            (void)findComputeSanitizer(&searched);
            QSKIP(qPrintable(sanitizerNotFoundMessage(searched)));
        }
    }
    void cleanupTestCase() { QSettings().clear(); }

    void wildWriteIsExplainedAndPlacedByMemcheck() {
        Preferences preferences = Preferences::load();
        preferences.memcheckAfterFault = true;
        QSettings settings;
        preferences.save(settings);

        Engine engine;
        MainWindow window(&engine);
        window.setPromptsEnabled(false);
        QSignalSpy devices(&engine, &Engine::devicesChanged);
        window.show();
        if (devices.isEmpty() && !devices.wait(kDevicesTimeoutMs))
            QSKIP("the engine did not answer the device query");
        if (!devices.last().at(1).toString().isEmpty())
            QSKIP(qPrintable(devices.last().at(1).toString()));
        Project project = wildWriteSaxpy();
        window.document()->replace(project);
        QTRY_VERIFY2_WITH_TIMEOUT(window.workbench()->runBlockedReason().isEmpty(),
                                  qPrintable(window.workbench()->runBlockedReason()),
                                  kDevicesTimeoutMs);

        QSignalSpy shown(window.workbench(), &Workbench::runShown);
        window.run();
        // The fault, then the memcheck run the preference started.
        QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 2, kFaultAndMemcheckTimeoutMs);
        const RunResult fault = shown.at(0).at(0).value<RunResult>();
        const RunResult memcheck = shown.at(1).at(0).value<RunResult>();
        qInfo("fault: %s", qPrintable(fault.error));
        QCOMPARE(fault.status, RunStatus::CudaError);
        QVERIFY(fault.faultCode != 0);
        QCOMPARE(memcheck.sanitizerTool, SanitizerTool::Memcheck);

        auto* banner = test::part<FaultBanner>(&window, "faultBanner");
        QVERIFY(banner && !banner->isHidden());
        const QString text = banner->text();
        qInfo("banner: %s", qPrintable(text));
        QVERIFY2(text.startsWith(QLatin1String("The kernel 'saxpy' made a bad memory access")),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("at saxpy.cu:%1, thread (").arg(kWildWriteLine)),
                 qPrintable(text));
        QVERIFY2(text.endsWith(QStringLiteral(", block (%1,0,0).").arg(kSmallGrid - 1)),
                 qPrintable(text));

        auto* editor = test::part<CodeEditor>(&window, "editor");
        bool marked = false;
        for (const Diagnostic& d : editor->diagnostics())
            marked = marked || d.line == kWildWriteLine;
        QVERIFY(marked);
        int line = -1;
        int index = -1;
        editor->getCursorPosition(&line, &index);
        QCOMPARE(line + 1, kWildWriteLine);
    }
};

KERNELPAD_TEST_MAIN(TestGuiFaults)
} // namespace tst_guifaults
#include "tst_guifaults.moc"
