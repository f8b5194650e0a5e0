// Canaries read on the host: which guard bytes changed, told as bytes and elements past the
// end or before the start; the finding's JSON and the failed verification row it adds; the
// findings a second reading after the timed launches adds.

#include "../support/TestMain.h"
#include "core/run/RunResult.h"
#include "core/verify/GuardCheck.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

namespace tst_guardcheck {

using namespace kernelpad;

namespace {

QByteArray untouched() {
    return QByteArray(int(kGuardBytes), char(kGuardByte));
}

/// A guard with `bytes` written (to zero) from `offset`.
QByteArray written(qint64 offset, qint64 bytes) {
    QByteArray g = untouched();
    for (qint64 i = offset; i < offset + bytes; ++i)
        g[int(i)] = 0;
    return g;
}

} // namespace

class TestGuardCheck : public QObject {
    Q_OBJECT

private slots:
    void findings_data() {
        QTest::addColumn<qint64>("elementBytes");
        QTest::addColumn<QByteArray>("before");
        QTest::addColumn<QByteArray>("after");
        QTest::addColumn<QString>("message"); // empty: nothing found
        QTest::newRow("untouched") << qint64(4) << untouched() << untouched() << QString();
        QTest::newRow("one float past the end")
            << qint64(4) << untouched() << written(0, 4)
            << "out: 4 bytes written past the end (element 1024)";
        QTest::newRow("a byte of the element past the end still counts the element")
            << qint64(4) << untouched() << written(2, 1)
            << "out: 4 bytes written past the end (element 1024)";
        QTest::newRow("elements 1026 and 1027: the reach from the end")
            << qint64(4) << untouched() << written(8, 8)
            << "out: 16 bytes written past the end (element 1026)";
        QTest::newRow("a double before the start of a float buffer")
            << qint64(4) << written(kGuardBytes - 8, 8) << untouched()
            << "out: 8 bytes written before the start (element -2)";
        QTest::newRow("both sides")
            << qint64(8) << written(kGuardBytes - 8, 8) << written(0, 8)
            << "out: 8 bytes written before the start (element -1); 8 bytes written past "
               "the end (element 1024)";
    }

    void findings() {
        QFETCH(qint64, elementBytes);
        QFETCH(QByteArray, before);
        QFETCH(QByteArray, after);
        QFETCH(QString, message);
        const std::optional<GuardFinding> f =
            findGuardWrites(QStringLiteral("out"), 1024, elementBytes, before, after);
        QCOMPARE(f.has_value(), !message.isEmpty());
        if (f)
            QCOMPARE(f->message(), message);
    }

    void verificationRowFailsTheRun() {
        const std::optional<GuardFinding> f =
            findGuardWrites(QStringLiteral("out"), 1024, 4, untouched(), written(0, 4));
        QVERIFY(f);
        RunResult r;
        r.guards << *f;
        r.verification << guardVerification(*f);
        QVERIFY(!r.verified());
        QCOMPARE(r.verification.front().failure, f->message());
        QCOMPARE(r.verification.front().method, QStringLiteral("guard bytes"));
    }

    void findingsTravelInTheRunnersJson() {
        const std::optional<GuardFinding> f =
            findGuardWrites(QStringLiteral("in"), 64, 2, written(kGuardBytes - 8, 8), untouched());
        QVERIFY(f);
        RunResult r;
        r.guards << *f;
        r.verification << guardVerification(*f);
        QString error;
        const std::optional<RunResult> back = RunResult::fromJson(r.toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->guards.size(), 1);
        QVERIFY(back->guards.front() == *f);
        QCOMPARE(back->verification.front().failure, f->message());
        QVERIFY(!back->verified());
        // A result without findings writes no "guards" key at all.
        QVERIFY(!RunResult().toJson().contains(QStringLiteral("guards")));
    }

    // The guards read again after the timed launches: a buffer the verified launch left alone
    // but a later launch wrote outside is added, named as written while timing; one already
    // found keeps its first finding; the mark survives the runner's JSON.
    void writesDuringTimingAreAddedAndNamed() {
        const std::optional<GuardFinding> early =
            findGuardWrites(QStringLiteral("in"), 64, 4, written(kGuardBytes - 4, 4), untouched());
        const std::optional<GuardFinding> late =
            findGuardWrites(QStringLiteral("out"), 1024, 4, untouched(), written(0, 4));
        QVERIFY(early && late);
        QVERIFY(guardWritesDuringTiming({*early}, {*early}).isEmpty());
        const QVector<GuardFinding> added = guardWritesDuringTiming({*early}, {*early, *late});
        QCOMPARE(added.size(), 1);
        QCOMPARE(added.front().buffer, QStringLiteral("out"));
        QVERIFY(added.front().duringTiming);
        QCOMPARE(added.front().message(),
                 QStringLiteral("out: 4 bytes written past the end (element 1024) during the "
                                "timed launches, not the verified one"));
        QCOMPARE(guardVerification(added.front()).failure, added.front().message());
        QVERIFY(!early->message().contains(QLatin1String("timed")));

        RunResult r;
        r.guards << *early << added.front();
        QString error;
        const std::optional<RunResult> back = RunResult::fromJson(r.toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->guards.size(), 2);
        QVERIFY(back->guards.at(0) == *early);
        QVERIFY(back->guards.at(1) == added.front());
        // Written only when set: a finding of the verified launch reads as it did.
        QVERIFY(!early->toJson().contains(QStringLiteral("duringTiming")));
    }

    void malformedFindingIsNamed() {
        RunResult r;
        r.guards << GuardFinding{QStringLiteral("out"), 4, 4, 0, 4, 4};
        QJsonObject json = r.toJson();
        QJsonArray guards = json.value(QStringLiteral("guards")).toArray();
        QJsonObject g = guards.first().toObject();
        g.insert(QStringLiteral("bytesAfter"), QStringLiteral("four"));
        guards[0] = g;
        json.insert(QStringLiteral("guards"), guards);
        QString error;
        QVERIFY(!RunResult::fromJson(json, &error));
        QVERIFY2(error.contains(QLatin1String("guards[0].bytesAfter")), qPrintable(error));
    }
};

KERNELPAD_TEST_APPLESS_MAIN(TestGuardCheck)
} // namespace tst_guardcheck
#include "tst_guardcheck.moc"
