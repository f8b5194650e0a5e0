// The edit's verdict names the SASS opcodes that changed, in the window: the disassembly the
// SASS tab makes after each compile is kept with the runs of that very compile
// (core/engine/EditVerdictSass.h), so that the Versions tab's Verdict column and the "Last
// run" sentence name "2 more LDG.E.64" once both sides' SASS is known, and are made again when
// it comes after the run; the SASS of another compile is never taken for a run's. nvdisasm is
// a script in CUDA_HOME that prints the listing the test put in its folder (the recorded
// saxpy listing, renamed to the fill kernel) and waits while a "hold" file exists. Runs are
// answered by the test: no GPU is needed.
#include "../support/RecordedSass.h"
#include "../support/TestProjects.h"
#include "../support/WindowParts.h"
#include "core/compile/SassCache.h"
#include "core/engine/Engine.h"
#include "core/run/Timing.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/models/VersionsModel.h"
#include "ui/widgets/VersionsPanel.h"
#include "ui/windows/MainWindow.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QDateTime>
#include <QFile>
#include <QLabel>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

namespace tst_versionssass {

using namespace kernelpad;
using kernelpad::test::part;

namespace {

constexpr int kTimeoutMs = 60000;
/// What the edited listing makes of the recorded one: its two LDG.E become LDG.E.64.
const QString kChangedOpcodes = QStringLiteral("2 more LDG.E.64");

QString recordedListing() {
    // The fill kernel's listing: the names are all the parser matches on.
    return test::recordedSass(QStringLiteral("saxpy.sass-gi.txt"))
        .replace(QStringLiteral("saxpy"), QStringLiteral("fill"));
}

/// The fill kernel with a global of its own: code no other compile made, which neither the
/// compile cache nor SassCache can answer.
QString uniqueSource(const QString& tag) {
    static int count = 0;
    return test::fillProject().source + QStringLiteral("\n__device__ int %1_%2_%3;\n")
                                            .arg(tag)
                                            .arg(QDateTime::currentMSecsSinceEpoch())
                                            .arg(++count);
}

/// A run of the document that passed, 101 samples of 1 ms ± 1 %, made by `compile`.
RunResult measuredRun(const CompileResult& compile) {
    RunResult r;
    r.status = RunStatus::Ok;
    r.compile = compile;
    r.device = test::fakeDevice();
    QVector<double> times;
    for (int i = 0; i < 101; ++i)
        times << 1.0 * (1.0 + 0.01 * double(i - 50) / 50);
    r.timing = computeStats(times);
    BufferVerification check;
    check.passed = true;
    r.verification = {check};
    return r;
}

/// A window on the fill kernel that can run (a fake device; the test answers each run),
/// compile-while-typing off.
struct Window {
    Engine engine{nullptr, Engine::Isolation::InProcess};
    std::unique_ptr<MainWindow> window;

