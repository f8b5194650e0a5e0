// The Sweep dock's confirmation of the best by an A/B against the runner-up, offscreen over a
// stand-in evaluator that answers the A/B (no GPU): the verdict is the line under the results
// after Run Sweep; the checkbox skips the A/B and is kept in the settings; a results file whose
// best holds a verdict shows it when the project opens.

#include "core/engine/Engine.h"
#include "core/sweep/SweepEvaluator.h"
#include "ui/ProjectDocument.h"
#include "ui/models/SweepResultsModel.h"
#include "ui/widgets/SweepPanel.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QCheckBox>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <atomic>
#include <cmath>
#include <memory>

namespace tst_sweeppanelconfirm {

using namespace kernelpad;

namespace {

/// Least at bx = 32, by = 8 (1 ms); 2 ms at bx = 16 or 64 (by = 8) and at by = 4 or 16.
RunResult confirmSynthetic(const Project& p) {
    RunResult r;
    const double lx = std::log2(p.launch.block[0]) - 5, ly = std::log2(p.launch.block[1]) - 3;
    r.timing.medianMs = 1.0 + lx * lx + ly * ly;
    r.timing.minMs = r.timing.medianMs * 0.9;
    return r;
}

/// The A/B's answer: B (the best) 3.1 % faster.
AbResult fasterVerdict() {
    AbResult r;
    r.status = AbResult::Status::Verdict;
    r.verdict.kind = AbVerdict::Kind::Faster;
    r.verdict.ratio = 0.969;
    r.verdict.low = 0.966;
    r.verdict.high = 0.972;
    r.device = QStringLiteral("Fake GPU");
    return r;
}

/// The A/B's answer on two devices: each 3.1 % faster, pooled.
AbResult onTwoDevices() {
    AbResult r = fasterVerdict();
    for (int d = 0; d < 2; ++d) {
        AbDeviceEstimate e;
        e.device = QStringLiteral("Fake GPU (device %1)").arg(d);
        e.verdict = QStringLiteral("faster");
        e.ratio = 0.969;
        e.low = 0.965;
        e.high = 0.973;
        e.blocks = 4;
        r.devices.append(e);
    }
    return r;
}

class ConfirmingEvaluator : public SweepEvaluator {
public:
    explicit ConfirmingEvaluator(std::shared_ptr<std::atomic<int>> abs, bool twoDevices = false)
        : m_abs(std::move(abs))
        , m_twoDevices(twoDevices) {}
    void start(quint64 tag, const RunRequest& request) override {
        const RunResult result = confirmSynthetic(request.project);
        QTimer::singleShot(0, this, [this, tag, result] {
            emit finished(tag, result, QStringLiteral("Fake GPU"));
        });
    }
    [[nodiscard]] int capacity() const override { return m_twoDevices ? 2 : 1; }
    [[nodiscard]] bool comparesBesideRuns() const override { return m_twoDevices; }
    void cancel() override {}
    void compareAb(quint64 tag, const AbOrder&) override {
        ++*m_abs;
        const AbResult result = m_twoDevices ? onTwoDevices() : fasterVerdict();
        QTimer::singleShot(0, this, [this, tag, result] { emit abFinished(tag, result); });
    }

private:
    std::shared_ptr<std::atomic<int>> m_abs;
    bool m_twoDevices;
};

struct ConfirmFixture {
    QTemporaryDir dir;
    ProjectDocument document;
    SweepPanel panel;
    std::shared_ptr<std::atomic<int>> abs = std::make_shared<std::atomic<int>>(0);

    /// The transpose example (`example`: another) with `sweepEdits` merged into its sweep
    /// section, over a stand-in of one device or (`twoDevices`) two.
    explicit ConfirmFixture(const QString& example = QStringLiteral("transpose_sweep.kpad"),
                            const QJsonObject& sweepEdits = {}, bool twoDevices = false) {
        const QString path = dir.filePath(example);
        QFile in(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/") + example);
        QFile out(path);
        if (!in.open(QIODevice::ReadOnly) || !out.open(QIODevice::WriteOnly))
            qFatal("cannot copy %s", qPrintable(example));
        QJsonObject json = QJsonDocument::fromJson(in.readAll()).object();
        QJsonObject sweep = json.value(QStringLiteral("sweep")).toObject();
        for (auto it = sweepEdits.begin(); it != sweepEdits.end(); ++it)
            sweep.insert(it.key(), it.value());
        json.insert(QStringLiteral("sweep"), sweep);
        out.write(QJsonDocument(json).toJson());
        out.close();
        QString error;
        if (!document.open(path, &error))
            qFatal("%s", qPrintable(error));
        panel.setDocument(&document);
        panel.setEngine(new Engine(&panel, Engine::Isolation::InProcess));
        auto counter = abs;
        panel.setEvaluatorFactory([counter, twoDevices] {
            return std::make_unique<ConfirmingEvaluator>(counter, twoDevices);
        });
        panel.setResumeQuestion(
            [](int, const QString&) { return SweepPanel::ResumeChoice::Resume; });
    }
    bool runToEnd() {
        if (!panel.runSweep())
            return false;
        return QTest::qWaitFor([&] { return !panel.isRunning(); }, 20000);
    }
    [[nodiscard]] QCheckBox* check() const {
        return panel.findChild<QCheckBox*>(QStringLiteral("sweepConfirm"));
    }
};

const QString kConfirmedLine = QStringLiteral(
    "confirmed: bx=32,by=8 is 3.1 % faster than bx=16,by=8 (95 % interval 2.8\u20133.4 %)");

} // namespace

class TestSweepPanelConfirm : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
    }
    void cleanup() { QSettings().clear(); }

