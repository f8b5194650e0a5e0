// The Sweep dock offscreen, over a stand-in evaluator (no GPU): the tunables of
// transpose_sweep.kpad and the number of configurations; an invalid value or restriction
// named in the message and never written to the project; records filling the table as they
// arrive with the progress, the best marked and a failure shown with its reason and never
// best; sorting by median; cancel; resume from the results file without evaluating done
// configurations again; Apply best writing the block and grid; the CSV and JSON export; no
// device refused with a message; the results file of the project as it is now shown when it
// opens (a file of another version named, not shown), and the same file as kernelpad-cli's.
// "Devices:": each choice's entries, its text with the count, kept in the settings, and the pool
// Run Sweep builds from them; SweepDevices asking stand-in runners (this computer's too) for
// their devices, leaving out one that cannot be reached, and a sweep over them whose every
// result names its runner. "Timing:" kept in the sweep section, and a fast sweep's best timed
// again.

#include "../support/StandInRunner.h"
#include "core/cuda/DriverApi.h"
#include "core/engine/Engine.h"
#include "core/sweep/SweepEvaluator.h"
#include "core/sweep/SweepResultsPath.h"
#include "core/sweep/SweepSpace.h"
#include "ui/ProjectDocument.h"
#include "ui/SweepDevices.h"
#include "ui/models/SweepResultsModel.h"
#include "ui/widgets/SweepPanel.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QComboBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <atomic>
#include <cmath>
#include <memory>

namespace tst_sweeppanel {

using namespace kernelpad;

namespace {

/// A fake time that is least at bx = 32, by = 8; bx = 64 "fails verification" with a time
/// below every passing one.
RunResult synthetic(const Project& p) {
    RunResult r;
    const int bx = p.launch.block[0], by = p.launch.block[1];
    const double lx = std::log2(bx) - 5, ly = std::log2(by) - 3;
    r.timing.medianMs = 1.0 + lx * lx + ly * ly;
    r.timing.minMs = r.timing.medianMs * 0.9;
    r.timing.bandwidthGBs = 100.0 / r.timing.medianMs;
    if (bx == 64) {
        r.status = RunStatus::VerificationFailed;
        r.error = QStringLiteral("out: 17 of 4194304 elements differ");
        r.timing.medianMs = 0.01;
    }
    return r;
}

/// Answers each request after `delayMs` on the sweep's thread; counts what it was asked.
class FakeEvaluator : public SweepEvaluator {
public:
    FakeEvaluator(int delayMs, std::shared_ptr<std::atomic<int>> started)
        : m_delayMs(delayMs)
        , m_started(std::move(started)) {}
    void start(quint64 tag, const RunRequest& request) override {
        ++*m_started;
        const RunResult result = synthetic(request.project);
        QTimer::singleShot(m_delayMs, this, [this, tag, result] {
            emit finished(tag, result, QStringLiteral("Fake GPU"));
        });
    }
    [[nodiscard]] int capacity() const override { return 1; }
    void cancel() override {}

private:
    int m_delayMs;
    std::shared_ptr<std::atomic<int>> m_started;
};

struct Fixture {
    QTemporaryDir dir;
    ProjectDocument document;
    SweepPanel panel;
    std::shared_ptr<std::atomic<int>> started = std::make_shared<std::atomic<int>>(0);

