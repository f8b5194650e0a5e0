// SASS as soon as a compile comes back: with the SASS or Diff tab shown, or shown since the
// project was opened, the disassembly starts right after each compile, without the tab coming
// to the front, and switching to the tab shows it with no new nvdisasm process; a tab nobody
// opened starts nothing; a newer compile kills the older disassembly, the SASS tab's and the
// Diff tab's alike, and a compile never waits for a disassembly. nvdisasm is
// tests/support/StandInNvdisasm.h's.
#include "../support/StandInNvdisasm.h"
#include "../support/TestProjects.h"
#include "../support/WindowParts.h"
#include "core/compile/SassCache.h"
#include "core/engine/Engine.h"
#include "ui/CompileHistory.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/widgets/CompileDiffView.h"
#include "ui/widgets/SassView.h"
#include "ui/windows/MainWindow.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QDateTime>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

namespace tst_sassearly {

using namespace kernelpad;

namespace {

constexpr int kCompileTimeoutMs = 60000;
using Slow = test::StandInNvdisasm::Process;

QString recorded(const QString& name) {
    QFile file(QStringLiteral(KERNELPAD_TEST_DATA_DIR "/sass/") + name);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("missing test data %s", qPrintable(file.fileName()));
    return QString::fromUtf8(file.readAll());
}

/// saxpy with a global of its own: code (and so a CUBIN) no other compile made, which neither
/// the compile cache nor SassCache can answer.
QString uniqueSource(const QString& tag) {
    static int count = 0;
    return recorded(QStringLiteral("saxpy.cu")) + QStringLiteral("\n__device__ int %1_%2_%3;\n")
                                                      .arg(tag)
                                                      .arg(QDateTime::currentMSecsSinceEpoch())
                                                      .arg(++count);
}

/// A window on saxpy, compiled once, compile-while-typing off.
struct Window {
    Engine engine;
    MainWindow window{&engine};
    QTabWidget* tabs = nullptr;

    bool open() {
        window.setPromptsEnabled(false);
        window.setCompileWhileTyping(false);
        window.show();
        QSignalSpy shown(window.workbench(), &Workbench::compileShown);
        Project project = test::fillProject(uniqueSource(QStringLiteral("first")));
        project.sourceName = QStringLiteral("saxpy.cu");
        project.kernel = QStringLiteral("saxpy");
        window.document()->replace(project);
        tabs = test::part<QTabWidget>(&window, "resultTabs");
        return (shown.wait(kCompileTimeoutMs) || shown.count() > 0) && tabs &&
               window.workbench()->lastCompile() && window.workbench()->lastCompile()->ok;
    }
    /// Edits the source into code not compiled before and compiles it; true when it compiled.
    bool compileEdit(const QString& tag) {
        QSignalSpy shown(window.workbench(), &Workbench::compileShown);
        window.document()->setSource(uniqueSource(tag));
        window.workbench()->compile();
        return (shown.wait(kCompileTimeoutMs) || shown.count() > 0) &&
               window.workbench()->lastCompile()->ok;
    }
    /// Waits until everything queued on the compile and SASS workers before now has been
    /// handled: a compile asked now is answered after any compile asked before it, and a
    /// disassembly after any disassembly. The drain's own disassembly starts no nvdisasm: it
    /// is cancelled at once, and its source does not compile should the worker start it first.
    bool drainWorkers() {
        QSignalSpy compiled(&engine, &Engine::compiled);
        QSignalSpy disassembled(&engine, &Engine::sassReady);
        const quint64 compile = engine.compile(window.document()->project(), QString(), -1, false);
        const QString tag = QStringLiteral("drain");
        Project broken = window.document()->project();
        broken.source = QStringLiteral("#error drain\n");
        const quint64 sass = engine.disassemble(broken, QString(), QStringLiteral("sm_90"), tag);
        engine.cancelDisassembly(tag);
        drains << sass;
        const auto answered = [](const QSignalSpy& spy, quint64 id) {
            for (const QList<QVariant>& answer : spy)
                if (answer.at(0).toULongLong() == id)
                    return true;
            return false;
        };
        return QTest::qWaitFor(
            [&] { return answered(compiled, compile) && answered(disassembled, sass); },
            kCompileTimeoutMs);
    }
    /// The answers in `ready` (a spy on sassReady) other than drainWorkers()'s.
    [[nodiscard]] int answers(const QSignalSpy& ready) const {
        int count = 0;
        for (const QList<QVariant>& answer : ready)
            count += drains.contains(answer.at(0).toULongLong()) ? 0 : 1;
        return count;
    }

