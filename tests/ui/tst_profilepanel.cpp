// The Profile tab from constructed reports: the speed-of-light bars, the memory table, the
// stall chart, the margin's lines and their tooltips, the roofline's roofs and points, and the
// error states (ncu missing, counters not permitted).

#include "../support/TestMain.h"
#include "ui/models/ProfileViewModel.h"
#include "ui/widgets/ProfileAdviceList.h"
#include "ui/widgets/ProfilePanel.h"
#include "ui/widgets/RooflineChart.h"
#include "ui/widgets/StallChart.h"

#include <QChart>
#include <QComboBox>
#include <QLabel>
#include <QLogValueAxis>
#include <QProgressBar>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTableWidget>
#include <QTest>
#include <QTreeWidget>

namespace tst_profilepanel {

using namespace kernelpad;

namespace {

LineProfile stridedLine() {
    LineProfile line;
    line.line = 6;
    line.stallSamples = 750;
    line.instructionsExecuted = 98304;
    line.l2SectorsGlobal = 4718592;
    line.l2SectorsGlobalIdeal = 1048576;
    line.l2SectorsGlobalExcessive = 3670016;
    line.globalRequests = 262144;
    line.stalls = {{QStringLiteral("long_scoreboard"), 600},
                   {QStringLiteral("wait"), 100},
                   {QStringLiteral("lg_throttle"), 40},
                   {QStringLiteral("math_pipe_throttle"), 10}};
    flagLine(&line);
    return line;
}

LineProfile conflictLine() {
    LineProfile line;
    line.line = 12;
    line.stallSamples = 250;
    line.sharedConflictsNWay = 32;
    line.sharedWavefronts = 4194304;
    line.sharedWavefrontsIdeal = 131072;
    line.sharedWavefrontsExcessive = 4063232;
    flagLine(&line);
    return line;
}

ProfileReport constructedReport() {
    ProfileReport r;
    r.kernel = QStringLiteral("read_strided");
    r.device = QStringLiteral("NVIDIA H100 80GB HBM3");
    r.set = QStringLiteral("full");
    r.durationNs = 74176;
    r.gridSize = QStringLiteral("(4096, 1, 1)");
    r.blockSize = QStringLiteral("(256, 1, 1)");
    r.ncuVersion = QStringLiteral("2025.3.1.0");
    r.speedOfLight.computeThroughputPct = 12.5;
    r.speedOfLight.memoryThroughputPct = 81.04;
    r.speedOfLight.dramThroughputPct = 78.22;
    r.speedOfLight.achievedOccupancyPct = 83.6;
    r.speedOfLight.theoreticalOccupancyPct = 100;
    r.speedOfLight.dramBytes = 201.3e6;
    r.speedOfLight.l2Bytes = 210e6;
    r.speedOfLight.l2HitRatePct = 33.3;
    r.stalls = {{QStringLiteral("barrier"), QString(), 600, 590},
                {QStringLiteral("wait"), QString(), 100, 90}};
    LineProfile quiet;
    quiet.line = 4;
    quiet.stallSamples = 0;
    r.lines = {quiet, stridedLine(), conflictLine()};
    r.roofline.peakFp32FlopsPerSecond = 67e12;
    r.roofline.peakFp64FlopsPerSecond = 34e12;
    r.roofline.peakDramBytesPerSecond = 3.35e12;
    r.roofline.arithmeticIntensity = 0.083;
    r.roofline.achievedFp32FlopsPerSecond = 0.2e12;
    return r;
}

} // namespace

class TestProfilePanel : public QObject {
    Q_OBJECT
private slots:
    void emptyUntilAReport();
    void speedOfLightAndMemory();
    void notCollectedSaysSo();
    void stallsWithPlainWords();
    void marginLinesAndTooltips();
    void rooflineFromConstructedReports();
    void rooflineZeroFlopAtTheFloor();
    void errorStates_data();
    void errorStates();
    void historyListPicksAnEntry();
    void adviceByEstimatedSpeedupGoesToItsLines();
};

void TestProfilePanel::emptyUntilAReport() {
    ProfilePanel panel;
    QCOMPARE(panel.state(), ProfilePanel::State::Empty);
    auto* empty = panel.findChild<QLabel*>(QStringLiteral("profileEmptyState"));
    QVERIFY(empty);
    QVERIFY(empty->text().contains(QStringLiteral("Build ▸ Profile")));
    panel.showReport(constructedReport());
    QCOMPARE(panel.state(), ProfilePanel::State::Report);
    panel.showEmpty();
    QCOMPARE(panel.state(), ProfilePanel::State::Empty);
}

void TestProfilePanel::speedOfLightAndMemory() {
    ProfilePanel panel;
    panel.showReport(constructedReport());
    QProgressBar* dram = panel.findChild<QProgressBar*>(QStringLiteral("sol.dram"));
    QVERIFY(dram);
    QCOMPARE(dram->text(), QStringLiteral("78.2 %"));
    QCOMPARE(dram->value(), 782);
    QCOMPARE(panel.bar(QStringLiteral("memory"))->text(), QStringLiteral("81.0 %"));
    QCOMPARE(panel.bar(QStringLiteral("occupancy.achieved"))->text(), QStringLiteral("83.6 %"));
    QCOMPARE(panel.bar(QStringLiteral("occupancy.theoretical"))->value(), 1000);
    auto* memory = panel.findChild<QTableWidget*>(QStringLiteral("profileMemory"));
    QVERIFY(memory);
    QCOMPARE(memory->rowCount(), 3);
    QCOMPARE(memory->item(0, 0)->text(), QStringLiteral("DRAM"));
    QCOMPARE(memory->item(0, 1)->text(), QStringLiteral("201.30 MB"));
    QCOMPARE(memory->item(1, 2)->text(), QStringLiteral("33.3 %"));
    auto* headline = panel.findChild<QLabel*>(QStringLiteral("profileHeadline"));
    QVERIFY(headline->text().contains(QStringLiteral("read_strided on NVIDIA H100 80GB HBM3")));
    QVERIFY(headline->text().contains(QStringLiteral("full set")));
    QVERIFY(headline->text().contains(QStringLiteral("Nsight Compute 2025.3.1.0")));
}

void TestProfilePanel::notCollectedSaysSo() {
    ProfilePanel panel;
    ProfileReport report = constructedReport();
    report.set = QStringLiteral("basic");
    report.speedOfLight.l1ThroughputPct.reset();
    report.speedOfLight.l1Bytes.reset();
    panel.showReport(report);
    QCOMPARE(panel.bar(QStringLiteral("l1"))->text(),
             QStringLiteral("not collected by the basic set"));
    auto* memory = panel.findChild<QTableWidget*>(QStringLiteral("profileMemory"));
    QCOMPARE(memory->item(2, 1)->text(), QStringLiteral("not collected"));
}

void TestProfilePanel::stallsWithPlainWords() {
    ProfilePanel panel;
    panel.showReport(constructedReport());
    StallChart* chart = panel.stallChart();
    QCOMPARE(chart->bars().size(), 2);
    QCOMPARE(chart->bars().first().name, QStringLiteral("barrier"));
    // The report had no description: the view fills in core's plain words.
    const QString words = stallReasonDescription(QStringLiteral("barrier"));
    QVERIFY(!words.isEmpty());
    QVERIFY(chart->barToolTip(0).endsWith(words));
}

void TestProfilePanel::marginLinesAndTooltips() {
    const QVector<MarginLine> lines = marginLines(constructedReport());
    // The line with no samples and no flags is left out.
    QCOMPARE(lines.size(), 2);
    const MarginLine& strided = lines.at(0);
    QCOMPARE(strided.line, 6);
    QVERIFY(strided.uncoalesced);
    QVERIFY(!strided.bankConflicts);
    QCOMPARE(strided.samples, 750.0);
    QVERIFY2(strided.toolTip.startsWith(
                 QStringLiteral("Line 6: 750 warp stall samples (75.0 % of the kernel's)")),
             qPrintable(strided.toolTip));
    // 262,144 warp-level loads: 18 sectors each where 4 would do (a float per thread).
    QVERIFY2(strided.toolTip.contains(QStringLiteral("18.0 sectors per request where 4.0 are "
                                                     "ideal (4,718,592 L2 sectors for 262,144 "
                                                     "requests) (uncoalesced)")),
             qPrintable(strided.toolTip));
    LineProfile noRequests = stridedLine();
    noRequests.globalRequests = 0;
    QVERIFY(lineToolTip(noRequests, 750)
                .contains(QStringLiteral("4,718,592 L2 sectors where 1,048,576 are ideal: 4.50x")));
    // The top three reasons, not the fourth.
    QVERIFY(strided.toolTip.contains(QStringLiteral("long_scoreboard: 600")));
    QVERIFY(strided.toolTip.contains(QStringLiteral("lg_throttle: 40")));
    QVERIFY(!strided.toolTip.contains(QStringLiteral("math_pipe_throttle")));
    const MarginLine& conflicts = lines.at(1);
    QVERIFY(conflicts.bankConflicts);
    QVERIFY(!conflicts.uncoalesced);
    QVERIFY(conflicts.toolTip.contains(QStringLiteral("32-way bank conflicts")));
    QVERIFY(conflicts.toolTip.contains(QStringLiteral("4,063,232 excessive")));
}

void TestProfilePanel::rooflineFromConstructedReports() {
    ProfileReport first = constructedReport();
    ProfileReport second = constructedReport();
    second.roofline.arithmeticIntensity = 2.0;
    second.roofline.achievedFp32FlopsPerSecond = 5e12;
    second.roofline.achievedFp64FlopsPerSecond = 1e12;
    const QDateTime at(QDate(2026, 11, 24), QTime(14, 5, 9));
    const QVector<ProfiledRun> runs = {
        {1, at, 74.2e-6, QString(), &first},
        {3, at.addSecs(60), std::nullopt, QStringLiteral("block 128 → 256"), &second}};
    const QVector<RooflineRoof> roofs = rooflineRoofs(first);
    QCOMPARE(roofs.size(), 2);
    QCOMPARE(roofs.at(0).name, QStringLiteral("FP32"));
    QCOMPARE(roofs.at(1).flopsPerSecond, 34e12);
    const QVector<RooflinePoint> points = rooflinePoints(runs);
    QCOMPARE(points.size(), 2);
    QCOMPARE(points.at(0).flopsPerByte, 0.083);
    QCOMPARE(points.at(1).flopsPerSecond, 6e12); // FP32 and FP64 together
    QVERIFY(points.at(0).toolTip.startsWith(QStringLiteral("Run 1, finished ")));
    QVERIFY(points.at(0).toolTip.contains(QStringLiteral("Median time 74.2 µs")));
    QVERIFY(points.at(1).toolTip.contains(QStringLiteral("Changed: block 128 → 256")));

    ProfilePanel panel;
    panel.roofline()->setRoofs(*first.roofline.peakDramBytesPerSecond, roofs);
    panel.roofline()->setPoints(points);
    QCOMPARE(panel.roofline()->roofs().size(), 2);
    QCOMPARE(panel.roofline()->points().size(), 2);
    QVERIFY(panel.roofline()->pointToolTip(1).startsWith(QStringLiteral("Profile 2: 2 FLOP/byte")));
}

// read_strided counts no floating-point operation: its point has no place on log axes and is
// drawn in the floor's corner with a label, not dropped.
void TestProfilePanel::rooflineZeroFlopAtTheFloor() {
    ProfileReport copy = constructedReport();
    copy.roofline.arithmeticIntensity = 0;
    copy.roofline.achievedFp32FlopsPerSecond = 0;
    copy.roofline.achievedFp64FlopsPerSecond = 0;
    ProfiledRun run;
    run.runNumber = 1;
    run.report = &copy;
    const QVector<RooflinePoint> points = rooflinePoints({run});
    QCOMPARE(points.size(), 1);
    QCOMPARE(points.at(0).flopsPerSecond, 0.0);

    ProfilePanel panel;
    panel.resize(1200, 800);
    panel.roofline()->setRoofs(3.35e12, {{QStringLiteral("FP32"), 67e12}});
    panel.roofline()->setPoints(points);
    QScatterSeries* marker = nullptr;
    for (QAbstractSeries* series : panel.roofline()->chart()->series())
        if (auto* scatter = qobject_cast<QScatterSeries*>(series))
            marker = scatter;
    QVERIFY2(marker, "the 0-FLOP run is drawn");
    QCOMPARE(marker->count(), 1);
    QVERIFY(marker->pointLabelsVisible());
    QCOMPARE(marker->pointLabelsFormat(), QStringLiteral("1: no FP operations counted"));
    // In the floor's corner: within a decade of both axes' minimum.
    auto* x = qobject_cast<QLogValueAxis*>(panel.roofline()->chart()->axes(Qt::Horizontal).first());
    auto* y = qobject_cast<QLogValueAxis*>(panel.roofline()->chart()->axes(Qt::Vertical).first());
    QVERIFY(x && y);
    const QPointF at = marker->at(0);
    QVERIFY2(at.x() > x->min() && at.x() < x->min() * 10, qPrintable(QString::number(at.x())));
    QVERIFY2(at.y() > y->min() && at.y() < y->min() * 10, qPrintable(QString::number(at.y())));
    QVERIFY(panel.roofline()->pointToolTip(0).contains(QStringLiteral("no FP operations counted")));
    // A run with FLOPs joins it: both are drawn, the path leaves the floor point out.
    RooflinePoint real{0.5, 1e12, QString()};
    panel.roofline()->setPoints({points.at(0), real});
    int scatters = 0;
    for (QAbstractSeries* series : panel.roofline()->chart()->series()) {
        scatters += qobject_cast<QScatterSeries*>(series) ? 1 : 0;
        QVERIFY(series->name() != QStringLiteral("Profiles in order"));
    }
    QCOMPARE(scatters, 2);
}

void TestProfilePanel::errorStates_data() {
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("error");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("ncu missing, where it looked")
        << int(ProfileStatus::NcuMissing)
        << QStringLiteral("ncu was not found; looked in $CUDA_HOME/bin/ncu (unset), "
                          "/usr/local/cuda/bin/ncu, PATH")
        << QStringList{QStringLiteral("Nsight Compute (ncu) was not found"),
                       QStringLiteral("/usr/local/cuda/bin/ncu")};
    QTest::newRow("counters not permitted, how to allow them")
        << int(ProfileStatus::CounterPermission)
        << QStringLiteral("ERR_NVGPUCTRPERM: run as root, or add options nvidia "
                          "NVreg_RestrictProfilingToAdminUsers=0 to /etc/modprobe.d and reboot")
        << QStringList{QStringLiteral("not permitted to this user"),
                       QStringLiteral("NVreg_RestrictProfilingToAdminUsers=0"),
                       QStringLiteral("href=\"https://developer.nvidia.com/")};
    QTest::newRow("no launch matched")
        << int(ProfileStatus::NoKernelProfiled)
        << QStringLiteral("no launch of ^scale$ was profiled; the kernels that ran: other")
        << QStringList{QStringLiteral("No launch of the kernel was profiled"),
                       QStringLiteral("^scale$")};
}

void TestProfilePanel::errorStates() {
    QFETCH(int, status);
    QFETCH(QString, error);
    QFETCH(QStringList, expected);
    ProfilePanel panel;
    panel.showReport(constructedReport());
    panel.showError(ProfileStatus(status), error);
    QCOMPARE(panel.state(), ProfilePanel::State::Error);
    auto* label = panel.findChild<QLabel*>(QStringLiteral("profileError"));
    QVERIFY(label);
    auto* stack = label->parentWidget();
    QVERIFY(qobject_cast<QStackedWidget*>(stack));
    QCOMPARE(qobject_cast<QStackedWidget*>(stack)->currentWidget(), label);
    for (const QString& part : expected)
        QVERIFY2(panel.errorText().contains(part), qPrintable(panel.errorText()));
}

void TestProfilePanel::historyListPicksAnEntry() {
    ProfilePanel panel;
    auto* list = panel.findChild<QComboBox*>(QStringLiteral("profileHistory"));
    QVERIFY(list);
    panel.setHistory({QStringLiteral("Run 1"), QStringLiteral("Run 2")}, 1);
    QCOMPARE(list->currentIndex(), 1);
    QVERIFY(list->isEnabled());
    QSignalSpy chosen(&panel, &ProfilePanel::historyEntryChosen);
    list->activated(0);
    QCOMPARE(chosen.count(), 1);
    QCOMPARE(chosen.first().first().toInt(), 0);
    panel.setStaleNote(QStringLiteral("Stale: edited"));
    auto* stale = panel.findChild<QLabel*>(QStringLiteral("profileStale"));
    QVERIFY(!stale->isHidden());
    panel.setStaleNote(QString());
    QVERIFY(stale->isHidden());
}

// ncu's rules in the tab: the whole-kernel estimate first, then the local one, then a note;
// the uncoalesced-access rule names line 6 and activating it asks the editor to go there.
void TestProfilePanel::adviceByEstimatedSpeedupGoesToItsLines() {
    ProfileReport r = constructedReport();
    ProfileRule note;
    note.section = QStringLiteral("SpeedOfLight");
    note.name = QStringLiteral("SOLBottleneck");
    note.type = QStringLiteral("INF");
    note.description = QStringLiteral("This workload is utilizing the memory.");
    ProfileRule local = note;
    local.section = QStringLiteral("ComputeWorkloadAnalysis");
    local.name = QStringLiteral("HighPipeUtilization");
    local.type = QStringLiteral("OPT");
    local.speedupType = QStringLiteral("local");
    local.estimatedSpeedup = 99.24;
    ProfileRule global = local;
    global.section = QStringLiteral("SourceCounters");
    global.name = QStringLiteral("UncoalescedGlobalAccess");
    global.speedupType = QStringLiteral("global");
    global.estimatedSpeedup = 75.74;
    global.description = QStringLiteral("This kernel has uncoalesced global accesses.");
    r.rules = {note, local, global};
    ProfilePanel panel;
    panel.showReport(r);
    QTreeWidget* list = panel.findChild<QTreeWidget*>(QStringLiteral("profileAdvice"));
    QVERIFY(list);
    QCOMPARE(list->topLevelItemCount(), 3);
    QCOMPARE(list->topLevelItem(0)->text(ProfileAdviceList::RuleColumn), global.name);
    QCOMPARE(list->topLevelItem(0)->text(ProfileAdviceList::SpeedupColumn),
             QStringLiteral("75.7 %"));
    QCOMPARE(list->topLevelItem(0)->text(ProfileAdviceList::SectionColumn),
             QStringLiteral("Source Counters"));
    QCOMPARE(list->topLevelItem(0)->text(ProfileAdviceList::LinesColumn), QStringLiteral("6"));
    QCOMPARE(list->topLevelItem(1)->text(ProfileAdviceList::SpeedupColumn),
             QStringLiteral("99.2 % local"));
    QCOMPARE(list->topLevelItem(2)->text(ProfileAdviceList::SpeedupColumn), QStringLiteral("INF"));
    const QString text = panel.advice()->selectedText();
    QVERIFY2(text.contains(QStringLiteral("up to 75.7 % of the kernel's time")) &&
                 text.contains(global.description) && text.contains(QStringLiteral("Lines 6")),
             qPrintable(text));

    QSignalSpy chosen(panel.advice(), &ProfileAdviceList::lineChosen);
    emit list->itemActivated(list->topLevelItem(1), 0); // kernel-wide advice: no line
    QCOMPARE(chosen.count(), 0);
    emit list->itemActivated(list->topLevelItem(0), 0);
    QCOMPARE(chosen.count(), 1);
    QCOMPARE(chosen.at(0).at(0).toInt(), 6);

    r.rules.clear();
    panel.showReport(r);
    QCOMPARE(list->topLevelItemCount(), 0);
    QVERIFY2(panel.advice()->selectedText().contains(QStringLiteral("gave no advice")),
             qPrintable(panel.advice()->selectedText()));
}

KERNELPAD_TEST_MAIN(TestProfilePanel)
} // namespace tst_profilepanel
#include "tst_profilepanel.moc"