    bool open() {
        window = std::make_unique<MainWindow>(&engine);
        window->setPromptsEnabled(false);
        window->setCompileWhileTyping(false);
        window->show();
        QSignalSpy compiled(workbench(), &Workbench::compileShown);
        Project project = test::fillProject(uniqueSource(QStringLiteral("first")));
        project.sourceName = QStringLiteral("fill.cu");
        window->document()->replace(project);
        if (!compiled.wait(kTimeoutMs) && compiled.isEmpty())
            return false;
        QSignalSpy devices(&engine, &Engine::devicesChanged);
        if (!workbench()->devicesKnown() && !devices.wait(kTimeoutMs) && devices.isEmpty())
            return false;
        emit engine.devicesChanged({test::fakeDevice()}, QString());
        return workbench()->runBlockedReason().isEmpty();
    }
    [[nodiscard]] Workbench* workbench() const { return window->workbench(); }
    [[nodiscard]] VersionsModel* versions() const {
        return part<VersionsPanel>(window, "versions")->model();
    }
    /// The Verdict column of the newest version.
    [[nodiscard]] QString newestVerdict() const {
        return versions()->index(0, VersionsModel::EditColumn).data().toString();
    }
    [[nodiscard]] QString lastRunLabel() const {
        for (QLabel* label : window->statusBar()->findChildren<QLabel*>())
            if (label->text().startsWith(QLatin1String("Last run: ")))
                return label->text();
        return {};
    }
    void showTab(MainWindow::ResultTab tab) const {
        part<QTabWidget>(window, "resultTabs")->setCurrentIndex(tab);
    }
    /// Edits the source into code not compiled before and compiles it.
    bool compileEdit(const QString& tag) {
        QSignalSpy shown(workbench(), &Workbench::compileShown);
        window->document()->setSource(uniqueSource(tag));
        workbench()->compile();
        return (shown.wait(kTimeoutMs) || !shown.isEmpty()) && workbench()->lastCompile()->ok;
    }
    /// Runs the document, answered at once as a run of the last compile.
    bool run() {
        QSignalSpy requested(workbench(), &Workbench::runRequested);
        window->run();
        if (requested.count() != 1)
            return false;
        emit engine.runFinished(requested.at(0).at(0).toULongLong(),
                                measuredRun(*workbench()->lastCompile()));
        return !workbench()->isRunning();
    }
    /// Waits for the disassembly of the source edited with `tag` (its global is in the PTX),
    /// not that of an older compile asked for again after a run. The Workbench hears it
    /// first: it connected before the spy.
    bool waitForSass(QSignalSpy& ready, const QString& tag) const {
        return QTest::qWaitFor(
            [&] {
                for (const QList<QVariant>& answer : ready) {
                    const SassReport report = answer.at(1).value<SassReport>();
                    if (report.ok() && report.compile.ptx.contains(tag + QLatin1Char('_')))
                        return true;
                }
                return false;
            },
            kTimeoutMs);
    }
};

} // namespace

class TestVersionsSass : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void verdictColumnNamesOpcodesOnceTheSassArrives();
    void lastRunNamesOpcodes();
    void sassOfAnotherCompileIsNotAttached();

private:
    /// The listing the stand-in prints from now on: the recorded one, or with its LDG.E loads
    /// made LDG.E.64.
    void setListing(bool changed) const;
    void hold(bool on) const;
    [[nodiscard]] QString file(const char* name) const {
        return m_dir.filePath(QString::fromLatin1(name));
    }

    QTemporaryDir m_dir;
};

void TestVersionsSass::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QVERIFY(test::installNvdisasm(m_dir, "while [ -f '" + file("hold").toUtf8() +
                                             "' ]; do sleep 0.05; done\n"
                                             "cat '" +
                                             file("listing.txt").toUtf8() + "'\n"));
}

void TestVersionsSass::init() {
    hold(false);
    setListing(false);
    SassCache::instance().clear();
}

void TestVersionsSass::setListing(bool changed) const {
    QString listing = recordedListing();
    if (changed)
        listing.replace(QStringLiteral("LDG.E R"), QStringLiteral("LDG.E.64 R"));
    QFile out(file("listing.txt"));
    QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
    out.write(listing.toUtf8());
}

void TestVersionsSass::hold(bool on) const {
    if (!on) {
        QFile::remove(file("hold"));
        return;
    }
    QFile flag(file("hold"));
    QVERIFY(flag.open(QIODevice::WriteOnly));
}

