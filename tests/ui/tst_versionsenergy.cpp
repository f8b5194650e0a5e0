// The Versions tab shows the energy each version recorded (core/run/Telemetry.h): the table's
// Energy column in mJ/µJ and its "Per joule" column (GB/J, GFLOP/J where bytes or FLOPs per
// launch are known); a version recorded without energy (before energy was, without NVML, or
// timed too briefly) shows an empty cell, never 0; the energy survives the version's JSON; the
// two-version comparison lists energy beside the times with its change.

#include "core/run/Timing.h"
#include "core/run/VersionHistory.h"
#include "ui/models/VersionsModel.h"
#include "ui/widgets/VersionsPanelCompare.h"

#include "../support/TestMain.h"
#include <QAbstractItemModelTester>
#include <QTableWidget>
#include <QtTest>

#include <optional>

namespace tst_versionsenergy {

using namespace kernelpad;

namespace {

/// A timed version; with `energyMj`, NVML's counter moved that much over 100 launches in
/// 300 ms (1.23 mJ a launch for 123 mJ).
Version energyVersion(int number, std::optional<double> energyMj, qint64 bytes = 0,
                      double flops = 0) {
    Version v;
    v.number = number;
    v.finishedAt = QDateTime::currentDateTime();
    v.timing = computeStats({0.10, 0.11, 0.12}, bytes, flops);
    v.device = QStringLiteral("Fake GPU");
    v.project.kernel = QStringLiteral("fill");
    if (energyMj) {
        v.timing.telemetry.available = true;
        v.timing.telemetry.energyMj = *energyMj;
        v.timing.telemetry.energyLaunches = 100;
        v.timing.telemetry.energyIntervalMs = 300;
    }
    return v;
}

QString cell(const VersionsModel& model, int row, int column, int role = Qt::DisplayRole) {
    return model.data(model.index(row, column), role).toString();
}

} // namespace

class TestVersionsEnergy : public QObject {
    Q_OBJECT
private slots:
    void theColumns() {
        VersionsModel model;
        QCOMPARE(model.columnCount(), int(VersionsModel::ColumnCount));
        QCOMPARE(model.headerData(VersionsModel::EnergyColumn, Qt::Horizontal, Qt::DisplayRole)
                     .toString(),
                 QStringLiteral("Energy"));
        QCOMPARE(model.headerData(VersionsModel::EfficiencyColumn, Qt::Horizontal, Qt::DisplayRole)
                     .toString(),
                 QStringLiteral("Per joule"));
        QCOMPARE(int(VersionsModel::EnergyColumn), int(VersionsModel::MedianColumn) + 1);
    }

    void aRowWithAndWithoutEnergy_data() {
        QTest::addColumn<double>("energyMj"); ///< negative: none recorded
        QTest::addColumn<qint64>("bytes");
        QTest::addColumn<double>("flops");
        QTest::addColumn<double>("intervalMs");
        QTest::addColumn<QString>("energy");
        QTest::addColumn<QString>("perJoule");
        QTest::newRow("bytes and FLOPs") << 123.0 << qint64(8'000'000) << 2e6 << 300.0 << "1.23 mJ"
                                         << "6.50 GB/J, 1.63 GFLOP/J";
        QTest::newRow("bytes only") << 123.0 << qint64(8'000'000) << 0.0 << 300.0 << "1.23 mJ"
                                    << "6.50 GB/J";
        QTest::newRow("neither count") << 0.0845 << qint64(0) << 0.0 << 300.0 << "845 nJ"
                                       << "";
        QTest::newRow("µJ") << 8.45 << qint64(1000) << 0.0 << 300.0 << "84.5 µJ"
                            << "0.01 GB/J";
        QTest::newRow("recorded before energy") << -1.0 << qint64(8'000'000) << 0.0 << 300.0 << ""
                                                << "";
        // Under Telemetry::kMinEnergyIntervalMs: the counter is not trusted.
        QTest::newRow("timed too briefly") << 123.0 << qint64(8'000'000) << 0.0 << 40.0 << ""
                                           << "";
    }
    void aRowWithAndWithoutEnergy() {
        QFETCH(double, energyMj);
        QFETCH(qint64, bytes);
        QFETCH(double, flops);
        QFETCH(double, intervalMs);
        QFETCH(QString, energy);
        QFETCH(QString, perJoule);
        Version version = energyVersion(
            1, energyMj >= 0 ? std::optional<double>(energyMj) : std::nullopt, bytes, flops);
        version.timing.telemetry.energyIntervalMs = intervalMs;
        VersionsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setVersions({version});
        QCOMPARE(cell(model, 0, VersionsModel::EnergyColumn), energy);
        QCOMPARE(cell(model, 0, VersionsModel::EfficiencyColumn), perJoule);
        // The median stays where it was.
        QVERIFY(!cell(model, 0, VersionsModel::MedianColumn).isEmpty());
        if (!energy.isEmpty())
            QVERIFY2(cell(model, 0, VersionsModel::EnergyColumn, Qt::ToolTipRole)
                         .endsWith(QStringLiteral(" W average over the timed launches")),
                     qPrintable(cell(model, 0, VersionsModel::EnergyColumn, Qt::ToolTipRole)));
        else if (version.timing.telemetry.available)
            QVERIFY2(cell(model, 0, VersionsModel::EnergyColumn, Qt::ToolTipRole)
                         .startsWith(QStringLiteral("too short to measure energy")),
                     qPrintable(cell(model, 0, VersionsModel::EnergyColumn, Qt::ToolTipRole)));

        // As the versions file keeps it.
        QString error;
        const std::optional<Version> back = Version::fromJson(version.toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(VersionsModel::energyText(*back), energy);
        QCOMPARE(VersionsModel::efficiencyText(*back), perJoule);
    }

    void theComparisonListsEnergy() {
        VersionCompareView view;
        const Version before = energyVersion(1, 123.0, 8'000'000);
        Version after = energyVersion(2, 98.4, 8'000'000);
        after.project.source = QStringLiteral("// changed\n");
        view.compare(before, after);
        auto* timings = view.findChild<QTableWidget*>(QStringLiteral("versionTimings"));
        QVERIFY(timings);
        int row = -1;
        for (int r = 0; r < timings->rowCount(); ++r)
            if (timings->item(r, 0) &&
                timings->item(r, 0)->text() == QStringLiteral("energy per launch"))
                row = r;
        QVERIFY(row >= 0);
        QCOMPARE(timings->item(row, 1)->text(), QStringLiteral("1.23 mJ"));
        QCOMPARE(timings->item(row, 2)->text(), QStringLiteral("984 µJ"));
        QCOMPARE(timings->item(row, 3)->text(), QStringLiteral("-20.0 %"));
        QCOMPARE(timings->item(row + 1, 0)->text(), QStringLiteral("per joule"));
        QCOMPARE(timings->item(row + 1, 1)->text(), QStringLiteral("6.50 GB/J"));

        // Neither version measured energy: no energy rows at all.
        view.compare(energyVersion(1, std::nullopt), energyVersion(2, std::nullopt));
        for (int r = 0; r < timings->rowCount(); ++r)
            QVERIFY(!timings->item(r, 0) ||
                    timings->item(r, 0)->text() != QStringLiteral("energy per launch"));
    }
};

KERNELPAD_TEST_MAIN(TestVersionsEnergy)
} // namespace tst_versionsenergy
#include "tst_versionsenergy.moc"
