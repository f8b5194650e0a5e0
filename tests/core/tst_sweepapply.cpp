// Naming an applied sweep configuration (core/sweep/SweepApply.h): its tunables as a person
// reads them, and which recorded configuration a project holds, so that the Sweep dock can
// say "Applied bx=8, by=32 (was bx=16, by=16)".

#include "core/project/Project.h"
#include "core/sweep/SweepApply.h"
#include "core/sweep/SweepJob.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QtTest>

namespace tst_sweepapply {

using namespace kernelpad;

namespace {

Project transpose() {
    QString error;
    std::optional<Project> p =
        Project::load(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/transpose_sweep.kpad"), &error);
    if (!p)
        qFatal("%s", qPrintable(error));
    return *p;
}

SweepRecord record(double bx, double by) {
    SweepRecord r;
    r.names = {QStringLiteral("bx"), QStringLiteral("by")};
    r.values = {bx, by};
    r.key = QStringLiteral("bx=%1,by=%2").arg(bx).arg(by);
    r.status = QStringLiteral("ok");
    return r;
}

} // namespace

class TestSweepApply : public QObject {
    Q_OBJECT
private slots:
    void configurationText_data() {
        QTest::addColumn<QStringList>("names");
        QTest::addColumn<QVector<double>>("values");
        QTest::addColumn<QString>("expected");
        QTest::newRow("block shape") << QStringList{QStringLiteral("bx"), QStringLiteral("by")}
                                     << QVector<double>{8, 32} << QStringLiteral("bx=8, by=32");
        QTest::newRow("fractional scalar") << QStringList{QStringLiteral("alpha")}
                                           << QVector<double>{0.5} << QStringLiteral("alpha=0.5");
        QTest::newRow("no tunables: the key")
            << QStringList{} << QVector<double>{} << QStringLiteral("k");
    }
    void configurationText() {
        QFETCH(QStringList, names);
        QFETCH(QVector<double>, values);
        QFETCH(QString, expected);
        SweepRecord r;
        r.key = QStringLiteral("k");
        r.names = names;
        r.values = values;
        QCOMPARE(sweepConfigurationText(r), expected);
    }

    void findsTheConfigurationAProjectHolds() {
        const Project base = transpose(); // block 32 x 32, grid 64 x 64: bx=32, by=32
        const QVector<SweepRecord> records = {record(16, 16), record(32, 32), record(8, 4)};
        QCOMPARE(recordHeldBy(base, records), 1);

        QString error;
        const std::optional<Project> applied = projectWithRecord(base, records[0], &error);
        QVERIFY2(applied, qPrintable(error));
        QCOMPARE(recordHeldBy(*applied, records), 0);

        // A setting the sweep does not write changed by hand: no configuration holds it.
        Project edited = *applied;
        edited.launch.grid[0] += 1;
        QCOMPARE(recordHeldBy(edited, records), -1);
        // Records of another sweep, or values outside this one, are skipped.
        SweepRecord other = record(16, 16);
        other.names = {QStringLiteral("TILE"), QStringLiteral("by")};
        QCOMPARE(recordHeldBy(*applied, {other, record(3, 16)}), -1);
        // Without a sweep there is nothing to find.
        Project plain = base;
        plain.sweep = SweepSpec();
        QCOMPARE(recordHeldBy(plain, records), -1);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestSweepApply)
} // namespace tst_sweepapply
#include "tst_sweepapply.moc"
