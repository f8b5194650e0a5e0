// Nsight Compute's rules as KernelPad orders and links them (core/profile/ProfileAdvice), on
// the recordings of tests/data/ncu: the figures asserted are the recordings' own.
#include "app/cli/CliProfile.h"
#include "core/profile/ProfileAdvice.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>
#include <QTextStream>

#include "../support/NcuRecordings.h"
#include "../support/TestMain.h"

namespace tst_profileadvice {

using namespace kernelpad;

namespace {

const ProfileAdvice* find(const QList<ProfileAdvice>& advice, const QString& name) {
    for (const ProfileAdvice& a : advice)
        if (a.rule.name == name)
            return &a;
    return nullptr;
}

QStringList names(const QList<ProfileAdvice>& advice) {
    QStringList out;
    for (const ProfileAdvice& a : advice)
        out << a.rule.name + QLatin1Char('/') + a.rule.type;
    return out;
}

} // namespace

class TestProfileAdvice : public QObject {
    Q_OBJECT
private slots:
    // Whole-kernel estimates first, largest first; then "local" ones; then the notes.
    void orderedByWhatTheyCouldSave() {
        const QList<ProfileAdvice> advice =
            profileAdvice(test::recordedProfile(QStringLiteral("read_strided"), "full"));
        QCOMPARE(names(advice),
                 (QStringList{"MemoryCacheAccessPattern/OPT", "UncoalescedGlobalAccess/OPT",
                              "MemoryL2Compression/OPT", "CPIStall/OPT", "AchievedOccupancy/OPT",
                              "HighPipeUtilization/OPT", "IssueSlotUtilization/OPT",
                              "SOLBottleneck/INF", "SOLFPRoofline/INF", "CPIStall/INF"}));
        QCOMPARE(advice.first().rule.estimatedSpeedup.value_or(0), 79.54);
        QCOMPARE(advice.first().sectionTitle, QStringLiteral("Memory Workload Analysis"));
    }

    // The access rules name the lines the per-line counters flag; the stall rule the lines
    // with the most samples; kernel-wide advice no line.
    void linkedToTheLinesTheyAreAbout() {
        const ProfileReport strided =
            test::recordedProfile(QStringLiteral("read_strided"), QStringLiteral("full"));
        const QList<ProfileAdvice> advice = profileAdvice(strided);
        QCOMPARE(find(advice, QStringLiteral("UncoalescedGlobalAccess"))->lines, QList<int>{6});
        QCOMPARE(find(advice, QStringLiteral("MemoryCacheAccessPattern"))->lines, QList<int>{6});
        QVERIFY(find(advice, QStringLiteral("MemoryL2Compression"))->lines.isEmpty());
        const QList<int> stall = find(advice, QStringLiteral("CPIStall"))->lines;
        QVERIFY(!stall.isEmpty() && stall.size() <= 3);
        for (int line : stall)
            QVERIFY2(strided.lineProfile(line) && strided.lineProfile(line)->stallSamples > 0,
                     qPrintable(QString::number(line)));
        QVERIFY(stall.contains(6)); // the strided load is where warps wait

        const QList<ProfileAdvice> conflicts = profileAdvice(
            test::recordedProfile(QStringLiteral("transpose_conflicts"), QStringLiteral("full")));
        QCOMPARE(find(conflicts, QStringLiteral("SharedMemoryConflicts"))->lines, QList<int>{12});
        QCOMPARE(find(conflicts, QStringLiteral("UncoalescedSharedAccess"))->lines, QList<int>{12});
        // The padded transpose has no conflict: the same rule, had ncu given it, names no line.
        const ProfileReport padded =
            test::recordedProfile(QStringLiteral("transpose_padded"), QStringLiteral("full"));
        ProfileReport withRule = padded;
        withRule.rules = {find(conflicts, QStringLiteral("SharedMemoryConflicts"))->rule};
        QVERIFY(profileAdvice(withRule).first().lines.isEmpty());
    }

    void sectionTitles() {
        QCOMPARE(profileSectionTitle(QStringLiteral("SpeedOfLight_RooflineChart")),
                 QStringLiteral("GPU Speed Of Light Throughput"));
        QCOMPARE(profileSectionTitle(QStringLiteral("WarpStateStats")),
                 QStringLiteral("Warp State Statistics"));
        QCOMPARE(profileSectionTitle(QStringLiteral("NvlinkTopology")),
                 QStringLiteral("Nvlink Topology"));
    }

    void cliTextAndJson() {
        const ProfileReport strided =
            test::recordedProfile(QStringLiteral("read_strided"), QStringLiteral("full"));
        QString text;
        QTextStream out(&text);
        cli::printProfile(out, strided);
        out.flush();
        const qsizetype at = text.indexOf(QStringLiteral("Nsight Compute's advice"));
        QVERIFY2(at > 0, qPrintable(text));
        const QString advice = text.mid(at);
        QVERIFY2(advice.contains(QStringLiteral("  79.5 %       Memory Workload Analysis: "
                                                "MemoryCacheAccessPattern (read_strided.cu:6)\n")),
                 qPrintable(advice));
        QVERIFY2(advice.contains(QStringLiteral("  99.2 % local Compute Workload Analysis: "
                                                "HighPipeUtilization\n")),
                 qPrintable(advice));
        QVERIFY2(advice.contains(QStringLiteral("  [INF]        GPU Speed Of Light Throughput: "
                                                "SOLBottleneck\n")),
                 qPrintable(advice));
        // Descriptions are wrapped under their rule, never wider than the indent plus 84
        // unless one word (a link) is longer.
        for (const QString& line : advice.split(QLatin1Char('\n')))
            QVERIFY2(line.size() <= 15 + 84 || !line.startsWith(QString(15, QLatin1Char(' '))) ||
                         !line.trimmed().contains(QLatin1Char(' ')),
                     qPrintable(line));
        QVERIFY(advice.indexOf(QStringLiteral("MemoryCacheAccessPattern")) <
                advice.indexOf(QStringLiteral("HighPipeUtilization")));

        const QJsonArray json = adviceToJson(profileAdvice(strided));
        QCOMPARE(json.size(), 10);
        const QJsonObject first = json.first().toObject();
        QCOMPARE(first.value(QStringLiteral("name")).toString(),
                 QStringLiteral("MemoryCacheAccessPattern"));
        QCOMPARE(first.value(QStringLiteral("estimatedSpeedupPct")).toDouble(), 79.54);
        QCOMPARE(first.value(QStringLiteral("speedupType")).toString(), QStringLiteral("global"));
        QCOMPARE(first.value(QStringLiteral("lines")).toArray(), QJsonArray{6});
        QVERIFY(!json.last().toObject().contains(QStringLiteral("estimatedSpeedupPct")));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestProfileAdvice)
} // namespace tst_profileadvice
#include "tst_profileadvice.moc"
