// A run's measured values as keyed summaries (core/run/Summary.h): the one formatter, hint by
// hint, at zero, NaN, infinity and huge values; the builder on a synthetic RunResult; the JSON
// form that kernelpad-cli --json adds.

#include "../support/TestMain.h"
#include "core/run/Summary.h"

#include <QJsonObject>
#include <QSet>
#include <QTest>

#include <cmath>
#include <limits>

namespace tst_summary {

using namespace kernelpad;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Summary entry(SummaryHint hint, double value, int decimals = -1) {
    Summary s;
    s.hint = hint;
    s.value = value;
    s.decimals = decimals;
    return s;
}

/// A timed, verified SAXPY as the runner returns it.
RunResult timedRun() {
    RunResult r;
    r.kernelLowered = QStringLiteral("saxpy");
    r.compile.ok = true;
    r.compile.arch = QStringLiteral("sm_90");
    r.compile.compileMs = 14.5;
    r.timing = computeStats({0.08, 0.09, 0.1}, 201326592, 33554432);
    r.timing.mode = QStringLiteral("cold");
    r.timing.blockingKernel = true;
    r.timing.stopReason = QStringLiteral("noise target reached");
    r.timing.smClockMHz = 1755;
    r.timing.smClockDefaultMHz = 1980;
    r.timing.ceilingGBs = 3025;
    r.timing.verifyMs = 0.5;
    r.resources.registers = 16;
    r.resources.staticSharedBytes = 1024;
    r.resources.occupancy = 0.75;
    BufferVerification a;
    a.buffer = QStringLiteral("y");
    a.passed = true;
    a.checked = 100;
    BufferVerification b;
    b.buffer = QStringLiteral("z");
    b.checked = 50;
    b.mismatches = 3;
    b.nanCount = 1;
    b.unwritten = 2;
    r.verification = {a, b};
    r.totalMs = 250;
    return r;
}

QStringList keysOf(const QVector<Summary>& summaries) {
    QStringList keys;
    for (const Summary& s : summaries)
        keys << s.key;
    return keys;
}

} // namespace

class TestSummary : public QObject {
    Q_OBJECT

private slots:
    void formatByHint_data() {
        QTest::addColumn<int>("hint");
        QTest::addColumn<double>("value");
        QTest::addColumn<int>("decimals");
        QTest::addColumn<QString>("expected");
        const auto row = [](const char* name, SummaryHint hint, double value, int decimals,
                            const char* expected) {
            QTest::newRow(name) << int(hint) << value << decimals << QString::fromUtf8(expected);
        };
        using H = SummaryHint;
        row("duration zero", H::Duration, 0.0, -1, "0 ns");
        row("duration ns", H::Duration, 4e-10, -1, "0 ns");
        row("duration under 10 µs: two decimals", H::Duration, 5.25e-6, -1, "5.25 µs");
        row("duration µs", H::Duration, 8.06e-5, -1, "80.6 µs");
        row("duration ms under 10: three decimals", H::Duration, 1.234e-3, -1, "1.234 ms");
        row("duration ms", H::Duration, 0.4317, -1, "431.7 ms");
        row("duration s", H::Duration, 2.5, -1, "2.50 s");
        row("duration huge", H::Duration, 1e9, -1, "1000000000.00 s");
        row("duration NaN", H::Duration, kNaN, -1, "-");
        row("duration infinite", H::Duration, kInf, -1, "-");
        row("byte rate", H::ByteRate, 2.4888e12, -1, "2488.8 GB/s");
        row("byte rate without decimals", H::ByteRate, 3.025e12, 0, "3025 GB/s");
        row("byte rate zero", H::ByteRate, 0.0, -1, "0.0 GB/s");
        row("byte rate NaN: unknown", H::ByteRate, kNaN, -1, "-");
        row("byte rate huge", H::ByteRate, 1e21, -1, "1000000000000.0 GB/s");
        row("bytes zero", H::Bytes, 0.0, -1, "0 B");
        row("bytes", H::Bytes, 67108864.0, -1, "64.0 MiB");
        row("bytes GiB", H::Bytes, 3.0 * 1024 * 1024 * 1024, -1, "3.00 GiB");
        row("bytes past qint64", H::Bytes, 1e20, -1, "93132257461.55 GiB");
        row("bytes NaN", H::Bytes, kNaN, -1, "-");
        row("percent", H::Percent, 0.768, -1, "76.8 %");
        row("percent with two decimals", H::Percent, 0.0124, 2, "1.24 %");
        row("percent rounded", H::Percent, 0.8225, 0, "82 %");
        row("percent zero", H::Percent, 0.0, -1, "0.0 %");
        row("percent negative zero", H::Percent, -0.0, -1, "0.0 %");
        row("percent NaN", H::Percent, kNaN, 0, "-");
        row("count", H::Count, 16.0, -1, "16");
        row("count zero", H::Count, 0.0, -1, "0");
        row("count huge", H::Count, 1e15, -1, "1000000000000000");
        row("count infinite", H::Count, -kInf, -1, "-");
        row("ratio", H::Ratio, 0.998, -1, "0.998");
        row("ratio two decimals", H::Ratio, 1.0125, 2, "1.01");
        row("flop rate", H::FlopRate, 4.148e11, -1, "414.8 GFLOP/s");
        row("frequency", H::Frequency, 1.98e9, -1, "1980 MHz");
        row("frequency zero", H::Frequency, 0.0, -1, "0 MHz");
    }
    void formatByHint() {
        QFETCH(int, hint);
        QFETCH(double, value);
        QFETCH(int, decimals);
        QFETCH(QString, expected);
        QCOMPARE(formatSummaryValue(entry(SummaryHint(hint), value, decimals)), expected);
    }

