// The Versions tab's verdict of each edit (core/engine/EditVerdict.h): the Verdict column
// compares every version with the newest older one that ran and passed, the two-version
// comparison opens with the sentence, a profile kept beside a version joins it, and the
// resources it needs survive the versions file.

#include "core/run/Timing.h"
#include "core/run/VersionHistory.h"
#include "ui/models/VersionsModel.h"
#include "ui/widgets/VersionsPanel.h"
#include "ui/widgets/VersionsPanelCompare.h"

#include "../support/TestMain.h"
#include <QAbstractItemModelTester>
#include <QLabel>
#include <QtTest>

#include <algorithm>

namespace tst_versionsverdict {

using namespace kernelpad;

namespace {

/// A version that ran and passed, its 101 samples spread over ±1 % of `medianMs`, with the
/// driver's registers and occupancy.
Version timedVersion(int number, double medianMs, int registers, double occupancy) {
    Version v;
    v.number = number;
    v.finishedAt = QDateTime::currentDateTime();
    v.project.kernel = QStringLiteral("fill");
    v.project.source = QStringLiteral("// version %1\n").arg(number);
    QVector<double> times;
    for (int i = 0; i < 101; ++i)
        times << medianMs * (1.0 + 0.01 * double(i - 50) / 50);
    v.timing = computeStats(times);
    v.device = QStringLiteral("Fake GPU");
    KernelResources r;
    r.registers = registers;
    r.occupancy = occupancy;
    v.resources = r;
    return v;
}

QString cell(const VersionsModel& model, int row, int column, int role = Qt::DisplayRole) {
    return model.data(model.index(row, column), role).toString();
}

} // namespace

class TestVersionsVerdict : public QObject {
    Q_OBJECT
private slots:
    void theColumn() {
        VersionsModel model;
        QCOMPARE(
            model.headerData(VersionsModel::EditColumn, Qt::Horizontal, Qt::DisplayRole).toString(),
            QStringLiteral("Verdict"));
        QCOMPARE(model.headerData(VersionsModel::VerdictColumn, Qt::Horizontal, Qt::DisplayRole)
                     .toString(),
                 QStringLiteral("Verification"));
    }

    void eachVersionAgainstTheOneBefore() {
        Version failed = timedVersion(3, 0.5, 40, 0.5);
        failed.status = RunStatus::VerificationFailed;
        failed.buffersChecked = 1;
        failed.buffersFailed = 1;
        VersionsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setVersions({timedVersion(1, 1.0, 30, 0.75), timedVersion(2, 1.018, 32, 0.62), failed,
                           timedVersion(4, 0.9, 32, 0.62)});
        // Rows are newest first: 4, 3, 2, 1.
        QCOMPARE(cell(model, 2, VersionsModel::EditColumn),
                 QStringLiteral("1.8 % slower (significant): 2 more registers → occupancy 75 % → "
                                "62 %"));
        QCOMPARE(cell(model, 3, VersionsModel::EditColumn), QString()); // the first
        // A failed version has no verdict, and is never the base of the next one: version 4
        // is compared with version 2.
        QCOMPARE(cell(model, 1, VersionsModel::EditColumn), QString());
        QCOMPARE(cell(model, 0, VersionsModel::EditColumn),
                 QStringLiteral("12 % faster (significant)"));
        QVERIFY2(cell(model, 0, VersionsModel::EditColumn, Qt::ToolTipRole)
                     .startsWith(QStringLiteral("Against version 2: ")),
                 qPrintable(cell(model, 0, VersionsModel::EditColumn, Qt::ToolTipRole)));
        // A newer version joins at the top, compared with the one that was newest.
        model.append(timedVersion(5, 0.9009, 32, 0.62));
        QCOMPARE(cell(model, 0, VersionsModel::EditColumn),
                 QStringLiteral("0.1 % slower (within noise)"));
    }

    void aProfileJoinsTheSentence() {
        ProfileReport was;
        was.speedOfLight.dramBytes = 1.0e9;
        ProfileReport now;
        now.speedOfLight.dramBytes = 6.0e7;
        VersionsModel model;
        model.setVersions({timedVersion(1, 1.0, 32, 1.0), timedVersion(2, 0.5, 32, 1.0)});
        QCOMPARE(cell(model, 0, VersionsModel::EditColumn),
                 QStringLiteral("50 % faster (significant)"));
        // The window adds the profiles of its runs; the column is made again.
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setSideExtras([&](const Version& v, VerdictSide* side) {
            side->profile = v.number == 1 ? &was : &now;
        });
        QVERIFY(!changed.isEmpty());
        QCOMPARE(cell(model, 0, VersionsModel::EditColumn),
                 QStringLiteral("50 % faster (significant): DRAM bytes −94 %"));
    }

    void theComparisonOpensWithTheSentence() {
        VersionsPanel panel;
        panel.model()->setVersions({timedVersion(1, 1.0, 30, 0.75), timedVersion(2, 1.5, 30, 0.75),
                                    timedVersion(3, 1.018, 32, 0.62)});
        auto* label = panel.compareView()->findChild<QLabel*>(QStringLiteral("versionVerdict"));
        QVERIFY(label);
        panel.selectVersions({1, 3});
        QCOMPARE(panel.comparedNumbers(), std::make_pair(1, 3));
        const QString expected =
            QStringLiteral("1.8 % slower (significant): 2 more registers → occupancy 75 % → 62 %");
        QCOMPARE(panel.compareView()->verdict(), expected);
        QCOMPARE(label->text(), expected);
        QVERIFY(!label->isHidden());
        // One version: against the one before it.
        panel.selectVersions({2});
        QCOMPARE(panel.compareView()->verdict(), QStringLiteral("50 % slower (significant)"));
        // Nothing compared: no sentence.
        panel.selectVersions({});
        QCOMPARE(panel.compareView()->verdict(), QString());
        QVERIFY(label->isHidden());
    }

    void resourcesSurviveTheVersionsFile() {
        const Version v = timedVersion(1, 1.0, 42, 0.625);
        QString error;
        const std::optional<Version> back = Version::fromJson(v.toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QVERIFY(back->resources);
        QCOMPARE(back->resources->registers, 42);
        QCOMPARE(back->resources->occupancy, 0.625);
        // A version recorded before resources were kept reads without them.
        QJsonObject old = v.toJson();
        old.remove(QStringLiteral("resources"));
        const std::optional<Version> older = Version::fromJson(old, &error);
        QVERIFY2(older, qPrintable(error));
        QVERIFY(!older->resources);
        // A malformed one is refused with the field named.
        QJsonObject bad = v.toJson();
        QJsonObject resources = bad.value(QStringLiteral("resources")).toObject();
        resources.insert(QStringLiteral("registers"), QStringLiteral("many"));
        bad.insert(QStringLiteral("resources"), resources);
        QVERIFY(!Version::fromJson(bad, &error));
        QVERIFY2(error.contains(QStringLiteral("resources.registers")), qPrintable(error));
    }
};

KERNELPAD_TEST_MAIN(TestVersionsVerdict)
} // namespace tst_versionsverdict
#include "tst_versionsverdict.moc"
