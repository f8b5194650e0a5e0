// Build ▸ Profile in the window: the action and why it is off, the profile kept with the run
// it was taken of (and shown again when that run is chosen), the editor's margin and the
// roofline from recorded Nsight Compute pages read by core's parser, the margin going stale
// when the source is edited, and a failed profile's error in the Profile tab.

#include "../support/TestProjects.h"
#include "../support/WindowParts.h"
#include "core/engine/Engine.h"
#include "core/profile/NcuPages.h"
#include "core/run/Timing.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/models/ProfileViewModel.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/ProfileMargin.h"
#include "ui/widgets/ProfilePanel.h"
#include "ui/windows/MainWindow.h"

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTreeWidget>
#include <QtTest>

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <memory>

namespace tst_profilehistory {

using namespace kernelpad;
using kernelpad::test::fakeDevice;
using kernelpad::test::part;

namespace {

constexpr int kCompileTimeoutMs = 60000;
/// The line of read_strided.kpad that reads with a stride of 32 floats.
constexpr int kStridedLine = 6;

QString ncuData(const QString& name) {
    return QStringLiteral(KERNELPAD_TEST_DATA_DIR "/ncu/") + name;
}

QString readText(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

Project recordedProject(const QString& name) {
    QString error;
    std::optional<Project> project = Project::load(ncuData(name + QStringLiteral(".kpad")), &error);
    return project ? *project : Project();
}

/// The report core's parser makes of the recorded pages of `name` (full set). Only SAXPY's
/// raw page was recorded; the device's peaks in it are the same H100's.
ProfileReport recordedReport(const QString& name, const QString& sourceName) {
    NcuPages pages;
    pages.details = readText(ncuData(name + QStringLiteral(".full.details.csv")));
    pages.raw = readText(ncuData(QStringLiteral("saxpy.full.raw.csv")));
    pages.source = readText(ncuData(name + QStringLiteral(".full.source-cuda-sass.csv")));
    QString error;
    std::optional<ProfileReport> report =
        assembleProfileReport(pages, sourceName, QStringLiteral("full"), &error);
    if (!report)
        qWarning("recorded report %s: %s", qPrintable(name), qPrintable(error));
    return report.value_or(ProfileReport());
}

ProfileOutcome okOutcome(const ProfileReport& report) {
    ProfileOutcome outcome;
    outcome.status = ProfileStatus::Ok;
    outcome.report = report;
    return outcome;
}

RunResult measuredRun() {
    RunResult result;
    result.status = RunStatus::Ok;
    result.timing = computeStats({0.074, 0.075, 0.076}, 0);
    return result;
}

/// A window on a project, with a fake device (after the engine's own answer) and a compile.
struct Fixture {
    Engine engine{nullptr, Engine::Isolation::InProcess};
    std::unique_ptr<MainWindow> window;

    bool open(const Project& project) {
        window = std::make_unique<MainWindow>(&engine);
        window->setPromptsEnabled(false);
        window->setCompileWhileTyping(false);
        window->document()->replace(project);
        QSignalSpy devices(&engine, &Engine::devicesChanged);
        if (!window->workbench()->devicesKnown() && !devices.wait(kCompileTimeoutMs) &&
            devices.isEmpty())
            return false;
        emit engine.devicesChanged({fakeDevice()}, QString());
        QSignalSpy compiled(window->workbench(), &Workbench::compileShown);
        window->compile();
        return compiled.wait(kCompileTimeoutMs) || !compiled.isEmpty();
    }
    /// The id the Engine gives its next request: the workbench's requests are answered by
    /// emitting the Engine's signals with it, before its own (driverless) answers arrive.
    quint64 nextId() { return engine.compile(window->document()->project(), QString(), 0) + 1; }
    Workbench* workbench() const { return window->workbench(); }
    ProfilePanel* panel() const { return part<ProfilePanel>(window, "profile"); }
    ProfileMargin* margin() const {
        return part<CodeEditor>(window, "editor")
            ->findChild<ProfileMargin*>(QStringLiteral("profileMargin"));
    }
    /// Build ▸ Profile answered: the run first when `withRun`, then the profile.
    void profile(const ProfileOutcome& outcome, bool withRun) {
        const quint64 id = nextId();
        window->profile();
        if (withRun)
            emit engine.runFinished(id, measuredRun());
        emit engine.profileFinished(withRun ? id + 1 : id, outcome);
    }
    void run() {
        const quint64 id = nextId();
        window->run();
        emit engine.runFinished(id, measuredRun());
    }
};

} // namespace

class TestProfileHistory : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void recordedPagesParse();
    void actionOffWithAReason();
    void profileKeptWithItsRun();
    void editingMarksTheMarginStale();
    void failedProfileShowsWhy();
    void comparedWithAnotherRunAndAdviceGoesToItsLine();
};

void TestProfileHistory::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
}

