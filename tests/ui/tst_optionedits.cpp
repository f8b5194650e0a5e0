// What the compile settings show and do: an option edit (Max registers, Extra flags) recompiles
// after the pause a source edit waits, so the views are never stale; a PTX project greys the
// options its assembler ignores; a pipeline project says which kernels Run launches; undoing
// back to the saved text leaves the document clean.

#include "../support/WindowParts.h"
#include "core/engine/Engine.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/CompileOptionsPanel.h"
#include "ui/windows/MainWindow.h"

#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "../support/TestMain.h"
#include "TestPaths.h"

namespace tst_optionedits {

using namespace kernelpad;
using namespace kernelpad::test;

namespace {

// NVRTC on a loaded machine can take several seconds for a compile.
constexpr int kCompileTimeoutMs = 60000;

std::unique_ptr<MainWindow> makeWindow(Engine* engine) {
    auto window = std::make_unique<MainWindow>(engine);
    window->setPromptsEnabled(false);
    return window;
}

bool waitForCompile(QSignalSpy& shown) {
    return shown.count() > 0 || shown.wait(kCompileTimeoutMs);
}

} // namespace

class TestOptionEdits : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
    }
    void init() { QDir(ProjectDocument::recoveryDirectory()).removeRecursively(); }

    void projectArchSurvivesTheDeviceArriving_data() {
        QTest::addColumn<QString>("arch");
        QTest::newRow("listed") << QStringLiteral("sm_90a");
        QTest::newRow("not listed") << QStringLiteral("sm_72");
    }
    void projectArchSurvivesTheDeviceArriving() {
        // The project names its arch; the device's arch arrives later and must only change
        // what "device default" means, never the project's choice.
        QFETCH(QString, arch);
        CompileOptionsPanel panel;
        ProgramOptions options;
        options.arch = arch;
        panel.setOptions(options);
        QCOMPARE(panel.options().arch.value_or(QString()), arch);
        panel.setDeviceArch(QStringLiteral("sm_90"));
        QCOMPARE(panel.options().arch.value_or(QString()), arch);
        QCOMPARE(panel.findChild<QComboBox*>(QStringLiteral("arch"))->currentText(), arch);
        // And a project without an arch follows the device.
        panel.setOptions(ProgramOptions{});
        panel.setDeviceArch(QStringLiteral("sm_80"));
        QVERIFY(!panel.options().arch);
    }

    void optionEditRecompiles_data() {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("flag"); // what the next compile's flags then hold
        QTest::newRow("Max registers")
            << QStringLiteral("maxRegisters") << QStringLiteral("--maxrregcount=32");
        QTest::newRow("Extra flags")
            << QStringLiteral("extraFlags") << QStringLiteral("--extra-device-vectorization");
        QTest::newRow("Defines") << QStringLiteral("defines") << QStringLiteral("-DSCALE=2");
    }
    void optionEditRecompiles() {
        QFETCH(QString, field);
        QFETCH(QString, flag);
        Engine engine;
        auto window = makeWindow(&engine);
        QSignalSpy shown(window->workbench(), &Workbench::compileShown);
        QVERIFY(window->openExample(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad")));
        QVERIFY(waitForCompile(shown)); // opening compiles at once
        QVERIFY(window->workbench()->lastCompile());
        QVERIFY(!window->workbench()->lastCompile()->flags.join(' ').contains(flag));
        shown.clear();

        auto* options = part<CompileOptionsPanel>(window, "compileOptions");
        QElapsedTimer waited;
        waited.start();
        if (field == QLatin1String("maxRegisters")) {
            options->findChild<QSpinBox*>(field)->setValue(32);
        } else {
            auto* edit = options->findChild<QLineEdit*>(field);
            edit->setFocus();
            const QString text = field == QLatin1String("defines")
                                     ? QStringLiteral("SCALE=2")
                                     : QStringLiteral("--extra-device-vectorization");
            QTest::keyClicks(edit, text);
        }
        QVERIFY(window->document()->isDirty());
        // As a source edit: after the pause, without Ctrl+B.
        QVERIFY(waitForCompile(shown));
        QVERIFY2(waited.elapsed() >= Workbench::kCompileWhileTypingDelayMs / 2,
                 qPrintable(QString::number(waited.elapsed())));
        QVERIFY2(shown.last().at(0).value<CompileResult>().flags.join(' ').contains(flag),
                 qPrintable(shown.last().at(0).value<CompileResult>().flags.join(' ')));
    }

    void optionEditWaitsWhenCompileWhileTypingIsOff() {
        Engine engine;
        auto window = makeWindow(&engine);
        QSignalSpy shown(window->workbench(), &Workbench::compileShown);
        QVERIFY(window->openExample(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad")));
        QVERIFY(waitForCompile(shown));
        window->setCompileWhileTyping(false);
        shown.clear();
        part<CompileOptionsPanel>(window, "compileOptions")
            ->findChild<QSpinBox*>(QStringLiteral("maxRegisters"))
            ->setValue(40);
        QVERIFY(!shown.wait(Workbench::kCompileWhileTypingDelayMs * 3));
    }

    void ptxProjectGreysTheOptionsItIgnores() {
        Engine engine;
        auto window = makeWindow(&engine);
        window->setCompileWhileTyping(false);
        auto* options = part<CompileOptionsPanel>(window, "compileOptions");
        QVERIFY(window->openExample(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/ptx_saxpy.kpad")));
        for (const char* ignored :
             {"cppStandard", "defines", "includeDirs", "extraFlags", "fastMath", "fmad"}) {
            QVERIFY2(!options->isOptionLive(QLatin1String(ignored)), ignored);
            QVERIFY2(options->findChild<QWidget*>(QLatin1String(ignored))
                         ->toolTip()
                         .contains(QStringLiteral("CUDA C++ only")),
                     ignored);
        }
        for (const char* live : {"arch", "maxRegisters", "lineInfo", "deviceDebug"})
            QVERIFY2(options->isOptionLive(QLatin1String(live)), live);
        // Back to C++: every option is live again.
        QVERIFY(window->openExample(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad")));
        for (const char* name : {"cppStandard", "defines", "extraFlags", "fastMath", "fmad"}) {
            QVERIFY2(options->isOptionLive(QLatin1String(name)), name);
            QVERIFY(!options->findChild<QWidget*>(QLatin1String(name))
                         ->toolTip()
                         .contains(QStringLiteral("CUDA C++ only")));
        }
    }

    void pipelineProjectNamesTheKernelsRunLaunches() {
        Engine engine;
        auto window = makeWindow(&engine);
        window->setCompileWhileTyping(false);
        auto* note = part<QLabel>(window, "pipelineKernelNote");
        QVERIFY(note);
        QVERIFY(
            window->openExample(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/reduction_pipeline.kpad")));
        QVERIFY(!note->isHidden());
        QVERIFY2(note->text().contains(QStringLiteral("reduce_partials → reduce_final")),
                 qPrintable(note->text()));
        QVERIFY(part<QComboBox>(window, "kernelSelector")
                    ->toolTip()
                    .contains(QStringLiteral("reduce_partials")));
        QVERIFY(window->openExample(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad")));
        QVERIFY(note->isHidden());
        QVERIFY(!part<QComboBox>(window, "kernelSelector")
                     ->toolTip()
                     .contains(QStringLiteral("pipeline")));
    }

    void undoBackToTheSavedTextIsClean() {
        QTemporaryDir dir;
        Engine engine;
        auto window = makeWindow(&engine);
        window->setCompileWhileTyping(false);
        QVERIFY(window->openExample(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad")));
        const QString path = dir.filePath(QStringLiteral("saxpy.kpad"));
        QVERIFY(window->saveAs(path));
        QVERIFY(!window->isWindowModified());

        auto* editor = part<CodeEditor>(window, "editor");
        editor->insertAt(QStringLiteral("// a change\n"), 0, 0);
        QVERIFY(window->document()->isDirty());
        QVERIFY(window->isWindowModified());
        QVERIFY(window->document()->autosaveNow());
        QVERIFY(window->document()->hasRecoveryFile());
        editor->undo();
        QCOMPARE(editor->text(), window->document()->project().source);
        QVERIFY(!window->document()->isDirty());
        QVERIFY(!window->isWindowModified());
        QVERIFY(!window->document()->hasRecoveryFile());
        // Redo: modified again.
        editor->redo();
        QVERIFY(window->document()->isDirty());
        QVERIFY(window->isWindowModified());
    }
};

KERNELPAD_TEST_MAIN(TestOptionEdits)
} // namespace tst_optionedits
#include "tst_optionedits.moc"