    explicit Fixture(int delayMs = 0) {
        const QString path = dir.filePath(QStringLiteral("transpose_sweep.kpad"));
        QFile::copy(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/transpose_sweep.kpad"), path);
        QString error;
        if (!document.open(path, &error))
            qFatal("%s", qPrintable(error));
        panel.setDocument(&document);
        // The sweep runs in the Engine, a child of the panel here (no GPU: in this process).
        panel.setEngine(new Engine(&panel, Engine::Isolation::InProcess));
        auto counter = started;
        panel.setEvaluatorFactory(
            [delayMs, counter] { return std::make_unique<FakeEvaluator>(delayMs, counter); });
    }
    /// Runs the sweep to its end; false when it never ends.
    bool runToEnd() {
        if (!panel.runSweep())
            return false;
        return QTest::qWaitFor([&] { return !panel.isRunning(); }, 20000);
    }
    void setCell(int row, int column, const QString& text) {
        panel.tunablesTable()->item(row, column)->setText(text);
    }
};

/// Records of the transpose sweep as a finished run would have written them.
QVector<SweepRecord> someRecords(int count) {
    QVector<SweepRecord> out;
    const int shapes[][2] = {{32, 8}, {16, 16}, {8, 32}, {64, 4}, {4, 64}};
    for (int i = 0; i < count && i < 5; ++i) {
        SweepRecord r;
        r.key = QStringLiteral("bx=%1,by=%2").arg(shapes[i][0]).arg(shapes[i][1]);
        r.names = {QStringLiteral("bx"), QStringLiteral("by")};
        r.values = {double(shapes[i][0]), double(shapes[i][1])};
        r.status = QStringLiteral("ok");
        r.medianMs = 1.0 + i;
        r.minMs = 0.9 + i;
        r.bandwidthGBs = 100.0 / r.medianMs;
        r.device = QStringLiteral("Fake GPU");
        r.ceilingGBs = 2973;
        out.append(r);
    }
    return out;
}

void writeRecords(const QString& path, const QVector<SweepRecord>& records) {
    SweepResultsFile file;
    QString error;
    if (!file.open(path, &error))
        qFatal("%s", qPrintable(error));
    for (const SweepRecord& r : records)
        if (!file.append(r, &error))
            qFatal("%s", qPrintable(error));
}

/// Waits for the panel to show the file of the project as it is now.
bool waitForFile(SweepPanel& panel) {
    QSignalSpy loaded(&panel, &SweepPanel::resultsFileLoaded);
    return loaded.wait(10000);
}

int rowOf(const SweepResultsModel* model, const QString& key) {
    for (int row = 0; row < model->records().size(); ++row)
        if (model->records()[row].key == key)
            return row;
    return -1;
}

} // namespace

/// A runner that starts and never says hello (stopped with its pool).
RunnerSpec silentRunner(const QString& name) {
    RunnerSpec s;
    s.kind = RunnerSpec::Kind::Command;
    s.name = name;
    s.commandLine = QStringLiteral("/bin/sleep 30");
    return s;
}

class TestSweepPanel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
    }
    void cleanup() { QSettings().clear(); }
    void showsTheTunablesAndTheCount() {
        Fixture f;
        QTableWidget* table = f.panel.tunablesTable();
        QCOMPARE(table->rowCount(), 2);
        QCOMPARE(table->item(0, SweepPanel::NameColumn)->text(), QStringLiteral("bx"));
        QCOMPARE(table->item(1, SweepPanel::NameColumn)->text(), QStringLiteral("by"));
        QCOMPARE(table->item(0, SweepPanel::ValuesColumn)->text(),
                 QStringLiteral("powers 2^0..2^10"));
        // 11 x 11 block shapes, of which bx*by <= 1024 keeps 66.
        QVERIFY2(f.panel.countText().startsWith(QStringLiteral("66 configurations of 121")),
                 qPrintable(f.panel.countText()));
        QVERIFY(f.panel.message().isEmpty());

        // A narrower range is written into the project and counted again at once.
        f.setCell(0, SweepPanel::ValuesColumn, QStringLiteral("8..64 step 8"));
        QCOMPARE(f.document.project().sweep.tunables[0].values.kind, SweepValues::Kind::Step);
        QVERIFY(f.document.isDirty());
        // bx in 8, 16, ..., 64 and by in 1 .. 1024: 88 combinations, bx*by <= 1024 keeps 47.
        QVERIFY2(f.panel.countText().startsWith(QStringLiteral("47 configurations of 88")),
                 qPrintable(f.panel.countText()));
    }

    void invalidEntriesAreNamed() {
        Fixture f;
        const SweepSpec before = f.document.project().sweep;
        f.setCell(1, SweepPanel::ValuesColumn, QStringLiteral("1, 2, four"));
        QVERIFY2(f.panel.message().contains(QStringLiteral("by")) &&
                     f.panel.message().contains(QStringLiteral("four")),
                 qPrintable(f.panel.message()));
        QVERIFY(f.document.project().sweep == before);
        QVERIFY(f.panel.countText().isEmpty());
        f.setCell(1, SweepPanel::ValuesColumn, QStringLiteral("powers 2^0..2^10"));
        QVERIFY(f.panel.message().isEmpty());

        f.panel.restrictionsEdit()->setPlainText(QStringLiteral("bx*by <= 1024\nbx * <= 4"));
        QVERIFY2(f.panel.message().contains(QStringLiteral("restrictions[1]")),
                 qPrintable(f.panel.message()));
        QVERIFY(f.document.project().sweep == before);
    }