void TestProfileHistory::recordedPagesParse() {
    const ProfileReport strided =
        recordedReport(QStringLiteral("read_strided"), QStringLiteral("read_strided.cu"));
    QVERIFY(strided.lineProfile(kStridedLine));
    QVERIFY(strided.lineProfile(kStridedLine)->uncoalesced);
    QVERIFY(strided.roofline.peakFp32FlopsPerSecond.has_value());
    // The margin's tooltip of the recorded strided read: 18 sectors per warp-level load.
    bool found = false;
    for (const MarginLine& line : marginLines(strided)) {
        if (line.line != kStridedLine)
            continue;
        found = true;
        QVERIFY(line.uncoalesced);
        QVERIFY2(line.toolTip.contains(QStringLiteral("18.0 sectors per request where 4.0 are "
                                                      "ideal")),
                 qPrintable(line.toolTip));
    }
    QVERIFY(found);
}

void TestProfileHistory::actionOffWithAReason() {
    Fixture f;
    QVERIFY(f.open(recordedProject(QStringLiteral("read_strided"))));
    auto* action = part<QAction>(f.window, "profileAction");
    QVERIFY(action);
    QVERIFY2(action->isEnabled(), qPrintable(f.workbench()->profileBlockedReason()));
    QVERIFY(!action->shortcut().isEmpty());
    // A profile in flight (waiting for its run): neither Profile nor Run can start.
    f.nextId();
    f.window->profile();
    QVERIFY(f.workbench()->isProfiling());
    QVERIFY(!action->isEnabled());
    QVERIFY(action->toolTip().contains(QStringLiteral("A profile is in progress")));
    QVERIFY(!part<QAction>(f.window, "runAction")->isEnabled());
    QVERIFY(part<QAction>(f.window, "cancelAction")->isEnabled());
    // No driver: Profile says there is no GPU.
    Fixture none;
    QVERIFY(none.open(recordedProject(QStringLiteral("read_strided"))));
    emit none.engine.devicesChanged({}, QStringLiteral("libcuda.so.1 not found"));
    auto* noneAction = part<QAction>(none.window, "profileAction");
    QVERIFY(!noneAction->isEnabled());
    QVERIFY2(noneAction->toolTip().contains(QStringLiteral("No GPU")),
             qPrintable(noneAction->toolTip()));
}

