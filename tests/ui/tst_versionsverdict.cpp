// The Versions tab's verdict of each edit (core/engine/EditVerdict.h): the Verdict column
// compares every version with the newest older one that ran and passed, the two-version
// comparison opens with the sentence, a profile kept beside a version joins it, SASS opcode
// counts that arrive later join it and the cells are made again, and the resources and
// opcode counts it needs survive the versions file.

#include "core/run/Timing.h"
#include "core/run/VersionHistory.h"
#include "ui/models/VersionsModel.h"
#include "ui/widgets/VersionsPanel.h"
#include "ui/widgets/VersionsPanelCompare.h"

#include "../support/TestMain.h"
#include <QAbstractItemModelTester>
#include <QLabel>
#include <QTemporaryDir>
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

/// The recorded saxpy kernel's loads as one disassembly counts them, and with its two LDG.E
/// loads made LDG.E.64.
QMap<QString, int> narrowLoads() {
    return {{QStringLiteral("LDG.E"), 2}, {QStringLiteral("FFMA"), 1}, {QStringLiteral("EXIT"), 2}};
}
QMap<QString, int> wideLoads() {
    return {
        {QStringLiteral("LDG.E.64"), 2}, {QStringLiteral("FFMA"), 1}, {QStringLiteral("EXIT"), 2}};
}
const QString kLoadsWidened = QStringLiteral("2 fewer LDG.E; 2 more LDG.E.64");

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

    void opcodesJoinOnceBothSidesAreKnown() {
        Version failed = timedVersion(2, 0.7, 32, 1.0);
        failed.status = RunStatus::VerificationFailed;
        failed.buffersChecked = 1;
        failed.buffersFailed = 1;
        VersionsPanel panel;
        VersionsModel* model = panel.model();
        QAbstractItemModelTester tester(model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model->setVersions({timedVersion(1, 1.0, 32, 1.0), failed, timedVersion(3, 0.5, 32, 1.0)});
        panel.selectVersions({1, 3});
        // Rows: 3, 2, 1. Version 3 is compared with version 1 (version 2 failed).
        QCOMPARE(cell(*model, 0, VersionsModel::EditColumn),
                 QStringLiteral("50 % faster (significant)"));
        QVERIFY(model->setSassOpcodes(3, wideLoads()));
        QCOMPARE(cell(*model, 0, VersionsModel::EditColumn),
                 QStringLiteral("50 % faster (significant)")); // one side only: not named
        QSignalSpy changed(model, &QAbstractItemModel::dataChanged);
        QVERIFY(model->setSassOpcodes(1, narrowLoads()));
        // The cells from version 1's row up to version 3's are made again, not only its own.
        QVERIFY(!changed.isEmpty());
        const QModelIndex top = changed.last().at(0).toModelIndex();
        const QModelIndex bottom = changed.last().at(1).toModelIndex();
        QVERIFY(top.row() <= 0 && bottom.row() >= 2);
        QCOMPARE(top.column(), int(VersionsModel::EditColumn));
        const QString expected = QStringLiteral("50 % faster (significant): ") + kLoadsWidened;
        QCOMPARE(cell(*model, 0, VersionsModel::EditColumn), expected);
        // The comparison of the two selected versions says the same.
        QCOMPARE(panel.compareView()->verdict(), expected);
        QVERIFY(!model->setSassOpcodes(9, narrowLoads()));
    }

    void opcodesSurviveTheVersionsFile() {
        Version before = timedVersion(1, 1.0, 32, 1.0);
        before.sassOpcodes = narrowLoads();
        Version after = timedVersion(2, 0.5, 32, 1.0);
        after.sassOpcodes = wideLoads();
        QTemporaryDir data;
        QVERIFY(data.isValid());
        const VersionStore store(data.filePath(QStringLiteral("project.kpad")), data.path());
        QString error;
        QVERIFY2(store.save({before, after}, &error), qPrintable(error));
        const QVector<Version> back = store.load(&error);
        QVERIFY2(back.size() == 2, qPrintable(error));
        QCOMPARE(back.at(0).sassOpcodes.value_or(QMap<QString, int>()), narrowLoads());
        QCOMPARE(back.at(1).sassOpcodes.value_or(QMap<QString, int>()), wideLoads());
        // The reopened versions still name the opcodes.
        VersionsModel model;
        model.setVersions(back);
        QCOMPARE(cell(model, 0, VersionsModel::EditColumn),
                 QStringLiteral("50 % faster (significant): ") + kLoadsWidened);
        // A version recorded before the counts were kept reads without them.
        QJsonObject old = after.toJson();
        QVERIFY(old.contains(QStringLiteral("sassOpcodes")));
        old.remove(QStringLiteral("sassOpcodes"));
        const std::optional<Version> older = Version::fromJson(old, &error);
        QVERIFY2(older, qPrintable(error));
        QVERIFY(!older->sassOpcodes);
        // A malformed count is refused with the field named.
        QJsonObject bad = after.toJson();
        bad.insert(QStringLiteral("sassOpcodes"),
                   QJsonObject{{QStringLiteral("LDG.E.64"), QStringLiteral("two")}});
        QVERIFY(!Version::fromJson(bad, &error));
        QVERIFY2(error.contains(QStringLiteral("sassOpcodes.LDG.E.64")), qPrintable(error));
        bad.insert(QStringLiteral("sassOpcodes"), QStringLiteral("many"));
        QVERIFY(!Version::fromJson(bad, &error));
        QVERIFY2(error.contains(QStringLiteral("sassOpcodes")), qPrintable(error));
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