    void recordsFillTheTableLive() {
        Fixture f;
        QSignalSpy changed(&f.panel, &SweepPanel::recordsChanged);
        QVector<int> seenCounts;
        connect(&f.panel, &SweepPanel::recordsChanged, this,
                [&](const SweepSpec&, const QVector<SweepRecord>& records) {
                    seenCounts.append(int(records.size()));
                });
        QVERIFY(f.runToEnd());
        SweepResultsModel* model = f.panel.resultsModel();
        QCOMPARE(model->rowCount(), 66);
        QCOMPARE(f.started->load(), 66);
        QCOMPARE(f.panel.progressBar()->value(), 66);
        QCOMPARE(f.panel.progressBar()->maximum(), 66);
        QCOMPARE(f.panel.progressBar()->text(), QStringLiteral("66 / 66"));
        // One signal per record, each with one more than the last.
        QVERIFY(seenCounts.contains(1) && seenCounts.contains(33) && seenCounts.last() == 66);

        QVERIFY(model->bestRow() >= 0);
        QCOMPARE(model->records()[model->bestRow()].key, QStringLiteral("bx=32,by=8"));
        const QModelIndex bestStatus =
            model->index(model->bestRow(), model->column(SweepResultsModel::Status));
        QVERIFY(bestStatus.data().toString().contains(QStringLiteral("best")));

        const int failed = rowOf(model, QStringLiteral("bx=64,by=1"));
        QVERIFY(failed >= 0);
        QVERIFY(failed != model->bestRow());
        QCOMPARE(model->index(failed, model->column(SweepResultsModel::Status)).data().toString(),
                 QStringLiteral("verification-failed"));
        QCOMPARE(model->index(failed, model->column(SweepResultsModel::Error)).data().toString(),
                 QStringLiteral("out: 17 of 4194304 elements differ"));
        QVERIFY(model->index(failed, 0).data(Qt::ForegroundRole).isValid());
        // The failure cannot be applied.
        QVERIFY(!f.panel.applyRecord(failed));
        QVERIFY(f.panel.message().contains(QStringLiteral("only a passing")));
    }

    /// "Timing:" writes the sweep section's budget (so it is saved with the project) and shows
    /// a project's; a fast sweep ends by timing its best again, named in the summary.
    void timingBudgetIsKeptAndTheBestTimedAgain() {
        Fixture f;
        auto* timing = f.panel.findChild<QComboBox*>(QStringLiteral("sweepTimingBudget"));
        auto* ms = f.panel.findChild<QSpinBox*>(QStringLiteral("sweepTimingBudgetMs"));
        QVERIFY(timing && ms);
        QCOMPARE(timing->currentIndex(), int(SweepTimingBudget::Kind::Accurate));
        QVERIFY(!ms->isEnabled());
        timing->setCurrentIndex(int(SweepTimingBudget::Kind::Milliseconds));
        QVERIFY(ms->isEnabled());
        ms->setValue(40);
        QCOMPARE(f.document.project().sweep.timingBudget, SweepTimingBudget::milliseconds(40));
        QCOMPARE(
            f.document.project().toJson()[QStringLiteral("sweep")][QStringLiteral("timingBudget")],
            QJsonValue(40));

        timing->setCurrentIndex(int(SweepTimingBudget::Kind::Fast));
        QCOMPARE(f.document.project().sweep.timingBudget, SweepTimingBudget::fast());
        QVERIFY(f.runToEnd());
        QCOMPARE(f.started->load(), 66 + 1); // every configuration, then the best again
        const QRegularExpression summary(QStringLiteral(
            "Best bx=32,by=8: [0-9.]+ ms fast, [0-9.]+ ms with the project's timing"));
        QVERIFY2(f.panel.message().contains(summary), qPrintable(f.panel.message()));
        const SweepResultsModel* model = f.panel.resultsModel();
        QVERIFY(model->records()[model->bestRow()].isRetimed());

        // A project's budget is shown when it loads.
        SweepSpec spec = f.document.project().sweep;
        spec.timingBudget = SweepTimingBudget::milliseconds(123);
        f.document.setSweep(spec);
        QTRY_COMPARE(timing->currentIndex(), int(SweepTimingBudget::Kind::Milliseconds));
        QCOMPARE(ms->value(), 123);
    }

    void sortsByMedian() {
        Fixture f;
        QVERIFY(f.runToEnd());
        SweepResultsModel* model = f.panel.resultsModel();
        QSortFilterProxyModel* sorted = f.panel.sortedResults();
        const int median = model->column(SweepResultsModel::MedianMs);
        sorted->sort(median, Qt::AscendingOrder);
        QCOMPARE(sorted->mapToSource(sorted->index(0, 0)).row(), model->bestRow());
        double last = -1;
        for (int row = 0; row < sorted->rowCount(); ++row) {
            const double key =
                sorted->index(row, median).data(SweepResultsModel::kSortRole).toDouble();
            QVERIFY(key >= last);
            last = key;
        }
        sorted->sort(median, Qt::DescendingOrder);
        QCOMPARE(sorted->mapToSource(sorted->index(sorted->rowCount() - 1, 0)).row(),
                 model->bestRow());
    }