void TestProfileHistory::profileKeptWithItsRun() {
    Fixture f;
    const Project project = recordedProject(QStringLiteral("read_strided"));
    QVERIFY(f.open(project));
    const ProfileReport first = recordedReport(QStringLiteral("read_strided"), project.sourceName);
    f.window->setProfileSet(ProfileSet::Full);
    f.profile(okOutcome(first), true);
    // The run made for the profile holds it.
    QCOMPARE(f.workbench()->history().size(), 1);
    QVERIFY(f.workbench()->history().constLast().profile.has_value());
    QCOMPARE(*f.workbench()->history().constLast().profile, first);
    QCOMPARE(f.panel()->state(), ProfilePanel::State::Report);
    QCOMPARE(part<QTabWidget>(f.window, "resultTabs")->currentIndex(), int(MainWindow::ProfileTab));
    // The margin flags the strided read, at its line.
    QVERIFY(f.margin()->isShown());
    QVERIFY(f.margin()->flaggedAt(kStridedLine - 1));
    QVERIFY(f.margin()->toolTipAt(kStridedLine - 1).contains(QStringLiteral("uncoalesced")));
    QCOMPARE(f.panel()->roofline()->points().size(), 1);
    QVERIFY(f.panel()->roofline()->roofs().size() >= 2);

    // A run without a profile: the profile shown stays the first run's.
    f.run();
    QCOMPARE(f.workbench()->history().size(), 2);
    QVERIFY(!f.workbench()->history().constLast().profile.has_value());
    auto* list = part<QComboBox>(f.window, "profileHistory");
    QCOMPARE(list->count(), 1);

    // Profile again, unchanged project: kept with the newest run, no new run is made.
    ProfileReport second = first;
    second.roofline.arithmeticIntensity = *first.roofline.arithmeticIntensity * 4;
    second.lines.clear();
    f.profile(okOutcome(second), false);
    QCOMPARE(f.workbench()->history().size(), 2);
    QCOMPARE(*f.workbench()->history().constLast().profile, second);
    QCOMPARE(list->count(), 2);
    QCOMPARE(list->currentIndex(), 1);
    QVERIFY(list->itemText(1).startsWith(QStringLiteral("Run 2 · ")));
    QCOMPARE(f.panel()->roofline()->points().size(), 2);
    QVERIFY(!f.margin()->isShown()); // the second report has no lines

    // Choosing the first run shows its profile again, in the tab and the margin.
    emit list->activated(0);
    QVERIFY(f.margin()->flaggedAt(kStridedLine - 1));
    QCOMPARE(list->currentIndex(), 0);

    // Clearing the history forgets them.
    f.workbench()->clearHistory();
    QCOMPARE(f.panel()->state(), ProfilePanel::State::Empty);
    QVERIFY(!f.margin()->isShown());
    QCOMPARE(f.panel()->roofline()->points().size(), 0);
}

void TestProfileHistory::editingMarksTheMarginStale() {
    Fixture f;
    const Project project = recordedProject(QStringLiteral("transpose_conflicts"));
    QVERIFY(f.open(project));
    f.profile(okOutcome(recordedReport(QStringLiteral("transpose_conflicts"), project.sourceName)),
              true);
    auto* stale = part<QLabel>(f.window, "profileStale");
    QVERIFY(stale->isHidden());
    QVERIFY(!f.margin()->isStale());
    int flagged = -1;
    for (int line = 0; line < 40 && flagged < 0; ++line)
        if (f.margin()->flaggedAt(line))
            flagged = line;
    QVERIFY2(flagged >= 0, "the bank-conflicted line is flagged");
    // A line typed at the top: the flag moves with its line and says it is stale.
    auto* editor = part<CodeEditor>(f.window, "editor");
    editor->insertAt(QStringLiteral("// note\n"), 0, 0);
    QCOMPARE(f.window->document()->project().source, QStringLiteral("// note\n") + project.source);
    QVERIFY(!stale->isHidden());
    QVERIFY(stale->text().startsWith(QStringLiteral("Stale: the source was edited after run 1")));
    QVERIFY(f.margin()->isStale());
    QVERIFY(f.margin()->flaggedAt(flagged + 1));
    QVERIFY(f.margin()->toolTipAt(flagged + 1).startsWith(QStringLiteral("Stale")));
    // Back to the profiled source (undo): fresh again.
    editor->undo();
    QCOMPARE(f.window->document()->project().source, project.source);
    QVERIFY(stale->isHidden());
    QVERIFY(!f.margin()->isStale());
}

