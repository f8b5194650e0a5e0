// SASS as soon as a compile comes back: with the SASS or Diff tab shown, or shown since the
// project was opened, the disassembly starts right after each compile, without the tab coming
// to the front, and switching to the tab shows it with no new nvdisasm process; a tab nobody
// opened starts nothing; a newer compile kills the older disassembly. nvdisasm is a script in
// CUDA_HOME that logs its start and end with its pid, prints the recorded saxpy listing and,
// while a "slow" file exists, sleeps first.
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
/// The stand-in's sleep while "slow" exists: longer than the test waits for a kill.
constexpr int kSlowSeconds = 20;

QString recorded(const QString& name) {
    QFile file(QStringLiteral(KERNELPAD_TEST_DATA_DIR "/sass/") + name);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("missing test data %s", qPrintable(file.fileName()));
    return QString::fromUtf8(file.readAll());
}

bool alive(qint64 pid) {
    return pid > 0 && ::kill(pid_t(pid), 0) == 0;
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
    /// Waits until everything queued on the compile worker before now has been handled: a
    /// compile asked now is answered after any disassembly asked before it.
    bool drainCompileWorker() {
        QSignalSpy compiled(&engine, &Engine::compiled);
        const quint64 id = engine.compile(window.document()->project(), QString(), -1, false);
        return QTest::qWaitFor(
            [&] {
                for (const QList<QVariant>& answer : compiled)
                    if (answer.at(0).toULongLong() == id)
                        return true;
                return false;
            },
            kCompileTimeoutMs);
    }
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

private:
    /// The pids of the nvdisasm processes started since init(), in order.
    [[nodiscard]] QVector<qint64> started() const { return pids("start "); }
    /// The pids that ran to their end.
    [[nodiscard]] QVector<qint64> ended() const { return pids("end "); }
    [[nodiscard]] QVector<qint64> pids(const QByteArray& prefix) const;
    [[nodiscard]] QString slowFlag() const { return m_dir.filePath(QStringLiteral("slow")); }

    QTemporaryDir m_dir;
    QString m_log;
};

void TestSassEarly::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QVERIFY(m_dir.isValid());
    const QString bin = m_dir.filePath(QStringLiteral("cuda/bin"));
    QVERIFY(QDir().mkpath(bin));
    m_log = m_dir.filePath(QStringLiteral("nvdisasm.log"));
    QFile script(bin + QStringLiteral("/nvdisasm"));
    QVERIFY(script.open(QIODevice::WriteOnly));
    // The sleep is detached from the pipes, so that killing the shell ends its output at once.
    script.write("#!/bin/sh\necho \"start $$ $*\" >> '" + m_log.toUtf8() +
                 "'\n"
                 "for f; do :; done\n"
                 "head -c 4 \"$f\" | grep -q ELF || { echo 'not a CUBIN' >&2; exit 3; }\n"
                 "[ -f '" +
                 slowFlag().toUtf8() + "' ] && sleep " + QByteArray::number(kSlowSeconds) +
                 " </dev/null >/dev/null 2>&1\n"
                 "echo \"end $$\" >> '" +
                 m_log.toUtf8() +
                 "'\n"
                 "cat '" +
                 QByteArray(KERNELPAD_TEST_DATA_DIR "/sass/saxpy.sass-gi.txt") + "'\n");
    script.close();
    QVERIFY(script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    qputenv("CUDA_HOME", m_dir.filePath(QStringLiteral("cuda")).toUtf8());
    qunsetenv("CUDA_PATH");
}

void TestSassEarly::init() {
    QFile::remove(m_log);
    QFile::remove(slowFlag());
    SassCache::instance().clear();
}

QVector<qint64> TestSassEarly::pids(const QByteArray& prefix) const {
    QVector<qint64> found;
    QFile file(m_log);
    if (file.open(QIODevice::ReadOnly)) {
        for (const QByteArray& line : file.readAll().split('\n')) {
            if (line.startsWith(prefix))
                found << line.mid(prefix.size()).split(' ').value(0).toLongLong();
        }
    }
    return found;
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
    QVERIFY(w.drainCompileWorker());
    QCoreApplication::processEvents();
    QCOMPARE(ready.count(), 1);
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
    QVERIFY(w.drainCompileWorker());
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
        QVERIFY(w.drainCompileWorker());
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
    QVERIFY(w.drainCompileWorker());
    QCoreApplication::processEvents();
    QCOMPARE(ready.count(), 0);
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
    QFile flag(slowFlag());
    QVERIFY(flag.open(QIODevice::WriteOnly));
    flag.close();
    QVERIFY(w.compileEdit(QStringLiteral("older")));
    QTRY_VERIFY_WITH_TIMEOUT(started().size() == 2, kCompileTimeoutMs);
    const QVector<qint64> older = started();
    QFile::remove(slowFlag());
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

KERNELPAD_TEST_MAIN(TestSassEarly)
} // namespace tst_sassearly
#include "tst_sassearly.moc"