    void cancelStopsAndResumeSkipsDone() {
        Fixture f(15);
        QVERIFY(f.panel.runSweep());
        QVERIFY(QTest::qWaitFor([&] { return f.panel.resultsModel()->rowCount() >= 5; }, 20000));
        f.panel.cancel();
        QVERIFY(QTest::qWaitFor([&] { return !f.panel.isRunning(); }, 20000));
        const int done = f.panel.resultsModel()->rowCount();
        QVERIFY2(done >= 5 && done < 66, qPrintable(QString::number(done)));
        QVERIFY(f.panel.message().startsWith(QStringLiteral("Cancelled")));
        QTest::qWait(100); // nothing more arrives after a cancel
        QCOMPARE(f.panel.resultsModel()->rowCount(), done);
        QVERIFY(QFile::exists(f.panel.resultsPath()));

        int asked = -1;
        f.panel.setResumeQuestion([&](int count, const QString&) {
            asked = count;
            return SweepPanel::ResumeChoice::Resume;
        });
        const int startedBefore = f.started->load();
        QVERIFY(f.runToEnd());
        QCOMPARE(asked, done);
        QCOMPARE(f.panel.resultsModel()->rowCount(), 66);
        QCOMPARE(f.started->load() - startedBefore, 66 - done);

        // Start over evaluates every configuration again.
        f.panel.setResumeQuestion(
            [](int, const QString&) { return SweepPanel::ResumeChoice::StartOver; });
        const int startedThen = f.started->load();
        QVERIFY(f.runToEnd());
        QCOMPARE(f.started->load() - startedThen, 66);
    }

    void applyBestWritesTheLaunch() {
        Fixture f;
        QVERIFY(f.runToEnd());
        QVERIFY(f.panel.applyBest());
        const LaunchConfig& launch = f.document.project().launch;
        QCOMPARE(launch.block[0], 32);
        QCOMPARE(launch.block[1], 8);
        // The grid follows the sweep's formulas for a 2048 x 2048 matrix.
        QCOMPARE(launch.grid[0], 64);
        QCOMPARE(launch.grid[1], 256);
        QVERIFY(!f.document.project().sweep.isEmpty());
        QVERIFY(f.document.isDirty());

        const int other = rowOf(f.panel.resultsModel(), QStringLiteral("bx=16,by=16"));
        QVERIFY(f.panel.applyRecord(other));
        QCOMPARE(f.document.project().launch.block[0], 16);
        QCOMPARE(f.document.project().launch.grid[1], 128);
    }

    void exportsCsvAndJson() {
        Fixture f;
        QVERIFY(f.runToEnd());
        const QString csvPath = f.dir.filePath(QStringLiteral("out.csv"));
        QVERIFY(f.panel.exportTo(csvPath, false));
        QFile csv(csvPath);
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines =
            QString::fromUtf8(csv.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 67);
        QVERIFY(lines[0].startsWith(QStringLiteral("bx,by,status")));
        QVERIFY(lines[1].startsWith(QStringLiteral("32,8,ok"))); // best first

        const QString jsonPath = f.dir.filePath(QStringLiteral("out.json"));
        QVERIFY(f.panel.exportTo(jsonPath, true));
        QFile json(jsonPath);
        QVERIFY(json.open(QIODevice::ReadOnly));
        QCOMPARE(QJsonDocument::fromJson(json.readAll()).array().size(), 66);

        QVERIFY(!f.panel.exportTo(f.dir.filePath(QStringLiteral("no/such/dir/x.csv")), false));
        QVERIFY(f.panel.message().contains(QStringLiteral("Export to")));
    }