    QVector<quint64> drains; ///< the requests of drainWorkers()
};

} // namespace

class TestSassEarly : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void compileDisassemblesWithoutSwitchingTabs_data();
    void compileDisassemblesWithoutSwitchingTabs();
    void diffReportsComeWithoutSwitchingTabs();
    void noTabShownStartsNothing_data();
    void noTabShownStartsNothing();
    void newerCompileKillsTheOlderDisassembly();
    void diffDisassemblyOffTheCompileWorkerAndKilled();

private:
    /// The pids of the nvdisasm processes started since init(), in order.
    [[nodiscard]] QVector<qint64> started() const { return m_nvdisasm.started(); }
    /// The pids that ran to their end.
    [[nodiscard]] QVector<qint64> ended() const { return m_nvdisasm.ended(); }
    static bool alive(qint64 pid) { return test::StandInNvdisasm::alive(pid); }
    void setSlow(bool on) const { QVERIFY(m_nvdisasm.setSlow(Slow::Both, on)); }

    test::StandInNvdisasm m_nvdisasm;
};

void TestSassEarly::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QVERIFY(m_nvdisasm.install());
}

void TestSassEarly::init() {
    m_nvdisasm.reset();
    SassCache::instance().clear();
}

void TestSassEarly::compileDisassemblesWithoutSwitchingTabs_data() {
    QTest::addColumn<int>("inFront");
    QTest::newRow("SASS tab in front") << int(MainWindow::SassTab);
    QTest::newRow("SASS tab shown before, Timing in front") << int(MainWindow::TimingTab);
}

void TestSassEarly::compileDisassemblesWithoutSwitchingTabs() {
    QFETCH(int, inFront);
    Window w;
    QVERIFY(w.open());
    QSignalSpy ready(&w.engine, &Engine::sassReady);
    w.tabs->setCurrentIndex(MainWindow::SassTab);
    QVERIFY(ready.wait(kCompileTimeoutMs) || ready.count() > 0);
    w.tabs->setCurrentIndex(inFront);
    auto* view = test::part<SassView>(&w.window, "sass");
    QCOMPARE(view->isVisible(), inFront == MainWindow::SassTab);

    // The edit's compile starts its disassembly with the tab where it is.
    init();
    ready.clear();
    QVERIFY(w.compileEdit(QStringLiteral("edited")));
    const QString ptx = w.window.workbench()->lastCompile()->ptx;
    QVERIFY(ptx.contains(QLatin1String("edited_")));
    QTRY_VERIFY_WITH_TIMEOUT(ready.count() > 0, kCompileTimeoutMs);
    QCOMPARE(w.tabs->currentIndex(), inFront);
    QCOMPARE(started().size(), 2); // the listing and the life ranges, nothing more
    QVERIFY2(view->report().ok(), qPrintable(view->report().sass.error));
    QCOMPARE(view->report().compile.ptx, ptx);

    // Switching to the tab shows that listing: no new request, no new process.
    w.tabs->setCurrentIndex(MainWindow::SassTab);
    QCoreApplication::processEvents();
    QVERIFY(w.drainWorkers());
    QCoreApplication::processEvents();
    QCOMPARE(w.answers(ready), 1);
    QCOMPARE(started().size(), 2);
    QCOMPARE(view->functions(), QStringList{QStringLiteral("saxpy")});
    QCOMPARE(view->report().compile.ptx, ptx);
}

