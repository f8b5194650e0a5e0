// The sweep charts on synthetic records: the mode each sweep gets, the line's points, the
// heat map's colours and best cell, the best ten bars, the size sweep's copy ceiling,
// failures never drawn as values, clicks, renders that are not blank, live redraws.

#include "ui/widgets/SweepChart.h"

#include "../support/TestMain.h"
#include "core/sweep/SweepSpace.h"
#include "ui/Theme.h"
#include "ui/widgets/SweepHeatMap.h"

#include <QApplication>
#include <QBarSet>
#include <QChart>
#include <QHorizontalBarSeries>
#include <QImage>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QTest>
#include <QValueAxis>

#include <cmath>

namespace tst_sweepchart {

using namespace kernelpad;

} // namespace tst_sweepchart
Q_DECLARE_METATYPE(kernelpad::SweepSpec)
namespace tst_sweepchart {

namespace {

SweepTunable tunable(const QString& name, const QVector<double>& values,
                     SweepTunable::Role role = SweepTunable::Role::Parameter) {
    SweepTunable t;
    t.role = role;
    t.name = name;
    t.values.kind = SweepValues::Kind::List;
    t.values.list = values;
    return t;
}

QVector<double> powersOfTwo(int fromExponent, int toExponent) {
    QVector<double> out;
    for (int e = fromExponent; e <= toExponent; ++e)
        out.append(std::ldexp(1.0, e));
    return out;
}

SweepRecord record(const QStringList& names, const QVector<double>& values, double ms,
                   double gbs = std::nan("")) {
    SweepRecord r;
    r.names = names;
    r.values = values;
    QStringList parts;
    for (int i = 0; i < names.size(); ++i)
        parts.append(names[i] + QLatin1Char('=') + SweepSpace::formatValue(values[i]));
    r.key = parts.join(QLatin1Char(','));
    r.status = QStringLiteral("ok");
    r.medianMs = ms;
    r.minMs = ms * 0.98;
    r.bandwidthGBs = gbs;
    r.device = QStringLiteral("NVIDIA H100 80GB HBM3");
    return r;
}

SweepRecord failed(SweepRecord r, const QString& status, const QString& error) {
    r.status = status;
    r.error = error;
    return r;
}

template <typename Series> Series* findSeries(const SweepChart& chart, const QString& name) {
    for (QAbstractSeries* series : chart.chart()->series())
        if (series->objectName() == name)
            return qobject_cast<Series*>(series);
    return nullptr;
}

/// transpose_sweep.kpad's space: bx, by powers of two to 1024, bx*by <= 1024 (66 shapes);
/// the time falls with the block's size and a little with bx, so every shape differs.
struct TransposeSweep {
    SweepSpec spec;
    QVector<SweepRecord> records;
    QString bestKey = QStringLiteral("bx=1,by=1024");
    QString failedKey = QStringLiteral("bx=2,by=2");
    QString failure = QStringLiteral("output 'out' differs at 17 elements");
};

TransposeSweep transposeSweep() {
    TransposeSweep t;
    t.spec.tunables = {
        tunable(QStringLiteral("bx"), powersOfTwo(0, 10), SweepTunable::Role::Block),
        tunable(QStringLiteral("by"), powersOfTwo(0, 10), SweepTunable::Role::Block)};
    t.spec.tunables[1].axis = 1;
    const QStringList names{QStringLiteral("bx"), QStringLiteral("by")};
    for (double bx : powersOfTwo(0, 10))
        for (double by : powersOfTwo(0, 10))
            if (bx * by <= 1024)
                t.records.append(record(names, {bx, by}, 1.0 + 1000.0 / (bx * by) + 0.01 * bx));
    for (SweepRecord& r : t.records)
        if (r.key == t.failedKey)
            r = failed(r, QStringLiteral("verify-failed"), t.failure);
    return t;
}

/// saxpy_sizes.kpad's space: n from 2^10 to 2^28, time flat while launch-bound, then linear.
SweepSpec sizeSpec() {
    SweepSpec spec;
    spec.tunables = {tunable(QStringLiteral("n"), powersOfTwo(10, 28), SweepTunable::Role::Scalar)};
    spec.objective = SweepObjective::Bandwidth;
    return spec;
}

QVector<SweepRecord> sizeRecords() {
    QVector<SweepRecord> out;
    for (double n : powersOfTwo(10, 28)) {
        const double bytes = 12.0 * n;
        const double ms = std::max(0.003, bytes / 2.8e9);
        out.append(record({QStringLiteral("n")}, {n}, ms, bytes / (ms * 1e6)));
    }
    out[3] = failed(out[3], QStringLiteral("fault"), QStringLiteral("CUDA_ERROR_ILLEGAL_ADDRESS"));
    return out;
}

/// Three varying parameters: bars. Time falls with TILE and UNROLL, rises with bx.
SweepSpec threeSpec() {
    SweepSpec spec;
    spec.tunables = {tunable(QStringLiteral("bx"), {32, 64, 128, 256}, SweepTunable::Role::Block),
                     tunable(QStringLiteral("TILE"), {8, 16, 32}, SweepTunable::Role::Define),
                     tunable(QStringLiteral("UNROLL"), {1, 2, 4})};
    return spec;
}

QVector<SweepRecord> threeRecords() {
    QVector<SweepRecord> out;
    const QStringList names{QStringLiteral("bx"), QStringLiteral("TILE"), QStringLiteral("UNROLL")};
    for (double bx : {32.0, 64.0, 128.0, 256.0})
        for (double tile : {8.0, 16.0, 32.0})
            for (double unroll : {1.0, 2.0, 4.0})
                out.append(record(names, {bx, tile, unroll},
                                  1.0 + bx / 100.0 + 1.0 / tile + 1.0 / unroll));
    // A failure with the smallest time of all: it must never appear as a bar.
    out[5] =
        failed(out[5], QStringLiteral("compile-error"), QStringLiteral("error: TILE too large"));
    out[5].medianMs = 0.001;
    return out;
}

double luminance(const QColor& c) {
    return 0.2126 * c.red() + 0.7152 * c.green() + 0.0722 * c.blue();
}

int pixelsNear(const QImage& image, const QColor& colour, int tolerance) {
    int count = 0;
    for (int y = 0; y < image.height(); ++y) {
        const QRgb* line = reinterpret_cast<const QRgb*>(image.constScanLine(y));
        for (int x = 0; x < image.width(); ++x)
            if (std::abs(qRed(line[x]) - colour.red()) +
                    std::abs(qGreen(line[x]) - colour.green()) +
                    std::abs(qBlue(line[x]) - colour.blue()) <=
                tolerance)
                ++count;
    }
    return count;
}

void showAt(SweepChart& chart, const QSize& size) {
    chart.resize(size);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QCoreApplication::processEvents();
}

} // namespace

class TestSweepChart : public QObject {
    Q_OBJECT
private slots:
    void modeChoice_data();
    void modeChoice();
    void overrideFallsBackWhenTheSweepCannotShowIt();
    void lineHasOnePointPerPassingRecord();
    void lineHoldsOtherParametersAtTheBest();
    void heatMapColoursOrderWithTheObjective();
    void heatMapMarksTheBestAndHatchesFailures();
    void barsShowTheTenBestInOrder();
    void sizeSweepDrawsTimeBandwidthAndCeiling();
    void ceilingOnlyWhenGiven();
    void ceilingFromTheRecordsAlone();
    void clickEmitsTheKey_data();
    void clickEmitsTheKey();
    void renderIsNotBlank_data();
    void renderIsNotBlank();
    void emptyUntilRecordsArrive();
    void followsTheDarkTheme();
    void liveRedrawOfAThousandRecords();
};

void TestSweepChart::modeChoice_data() {
    QTest::addColumn<SweepSpec>("spec");
    QTest::addColumn<int>("mode");
    SweepSpec one;
    one.tunables = {tunable(QStringLiteral("bx"), {32, 64, 128}, SweepTunable::Role::Block),
                    tunable(QStringLiteral("TILE"), {16}, SweepTunable::Role::Define)};
    QTest::newRow("one varying parameter (another fixed): line")
        << one << int(SweepChart::Mode::Line);
    QTest::newRow("two varying parameters: heat map")
        << transposeSweep().spec << int(SweepChart::Mode::HeatMap);
    QTest::newRow("three varying parameters: bars") << threeSpec() << int(SweepChart::Mode::Bars);
    QTest::newRow("scalar n over powers of two: size sweep")
        << sizeSpec() << int(SweepChart::Mode::Sizes);
    SweepSpec namedN;
    namedN.tunables = {tunable(QStringLiteral("n"), powersOfTwo(4, 12))};
    QTest::newRow("parameter named n over powers of two: size sweep")
        << namedN << int(SweepChart::Mode::Sizes);
    SweepSpec scalarNotPowers;
    scalarNotPowers.tunables = {
        tunable(QStringLiteral("n"), {1000, 3000, 5000}, SweepTunable::Role::Scalar)};
    QTest::newRow("scalar not over powers of two: line")
        << scalarNotPowers << int(SweepChart::Mode::Line);
    SweepSpec blockPowers;
    blockPowers.tunables = {
        tunable(QStringLiteral("bx"), powersOfTwo(5, 10), SweepTunable::Role::Block)};
    QTest::newRow("block size over powers of two is not the problem size: line")
        << blockPowers << int(SweepChart::Mode::Line);
    SweepSpec nothingVaries;
    nothingVaries.tunables = {tunable(QStringLiteral("bx"), {128})};
    QTest::newRow("nothing varies: bars") << nothingVaries << int(SweepChart::Mode::Bars);
}

void TestSweepChart::modeChoice() {
    QFETCH(SweepSpec, spec);
    QFETCH(int, mode);
    SweepChart chart;
    chart.setSweep(spec, {});
    QCOMPARE(int(chart.mode()), mode);
    QCOMPARE(int(chart.automaticMode()), mode);
}

void TestSweepChart::overrideFallsBackWhenTheSweepCannotShowIt() {
    SweepChart chart;
    chart.setSweep(sizeSpec(), sizeRecords());
    chart.setModeOverride(SweepChart::Mode::Line);
    QCOMPARE(chart.mode(), SweepChart::Mode::Line);
    QVERIFY(findSeries<QLineSeries>(chart, QStringLiteral("sweepValues")));
    // One varying parameter has no heat map: the automatic mode stays.
    chart.setModeOverride(SweepChart::Mode::HeatMap);
    QCOMPARE(chart.mode(), SweepChart::Mode::Sizes);
    chart.setModeOverride(std::nullopt);
    QCOMPARE(chart.mode(), SweepChart::Mode::Sizes);
}

void TestSweepChart::lineHasOnePointPerPassingRecord() {
    SweepSpec spec;
    spec.tunables = {tunable(QStringLiteral("bx"), powersOfTwo(0, 10), SweepTunable::Role::Block)};
    QVector<SweepRecord> records;
    for (double bx : powersOfTwo(0, 10))
        records.append(record({QStringLiteral("bx")}, {bx}, 10.0 / bx + bx / 100.0));
    records[10] = failed(records[10], QStringLiteral("invalid"),
                         QStringLiteral("block: 1024 threads exceed the kernel's limit of 768"));
    records[0] =
        failed(records[0], QStringLiteral("timeout"), QStringLiteral("the kernel ran past 5 s"));
    // Records arrive in any order; the line runs along bx.
    std::swap(records[2], records[7]);
    SweepChart chart;
    showAt(chart, {900, 600});
    chart.setSweep(spec, records);
    QCOMPARE(chart.mode(), SweepChart::Mode::Line);

    auto* line = findSeries<QLineSeries>(chart, QStringLiteral("sweepValues"));
    QVERIFY(line);
    QCOMPARE(line->count(), 9);
    double previousX = 0;
    for (const QPointF& p : line->points()) {
        QVERIFY(p.x() > previousX);
        previousX = p.x();
        QCOMPARE(p.y(), 10.0 / p.x() + p.x() / 100.0);
    }
    auto* marks = findSeries<QScatterSeries>(chart, QStringLiteral("sweepFailures"));
    QVERIFY(marks);
    QCOMPARE(marks->count(), 2);
    for (const QPointF& p : marks->points()) {
        QCOMPARE(p.y(), 0.0); // on the axis, not a value
        for (const QPointF& v : line->points())
            QVERIFY(v.x() != p.x());
    }
    const std::optional<QPoint> at = chart.positionOf(QStringLiteral("bx=1024"));
    QVERIFY(at);
    QCOMPARE(chart.keyAt(*at), QStringLiteral("bx=1024"));
    QVERIFY2(chart.toolTipAt(*at).contains(QStringLiteral("exceed the kernel's limit of 768")),
             qPrintable(chart.toolTipAt(*at)));
    QVERIFY(chart.title().contains(QStringLiteral("2 failed")));

    // The bandwidth objective plots GB/s.
    spec.objective = SweepObjective::Bandwidth;
    for (SweepRecord& r : records)
        r.bandwidthGBs = 100.0 * r.values[0];
    chart.setSweep(spec, records);
    line = findSeries<QLineSeries>(chart, QStringLiteral("sweepValues"));
    QVERIFY(line);
    QCOMPARE(line->count(), 9);
    for (const QPointF& p : line->points())
        QCOMPARE(p.y(), 100.0 * p.x());
}

void TestSweepChart::lineHoldsOtherParametersAtTheBest() {
    const TransposeSweep t = transposeSweep();
    SweepChart chart;
    chart.setSweep(t.spec, t.records);
    chart.setModeOverride(SweepChart::Mode::Line);
    QCOMPARE(chart.mode(), SweepChart::Mode::Line);
    // The best is bx=1, by=1024: the line over bx holds by at 1024, where only bx=1 exists.
    auto* line = findSeries<QLineSeries>(chart, QStringLiteral("sweepValues"));
    QVERIFY(line);
    QCOMPARE(line->count(), 1);
    QCOMPARE(line->at(0), QPointF(1, 1.0 + 1000.0 / 1024 + 0.01));
    QVERIFY2(chart.title().contains(QStringLiteral("by = 1024 as in the best")),
             qPrintable(chart.title()));
}

void TestSweepChart::heatMapColoursOrderWithTheObjective() {
    const TransposeSweep t = transposeSweep();
    SweepChart chart;
    showAt(chart, {1600, 1000});
    chart.setSweep(t.spec, t.records);
    QCOMPARE(chart.mode(), SweepChart::Mode::HeatMap);
    SweepHeatMap* map = chart.heatMap();
    QVERIFY(map->isVisible());
    QVERIFY(map->valuesShown()); // 11 × 11 cells at this size carry their values

    QVector<SweepRecord> passing = sortedRecords(t.records, SweepObjective::Time);
    passing.removeIf([](const SweepRecord& r) { return !r.passed(); });
    QCOMPARE(passing.size(), 65);
    for (int i = 1; i < passing.size(); ++i) {
        const double better = luminance(map->cellColour(passing[i - 1].key));
        const double worse = luminance(map->cellColour(passing[i].key));
        // Channels are rounded to integers: neighbours a hair apart may swap by < 1.
        QVERIFY2(better >= worse - 1.0, qPrintable(passing[i].key));
    }
    QVERIFY(luminance(map->cellColour(passing.first().key)) >
            luminance(map->cellColour(passing.last().key)) + 100);

    // For bandwidth, higher is better and brighter.
    SweepSpec spec = t.spec;
    spec.objective = SweepObjective::Bandwidth;
    QVector<SweepRecord> records = t.records;
    for (SweepRecord& r : records)
        r.bandwidthGBs = 1000.0 / r.medianMs;
    chart.setSweep(spec, records);
    QVERIFY(luminance(map->cellColour(passing.first().key)) >
            luminance(map->cellColour(passing.last().key)) + 100);
}

void TestSweepChart::heatMapMarksTheBestAndHatchesFailures() {
    const TransposeSweep t = transposeSweep();
    SweepChart chart;
    showAt(chart, {1600, 1000});
    chart.setSweep(t.spec, t.records);
    SweepHeatMap* map = chart.heatMap();
    QCOMPARE(map->bestKey(), t.bestKey);
    const QImage image = map->grab().toImage();
    const QColor outline = Theme::current().text;
    const QRect best = map->cellRect(t.bestKey);
    QVERIFY(!best.isEmpty());
    QCOMPARE(QColor(image.pixel(best.left() + 1, best.center().y())), outline);
    const QRect other = map->cellRect(QStringLiteral("bx=4,by=4"));
    QVERIFY(QColor(image.pixel(other.left() + 1, other.center().y())) != outline);

    QCOMPARE(map->cellColour(t.failedKey), SweepHeatMap::kFailedColour);
    const std::optional<QPoint> at = chart.positionOf(t.failedKey);
    QVERIFY(at);
    QCOMPARE(chart.keyAt(*at), t.failedKey);
    QVERIFY(chart.toolTipAt(*at).contains(t.failure));
    QVERIFY(chart.toolTipAt(*at).contains(QStringLiteral("verify-failed")));
    // The hatch: the failed cell holds both the grey and the hatch's colour.
    const QRect cell = map->cellRect(t.failedKey);
    const QImage failedCell = image.copy(cell.adjusted(2, 2, -2, -2));
    QVERIFY(pixelsNear(failedCell, SweepHeatMap::kFailedColour, 0) > 0);
    QVERIFY(pixelsNear(failedCell, SweepHeatMap::kFailedColour, 0) <
            failedCell.width() * failedCell.height());
}

void TestSweepChart::barsShowTheTenBestInOrder() {
    const QVector<SweepRecord> records = threeRecords();
    SweepChart chart;
    showAt(chart, {1000, 700});
    chart.setSweep(threeSpec(), records);
    QCOMPARE(chart.mode(), SweepChart::Mode::Bars);
    QStringList expected;
    for (const SweepRecord& r : sortedRecords(records, SweepObjective::Time))
        if (r.passed() && expected.size() < 10)
            expected.append(r.key);
    QCOMPARE(chart.barKeys(), expected);
    QVERIFY(!chart.barKeys().contains(records[5].key));

    auto* bars = findSeries<QHorizontalBarSeries>(chart, QStringLiteral("sweepBars"));
    QVERIFY(bars);
    QCOMPARE(bars->barSets().size(), 1);
    const QBarSet* set = bars->barSets().first();
    QCOMPARE(set->count(), 10);
    // Bottom to top: the worst of the ten first, the best last (at the top).
    for (int j = 1; j < set->count(); ++j)
        QVERIFY(set->at(j) <= set->at(j - 1));
    QCOMPARE(set->at(9), sortedRecords(records, SweepObjective::Time).first().medianMs);
    QVERIFY2(chart.title().contains(QStringLiteral("1 failed")), qPrintable(chart.title()));
    // A bar answers along its length, and its row past its end does not.
    const QPoint best = *chart.positionOf(expected.first());
    QCOMPARE(chart.keyAt(best + QPoint(-40, 0)), expected.first());
    QVERIFY(chart.keyAt(QPoint(chart.width() - 20, best.y())).isEmpty());
}

void TestSweepChart::sizeSweepDrawsTimeBandwidthAndCeiling() {
    const QVector<SweepRecord> records = sizeRecords();
    SweepChart chart;
    chart.setCopyCeiling(3000.0);
    showAt(chart, {1200, 800});
    chart.setSweep(sizeSpec(), records);
    QCOMPARE(chart.mode(), SweepChart::Mode::Sizes);
    auto* time = findSeries<QLineSeries>(chart, QStringLiteral("sweepTime"));
    auto* gbs = findSeries<QLineSeries>(chart, QStringLiteral("sweepBandwidth"));
    QVERIFY(time && gbs);
    QCOMPARE(time->count(), 18);
    QCOMPARE(gbs->count(), 18);
    // Two value axes, both logarithmic; n in powers of two.
    QCOMPARE(time->attachedAxes().size(), 2);
    QVERIFY(time->attachedAxes().at(1) != gbs->attachedAxes().at(1));
    QCOMPARE(time->attachedAxes().at(1)->type(), QAbstractAxis::AxisTypeLogValue);
    QCOMPARE(gbs->attachedAxes().at(1)->type(), QAbstractAxis::AxisTypeLogValue);
    for (int i = 0; i < 18; ++i) {
        const SweepRecord& r = records[i < 3 ? i : i + 1];
        QCOMPARE(std::ldexp(1.0, int(std::lround(time->at(i).x()))), r.values[0]);
        QCOMPARE(time->at(i).y(), r.medianMs);
        QCOMPARE(gbs->at(i).y(), r.bandwidthGBs);
    }
    auto* ceiling = findSeries<QLineSeries>(chart, QStringLiteral("sweepCeiling"));
    QVERIFY(ceiling);
    QCOMPARE(ceiling->name(), QStringLiteral("copy ceiling 3.0 TB/s"));
    QCOMPARE(ceiling->attachedAxes(), gbs->attachedAxes());
    QCOMPARE(ceiling->count(), 2);
    QCOMPARE(ceiling->at(0).y(), 3000.0);
    QCOMPARE(ceiling->at(1).y(), 3000.0);
    QVERIFY(ceiling->at(0).x() <= time->at(0).x());
    QVERIFY(ceiling->at(1).x() >= time->at(17).x());
    // The failed size is a mark on the time axis with its reason.
    auto* marks = findSeries<QScatterSeries>(chart, QStringLiteral("sweepFailures"));
    QVERIFY(marks);
    QCOMPARE(marks->count(), 1);
    const std::optional<QPoint> at = chart.positionOf(records[3].key);
    QVERIFY(at);
    QVERIFY(chart.toolTipAt(*at).contains(QStringLiteral("CUDA_ERROR_ILLEGAL_ADDRESS")));
}

void TestSweepChart::ceilingOnlyWhenGiven() {
    SweepChart chart;
    chart.setSweep(sizeSpec(), sizeRecords());
    QVERIFY(!findSeries<QLineSeries>(chart, QStringLiteral("sweepCeiling")));
    chart.setCopyCeiling(850.0);
    auto* ceiling = findSeries<QLineSeries>(chart, QStringLiteral("sweepCeiling"));
    QVERIFY(ceiling);
    QCOMPARE(ceiling->name(), QStringLiteral("copy ceiling 850 GB/s"));
    QCOMPARE(ceiling->at(0).y(), 850.0);
    chart.setCopyCeiling(0.0); // not a measurement
    QVERIFY(!findSeries<QLineSeries>(chart, QStringLiteral("sweepCeiling")));
}

// A sweep read from its file or run by kernelpad-cli: no window run set a ceiling, the
// records carry it; the records' wins over the window's.
void TestSweepChart::ceilingFromTheRecordsAlone() {
    QVector<SweepRecord> records = sizeRecords();
    for (SweepRecord& r : records)
        if (r.passed())
            r.ceilingGBs = 2973.0;
    SweepChart chart;
    chart.setSweep(sizeSpec(), records);
    QCOMPARE(chart.mode(), SweepChart::Mode::Sizes);
    QCOMPARE(chart.copyCeiling(), std::optional<double>(2973.0));
    auto* ceiling = findSeries<QLineSeries>(chart, QStringLiteral("sweepCeiling"));
    QVERIFY(ceiling);
    QVERIFY2(ceiling->name().startsWith(QStringLiteral("copy ceiling ")),
             qPrintable(ceiling->name()));
    QCOMPARE(ceiling->at(0).y(), 2973.0);
    QCOMPARE(ceiling->attachedAxes(),
             findSeries<QLineSeries>(chart, QStringLiteral("sweepBandwidth"))->attachedAxes());
    chart.setCopyCeiling(850.0); // the window's last run: a fallback only
    QCOMPARE(findSeries<QLineSeries>(chart, QStringLiteral("sweepCeiling"))->at(0).y(), 2973.0);
    // Records of a file written before they carried it: the fallback is drawn.
    chart.setSweep(sizeSpec(), sizeRecords());
    QCOMPARE(chart.copyCeiling(), std::optional<double>(850.0));
    QCOMPARE(findSeries<QLineSeries>(chart, QStringLiteral("sweepCeiling"))->at(0).y(), 850.0);
}

void TestSweepChart::clickEmitsTheKey_data() {
    QTest::addColumn<int>("which");
    QTest::addColumn<QString>("key");
    QTest::newRow("line point") << 0 << QStringLiteral("bx=32,by=32");
    QTest::newRow("heat map cell") << 1 << QStringLiteral("bx=8,by=16");
    QTest::newRow("bar") << 2 << QStringLiteral("bx=32,TILE=32,UNROLL=4");
    QTest::newRow("size sweep point") << 3 << QStringLiteral("n=1048576");
}

void TestSweepChart::clickEmitsTheKey() {
    QFETCH(int, which);
    QFETCH(QString, key);
    SweepChart chart;
    showAt(chart, {1200, 800});
    chart.setCopyCeiling(3000.0);
    const TransposeSweep t = transposeSweep();
    switch (which) {
    case 0:
        chart.setSweep(t.spec, t.records);
        chart.setModeOverride(SweepChart::Mode::Line);
        // The line through the best holds by = 1024; a by = 32 record is not on it.
        QVERIFY(!chart.positionOf(key));
        key = t.bestKey;
        break;
    case 1:
        chart.setSweep(t.spec, t.records);
        break;
    case 2:
        chart.setSweep(threeSpec(), threeRecords());
        break;
    default:
        chart.setSweep(sizeSpec(), sizeRecords());
        break;
    }
    QCoreApplication::processEvents();
    const std::optional<QPoint> at = chart.positionOf(key);
    QVERIFY(at);
    QCOMPARE(chart.keyAt(*at), key);
    QVERIFY(chart.toolTipAt(*at).startsWith(key));
    QSignalSpy chosen(&chart, &SweepChart::configurationChosen);
    QWidget* target = chart.childAt(*at);
    QVERIFY(target);
    QTest::mouseClick(target, Qt::LeftButton, {}, target->mapFrom(&chart, *at));
    QCOMPARE(chosen.size(), 1);
    QCOMPARE(chosen.first().first().toString(), key);
    // Far from every mark: nothing.
    QVERIFY(chart.keyAt(QPoint(2, chart.height() - 2)).isEmpty());
}

void TestSweepChart::renderIsNotBlank_data() {
    QTest::addColumn<int>("which");
    QTest::newRow("line") << 0;
    QTest::newRow("heat map") << 1;
    QTest::newRow("bars") << 2;
    QTest::newRow("size sweep") << 3;
}

void TestSweepChart::renderIsNotBlank() {
    QFETCH(int, which);
    SweepChart chart;
    showAt(chart, {1600, 1000});
    chart.setCopyCeiling(3000.0);
    const TransposeSweep t = transposeSweep();
    QColor drawn;
    switch (which) {
    case 0: {
        SweepSpec spec;
        spec.tunables = {tunable(QStringLiteral("bx"), powersOfTwo(0, 10))};
        QVector<SweepRecord> records;
        for (double bx : powersOfTwo(0, 10))
            records.append(record({QStringLiteral("bx")}, {bx}, 10.0 / bx + bx / 100.0));
        chart.setSweep(spec, records);
        drawn = findSeries<QLineSeries>(chart, QStringLiteral("sweepValues"))->color();
        break;
    }
    case 1:
        chart.setSweep(t.spec, t.records);
        drawn = chart.heatMap()->cellColour(t.bestKey);
        break;
    case 2:
        chart.setSweep(threeSpec(), threeRecords());
        drawn = findSeries<QHorizontalBarSeries>(chart, QStringLiteral("sweepBars"))
                    ->barSets()
                    .first()
                    ->color();
        break;
    default:
        chart.setSweep(sizeSpec(), sizeRecords());
        drawn = findSeries<QLineSeries>(chart, QStringLiteral("sweepCeiling"))->color();
        break;
    }
    QCoreApplication::processEvents();
    QImage image(1600, 1000, QImage::Format_RGB32);
    image.fill(Qt::white);
    chart.render(&image);
    // The data's own colour covers a visible area, not a stray pixel.
    const int count = pixelsNear(image, drawn, 30);
    QVERIFY2(count > 200, qPrintable(QString::number(count)));
}

void TestSweepChart::emptyUntilRecordsArrive() {
    SweepChart chart;
    chart.setSweep(transposeSweep().spec, {});
    QVERIFY(chart.findChild<QWidget*>(QStringLiteral("sweepChartEmpty"))->isVisibleTo(&chart));
    QVERIFY(chart.keyAt(QPoint(100, 100)).isEmpty());
    chart.setSweep(transposeSweep().spec, transposeSweep().records);
    QVERIFY(!chart.findChild<QWidget*>(QStringLiteral("sweepChartEmpty"))->isVisibleTo(&chart));
    chart.clear();
    QVERIFY(chart.findChild<QWidget*>(QStringLiteral("sweepChartEmpty"))->isVisibleTo(&chart));
    QVERIFY(chart.chart()->series().isEmpty());
}

void TestSweepChart::followsTheDarkTheme() {
    const QPalette light = QApplication::palette();
    QPalette dark = light;
    dark.setColor(QPalette::Window, QColor(0x20, 0x22, 0x25));
    dark.setColor(QPalette::WindowText, QColor(0xe0, 0xe0, 0xe0));
    QApplication::setPalette(dark);
    const TransposeSweep t = transposeSweep();
    {
        SweepChart chart;
        showAt(chart, {800, 600});
        chart.setSweep(t.spec, t.records);
        const QImage image = chart.heatMap()->grab().toImage();
        QCOMPARE(QColor(image.pixel(1, 1)), Theme::darkTheme().paper);
        const QRect best = chart.heatMap()->cellRect(t.bestKey);
        QCOMPARE(QColor(image.pixel(best.left() + 1, best.center().y())), Theme::darkTheme().text);
        chart.setSweep(threeSpec(), threeRecords());
        QCOMPARE(chart.chart()->theme(), QChart::ChartThemeDark);
    }
    QApplication::setPalette(light);
    SweepChart chart;
    QCOMPARE(chart.chart()->theme(), QChart::ChartThemeLight);
}

void TestSweepChart::liveRedrawOfAThousandRecords() {
    // A live sweep calls setSweep after every record: at a thousand records each redraw
    // (rebuild and paint) picks its mode and draws every record. Its time (under a frame
    // budget a person would notice) is bench/chart's (chart_bench).
    constexpr int kRecords = 1000;
    SweepSpec line, grid, many;
    line.tunables = {tunable(QStringLiteral("UNROLL"), {})};
    grid.tunables = {tunable(QStringLiteral("bx"), {}), tunable(QStringLiteral("by"), {})};
    many = threeSpec();
    QVector<SweepRecord> lineRecords, gridRecords, manyRecords;
    for (int i = 0; i < kRecords; ++i) {
        line.tunables[0].values.list.append(i + 1);
        lineRecords.append(
            record({QStringLiteral("UNROLL")}, {double(i + 1)}, 1.0 + (i % 37) / 10.0));
        gridRecords.append(record({QStringLiteral("bx"), QStringLiteral("by")},
                                  {double(i % 40), double(i / 40)}, 1.0 + (i % 53) / 10.0));
        manyRecords.append(
            record({QStringLiteral("bx"), QStringLiteral("TILE"), QStringLiteral("UNROLL")},
                   {double(i % 10), double(i / 10 % 10), double(i / 100)}, 1.0 + i % 71));
    }
    for (int v = 0; v < 40; ++v)
        grid.tunables[0].values.list.append(v);
    for (int v = 0; v < 25; ++v)
        grid.tunables[1].values.list.append(v);
    SweepChart chart;
    showAt(chart, {1200, 800});
    const struct {
        const SweepSpec* spec;
        const QVector<SweepRecord>* records;
        SweepChart::Mode mode;
    } cases[] = {{&line, &lineRecords, SweepChart::Mode::Line},
                 {&grid, &gridRecords, SweepChart::Mode::HeatMap},
                 {&many, &manyRecords, SweepChart::Mode::Bars}};
    for (const auto& c : cases) {
        chart.setSweep(*c.spec, *c.records);
        chart.repaint();
        QCoreApplication::processEvents();
        QCOMPARE(chart.mode(), c.mode);
    }
    auto* values = findSeries<QLineSeries>(chart, QStringLiteral("sweepValues"));
    QVERIFY(!values); // the last case drew bars
    chart.setSweep(line, lineRecords);
    QCOMPARE(findSeries<QLineSeries>(chart, QStringLiteral("sweepValues"))->count(), kRecords);
}

KERNELPAD_TEST_MAIN(TestSweepChart)
} // namespace tst_sweepchart
#include "tst_sweepchart.moc"