    void deviceChoiceBuildsAPoolOfItsEntries() {
        SweepPanel panel;
        panel.setDevice(1, QString());
        auto* combo = panel.findChild<QComboBox*>(QStringLiteral("sweepDevices"));
        QVERIFY(combo);
        QCOMPARE(combo->count(), 3);
        QCOMPARE(panel.deviceScope(), SweepPanel::DeviceScope::Chosen);
        // Until the binding says which runner, the chosen device is this computer's.
        QCOMPARE(panel.deviceEntries(),
                 (QVector<PoolEntry>{PoolEntry{RunnerSpec::local(), 1, {}}}));

        const RunnerSpec a = silentRunner(QStringLiteral("a")),
                         b = silentRunner(QStringLiteral("b"));
        SweepPanel::DeviceChoice chosen;
        chosen.entries = {PoolEntry{a, 0, QStringLiteral("Fake H100")}};
        panel.setDeviceChoice(SweepPanel::DeviceScope::Chosen, chosen);
        QCOMPARE(combo->itemText(0), QStringLiteral("the chosen device (a: Fake H100 (device 0))"));
        SweepPanel::DeviceChoice here;
        here.entries = {PoolEntry{RunnerSpec::local(), 0, QStringLiteral("L")},
                        PoolEntry{RunnerSpec::local(), 1, QStringLiteral("L")}};
        panel.setDeviceChoice(SweepPanel::DeviceScope::ThisComputer, here);
        SweepPanel::DeviceChoice every;
        every.entries = {PoolEntry{a, 0, QStringLiteral("X")}, PoolEntry{a, 1, QStringLiteral("X")},
                         PoolEntry{b, 0, QStringLiteral("Y")}};
        every.why = QStringLiteral("gone: Connection refused");
        panel.setDeviceChoice(SweepPanel::DeviceScope::EveryRunner, every);
        QCOMPARE(combo->itemText(1), QStringLiteral("every device of this computer (2)"));
        QCOMPARE(combo->itemText(2), QStringLiteral("every device (3 on 2 runners)"));
        QVERIFY(
            combo->itemData(2, Qt::ToolTipRole).toString().contains("gone: Connection refused"));

        // Chosen as a user does, and kept.
        QSignalSpy changed(&panel, &SweepPanel::deviceScopeChanged);
        combo->setCurrentIndex(2);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(panel.deviceScope(), SweepPanel::DeviceScope::EveryRunner);
        QCOMPARE(panel.deviceEntries(), every.entries);
        QCOMPARE(QSettings().value(QStringLiteral("sweep/devices")).toString(),
                 QStringLiteral("every"));
        {
            SweepPanel again;
            QCOMPARE(again.deviceScope(), SweepPanel::DeviceScope::EveryRunner);
            QCOMPARE(again.findChild<QComboBox*>(QStringLiteral("sweepDevices"))->currentIndex(),
                     2);
        }

        // Run Sweep's devices: the entries, each on its runner and device; the Engine makes a
        // pool with one runner per entry (tst_runnerpool).
        QString error;
        const std::optional<QVector<PoolEntry>> devices = panel.sweepDevices(&error);
        QVERIFY2(devices, qPrintable(error));
        QCOMPARE(*devices, every.entries);

        panel.setDeviceScope(SweepPanel::DeviceScope::ThisComputer);
        QCOMPARE(combo->currentIndex(), 1);
        QCOMPARE(panel.deviceEntries(), here.entries);

        // While the runners are asked, and when none has a device, Run Sweep says why.
        SweepPanel::DeviceChoice asking;
        asking.pending = true;
        panel.setDeviceChoice(SweepPanel::DeviceScope::ThisComputer, asking);
        QCOMPARE(combo->itemText(1), QStringLiteral("every device of this computer (asking…)"));
        QVERIFY(!panel.sweepDevices(&error));
        QVERIFY2(error.contains(QLatin1String("still asking")), qPrintable(error));
        SweepPanel::DeviceChoice none;
        none.why = QStringLiteral("this computer: libcuda.so.1 not found");
        panel.setDeviceChoice(SweepPanel::DeviceScope::ThisComputer, none);
        QVERIFY(!panel.sweepDevices(&error));
        QVERIFY2(error.startsWith(QLatin1String("Devices: no device to sweep on")) &&
                     error.contains(QLatin1String("libcuda.so.1")),
                 qPrintable(error));
    }