    void textIsShownAsItIs() {
        Summary s = entry(SummaryHint::Text, kNaN);
        s.text = QStringLiteral("noise target reached");
        QCOMPARE(formatSummaryValue(s), s.text);
        s.text.clear();
        QCOMPARE(formatSummaryValue(s), QString());
    }

    void hintNames() {
        QCOMPARE(summaryHintName(SummaryHint::Duration), QStringLiteral("duration"));
        QCOMPARE(summaryHintName(SummaryHint::ByteRate), QStringLiteral("byte_rate"));
        QCOMPARE(summaryHintName(SummaryHint::Percent), QStringLiteral("percent"));
        QCOMPARE(summaryHintName(SummaryHint::FlopRate), QStringLiteral("flop_rate"));
        QCOMPARE(summaryHintName(SummaryHint::Text), QStringLiteral("text"));
    }

    void timedRunSummaries() {
        const QVector<Summary> s = summarize(timedRun());
        const QStringList keys = keysOf(s);
        QCOMPARE(keys.mid(0, 7), (QStringList{"time.min", "time.median", "time.mean", "time.max",
                                              "time.stddev", "time.noise", "bandwidth"}));
        // The table's columns are those seven, in that order, and no other.
        QStringList columns;
        for (const Summary& e : s)
            if (e.column)
                columns << e.name;
        QCOMPARE(columns,
                 (QStringList{"min", "median", "mean", "max", "stddev", "noise", "bandwidth"}));
        QCOMPARE(keys.size(), QSet<QString>(keys.cbegin(), keys.cend()).size()); // keys are unique
        for (const Summary& e : s) {
            QVERIFY2(!e.name.isEmpty() && !e.description.isEmpty(), qPrintable(e.key));
            QVERIFY2(e.hint == SummaryHint::Text || !std::isnan(e.value) || e.key == "bandwidth",
                     qPrintable(e.key));
        }

        const Summary* median = findSummary(s, "time.median");
        QVERIFY(median);
        QCOMPARE(median->hint, SummaryHint::Duration);
        QVERIFY(std::abs(median->value - 0.09e-3) < 1e-15); // seconds
        QCOMPARE(formatSummaryValue(*median), QStringLiteral("90.0 µs"));
        QCOMPARE(formatSummaryValue(*findSummary(s, "bandwidth")),
                 QString::number(201326592 / 0.09e-3 / 1e9, 'f', 1) + " GB/s");
        QCOMPARE(findSummary(s, "samples")->value, 3.0);
        QCOMPARE(findSummary(s, "bytes.perLaunch")->value, 201326592.0);
        QCOMPARE(formatSummaryValue(*findSummary(s, "ceiling")), QStringLiteral("3025 GB/s"));
        QCOMPARE(findSummary(s, "ceiling.share")->value,
                 findSummary(s, "bandwidth")->value / 3025e9);
        QCOMPARE(findSummary(s, "timing.mode")->text, QStringLiteral("cold"));
        QCOMPARE(findSummary(s, "timing.blockingKernel")->text, QStringLiteral("yes"));
        QCOMPARE(findSummary(s, "timing.stopReason")->text, QStringLiteral("noise target reached"));
        QCOMPARE(formatSummaryValue(*findSummary(s, "clock.sm")), QStringLiteral("1755 MHz"));
        QVERIFY(!findSummary(s, "clock.memory")); // NVML gave none
        QCOMPARE(formatSummaryValue(*findSummary(s, "flops")),
                 QString::number(33554432 / 0.09e-3 / 1e9, 'f', 1) + " GFLOP/s");
        QCOMPARE(formatSummaryValue(*findSummary(s, "verify.time")), QStringLiteral("500.0 µs"));
        QCOMPARE(formatSummaryValue(*findSummary(s, "resources.staticShared")),
                 QStringLiteral("1.0 KiB"));
        QCOMPARE(formatSummaryValue(*findSummary(s, "occupancy")), QStringLiteral("75 %"));
        QCOMPARE(findSummary(s, "verify.buffers")->value, 2.0);
        QCOMPARE(findSummary(s, "verify.passed")->value, 1.0);
        QCOMPARE(findSummary(s, "verify.checked")->value, 150.0);
        QCOMPARE(findSummary(s, "verify.mismatches")->value, 3.0);
        QCOMPARE(findSummary(s, "verify.nan")->value, 1.0);
        QCOMPARE(findSummary(s, "verify.unwritten")->value, 2.0);
        QCOMPARE(formatSummaryValue(*findSummary(s, "compile.time")), QStringLiteral("14.5 ms"));
        QCOMPARE(formatSummaryValue(*findSummary(s, "run.time")), QStringLiteral("250.0 ms"));
        QVERIFY(!findSummary(s, "sanitizer.errors"));
    }

