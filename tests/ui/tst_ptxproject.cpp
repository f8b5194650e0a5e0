// PTX projects in the window: a .ptx file opens as a PTX project (highlighted as PTX, its
// arguments from the .entry), "Save as PTX Project" turns a C++ project's PTX view into an
// untitled PTX project with the same arguments and launch, and ptxas errors are marked on
// their lines in the editor.

#include "../support/WindowParts.h"
#include "core/engine/Engine.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/CudaLexer.h"
#include "ui/widgets/PtxView.h"
#include "ui/windows/MainWindow.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QAction>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

namespace tst_ptxproject {

using namespace kernelpad;

namespace {

// NVRTC and nvJitLink on a loaded machine can take several seconds for the first compile.
constexpr int kCompileTimeoutMs = 60000;

const char* const kPtx = R"(// scale in place: x[i] *= a
.version 8.0
.target sm_80
.address_size 64

.visible .entry scale(
    .param .u64 scale_x,
    .param .f32 scale_a,
    .param .u32 scale_n
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<4>;

    ld.param.u64 %rd1, [scale_x];
    ld.param.f32 %f1, [scale_a];
    ld.param.u32 %r1, [scale_n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd2, %rd2, %rd3;
    ld.global.f32 %f2, [%rd2];
    mul.f32 %f2, %f2, %f1;
    st.global.f32 [%rd2], %f2;
DONE:
    ret;
}
)";

/// Waits for the compile the window starts by itself and returns it (ok or not).
const CompileResult* waitForCompile(MainWindow& window, QSignalSpy& shown) {
    if (!shown.wait(kCompileTimeoutMs) && shown.count() == 0)
        return nullptr;
    const std::optional<CompileResult>& last = window.workbench()->lastCompile();
    return last ? &*last : nullptr;
}

QStringList namesOf(const QVector<ArgumentSpec>& arguments) {
    QStringList names;
    for (const ArgumentSpec& a : arguments)
        names << a.name;
    return names;
}

} // namespace

class TestPtxProject : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
    }

    void ptxFileOpensAsAPtxProject() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("scale.ptx"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(kPtx);
        file.close();
        Engine engine;
        MainWindow window(&engine);
        window.setPromptsEnabled(false);
        QSignalSpy shown(window.workbench(), &Workbench::compileShown);
        QVERIFY2(window.openProject(path), qPrintable(window.lastError()));
        QVERIFY(window.document()->isUntitled());
        const Project p = window.document()->project();
        QCOMPARE(p.language, SourceLanguage::Ptx);
        QCOMPARE(p.kernel, QStringLiteral("scale"));
        QCOMPARE(namesOf(p.arguments), (QStringList{"x", "a", "n"}));
        QVERIFY(p.arguments.at(0).isBuffer());

        auto* editor = test::part<CodeEditor>(&window, "editor");
        QCOMPARE(editor->sourceLanguage(), SourceLanguage::Ptx);
        QCOMPARE(editor->text(), QString::fromLatin1(kPtx));
        // PTX's words are the keywords now, not C++'s.
        const QStringList instructions =
            QString::fromLatin1(editor->cudaLexer()->keywords(1)).split(QLatin1Char(' '));
        QVERIFY(instructions.contains(QStringLiteral("fma")));
        QVERIFY(!instructions.contains(QStringLiteral("class")));
        const QStringList directives =
            QString::fromLatin1(editor->cudaLexer()->keywords(2)).split(QLatin1Char(' '));
        QVERIFY(directives.contains(QStringLiteral("entry")));

        const CompileResult* compiled = waitForCompile(window, shown);
        QVERIFY(compiled);
        QVERIFY2(compiled->ok, qPrintable(compiled->log));
        QCOMPARE(compiled->language, SourceLanguage::Ptx);
        QCOMPARE(test::part<PtxView>(&window, "ptx")->ptx(), QString::fromLatin1(kPtx));
        // The compile keeps the table the file made.
        QCOMPARE(namesOf(window.document()->project().arguments), (QStringList{"x", "a", "n"}));

        // A C++ project again: C++ keywords again.
        window.document()->replace(Project{});
        QCOMPARE(editor->sourceLanguage(), SourceLanguage::Cuda);
        QVERIFY(QString::fromLatin1(editor->cudaLexer()->keywords(1))
                    .split(QLatin1Char(' '))
                    .contains(QStringLiteral("class")));
    }

    void saveAsPtxProjectFromThePtxView() {
        Engine engine;
        MainWindow window(&engine);
        window.setPromptsEnabled(false);
        window.setUnsavedChoice(MainWindow::UnsavedChoice::Discard);
        QSignalSpy shown(window.workbench(), &Workbench::compileShown);
        QVERIFY(window.openExample(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad")));
        const Project original = window.document()->project();
        const CompileResult* compiled = waitForCompile(window, shown);
        QVERIFY(compiled && compiled->ok);
        auto* view = test::part<PtxView>(&window, "ptx");
        QAction* save = view->saveAsPtxProjectAction();
        QVERIFY(save->isEnabled());
        QVERIFY(view->findChild<QToolButton*>(QStringLiteral("saveAsPtxProjectButton")));
        const QString ptx = view->ptx();
        QVERIFY(ptx.contains(QLatin1String(".entry saxpy")));

        shown.clear();
        save->trigger();
        const Project made = window.document()->project();
        QVERIFY(window.document()->isUntitled());
        QCOMPARE(made.language, SourceLanguage::Ptx);
        QCOMPARE(made.source, ptx);
        QCOMPARE(made.sourceName, QStringLiteral("saxpy.ptx"));
        QCOMPARE(made.kernel, QStringLiteral("saxpy"));
        QVERIFY(sameArguments(made.arguments, original.arguments));
        QCOMPARE(made.launch.grid, original.launch.grid);
        QCOMPARE(made.launch.block, original.launch.block);
        QVERIFY(!made.options.fmad); // NVRTC-only options stay behind
        QVERIFY(window.windowTitle().startsWith(QStringLiteral("saxpy.ptx")));
        QCOMPARE(test::part<CodeEditor>(&window, "editor")->sourceLanguage(), SourceLanguage::Ptx);

        const CompileResult* again = waitForCompile(window, shown);
        QVERIFY(again);
        QVERIFY2(again->ok, qPrintable(again->log));
        QCOMPARE(again->language, SourceLanguage::Ptx);
        // The PTX names its parameters saxpy_param_N: the table is kept by place.
        QVERIFY(sameArguments(window.document()->project().arguments, original.arguments));
    }

    void ptxErrorsAreMarkedInTheEditor() {
        Engine engine;
        MainWindow window(&engine);
        window.setPromptsEnabled(false);
        QSignalSpy shown(window.workbench(), &Workbench::compileShown);
        QVERIFY(window.openExample(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/ptx_saxpy.kpad")));
        const CompileResult* good = waitForCompile(window, shown);
        QVERIFY(good);
        QVERIFY2(good->ok, qPrintable(good->log));
        QCOMPARE(good->diagnostics.size(), 0);

        QString source = window.document()->project().source;
        const qsizetype at = source.indexOf(QLatin1String("mul.rn.f32"));
        QVERIFY(at > 0);
        const int line = int(source.left(at).count(QLatin1Char('\n'))) + 1;
        source.replace(at, 10, QStringLiteral("mull.rn.f32"));
        shown.clear();
        window.document()->setSource(source);
        window.compile();
        const CompileResult* bad = waitForCompile(window, shown);
        QVERIFY(bad);
        QVERIFY(!bad->ok);
        bool marked = false;
        for (const Diagnostic& d : test::part<CodeEditor>(&window, "editor")->diagnostics())
            marked = marked || (d.line == line && d.severity == Diagnostic::Severity::Error);
        QVERIFY2(marked, qPrintable(bad->log));
    }
};

KERNELPAD_TEST_MAIN(TestPtxProject)
} // namespace tst_ptxproject
#include "tst_ptxproject.moc"