    void sweepDevicesAsksEveryRunnerAndTheSweepNamesThem() {
        // This computer's runner is a stand-in too ($KERNELPAD_RUNNER), so no GPU is needed.
        test::StandInRunner here(QStringLiteral("here"), QStringLiteral("Fake L4"));
        test::StandInRunner alpha(QStringLiteral("alpha"), QStringLiteral("Fake A100"));
        test::StandInRunner beta(QStringLiteral("beta"), QStringLiteral("Fake H100"));
        qputenv("KERNELPAD_RUNNER", here.script().toUtf8());
        RunnerSpec gone;
        gone.kind = RunnerSpec::Kind::Command;
        gone.name = QStringLiteral("gone");
        gone.commandLine = QStringLiteral("/bin/sh -c \"echo 'Connection refused' >&2; exit 255\"");

        Fixture f;
        f.panel.setEvaluatorFactory({}); // the panel's own: a pool over the chosen devices
        auto* devices = new SweepDevices(&f.panel);
        devices->setRunners({alpha.spec(), gone, beta.spec()});
        QVERIFY(!devices->isAsking()); // the chosen device needs no survey
        QSignalSpy surveyed(devices, &SweepDevices::surveyed);
        f.panel.setDeviceScope(SweepPanel::DeviceScope::EveryRunner);
        QVERIFY(devices->isAsking());
        QCOMPARE(f.panel.deviceScopeText(SweepPanel::DeviceScope::EveryRunner),
                 QStringLiteral("every device of every runner (asking…)"));
        QVERIFY(surveyed.wait(30000));
        QCOMPARE(f.panel.deviceScopeText(SweepPanel::DeviceScope::EveryRunner),
                 QStringLiteral("every device (3 on 3 runners)"));
        QCOMPARE(f.panel.deviceScopeText(SweepPanel::DeviceScope::ThisComputer),
                 QStringLiteral("every device of this computer (1)"));
        const QVector<PoolEntry> entries = f.panel.deviceEntries();
        QCOMPARE(entries.size(), 3);
        QVERIFY(entries[0].spec.isLocal()); // this computer first
        QCOMPARE(entries[0].deviceName, QStringLiteral("Fake L4"));
        QCOMPARE(entries[1].spec, alpha.spec());
        QCOMPARE(entries[2].spec, beta.spec());
        const QString tip = f.panel.findChild<QComboBox*>(QStringLiteral("sweepDevices"))
                                ->itemData(2, Qt::ToolTipRole)
                                .toString();
        QVERIFY2(tip.contains(QLatin1String("gone: ")) && tip.contains("Connection refused"),
                 qPrintable(tip));
        // Asked once for these runners; the same list again asks nothing.
        devices->setRunners({alpha.spec(), gone, beta.spec()});
        QVERIFY(!devices->isAsking());

        // A sweep over the three: every result names its runner and device.
        QVERIFY2(f.runToEnd(), qPrintable(f.panel.message()));
        const QVector<SweepRecord>& records = f.panel.resultsModel()->records();
        QCOMPARE(records.size(), 66);
        QSet<QString> names;
        for (const SweepRecord& r : records) {
            QVERIFY2(r.passed(), qPrintable(r.key + QLatin1String(": ") + r.error));
            names.insert(r.device);
        }
        QVERIFY2(names.contains(QStringLiteral("alpha: Fake A100 (device 0)")) &&
                     names.contains(QStringLiteral("beta: Fake H100 (device 0)")) &&
                     names.contains(QStringLiteral("this computer: Fake L4 (device 0)")),
                 qPrintable(QStringList(names.begin(), names.end()).join(", ")));
        qunsetenv("KERNELPAD_RUNNER");
    }