void TestSassEarly::diffReportsComeWithoutSwitchingTabs() {
    Window w;
    QVERIFY(w.open());
    auto* history = w.window.findChild<CompileHistory*>(QStringLiteral("compileHistory"));
    QVERIFY(history);
    w.tabs->setCurrentIndex(MainWindow::DiffTab);
    QTRY_VERIFY_WITH_TIMEOUT(history->current() && history->current()->report, kCompileTimeoutMs);
    w.tabs->setCurrentIndex(MainWindow::TimingTab);

    init();
    QVERIFY(w.compileEdit(QStringLiteral("diffed")));
    QCOMPARE(w.tabs->currentIndex(), int(MainWindow::TimingTab));
    // Both sides of the comparison, previous and new, have their SASS before the tab is back.
    QTRY_VERIFY_WITH_TIMEOUT(history->reportsReady(), kCompileTimeoutMs);
    QVERIFY(history->current()->report->sass.ok);
    QVERIFY(history->current()->report->compile.ptx.contains(QLatin1String("diffed_")));
    QCOMPARE(started().size(), 2);
    QVERIFY(history->comparison() && history->comparison()->hasSass);

    auto* diff = test::part<CompileDiffView>(&w.window, "compileDiff");
    w.tabs->setCurrentIndex(MainWindow::DiffTab);
    QVERIFY(w.drainWorkers());
    QCoreApplication::processEvents();
    QCOMPARE(started().size(), 2);
    QVERIFY2(diff->message().contains(QLatin1String("SASS: ")), qPrintable(diff->message()));
}

void TestSassEarly::noTabShownStartsNothing_data() {
    QTest::addColumn<bool>("shownForAnotherProject");
    QTest::newRow("never shown") << false;
    QTest::newRow("shown for the project opened before") << true;
}

void TestSassEarly::noTabShownStartsNothing() {
    QFETCH(bool, shownForAnotherProject);
    Window w;
    QVERIFY(w.open());
    QSignalSpy ready(&w.engine, &Engine::sassReady);
    if (shownForAnotherProject) {
        w.tabs->setCurrentIndex(MainWindow::SassTab);
        QVERIFY(ready.wait(kCompileTimeoutMs) || ready.count() > 0);
        w.tabs->setCurrentIndex(MainWindow::DiffTab);
        w.tabs->setCurrentIndex(MainWindow::TimingTab);
        QVERIFY(w.drainWorkers());
        // Another project: what was shown for the old one does not count.
        QSignalSpy shown(w.window.workbench(), &Workbench::compileShown);
        Project next = test::fillProject(uniqueSource(QStringLiteral("next")));
        next.sourceName = QStringLiteral("saxpy.cu");
        next.kernel = QStringLiteral("saxpy");
        w.window.document()->replace(next);
        QVERIFY(shown.wait(kCompileTimeoutMs) || shown.count() > 0);
    }
    w.tabs->setCurrentIndex(MainWindow::TimingTab);
    init();
    ready.clear();
    QVERIFY(w.compileEdit(QStringLiteral("unseen")));
    QVERIFY(w.drainWorkers());
    QCoreApplication::processEvents();
    QCOMPARE(w.answers(ready), 0);
    QCOMPARE(started().size(), 0);
}

void TestSassEarly::newerCompileKillsTheOlderDisassembly() {
    Window w;
    QVERIFY(w.open());
    QSignalSpy ready(&w.engine, &Engine::sassReady);
    w.tabs->setCurrentIndex(MainWindow::SassTab);
    QVERIFY(ready.wait(kCompileTimeoutMs) || ready.count() > 0);
    auto* view = test::part<SassView>(&w.window, "sass");

    // The first edit's nvdisasm hangs; the second edit comes while it runs.
    init();
    ready.clear();
    setSlow(true);
    QVERIFY(w.compileEdit(QStringLiteral("older")));
    QTRY_VERIFY_WITH_TIMEOUT(started().size() == 2, kCompileTimeoutMs);
    const QVector<qint64> older = started();
    setSlow(false);
    QVERIFY(w.compileEdit(QStringLiteral("newer")));
    const QString ptx = w.window.workbench()->lastCompile()->ptx;
    QVERIFY(ptx.contains(QLatin1String("newer_")));
    QTRY_VERIFY_WITH_TIMEOUT(view->report().compile.ptx == ptx, kCompileTimeoutMs);
    QVERIFY2(view->report().ok(), qPrintable(view->report().sass.error));

    // The older processes were killed, not waited for, and the view never showed the stop.
    for (const qint64 pid : older) {
        QVERIFY2(!ended().contains(pid), qPrintable(QStringLiteral("nvdisasm %1 ran to its end "
                                                                   "after a newer compile")
                                                        .arg(pid)));
        QTRY_VERIFY(!alive(pid));
    }
    QCOMPARE(started().size(), 4);
    // The older request was answered as stopped (the text of sassCancelledMessage()).
    bool sawStopped = false;
    for (const QList<QVariant>& answer : ready)
        sawStopped = sawStopped || answer.at(1).value<SassReport>().sass.error.startsWith(
                                       QLatin1String("disassembly stopped"));
    QVERIFY(sawStopped);
    QCOMPARE(view->message(), QString());
}