    void unknownFiguresAreLeftOutOrNaN() {
        RunResult r = timedRun();
        r.timing = computeStats({0.5}); // no bytes, no FLOPs, no ceiling, no clocks
        const QVector<Summary> s = summarize(r);
        QVERIFY(std::isnan(findSummary(s, "bandwidth")->value));
        QCOMPARE(formatSummaryValue(*findSummary(s, "bandwidth")), QStringLiteral("-"));
        QVERIFY(!findSummary(s, "ceiling"));
        QVERIFY(!findSummary(s, "ceiling.share"));
        QVERIFY(!findSummary(s, "flops"));
        QVERIFY(!findSummary(s, "clock.sm"));
        QVERIFY(!findSummary(s, "timing.stopReason"));
        QCOMPARE(findSummary(s, "timing.mode")->text, QStringLiteral("hot")); // the default
        QCOMPARE(findSummary(s, "timing.blockingKernel")->text, QStringLiteral("no"));
    }

    void aRunThatNeverRanHasNoTiming() {
        RunResult r;
        r.status = RunStatus::DriverUnavailable;
        r.compile.ok = true;
        r.compile.arch = QStringLiteral("sm_90");
        r.compile.compileMs = 206;
        r.totalMs = 210;
        const QStringList keys = keysOf(summarize(r));
        QCOMPARE(keys, (QStringList{"compile.time", "run.time"}));
        QCOMPARE(keysOf(summarize(RunResult())), QStringList{"run.time"});
    }

    void sanitizedRunCountsItsErrors() {
        RunResult r;
        r.sanitizerTool = SanitizerTool::Memcheck;
        r.sanitizerErrors = 4;
        const Summary* errors = findSummary(summarize(r), "sanitizer.errors");
        QVERIFY(errors);
        QCOMPARE(errors->value, 4.0);
    }

