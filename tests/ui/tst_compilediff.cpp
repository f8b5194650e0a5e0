// The Diff tab: two compiles of an edited SAXPY side by side, the changed
// rows coloured and the counts by class before -> after; pinning a compile compares the next
// edits with it; without nvdisasm the PTX is diffed and the view says why there is no SASS.
// NVRTC compiles for real; nvdisasm is a script in CUDA_HOME that prints the SASS recorded on
// the GPU machine, with FFMA split into FMUL and FADD for the edited kernel (whose CUBIN holds
// the symbol "edited_marker").
#include "../support/RecordedSass.h"
#include "../support/TestProjects.h"
#include "../support/WindowParts.h"
#include "core/compile/Sass.h"
#include "core/engine/Engine.h"
#include "ui/CompileHistory.h"
#include "ui/ProjectDocument.h"
#include "ui/Theme.h"
#include "ui/Workbench.h"
#include "ui/widgets/CompileDiffView.h"
#include "ui/windows/MainWindow.h"

#include <QComboBox>
#include <QFile>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScopeGuard>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QtTest>

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <memory>

namespace tst_compilediff {

using namespace kernelpad;

namespace {

constexpr int kCompileTimeoutMs = 60000;

/// SAXPY with one more addition: one more PTX arithmetic instruction, and a symbol the fake
/// nvdisasm recognises.
QString editedSaxpy() {
    QString source = test::recordedSass(QStringLiteral("saxpy.cu"));
    source.replace(QStringLiteral("a * x[tid] + y[tid];"),
                   QStringLiteral("a * x[tid] + y[tid] + edited_marker;"));
    return QStringLiteral("__device__ float edited_marker;\n") + source;
}

/// The figure `key` of the kernel shown ("4 → 5 (+1)"), or empty when absent.
QString figure(const QTableWidget* table, const QString& key) {
    for (int row = 0; row < table->rowCount(); ++row)
        if (table->item(row, 0)->data(Qt::UserRole).toString() == key)
            return table->item(row, 1)->text();
    return {};
}

/// The background of block `block` in `pane`'s marks; invalid when unmarked.
QColor markOf(const QPlainTextEdit* pane, int block) {
    for (const QTextEdit::ExtraSelection& mark : pane->extraSelections())
        if (mark.cursor.blockNumber() == block)
            return mark.format.background().color();
    return {};
}

int blockContaining(const QPlainTextEdit* pane, const QString& text) {
    for (QTextBlock b = pane->document()->begin(); b.isValid(); b = b.next())
        if (b.text().contains(text))
            return b.blockNumber();
    return -1;
}

/// A window with SAXPY compiled once and the Diff tab shown.
struct Fixture {
    Engine engine;
    std::unique_ptr<MainWindow> window;
    CompileDiffView* view = nullptr;
    CompileHistory* history = nullptr;

    Fixture() {
        window = std::make_unique<MainWindow>(&engine);
        window->setPromptsEnabled(false);
        window->setCompileWhileTyping(false);
        window->resize(1280, 800);
        window->show();
        view = test::part<CompileDiffView>(window, "compileDiff");
        history = test::part<CompileHistory>(window, "compileHistory");
        auto* tabs = test::part<QTabWidget>(window, "resultTabs");
        tabs->setCurrentIndex(MainWindow::DiffTab);
    }

    /// Compiles `source` and waits for the compile and, with `reports`, for the SASS and
    /// ptxas reports of the compiles compared.
    bool compile(const QString& source, bool reports = true) {
        QSignalSpy shown(window->workbench(), &Workbench::compileShown);
        if (window->workbench()->lastCompile()) {
            window->document()->setSource(source);
            window->workbench()->compile();
        } else {
            Project project = test::fillProject(source);
            project.sourceName = QStringLiteral("saxpy.cu");
            project.kernel = QStringLiteral("saxpy");
            window->document()->replace(project);
        }
        if (!shown.wait(kCompileTimeoutMs) && shown.isEmpty())
            return false;
        if (!window->workbench()->lastCompile()->ok)
            return false;
        if (reports && history->baselineSnapshot()) {
            QElapsedTimer timer;
            timer.start();
            while (!history->reportsReady() && timer.elapsed() < kCompileTimeoutMs)
                QTest::qWait(20);
            return history->reportsReady();
        }
        return true;
    }
};

} // namespace

class TestCompileDiff : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void firstCompileHasNothingToCompare();
    void twoCompilesShowChangedRowsAndCounts();
    void pinThenEditComparesWithThePin();
    void withoutNvdisasmThePtxIsDiffed();

private:
    QTemporaryDir m_dir;
};

