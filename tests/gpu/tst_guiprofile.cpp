// The window's Build ▸ Profile on a real GPU under Nsight Compute:
// the strided read flagged in the editor's margin at its line and the contiguous one not, the
// bank-conflicted tile flagged and the padded one not, SAXPY's speed of light in the Profile
// tab, and two profiles of SAXPY around an edit as two points of the roofline, each kept with
// its run. gpu-labelled; skips with the reason without a driver or without ncu.

#include "GpuTestSupport.h"

#include "../support/WindowParts.h"
#include "core/profile/Ncu.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/ProfileMargin.h"
#include "ui/widgets/ProfilePanel.h"
#include "ui/windows/MainWindow.h"

#include <QProgressBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <memory>

namespace tst_guiprofile {

using namespace kernelpad;
using kernelpad::test::part;

namespace {

constexpr int kDevicesTimeoutMs = 60000;
constexpr int kCompileTimeoutMs = 60000;
/// A run, then ncu around a one-off runner (6 s for SAXPY's full set on the H100).
constexpr int kProfileTimeoutMs = 240000;
constexpr int kStridedReadLine = 6;     // out[i] = in[(size_t)i * 32];
constexpr int kContiguousReadLine = 14; // out[i] = in[i];
constexpr int kConflictLine = 12;       // out[...] = tile[threadIdx.x][threadIdx.y];
/// SAXPY's DRAM throughput is held to at least this share of peak.
constexpr double kSaxpyDramMinPct = 60.0;

QString dataPath(const QString& file) {
    return qEnvironmentVariable("KERNELPAD_TEST_DATA", QStringLiteral(KERNELPAD_TEST_DATA_DIR)) +
           QStringLiteral("/ncu/") + file;
}

struct Window {
    Engine engine;
    std::unique_ptr<MainWindow> window = std::make_unique<MainWindow>(&engine);

    /// Opens `path`, waits for the devices and the compile; false with the reason in `why`.
    bool open(const QString& path, QString* why) {
        window->setPromptsEnabled(false);
        window->setCompileWhileTyping(false);
        QSignalSpy devices(&engine, &Engine::devicesChanged);
        window->show();
        if (!window->workbench()->devicesKnown() && !devices.wait(kDevicesTimeoutMs)) {
            *why = QStringLiteral("no device list within a minute");
            return false;
        }
        if (!window->openProject(path)) {
            *why = window->lastError();
            return false;
        }
        QSignalSpy compiled(window->workbench(), &Workbench::compileShown);
        window->compile();
        if (!compiled.wait(kCompileTimeoutMs) && compiled.isEmpty()) {
            *why = QStringLiteral("no compile within a minute");
            return false;
        }
        return true;
    }
    /// Build ▸ Profile, waiting for its end.
    ProfileOutcome profile(ProfileSet set) {
        window->setProfileSet(set);
        QSignalSpy shown(window->workbench(), &Workbench::profileShown);
        window->profile();
        if (shown.isEmpty() && !shown.wait(kProfileTimeoutMs)) {
            ProfileOutcome none;
            none.error = QStringLiteral("no profile within %1 s").arg(kProfileTimeoutMs / 1000);
            return none;
        }
        return shown.first().first().value<ProfileOutcome>();
    }
    ProfileMargin* margin() const {
        return part<CodeEditor>(window, "editor")
            ->findChild<ProfileMargin*>(QStringLiteral("profileMargin"));
    }
    ProfilePanel* panel() const { return part<ProfilePanel>(window, "profile"); }
};

} // namespace

class TestGuiProfile : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        qRegisterMetaType<kernelpad::ProfileOutcome>();
        KERNELPAD_REQUIRE_DRIVER();
        const NcuLocation ncu = findNcu();
        if (ncu.path.isEmpty())
            QSKIP(qPrintable(ncu.notFoundMessage()));
    }
    void stridedReadFlaggedInTheMargin_data();
    void stridedReadFlaggedInTheMargin();
    void saxpyRooflinePathAcrossAnEdit();
};