    void theVerdictIsTheLineUnderTheResults() {
        ConfirmFixture f;
        QVERIFY(f.check() && f.check()->isChecked()); // on by default
        QVERIFY(f.panel.confirmationText().isEmpty());
        QVERIFY(f.panel.balanceText().isEmpty());
        QVERIFY(f.runToEnd());
        QCOMPARE(f.abs->load(), 1);
        QCOMPARE(f.panel.confirmationText(), kConfirmedLine);
        auto* line = f.panel.findChild<QLabel*>(QStringLiteral("sweepConfirmation"));
        QVERIFY(line && !line->isHidden());
        // Under the verdict, the one device's busy share.
        const QString busy = f.panel.balanceText();
        QVERIFY2(busy.startsWith(QStringLiteral("Busy: Fake GPU busy ")) &&
                     busy.contains(QStringLiteral(" % of ")),
                 qPrintable(busy));
        auto* balance = f.panel.findChild<QLabel*>(QStringLiteral("sweepBalance"));
        QVERIFY(balance && !balance->isHidden());
        // The table's best row holds it too (what Export writes).
        const int best = f.panel.resultsModel()->bestRow();
        QVERIFY(best >= 0);
        QVERIFY(f.panel.resultsModel()->records()[best].confirmation);
    }

    /// Two devices: the A/B beside the re-timing of a fast sweep, the line naming both devices,
    /// the best row holding both answers. A size sweep: no A/B, the line says why (its sizes tie
    /// here: the best row is the sweep's best, n=1024, by key).
    void theLineFollowsTheFollowUp_data() {
        QTest::addColumn<QString>("example");
        QTest::addColumn<QJsonObject>("edits");
        QTest::addColumn<bool>("twoDevices");
        QTest::addColumn<int>("abs");
        QTest::addColumn<QString>("line");
        QTest::newRow("two devices, re-timed")
            << "transpose_sweep.kpad" << QJsonObject{{"timingBudget", "fast"}} << true << 1
            << "confirmed on 2 devices: bx=32,by=8 is 3.1 % faster than bx=16,by=8 (95 % "
               "interval 2.8–3.4 %)";
        QTest::newRow("a size sweep")
            << "saxpy_sizes.kpad"
            << QJsonObject{{"objective", "time"},
                           {"scalars",
                            QJsonObject{
                                {"n", QJsonObject{{"from", 1024}, {"to", 4096}, {"powersOf", 2}}}}}}
            << false << 0
            << "not confirmed: an A/B does not apply (the configurations differ in n, so their "
               "inputs differ)";
    }
    void theLineFollowsTheFollowUp() {
        QFETCH(QString, example);
        QFETCH(QJsonObject, edits);
        QFETCH(bool, twoDevices);
        QFETCH(int, abs);
        QFETCH(QString, line);
        ConfirmFixture f(example, edits, twoDevices);
        QVERIFY(f.runToEnd());
        QCOMPARE(f.abs->load(), abs);
        QCOMPARE(f.panel.confirmationText(), line);
        const int best = f.panel.resultsModel()->bestRow();
        QVERIFY(best >= 0);
        const SweepRecord& record = f.panel.resultsModel()->records()[best];
        QVERIFY(record.confirmation);
        QCOMPARE(record.confirmation->devices.size(), twoDevices ? 2 : 0);
        if (twoDevices)
            QVERIFY(record.isRetimed());
    }

    void theCheckboxSkipsTheAbAndIsKept() {
        {
            ConfirmFixture f;
            f.check()->setChecked(false);
            QVERIFY(!f.panel.confirms());
            QVERIFY(f.runToEnd());
            QCOMPARE(f.abs->load(), 0);
            QVERIFY(f.panel.confirmationText().isEmpty());
        }
        ConfirmFixture again;
        QVERIFY(!again.check()->isChecked());
    }

    void aResultsFileShowsItsVerdict() {
        ConfirmFixture f;
        QVERIFY(f.runToEnd());
        QCOMPARE(f.panel.confirmationText(), kConfirmedLine);
        // Another panel on the same project reads the file: the verdict came with the best.
        SweepPanel other;
        QSignalSpy loaded(&other, &SweepPanel::resultsFileLoaded);
        other.setDocument(&f.document);
        QVERIFY(loaded.wait(10000));
        QCOMPARE(other.resultsPath(), f.panel.resultsPath());
        QCOMPARE(other.confirmationText(), kConfirmedLine);
    }
};

KERNELPAD_TEST_MAIN(TestSweepPanelConfirm)
} // namespace tst_sweeppanelconfirm
#include "tst_sweeppanelconfirm.moc"