    // Without a device Run Sweep is disabled and says why right under it (the form's
    // message may be scrolled out of view); with one it is enabled again.
    void withoutADeviceRunSweepIsDisabledWithItsReasonBesideIt() {
        Fixture f;
        f.panel.resize(420, 700);
        f.panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&f.panel));
        f.panel.setDevice(0, QStringLiteral("libcuda.so.1 not found"));
        auto* run = f.panel.findChild<QPushButton*>(QStringLiteral("runSweep"));
        auto* reason = f.panel.findChild<QLabel*>(QStringLiteral("sweepRunReason"));
        QVERIFY(run && reason);
        QVERIFY(!run->isEnabled());
        QVERIFY(reason->isVisible());
        QVERIFY2(reason->text().contains(QLatin1String("No CUDA device")) &&
                     reason->text().contains(QLatin1String("libcuda.so.1")),
                 qPrintable(reason->text()));
        QVERIFY(!reason->visibleRegion().isEmpty());
        const int below = reason->mapTo(&f.panel, QPoint()).y() -
                          run->mapTo(&f.panel, QPoint(0, run->height())).y();
        QVERIFY2(below >= 0 && below < 40, qPrintable(QString::number(below)));
        f.panel.setDevice(0, QString());
        QVERIFY(run->isEnabled());
        QVERIFY(!reason->isVisible());
    }

    // The dock fits a narrow column, and the results get more of its height than the form.
    void theDockIsNotCramped() {
        Fixture f;
        QVERIFY2(f.panel.minimumSizeHint().width() <= 420,
                 qPrintable(QString::number(f.panel.minimumSizeHint().width())));
        f.panel.resize(420, 900);
        f.panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&f.panel));
        const int form = f.panel.findChild<QWidget*>(QStringLiteral("sweepFormScroll"))->height();
        const int results = f.panel.resultsView()->height();
        QVERIFY2(results >= form / 2, qPrintable(QStringLiteral("%1 %2").arg(form).arg(results)));
    }

    void noDeviceIsRefused() {
        Fixture f;
        f.panel.setDevice(0, QStringLiteral("libcuda.so.1 not found"));
        QVERIFY(!f.panel.runSweep());
        QVERIFY2(f.panel.message().contains(QStringLiteral("No CUDA device")) &&
                     f.panel.message().contains(QStringLiteral("libcuda.so.1")),
                 qPrintable(f.panel.message()));
        QCOMPARE(f.started->load(), 0);
        auto* run = f.panel.findChild<QPushButton*>(QStringLiteral("runSweep"));
        QVERIFY(run->toolTip().contains(QLatin1String("libcuda.so.1")));
        // The chosen runner's missing driver does not stop a sweep over every runner's devices.
        f.panel.setDeviceScope(SweepPanel::DeviceScope::EveryRunner);
        QVERIFY(run->toolTip().isEmpty());
        SweepPanel::DeviceChoice every;
        every.entries = {PoolEntry{silentRunner(QStringLiteral("a")), 0, QStringLiteral("X")}};
        f.panel.setDeviceChoice(SweepPanel::DeviceScope::EveryRunner, every);
        QVERIFY2(f.runToEnd(), qPrintable(f.panel.message()));
        QVERIFY(f.started->load() > 0); // the test's evaluator stands in for the pool
    }

    // Reopening a project shows its sweep as the file holds it, before Run Sweep resumes it.
    void showsTheResultsFileAtOpen() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("transpose_sweep.kpad"));
        QVERIFY(QFile::copy(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/transpose_sweep.kpad"), path));
        ProjectDocument document;
        QString error;
        QVERIFY2(document.open(path, &error), qPrintable(error));
        SweepPanel probe;
        probe.setDocument(&document);
        const QString results = probe.resultsPath();
        QCOMPARE(QFileInfo(results).absolutePath(), sweepResultsDirectory(path));
        writeRecords(results, someRecords(3));

        SweepPanel panel;
        QSignalSpy changed(&panel, &SweepPanel::recordsChanged);
        QSignalSpy loaded(&panel, &SweepPanel::resultsFileLoaded);
        panel.setDocument(&document);
        QVERIFY(loaded.wait(10000));
        QCOMPARE(loaded.last().at(0).toString(), results);
        SweepResultsModel* model = panel.resultsModel();
        QCOMPARE(model->rowCount(), 3);
        QCOMPARE(model->records()[model->bestRow()].key, QStringLiteral("bx=32,by=8"));
        QVERIFY(!changed.isEmpty());
        const auto shown = changed.last().at(1).value<QVector<SweepRecord>>();
        QCOMPARE(shown.size(), 3);
        QCOMPARE(shown[0].ceilingGBs, 2973.0); // what the chart draws its ceiling from
        QVERIFY2(
            panel.resultsFileText().startsWith(QStringLiteral("3 of 66 configurations from %1, ")
                                                   .arg(QFileInfo(results).fileName())) &&
                panel.resultsFileText().endsWith(QStringLiteral("; Run Sweep resumes")),
            qPrintable(panel.resultsFileText()));
        QCOMPARE(panel.progressBar()->value(), 3);

        // Run Sweep resumes it: only the other 63 are evaluated.
        auto started = std::make_shared<std::atomic<int>>(0);
        panel.setEngine(new Engine(&panel, Engine::Isolation::InProcess));
        panel.setEvaluatorFactory(
            [started] { return std::make_unique<FakeEvaluator>(0, started); });
        int asked = -1;
        panel.setResumeQuestion([&](int count, const QString&) {
            asked = count;
            return SweepPanel::ResumeChoice::Resume;
        });
        QVERIFY(panel.runSweep());
        QVERIFY(QTest::qWaitFor([&] { return !panel.isRunning(); }, 20000));
        QCOMPARE(asked, 3);
        QCOMPARE(started->load(), 63);
        QCOMPARE(model->rowCount(), 66);
        QVERIFY(waitForFile(panel));
        QVERIFY2(panel.resultsFileText().startsWith(QStringLiteral("66 of 66 configurations")) &&
                     panel.resultsFileText().endsWith(QStringLiteral("the sweep is complete")),
                 qPrintable(panel.resultsFileText()));
    }

    // An edit that changes the records' figures makes the file another version's: the table
    // empties and the file is named as not shown; undoing the edit shows it again.
    void aStaleFileIsNotShownAsCurrent() {
        Fixture f;
        writeRecords(f.panel.resultsPath(), someRecords(2));
        f.panel.reloadResultsFile();
        QVERIFY(waitForFile(f.panel));
        QCOMPARE(f.panel.resultsModel()->rowCount(), 2);
        const QString source = f.document.project().source;
        f.document.setSource(source + QStringLiteral("\n// a different kernel\n"));
        QVERIFY(waitForFile(f.panel));
        QCOMPARE(f.panel.resultsModel()->rowCount(), 0);
        QVERIFY2(f.panel.resultsFileText().startsWith(
                     QStringLiteral("No results for the project as it is now")) &&
                     f.panel.resultsFileText().contains(QStringLiteral("is not shown")),
                 qPrintable(f.panel.resultsFileText()));
        f.document.setSource(source);
        QVERIFY(waitForFile(f.panel));
        QCOMPARE(f.panel.resultsModel()->rowCount(), 2);

        // Apply Best changes only what the tunables set: the same file stays shown.
        QVERIFY(f.panel.applyBest());
        QVERIFY(waitForFile(f.panel));
        QCOMPARE(f.panel.resultsModel()->rowCount(), 2);
    }

    // kernelpad-cli sweep and the panel name the same file: the CLI resumes what the panel
    // left (and says so), and the panel shows what the CLI wrote.
    void sharesTheResultsFileWithTheCli() {
        QString why;
        if (DriverApi::load(&why))
            QSKIP("a CUDA driver is present: tst_gpusweep runs the round trip on the device");
        Fixture f;
        const QString results = f.panel.resultsPath();
        QProcess cli;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        // The CLI's cache folder is the panel's (this test's), where the results file lives.
        env.insert(QStringLiteral("XDG_CACHE_HOME"),
                   QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation));
        cli.setProcessEnvironment(env);
        // Nothing there yet: the CLI records into the panel's file (and, without a device,
        // stops before the first record).
        cli.start(QStringLiteral(KERNELPAD_CLI_PATH), {QStringLiteral("sweep"), f.document.path()});
        QVERIFY(cli.waitForFinished(60000));
        QString err = QString::fromUtf8(cli.readAllStandardError());
        QCOMPARE(cli.exitCode(), 3);
        QVERIFY2(err.contains(QStringLiteral("sweep: recording into ") + results), qPrintable(err));

        // The panel's interrupted sweep: the CLI resumes it.
        QFile::remove(results);
        writeRecords(results, someRecords(4));
        cli.start(QStringLiteral(KERNELPAD_CLI_PATH), {QStringLiteral("sweep"), f.document.path()});
        QVERIFY(cli.waitForFinished(60000));
        err = QString::fromUtf8(cli.readAllStandardError());
        QVERIFY2(err.contains(QStringLiteral("sweep: resuming %1: 4 of 66 configurations already "
                                             "done")
                                  .arg(results)),
                 qPrintable(err));

        // --fresh starts over: the file holds its header alone.
        cli.start(QStringLiteral(KERNELPAD_CLI_PATH),
                  {QStringLiteral("sweep"), f.document.path(), QStringLiteral("--fresh")});
        QVERIFY(cli.waitForFinished(60000));
        err = QString::fromUtf8(cli.readAllStandardError());
        QVERIFY2(err.contains(QStringLiteral("sweep: recording into ") + results), qPrintable(err));
        QString error;
        const std::optional<QVector<SweepRecord>> fresh = readSweepResults(results, &error);
        QVERIFY2(fresh, qPrintable(error));
        QVERIFY(fresh->isEmpty());

        // What the CLI left (as an interrupted CLI sweep leaves it) is what the panel shows.
        QFile::remove(results);
        writeRecords(results, someRecords(5));
        f.panel.reloadResultsFile();
        QVERIFY(waitForFile(f.panel));
        QCOMPARE(f.panel.resultsModel()->rowCount(), 5);
        QVERIFY2(f.panel.resultsFileText().startsWith(QStringLiteral("5 of 66 configurations")),
                 qPrintable(f.panel.resultsFileText()));
    }
};

KERNELPAD_TEST_MAIN(TestSweepPanel)
} // namespace tst_sweeppanel
#include "tst_sweeppanel.moc"