void TestCompileDiff::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QVERIFY(m_dir.isValid());
    const QByteArray listing = test::recordedSassPath("saxpy.sass-gi.txt");
    QVERIFY(test::installNvdisasm(m_dir, QByteArray(test::kNvdisasmTakesACubin) +
                                             "if grep -q edited_marker \"$f\"; then\n"
                                             "  sed 's|FFMA R9, R2, UR6, R5 ;|FMUL R9, R2, UR6 ;\\n"
                                             "        /*0185*/                   FADD R9, R9, "
                                             "R5 ;|' '" +
                                             listing + "'\nelse\n  cat '" + listing + "'\nfi\n"));
}

void TestCompileDiff::firstCompileHasNothingToCompare() {
    Fixture f;
    QVERIFY(f.view && f.history);
    auto* tabs = test::part<QTabWidget>(f.window, "resultTabs");
    QCOMPARE(tabs->widget(MainWindow::DiffTab), f.view);
    QCOMPARE(tabs->tabText(MainWindow::DiffTab), QStringLiteral("Diff"));
    QVERIFY(f.view->message().startsWith(QStringLiteral("No compile yet")));
    QVERIFY(!test::part<QPushButton>(f.window, "diffPin")->isEnabled());

    QVERIFY(f.compile(test::recordedSass(QStringLiteral("saxpy.cu"))));
    QVERIFY2(f.view->message().startsWith(QStringLiteral("No previous compile: this is compile 1")),
             qPrintable(f.view->message()));
    QCOMPARE(test::part<QTableWidget>(f.window, "diffFigures")->rowCount(), 0);
    QVERIFY(test::part<QPushButton>(f.window, "diffPin")->isEnabled());
    // The same source compiled again is the same compile, still nothing to compare.
    QVERIFY(f.compile(test::recordedSass(QStringLiteral("saxpy.cu"))));
    QVERIFY(!f.history->previous());
    QVERIFY(f.view->message().startsWith(QStringLiteral("No previous compile: this is compile 1")));
}

void TestCompileDiff::twoCompilesShowChangedRowsAndCounts() {
    Fixture f;
    QVERIFY(f.compile(test::recordedSass(QStringLiteral("saxpy.cu"))));
    QVERIFY(f.compile(editedSaxpy()));
    QVERIFY2(f.history->comparison() && f.history->comparison()->hasSass,
             qPrintable(f.history->sassUnavailable()));
    const QString message = f.view->message();
    QVERIFY2(message.contains(QStringLiteral("compile 1")) &&
                 message.contains(QStringLiteral("compile 2")) &&
                 message.contains(QStringLiteral("SASS: 1 changed, 1 added, 0 removed")),
             qPrintable(message));

    auto* kernels = test::part<QComboBox>(f.window, "diffKernels");
    QCOMPARE(kernels->count(), 1);
    QCOMPARE(kernels->currentText(), QStringLiteral("saxpy"));
    auto* table = test::part<QTableWidget>(f.window, "diffFigures");
    // Counted by hand in the recording (tst_compilecomparison): 12 arithmetic of 40; the edit
    // splits FFMA into FMUL and FADD.
    QCOMPARE(figure(table, "sass.arithmetic"), QStringLiteral("12 → 13 (+1)"));
    QCOMPARE(figure(table, "sass.total"), QStringLiteral("40 → 41 (+1)"));
    QCOMPARE(figure(table, "sass.memory"), QStringLiteral("11 → 11"));
    // One more add in the PTX; loads, stores and branches stay.
    QVERIFY2(figure(table, "ptx.arithmetic").endsWith(QStringLiteral("(+1)")),
             qPrintable(figure(table, "ptx.arithmetic")));
    QVERIFY(!figure(table, "ptx.control").contains('('));
    // ptxas -v reported the registers of both compiles.
    QVERIFY2(!figure(table, "registers").startsWith('-'), qPrintable(figure(table, "registers")));
    QCOMPARE(figure(table, "spillStoreBytes"), QStringLiteral("0 → 0"));

    // The SASS side by side: the FFMA line changed into the FMUL one, the FADD added.
    auto* listing = test::part<QComboBox>(f.window, "diffListing");
    listing->setCurrentIndex(1);
    emit listing->activated(1);
    QCOMPARE(f.view->listingShown(), QStringLiteral("SASS"));
    auto* before = test::part<QPlainTextEdit>(f.window, "diffBefore");
    auto* after = test::part<QPlainTextEdit>(f.window, "diffAfter");
    QCOMPARE(before->document()->blockCount(), after->document()->blockCount());
    const int ffma = blockContaining(before, QStringLiteral("FFMA R9"));
    QVERIFY(ffma >= 0);
    QVERIFY(after->document()->findBlockByNumber(ffma).text().contains(QStringLiteral("FMUL R9")));
    const Theme theme = Theme::forPalette(f.view->palette());
    QCOMPARE(markOf(before, ffma), theme.warningPaper);
    QCOMPARE(markOf(after, ffma), theme.warningPaper);
    QVERIFY(after->document()->findBlockByNumber(ffma + 1).text().contains("FADD R9"));
    QCOMPARE(markOf(after, ffma + 1), theme.notePaper);
    QVERIFY(before->document()->findBlockByNumber(ffma + 1).text().isEmpty());
    QVERIFY(!markOf(before, 0).isValid()); // an unchanged line is not marked
    QCOMPARE(before->extraSelections().size(), 2);

    // The panes scroll together.
    before->verticalScrollBar()->setValue(before->verticalScrollBar()->maximum());
    QVERIFY(after->verticalScrollBar()->value() > 0);
    QCOMPARE(after->verticalScrollBar()->value(), before->verticalScrollBar()->value());
    after->verticalScrollBar()->setValue(3);
    QCOMPARE(before->verticalScrollBar()->value(), 3);

    // Back to PTX: the edit added a global and an add.
    listing->setCurrentIndex(0);
    emit listing->activated(0);
    QVERIFY(blockContaining(after, QStringLiteral("edited_marker")) >= 0);
    QVERIFY(blockContaining(before, QStringLiteral("edited_marker")) < 0);
}