// The Diff tab's disassemblies run beside the compiles, never before them: a compile asked
// while the previous compile's nvdisasm hangs is answered with that nvdisasm still running.
// Once that compile leaves the history (two edits later), its processes are killed and its
// answer, the stop, is shown nowhere.
void TestSassEarly::diffDisassemblyOffTheCompileWorkerAndKilled() {
    Window w;
    QVERIFY(w.open());
    auto* history = w.window.findChild<CompileHistory*>(QStringLiteral("compileHistory"));
    QVERIFY(history);
    w.tabs->setCurrentIndex(MainWindow::DiffTab);
    QTRY_VERIFY_WITH_TIMEOUT(history->current() && history->current()->report, kCompileTimeoutMs);

    init();
    setSlow(true);
    QVERIFY(w.compileEdit(QStringLiteral("hung")));
    QTRY_VERIFY_WITH_TIMEOUT(started().size() == 2, kCompileTimeoutMs);
    const QVector<qint64> hung = started();
    const int hungNumber = history->current()->number;
    QVERIFY(w.compileEdit(QStringLiteral("next")));
    for (const qint64 pid : hung)
        QVERIFY2(alive(pid) && !ended().contains(pid),
                 qPrintable(QStringLiteral("the compile waited for nvdisasm %1 to end").arg(pid)));
    QVERIFY(history->previous() && history->previous()->number == hungNumber);

    setSlow(false);
    QSignalSpy ready(&w.engine, &Engine::sassReady);
    QVERIFY(w.compileEdit(QStringLiteral("last")));
    for (const qint64 pid : hung) {
        QTRY_VERIFY2(!alive(pid), qPrintable(QStringLiteral("nvdisasm %1 of a compile no longer "
                                                            "compared still runs")
                                                 .arg(pid)));
        QVERIFY2(!ended().contains(pid), qPrintable(QString::number(pid)));
    }
    QTRY_VERIFY_WITH_TIMEOUT(history->reportsReady(), kCompileTimeoutMs);
    QVERIFY(history->previous()->report->compile.ptx.contains(QLatin1String("next_")));
    QVERIFY(history->current()->report->compile.ptx.contains(QLatin1String("last_")));
    QVERIFY(history->comparison() && history->comparison()->hasSass);
    int stops = 0;
    for (const QList<QVariant>& answer : ready)
        stops += answer.at(1).value<SassReport>().sass.cancelled ? 1 : 0;
    QCOMPARE(stops, 1);
    for (const std::optional<CompileSnapshot>* kept :
         {&history->current(), &history->previous(), &history->pinned()})
        QVERIFY(!*kept || !(*kept)->report ||
                !(*kept)->report->compile.ptx.contains(QLatin1String("hung_")));
    auto* diff = test::part<CompileDiffView>(&w.window, "compileDiff");
    QVERIFY2(diff->message().contains(QLatin1String("SASS: ")), qPrintable(diff->message()));
    // Answered, as cancelled: nothing of that compile's tag is left.
    QVERIFY(!w.engine.cancelDisassembly(history->reportTag(hungNumber)));
}

KERNELPAD_TEST_MAIN(TestSassEarly)
} // namespace tst_sassearly
#include "tst_sassearly.moc"
