// The Sweep dock's results file at open, as a planted file would make it: 20,000 records whose
// parameters alternate are shown after one model reset (a reset per record held the window
// for most of a minute); a file KernelPad did not write is named with its line, and Run Sweep
// neither resumes, empties nor removes it.

#include "core/engine/Engine.h"
#include "core/sweep/SweepEvaluator.h"
#include "core/sweep/SweepResultsPath.h"
#include "ui/ProjectDocument.h"
#include "ui/models/SweepResultsModel.h"
#include "ui/widgets/SweepPanel.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

namespace tst_sweepresultsshown {

using namespace kernelpad;

namespace {

/// Counts the configurations it is asked to run; never answers (none should be asked).
class CountingEvaluator : public SweepEvaluator {
public:
    explicit CountingEvaluator(std::shared_ptr<std::atomic<int>> started)
        : m_started(std::move(started)) {}
    void start(quint64, const RunRequest&) override { ++*m_started; }
    [[nodiscard]] int capacity() const override { return 1; }
    void cancel() override {}

private:
    std::shared_ptr<std::atomic<int>> m_started;
};

struct Fixture {
    QTemporaryDir dir;
    ProjectDocument document;
    SweepPanel panel;
    std::shared_ptr<std::atomic<int>> started = std::make_shared<std::atomic<int>>(0);

    Fixture() {
        const QString path = dir.filePath(QStringLiteral("transpose_sweep.kpad"));
        QFile::copy(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/transpose_sweep.kpad"), path);
        QString error;
        if (!document.open(path, &error))
            qFatal("%s", qPrintable(error));
        panel.setDocument(&document);
        panel.setEngine(new Engine(&panel, Engine::Isolation::InProcess));
        auto counter = started;
        panel.setEvaluatorFactory(
            [counter] { return std::make_unique<CountingEvaluator>(counter); });
    }
};

/// Waits for the panel to show the file of the project as it is now.
bool waitForFile(SweepPanel& panel) {
    QSignalSpy loaded(&panel, &SweepPanel::resultsFileLoaded);
    return loaded.wait(10000);
}

} // namespace

class TestSweepResultsShown : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // 20,000 records whose parameters alternate ({bx} then {by}) held the window for most of a
    // minute at open: the model was reset once per record. They are shown after one reset.
    void manyRecordsAreShownWithOneReset() {
        Fixture f;
        const QString results = f.panel.resultsPath();
        QByteArray bytes = "{\"kernelpad\":\"sweep-results\",\"version\":1}\n";
        constexpr int kRecords = 20000;
        for (int i = 0; i < kRecords; ++i) {
            const char* name = i % 2 ? "by" : "bx";
            bytes += QStringLiteral("{\"key\":\"%1=%2\",\"names\":[\"%1\"],\"parameters\":"
                                    "{\"%1\":%2},\"status\":\"ok\",\"medianMs\":%3}\n")
                         .arg(QLatin1String(name))
                         .arg(i)
                         .arg(1 + i % 7)
                         .toUtf8();
        }
        QFile file(results);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QCOMPARE(file.write(bytes), bytes.size());
        file.close();

        SweepResultsModel* model = f.panel.resultsModel();
        QSignalSpy resets(model, &QAbstractItemModel::modelReset);
        QSignalSpy inserts(model, &QAbstractItemModel::rowsInserted);
        f.panel.reloadResultsFile();
        QVERIFY(waitForFile(f.panel));
        QCOMPARE(model->rowCount(), kRecords);
        QCOMPARE(resets.size(), 1);
        QCOMPARE(inserts.size(), 0);
        // The columns are the last record's parameter, as when they came one by one.
        QCOMPARE(model->names(), QStringList{QStringLiteral("by")});
        QVERIFY2(f.panel.resultsFileText().startsWith(QStringLiteral("20000 of 66")),
                 qPrintable(f.panel.resultsFileText()));
    }

    // A results file that is not KernelPad's (here: an older KernelPad's, without the header)
    // is named with its line; Run Sweep neither resumes, empties nor removes it.
    void aFileThatDoesNotReadIsLeftAlone() {
        Fixture f;
        const QString results = f.panel.resultsPath();
        const QByteArray bytes =
            "{\"key\":\"bx=32,by=8\",\"names\":[\"bx\",\"by\"],\"parameters\":{\"bx\":32,"
            "\"by\":8},\"status\":\"ok\"}\nalias ll='ls -l'";
        QFile file(results);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QCOMPARE(file.write(bytes), bytes.size());
        file.close();
        f.panel.reloadResultsFile();
        QVERIFY(waitForFile(f.panel));
        QCOMPARE(f.panel.resultsModel()->rowCount(), 0);
        QVERIFY2(f.panel.resultsFileText().contains(QStringLiteral("line 1: not a KernelPad")),
                 qPrintable(f.panel.resultsFileText()));
        QVERIFY(!f.panel.runSweep());
        QVERIFY2(f.panel.message().contains(QStringLiteral("line 1: not a KernelPad")) &&
                     f.panel.message().contains(results),
                 qPrintable(f.panel.message()));
        QCOMPARE(f.started->load(), 0);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), bytes);
    }
};

KERNELPAD_TEST_MAIN(TestSweepResultsShown)
} // namespace tst_sweepresultsshown
#include "tst_sweepresultsshown.moc"