void TestVersionsSass::verdictColumnNamesOpcodesOnceTheSassArrives() {
    Window w;
    // Destroyed before the window: its Engine waits for a held nvdisasm.
    const auto release = qScopeGuard([this] { hold(false); });
    QVERIFY2(w.open(), qPrintable(w.workbench()->runBlockedReason()));
    QSignalSpy ready(&w.engine, &Engine::sassReady);
    w.showTab(MainWindow::SassTab);
    QVERIFY(w.waitForSass(ready, QStringLiteral("first")));
    QVERIFY(w.run());
    QVERIFY(w.workbench()->history().last().sassOpcodes);
    QCOMPARE(w.workbench()->history().last().sassOpcodes->value(QStringLiteral("LDG.E")), 2);

    // The edit's nvdisasm waits: its run ends before its SASS is known.
    hold(true);
    setListing(true);
    QVERIFY(w.compileEdit(QStringLiteral("wider")));
    QVERIFY(w.run());
    QCOMPARE(w.versions()->rowCount(), 2);
    QVERIFY(!w.workbench()->history().last().sassOpcodes);
    QVERIFY2(!w.newestVerdict().contains(QLatin1String("LDG")), qPrintable(w.newestVerdict()));
    QVERIFY2(!w.newestVerdict().isEmpty(), "the version has a verdict (its time)");

    QSignalSpy changed(w.versions(), &QAbstractItemModel::dataChanged);
    ready.clear();
    hold(false);
    QVERIFY(w.waitForSass(ready, QStringLiteral("wider")));
    QVERIFY(!changed.isEmpty());
    QVERIFY2(w.newestVerdict().contains(kChangedOpcodes), qPrintable(w.newestVerdict()));
    QVERIFY(w.versions()->at(0)->sassOpcodes);
    QCOMPARE(w.versions()->at(0)->sassOpcodes->value(QStringLiteral("LDG.E.64")), 2);
}

void TestVersionsSass::lastRunNamesOpcodes() {
    Window w;
    // Destroyed before the window: its Engine waits for a held nvdisasm.
    const auto release = qScopeGuard([this] { hold(false); });
    QVERIFY2(w.open(), qPrintable(w.workbench()->runBlockedReason()));
    QSignalSpy ready(&w.engine, &Engine::sassReady);
    w.showTab(MainWindow::SassTab);
    QVERIFY(w.waitForSass(ready, QStringLiteral("first")));
    QVERIFY(w.run());

    // Both sides' SASS known when the run ends: the sentence names the opcodes at once.
    setListing(true);
    ready.clear();
    QVERIFY(w.compileEdit(QStringLiteral("known")));
    QVERIFY(w.waitForSass(ready, QStringLiteral("known")));
    QVERIFY(w.run());
    QVERIFY2(w.lastRunLabel().contains(kChangedOpcodes), qPrintable(w.lastRunLabel()));
    QVERIFY2(w.window->statusBar()->currentMessage().contains(kChangedOpcodes),
             qPrintable(w.window->statusBar()->currentMessage()));

    // The SASS after the run: the sentence shown is made again when it comes.
    hold(true);
    setListing(false);
    QVERIFY(w.compileEdit(QStringLiteral("later")));
    QVERIFY(w.run());
    QVERIFY2(!w.lastRunLabel().contains(QLatin1String("LDG")), qPrintable(w.lastRunLabel()));
    ready.clear();
    hold(false);
    QVERIFY(w.waitForSass(ready, QStringLiteral("later")));
    QVERIFY2(w.lastRunLabel().contains(QStringLiteral("2 fewer LDG.E.64")),
             qPrintable(w.lastRunLabel()));
}

void TestVersionsSass::sassOfAnotherCompileIsNotAttached() {
    Window w;
    QVERIFY2(w.open(), qPrintable(w.workbench()->runBlockedReason()));
    // A run whose compile nobody disassembled.
    QVERIFY(w.run());
    QVERIFY(w.compileEdit(QStringLiteral("other")));
    QSignalSpy ready(&w.engine, &Engine::sassReady);
    w.showTab(MainWindow::SassTab);
    QVERIFY(w.waitForSass(ready, QStringLiteral("other")));
    // The SASS of the edit is not the first run's.
    QVERIFY(!w.workbench()->history().first().sassOpcodes);
    QVERIFY(!w.versions()->at(0)->sassOpcodes);
    // The edit's own run gets it.
    QVERIFY(w.run());
    QVERIFY(w.workbench()->history().last().sassOpcodes);
    QVERIFY(w.versions()->at(0)->sassOpcodes);
    QVERIFY(!w.versions()->at(1)->sassOpcodes);
    QVERIFY2(!w.newestVerdict().contains(QLatin1String("LDG")), qPrintable(w.newestVerdict()));
}

KERNELPAD_TEST_MAIN(TestVersionsSass)
} // namespace tst_versionssass
#include "tst_versionssass.moc"