void TestCompileDiff::pinThenEditComparesWithThePin() {
    Fixture f;
    QVERIFY(f.compile(test::recordedSass(QStringLiteral("saxpy.cu"))));
    test::part<QPushButton>(f.window, "diffPin")->click();
    auto* baseline = test::part<QComboBox>(f.window, "diffBaseline");
    QCOMPARE(baseline->currentIndex(), 1); // pinned compile
    QCOMPARE(f.history->pinned()->number, 1);

    // Two edits: the second is compared with the pin (compile 1), not with compile 2.
    QVERIFY(f.compile(editedSaxpy()));
    QString edited = editedSaxpy();
    edited.replace(QStringLiteral("+ edited_marker;"), QStringLiteral("- edited_marker;"));
    QVERIFY(f.compile(edited));
    QCOMPARE(f.history->current()->number, 3);
    QCOMPARE(f.history->baselineSnapshot()->number, 1);
    QVERIFY2(f.view->message().startsWith(QStringLiteral("compile 1")),
             qPrintable(f.view->message()));
    auto* table = test::part<QTableWidget>(f.window, "diffFigures");
    QCOMPARE(figure(table, "sass.arithmetic"), QStringLiteral("12 → 13 (+1)"));

    // Against the previous compile the SASS (the same script output) has not changed.
    baseline->setCurrentIndex(0);
    emit baseline->activated(0);
    QCOMPARE(f.history->baselineSnapshot()->number, 2);
    QTRY_VERIFY(f.history->reportsReady());
    QVERIFY2(f.view->message().contains(QStringLiteral("SASS: no changes")),
             qPrintable(f.view->message()));
    QCOMPARE(figure(table, "sass.arithmetic"), QStringLiteral("13 → 13"));
    QVERIFY(f.view->message().startsWith(QStringLiteral("compile 2")));

    // Pinned again: still compile 1.
    baseline->setCurrentIndex(1);
    emit baseline->activated(1);
    QCOMPARE(f.history->baselineSnapshot()->number, 1);
}

void TestCompileDiff::withoutNvdisasmThePtxIsDiffed() {
    const QByteArray cudaHome = qgetenv("CUDA_HOME");
    const QByteArray path = qgetenv("PATH");
    qputenv("CUDA_HOME", m_dir.filePath(QStringLiteral("empty")).toUtf8());
    qputenv("PATH", "/nonexistent");
    const auto restore = qScopeGuard([&] {
        qputenv("CUDA_HOME", cudaHome);
        qputenv("PATH", path);
    });
    if (!findNvdisasm().path.isEmpty())
        QSKIP("this machine's CUDA toolkit has nvdisasm next to NVRTC");

    Fixture f;
    QVERIFY(f.compile(test::recordedSass(QStringLiteral("saxpy.cu"))));
    QVERIFY(f.compile(editedSaxpy()));
    QVERIFY(f.history->comparison() && !f.history->comparison()->hasSass);
    QVERIFY2(f.view->message().contains(QStringLiteral("SASS unavailable: nvdisasm not found")),
             qPrintable(f.view->message()));
    QCOMPARE(f.view->listingShown(), QStringLiteral("PTX"));
    auto* listing = test::part<QComboBox>(f.window, "diffListing");
    auto* model = qobject_cast<QStandardItemModel*>(listing->model());
    QVERIFY(model && !model->item(1)->isEnabled());
    auto* table = test::part<QTableWidget>(f.window, "diffFigures");
    QVERIFY(figure(table, "sass.total").isEmpty()); // no SASS rows
    QVERIFY(figure(table, "ptx.arithmetic").endsWith(QStringLiteral("(+1)")));
    auto* after = test::part<QPlainTextEdit>(f.window, "diffAfter");
    const int marker = blockContaining(after, QStringLiteral("edited_marker"));
    QVERIFY(marker >= 0);
    QVERIFY(markOf(after, marker).isValid());
}

KERNELPAD_TEST_MAIN(TestCompileDiff)
} // namespace tst_compilediff
#include "tst_compilediff.moc"
