// One profile against another (core/profile/ProfileComparison) on the recordings of
// tests/data/ncu: the strided read as the baseline of the contiguous one, as a user compares
// the profile before a coalescing fix with the one after it.
#include "app/cli/CliProfile.h"
#include "core/profile/ProfileComparison.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>
#include <QTextStream>

#include "../support/NcuRecordings.h"
#include "../support/TestMain.h"

namespace tst_profilecomparison {

using namespace kernelpad;

namespace {

const MetricChange* find(const ProfileComparison& c, const QString& section, const QString& name) {
    for (const MetricChange& m : c.metrics)
        if (m.section == section && m.name == name)
            return &m;
    return nullptr;
}

ProfileMetric metric(const QString& name, const QString& unit, double value) {
    ProfileMetric m;
    m.section = QStringLiteral("GPU Speed Of Light Throughput");
    m.name = name;
    m.unit = unit;
    m.text = QString::number(value);
    m.value = value;
    return m;
}

} // namespace

class TestProfileComparison : public QObject {
    Q_OBJECT
private slots:
    void unitsToTheirBase() {
        const auto base = [](double v, QString unit) {
            const double b = toBaseUnit(v, &unit);
            return qMakePair(b, unit);
        };
        QCOMPARE(base(104, QStringLiteral("us")), qMakePair(104e-6, QStringLiteral("s")));
        QCOMPARE(base(2.75, QStringLiteral("Tbyte/s")),
                 qMakePair(2.75e12, QStringLiteral("byte/s")));
        QCOMPARE(base(1.59, QStringLiteral("Ghz")), qMakePair(1.59e9, QStringLiteral("hz")));
        QCOMPARE(base(3, QStringLiteral("msecond")), qMakePair(3e-3, QStringLiteral("s")));
        QCOMPARE(base(87.01, QStringLiteral("%")), qMakePair(87.01, QStringLiteral("%")));
        QCOMPARE(base(16, QStringLiteral("register/thread")),
                 qMakePair(16.0, QStringLiteral("register/thread")));
        QCOMPARE(base(5, QStringLiteral("mystery")), qMakePair(5.0, QStringLiteral("mystery")));
    }

    void contiguousAgainstStrided() {
        const ProfileReport strided =
            test::recordedProfile(QStringLiteral("read_strided"), QStringLiteral("full"));
        const ProfileReport contiguous =
            test::recordedProfile(QStringLiteral("read_contiguous"), QStringLiteral("full"));
        const ProfileComparison c = compareProfiles(contiguous, strided);
        const MetricChange* duration =
            find(c, QStringLiteral("GPU Speed Of Light Throughput"), QStringLiteral("Duration"));
        QVERIFY(duration);
        QCOMPARE(duration->baselineText, QStringLiteral("104 us"));
        QCOMPARE(duration->currentText, QStringLiteral("14.72 us"));
        QVERIFY(std::abs(*duration->changePct() - 100.0 * (14.72 - 104) / 104) < 1e-9);
        const MetricChange* bandwidth = find(c, QStringLiteral("Memory Workload Analysis"),
                                             QStringLiteral("Memory Throughput"));
        QCOMPARE(bandwidth->unit, QStringLiteral("byte/s"));
        QVERIFY(std::abs(*bandwidth->changePct() - 100.0 * (1.25 - 2.75) / 2.75) < 1e-9);
        QVERIFY2(c.headline.contains(QStringLiteral("Duration 104 µs → 14.72 µs (−85.8 %)")),
                 qPrintable(c.headline.join('\n')));
        // Every metric of the current profile is there, in its order.
        QVERIFY(c.metrics.size() >= contiguous.metrics.size());
        QCOMPARE(c.metrics.first().name, contiguous.metrics.first().name);
    }

    // ncu scales each report's units on its own: 1.2 ms against 950 us is +26.3 %, not a
    // comparison of 1.2 with 950; a metric in one report only is kept, without a change.
    void unitsMadeAlikeAndOneSidedMetrics() {
        ProfileReport before, after;
        before.metrics = {metric(QStringLiteral("Duration"), QStringLiteral("us"), 950),
                          metric(QStringLiteral("Gone"), QStringLiteral("cycle"), 5)};
        after.metrics = {metric(QStringLiteral("Duration"), QStringLiteral("ms"), 1.2),
                         metric(QStringLiteral("New"), QStringLiteral("%"), 50)};
        before.speedOfLight.dramBytes = 201.3e6;
        after.speedOfLight.dramBytes = 67.1e6;
        const ProfileComparison c = compareProfiles(after, before);
        QCOMPARE(c.metrics.size(), 3);
        QVERIFY(std::abs(*c.metrics[0].changePct() - 100.0 * (1.2e-3 - 950e-6) / 950e-6) < 1e-9);
        QCOMPARE(c.metrics[1].name, QStringLiteral("New"));
        QVERIFY(c.metrics[1].baselineText.isEmpty() && !c.metrics[1].changePct());
        QCOMPARE(c.metrics[2].name, QStringLiteral("Gone"));
        QVERIFY(c.metrics[2].currentText.isEmpty());
        QVERIFY2(c.headline.contains(QStringLiteral("Duration 950 µs → 1.2 ms (+26.3 %)")),
                 qPrintable(c.headline.join('\n')));
        QVERIFY2(c.headline.contains(QStringLiteral("DRAM bytes 201.3 MB → 67.1 MB (−66.7 %)")),
                 qPrintable(c.headline.join('\n')));

        QString text;
        QTextStream out(&text);
        cli::printComparison(out, c, before);
        out.flush();
        QVERIFY2(text.contains(QStringLiteral("    Duration                             950 us "
                                              "-> 1.2 ms  +26.3 %\n")),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("    New                                  (absent) "
                                              "-> 50 %\n")),
                 qPrintable(text));
        const QJsonObject json = comparisonToJson(c);
        const QJsonObject first = json.value(QStringLiteral("metrics")).toArray()[0].toObject();
        QCOMPARE(first.value(QStringLiteral("baseline")).toDouble(), 950e-6);
        QVERIFY(first.contains(QStringLiteral("changePct")));
        QCOMPARE(json.value(QStringLiteral("headline")).toArray().size(), 2);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestProfileComparison)
} // namespace tst_profilecomparison
#include "tst_profilecomparison.moc"