    // The unit formatDuration() writes is the one durationUnitFor() names, at each threshold,
    // so a chart's axis (which takes the unit) and its table (which takes the text) agree.
    void durationUnitMatchesTheText_data() {
        QTest::addColumn<double>("seconds");
        QTest::addColumn<QString>("text");
        QTest::newRow("zero") << 0.0 << "0 ns";
        QTest::newRow("999 ns") << 999e-9 << "999 ns";
        QTest::newRow("1 us") << 1e-6 << "1.00 µs";
        QTest::newRow("87.5 us") << 87.5e-6 << "87.5 µs";
        QTest::newRow("just under 1 ms") << 0.99949e-3 << "999.5 µs";
        QTest::newRow("1 ms") << 1e-3 << "1.000 ms";
        QTest::newRow("14.5 ms") << 14.5e-3 << "14.5 ms";
        QTest::newRow("1 s") << 1.0 << "1.00 s";
        QTest::newRow("2.1 s") << 2.1 << "2.10 s";
    }
    void durationUnitMatchesTheText() {
        QFETCH(double, seconds);
        QFETCH(QString, text);
        QCOMPARE(formatDuration(seconds), text);
        QCOMPARE(formatDurationMs(seconds * 1e3), text);
        const DurationUnit unit = durationUnitFor(seconds);
        QVERIFY2(text.endsWith(QLatin1Char(' ') + durationUnitSymbol(unit)), qPrintable(text));
        // The unit's size in seconds reads the value back within the text's rounding.
        const double shown = text.section(QLatin1Char(' '), 0, 0).toDouble();
        QVERIFY2(std::abs(shown * durationUnitSeconds(unit) - seconds) <=
                     0.5 * durationUnitSeconds(unit),
                 qPrintable(text));
        QCOMPARE(formatDuration(kNaN), QStringLiteral("-"));
    }

    void peakShareFollowsTheBandwidth() {
        const QVector<Summary> s = summarize(timedRun());
        const Summary* bandwidth = findSummary(s, "bandwidth");
        QVERIFY(bandwidth && std::isfinite(bandwidth->value));
        const std::optional<Summary> share = peakBandwidthShare(s, 4 * bandwidth->value);
        QVERIFY(share);
        QCOMPARE(share->key, QStringLiteral("bandwidth.peakShare"));
        QCOMPARE(share->hint, SummaryHint::Percent);
        QCOMPARE(formatSummaryValue(*share), QStringLiteral("25.0 %"));
        QVERIFY(!peakBandwidthShare(s, 0));    // peak unknown
        QVERIFY(!peakBandwidthShare(s, kInf)); // not a figure
        RunResult noBytes = timedRun();
        noBytes.timing = computeStats({0.5});
        QVERIFY(!peakBandwidthShare(summarize(noBytes), 1e12)); // no bandwidth to share
        QVERIFY(!peakBandwidthShare(summarize(RunResult()), 1e12));
    }

    void jsonCarriesKeyNameHintAndValue() {
        const QJsonArray json = summariesToJson(summarize(timedRun()));
        QJsonObject median, mode;
        for (const QJsonValue& v : json) {
            const QJsonObject o = v.toObject();
            QCOMPARE(o.keys(), (QStringList{"description", "hint", "key", "name", "value"}));
            if (o.value("key") == "time.median")
                median = o;
            if (o.value("key") == "timing.mode")
                mode = o;
        }
        QCOMPARE(median.value("name").toString(), QStringLiteral("median"));
        QCOMPARE(median.value("hint").toString(), QStringLiteral("duration"));
        QVERIFY(std::abs(median.value("value").toDouble() - 0.09e-3) < 1e-15);
        QCOMPARE(mode.value("hint").toString(), QStringLiteral("text"));
        QCOMPARE(mode.value("value").toString(), QStringLiteral("cold"));

        RunResult noBytes = timedRun();
        noBytes.timing = computeStats({0.5});
        for (const QJsonValue& v : summariesToJson(summarize(noBytes)))
            if (v.toObject().value("key") == "bandwidth")
                QVERIFY(v.toObject().value("value").isNull()); // NaN is null in JSON
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestSummary)
} // namespace tst_summary
#include "tst_summary.moc"