void TestProfileHistory::failedProfileShowsWhy() {
    Fixture f;
    QVERIFY(f.open(recordedProject(QStringLiteral("read_strided"))));
    ProfileOutcome missing;
    missing.status = ProfileStatus::NcuMissing;
    missing.error = QStringLiteral("ncu not found; looked in /usr/local/cuda/bin/ncu and PATH");
    QSignalSpy shown(f.workbench(), &Workbench::profileShown);
    f.profile(missing, true);
    QCOMPARE(shown.count(), 1);
    QCOMPARE(f.panel()->state(), ProfilePanel::State::Error);
    QVERIFY(f.panel()->errorText().contains(QStringLiteral("Nsight Compute (ncu) was not found")));
    QVERIFY(f.panel()->errorText().contains(QStringLiteral("/usr/local/cuda/bin/ncu")));
    // The run was kept, without a profile; Profile can start again.
    QCOMPARE(f.workbench()->history().size(), 1);
    QVERIFY(!f.workbench()->history().constLast().profile.has_value());
    QVERIFY(!f.workbench()->isProfiling());
    QVERIFY(part<QAction>(f.window, "profileAction")->isEnabled());
}

// The strided read profiled, then the contiguous one: compared with the first run, the tab
// shows the duration falling; ncu's uncoalesced-access advice takes the editor to its line.
void TestProfileHistory::comparedWithAnotherRunAndAdviceGoesToItsLine() {
    Fixture f;
    const Project project = recordedProject(QStringLiteral("read_strided"));
    QVERIFY(f.open(project));
    f.window->setProfileSet(ProfileSet::Full);
    f.profile(okOutcome(recordedReport(QStringLiteral("read_strided"), project.sourceName)), true);
    f.run();
    f.profile(okOutcome(recordedReport(QStringLiteral("read_contiguous"), project.sourceName)),
              false);
    auto* against = part<QComboBox>(f.window, "profileBaseline");
    QCOMPARE(against->count(), 3); // none and the two profiled runs
    QCOMPARE(against->currentIndex(), 0);
    auto* table = part<QTableWidget>(f.window, "profileComparison");
    QVERIFY(table->isHidden());
    against->setCurrentIndex(1);
    emit against->activated(1);
    QVERIFY(!table->isHidden());
    QVERIFY(table->rowCount() > 0);
    const QString headline = f.panel()->comparison()->headline();
    QVERIFY2(headline.contains(QStringLiteral("Duration 104 µs → 14.72 µs (−85.8 %)")),
             qPrintable(headline));
    // Choosing the first run to show, compared with itself: said so, no table.
    emit part<QComboBox>(f.window, "profileHistory")->activated(0);
    QVERIFY(table->isHidden());
    QVERIFY2(f.panel()->comparison()->headline().contains(QStringLiteral("shown run")),
             qPrintable(f.panel()->comparison()->headline()));

    // The strided run's advice: the uncoalesced-access rule names line 6 and goes there.
    auto* advice = part<QTreeWidget>(f.window, "profileAdvice");
    QTreeWidgetItem* rule = nullptr;
    for (int i = 0; i < advice->topLevelItemCount() && !rule; ++i)
        if (advice->topLevelItem(i)->text(ProfileAdviceList::RuleColumn) ==
            QLatin1String("UncoalescedGlobalAccess"))
            rule = advice->topLevelItem(i);
    QVERIFY(rule);
    QCOMPARE(rule->text(ProfileAdviceList::LinesColumn), QString::number(kStridedLine));
    auto* editor = part<CodeEditor>(f.window, "editor");
    editor->setCursorPosition(0, 0);
    emit advice->itemActivated(rule, 0);
    int line = -1, column = -1;
    editor->getCursorPosition(&line, &column);
    QCOMPARE(line + 1, kStridedLine);
}

KERNELPAD_TEST_MAIN(TestProfileHistory)
} // namespace tst_profilehistory
#include "tst_profilehistory.moc"
