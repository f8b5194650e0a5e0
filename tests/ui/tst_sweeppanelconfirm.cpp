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

class ConfirmingEvaluator : public SweepEvaluator {
public:
    explicit ConfirmingEvaluator(std::shared_ptr<std::atomic<int>> abs)
        : m_abs(std::move(abs)) {}
    void start(quint64 tag, const RunRequest& request) override {
        const RunResult result = confirmSynthetic(request.project);
        QTimer::singleShot(0, this, [this, tag, result] {
            emit finished(tag, result, QStringLiteral("Fake GPU"));
        });
    }
    [[nodiscard]] int capacity() const override { return 1; }
    void cancel() override {}
    void compareAb(quint64 tag, const AbOrder&) override {
        ++*m_abs;
        QTimer::singleShot(0, this, [this, tag] { emit abFinished(tag, fasterVerdict()); });
    }

private:
    std::shared_ptr<std::atomic<int>> m_abs;
};

struct ConfirmFixture {
    QTemporaryDir dir;
    ProjectDocument document;
    SweepPanel panel;
    std::shared_ptr<std::atomic<int>> abs = std::make_shared<std::atomic<int>>(0);

    ConfirmFixture() {
        const QString path = dir.filePath(QStringLiteral("transpose_sweep.kpad"));
        QFile::copy(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/transpose_sweep.kpad"), path);
        QString error;
        if (!document.open(path, &error))
            qFatal("%s", qPrintable(error));
        panel.setDocument(&document);
        panel.setEngine(new Engine(&panel, Engine::Isolation::InProcess));
        auto counter = abs;
        panel.setEvaluatorFactory(
            [counter] { return std::make_unique<ConfirmingEvaluator>(counter); });
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