void TestGuiProfile::stridedReadFlaggedInTheMargin_data() {
    QTest::addColumn<QString>("project");
    QTest::addColumn<QString>("kernel");
    QTest::addColumn<int>("line");
    QTest::addColumn<bool>("flagged");
    QTest::newRow("stride of 32 floats: uncoalesced")
        << QStringLiteral("read_strided.kpad") << QString() << kStridedReadLine << true;
    QTest::newRow("contiguous read: not flagged")
        << QStringLiteral("read_strided.kpad") << QStringLiteral("read_contiguous")
        << kContiguousReadLine << false;
    QTest::newRow("32-way bank conflicts: flagged")
        << QStringLiteral("transpose_conflicts.kpad") << QString() << kConflictLine << true;
    QTest::newRow("padded tile: no flag anywhere")
        << QStringLiteral("transpose_padded.kpad") << QString() << 0 << false;
}

void TestGuiProfile::stridedReadFlaggedInTheMargin() {
    QFETCH(QString, project);
    QFETCH(QString, kernel);
    QFETCH(int, line);
    QFETCH(bool, flagged);
    Window w;
    QString why;
    QVERIFY2(w.open(dataPath(project), &why), qPrintable(why));
    if (!kernel.isEmpty())
        w.window->document()->setKernel(kernel);
    const ProfileOutcome outcome = w.profile(ProfileSet::Basic);
    QVERIFY2(outcome.ok(), qPrintable(outcome.error));
    const RunRecord& run = w.window->workbench()->history().constLast();
    QVERIFY(run.profile.has_value());
    QCOMPARE(w.panel()->state(), ProfilePanel::State::Report);
    const int lines = part<CodeEditor>(w.window, "editor")->lines();
    for (int l = 0; l < lines; ++l) {
        const bool expected = flagged && l == line - 1;
        QVERIFY2(
            w.margin()->flaggedAt(l) == expected,
            qPrintable(QStringLiteral("line %1: %2").arg(l + 1).arg(w.margin()->toolTipAt(l))));
    }
    if (flagged)
        qInfo("line %d: %s", line, qPrintable(w.margin()->toolTipAt(line - 1)));
}

void TestGuiProfile::saxpyRooflinePathAcrossAnEdit() {
    Window w;
    QString why;
    QVERIFY2(w.open(test::examplesDir() + QStringLiteral("/saxpy.kpad"), &why), qPrintable(why));
    const ProfileOutcome first = w.profile(ProfileSet::Basic);
    QVERIFY2(first.ok(), qPrintable(first.error));
    QProgressBar* dram = w.panel()->bar(QStringLiteral("dram"));
    qInfo("SAXPY DRAM throughput: %s", qPrintable(dram->text()));
    QVERIFY2(first.report.speedOfLight.dramThroughputPct.value_or(0) >= kSaxpyDramMinPct,
             qPrintable(dram->text()));
    QVERIFY(dram->value() >= int(kSaxpyDramMinPct * 10));

    // An edit of the source, then Profile: a new run of the edited project is made and
    // profiled, and the first profile's margin goes stale until then.
    w.window->document()->setSource(w.window->document()->project().source +
                                    QStringLiteral("\n// edited\n"));
    const ProfileOutcome second = w.profile(ProfileSet::Basic);
    QVERIFY2(second.ok(), qPrintable(second.error));
    const QVector<RunRecord>& history = w.window->workbench()->history();
    int profiled = 0;
    for (const RunRecord& run : history)
        profiled += run.profile.has_value() ? 1 : 0;
    QCOMPARE(profiled, 2);
    RooflineChart* roofline = w.panel()->roofline();
    QCOMPARE(roofline->points().size(), 2);
    QVERIFY2(roofline->roofs().size() >= 2, "FP32 and FP64 roofs");
    QVERIFY(roofline->dramBytesPerSecond() > 0);
    for (int i = 0; i < 2; ++i)
        qInfo("%s", qPrintable(roofline->pointToolTip(i)));
}

KERNELPAD_TEST_MAIN(TestGuiProfile)
} // namespace tst_guiprofile
#include "tst_guiprofile.moc"
