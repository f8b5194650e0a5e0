// The profile's widgets on their own: the roofline (roofs, points joined in order, tooltips,
// the levels' labels never drawn over one another),
// the stall chart (sorted, capped, tooltips) and the editor margin (heat, flags, tooltips,
// following edits, stale).

#include "../support/NcuRecordings.h"
#include "../support/TestMain.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/ProfileMargin.h"
#include "ui/widgets/ProfilePanel.h"
#include "ui/widgets/RooflineChart.h"
#include "ui/widgets/RooflineChartLevels.h"
#include "ui/widgets/RooflineLabels.h"
#include "ui/widgets/StallChart.h"

#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDir>
#include <QFontMetricsF>
#include <QGraphicsSimpleTextItem>
#include <QHorizontalBarSeries>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QStackedWidget>
#include <QTest>

namespace tst_profilewidgets {

using namespace kernelpad;

namespace {

// H100 SXM-like peaks: 67 TFLOP/s FP32, 34 TFLOP/s FP64, 3.35 TB/s DRAM.
constexpr double kFp32 = 67e12;
constexpr double kFp64 = 34e12;
constexpr double kDram = 3.35e12;

QList<QScatterSeries*> scatterSeries(const RooflineChart& chart) {
    QList<QScatterSeries*> out;
    for (QAbstractSeries* s : chart.chart()->series())
        if (auto* scatter = qobject_cast<QScatterSeries*>(s))
            out << scatter;
    return out;
}

QList<QLineSeries*> lineSeries(const RooflineChart& chart) {
    QList<QLineSeries*> out;
    for (QAbstractSeries* s : chart.chart()->series())
        if (s->type() == QAbstractSeries::SeriesTypeLine)
            out << static_cast<QLineSeries*>(s);
    return out;
}

QList<QScatterSeries*> scatterOf(QChart* chart) {
    QList<QScatterSeries*> out;
    for (QAbstractSeries* s : chart->series())
        if (auto* scatter = qobject_cast<QScatterSeries*>(s))
            out << scatter;
    return out;
}

QStringList lineNames(QChart* chart) {
    QStringList out;
    for (QAbstractSeries* s : chart->series())
        if (s->type() == QAbstractSeries::SeriesTypeLine)
            out << s->name();
    return out;
}

QString source(int lines) {
    QStringList text;
    for (int i = 1; i <= lines; ++i)
        text << QStringLiteral("int line%1 = %1;").arg(i);
    return text.join(QLatin1Char('\n'));
}

} // namespace

class TestProfileWidgets : public QObject {
    Q_OBJECT
private slots:
    void rooflineEmptyUntilData();
    void rooflineRoofsAndRidges();
    void rooflinePointsJoinedInOrder();
    void rooflineSkipsPointsWithoutWork();
    void rooflineLevelsOfRecordedSaxpy();
    void rooflineLevelsTensorAndModes();
    void rooflineLevelsReadableInTheProfileTab();
    void labelsPlacedApart_data();
    void labelsPlacedApart();
    void rooflineLevelLabelsNeverOverlap_data();
    void rooflineLevelLabelsNeverOverlap();
    void stallsSortedWithTooltips();
    void stallsBeyondTheCapBecomeOther();
    void heatLevels_data();
    void heatLevels();
    void marginHeatFlagsAndTooltips();
    void marginFollowsEditsAndGoesStale();
    void marginIgnoresLinesPastTheEnd();
};

void TestProfileWidgets::rooflineEmptyUntilData() {
    RooflineChart chart;
    auto* stack = chart.findChild<QStackedWidget*>();
    QVERIFY(stack);
    QCOMPARE(stack->currentWidget()->objectName(), QStringLiteral("rooflineEmptyState"));
    chart.setRoofs(kDram, {{QStringLiteral("FP32"), kFp32}});
    QCOMPARE(stack->currentWidget()->objectName(), QStringLiteral("rooflineChart"));
    chart.clear();
    QCOMPARE(stack->currentWidget()->objectName(), QStringLiteral("rooflineEmptyState"));
}

void TestProfileWidgets::rooflineRoofsAndRidges() {
    RooflineChart chart;
    chart.setRoofs(kDram, {{QStringLiteral("FP64"), kFp64},
                           {QStringLiteral("FP32"), kFp32},
                           {QStringLiteral("none"), 0}});
    // The unknown roof is left out; the highest comes first.
    QCOMPARE(chart.roofs().size(), 2);
    QCOMPARE(chart.roofs().first().name, QStringLiteral("FP32"));
    const QList<QLineSeries*> lines = lineSeries(chart);
    QCOMPARE(lines.size(), 3); // DRAM, FP32, FP64
    QVERIFY(lines.at(0)->name().startsWith(QStringLiteral("DRAM 3350 GB/s")));
    // The DRAM roof ends at the FP32 ridge, where the FP32 roof starts (in GFLOP/s).
    const double ridge = kFp32 / kDram;
    QCOMPARE(lines.at(0)->at(1).x(), ridge);
    QCOMPARE(lines.at(0)->at(1).y(), kFp32 / 1e9);
    QCOMPARE(lines.at(1)->at(0).x(), ridge);
    QCOMPARE(lines.at(2)->at(0).x(), kFp64 / kDram);
    QCOMPARE(lines.at(2)->at(0).y(), kFp64 / 1e9);
    // Attainable: bandwidth-bound left of the ridge, compute-bound right of it.
    QCOMPARE(chart.attainable(0.25), kDram * 0.25);
    QCOMPARE(chart.attainable(1000.0), kFp32);
}

void TestProfileWidgets::rooflinePointsJoinedInOrder() {
    RooflineChart chart;
    chart.setRoofs(kDram, {{QStringLiteral("FP32"), kFp32}});
    // Three edits: each one doing more work per byte, and faster.
    chart.setPoints({{0.083, 0.2e12, QStringLiteral("run 1 at 12:00:01, 74.2 µs")},
                     {0.5, 1.2e12, QStringLiteral("run 3")},
                     {4.0, 9.0e12, QStringLiteral("run 5")}});
    const QList<QScatterSeries*> points = scatterSeries(chart);
    QCOMPARE(points.size(), 3);
    for (int i = 0; i < points.size(); ++i) {
        QCOMPARE(points.at(i)->pointLabelsFormat(), QString::number(i + 1));
        QVERIFY(points.at(i)->pointLabelsVisible());
    }
    // The current (last) point stands out.
    QVERIFY(points.at(2)->color() != points.at(0)->color());
    QLineSeries* path = nullptr;
    for (QLineSeries* line : lineSeries(chart))
        if (line->name() == QStringLiteral("Profiles in order"))
            path = line;
    QVERIFY(path);
    QCOMPARE(path->count(), 3);
    QCOMPARE(path->at(0), QPointF(0.083, 200.0));
    QCOMPARE(path->at(2), QPointF(4.0, 9000.0));
    const QString tip = chart.pointToolTip(0);
    QVERIFY2(tip.startsWith(QStringLiteral("Profile 1: 0.083 FLOP/byte, 200.0 GFLOP/s")),
             qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("% of the roof there")), qPrintable(tip));
    QVERIFY(tip.contains(QStringLiteral("run 1 at 12:00:01, 74.2 µs")));
    QVERIFY(chart.pointToolTip(3).isEmpty());
}

void TestProfileWidgets::rooflineSkipsPointsWithoutWork() {
    RooflineChart chart;
    // A copy kernel does no floating-point work: intensity 0 has no place on a log axis, so
    // it is drawn in the floor's corner with a label saying why, and kept off the path.
    chart.setPoints({{0, 0, QString()}, {0.2, 1e11, QString()}});
    QCOMPARE(chart.points().size(), 2);
    const QList<QScatterSeries*> scatter = scatterSeries(chart);
    QCOMPARE(scatter.size(), 2);
    QStringList labels;
    for (QScatterSeries* series : scatter)
        labels << series->pointLabelsFormat();
    QVERIFY2(labels.contains(QStringLiteral("2")), qPrintable(labels.join(QLatin1Char('|'))));
    QVERIFY2(labels.contains(QStringLiteral("1: no FP operations counted")),
             qPrintable(labels.join(QLatin1Char('|'))));
}

void TestProfileWidgets::rooflineLevelsOfRecordedSaxpy() {
    // SAXPY on the H200 (tests/data/ncu/saxpy.hier.*): FP32 points at L1 (2/12 FLOP/byte),
    // L2 (0.249) and DRAM (0.177), under the DRAM roof at 64 % of it.
    RooflineChart chart;
    chart.setHierarchy(test::recordedProfile("saxpy", "hier").hierarchy,
                       QStringLiteral("Run 1 · saxpy"));
    auto* stack = chart.findChild<QStackedWidget*>();
    QCOMPARE(stack->currentWidget()->objectName(), QStringLiteral("rooflineLevels"));
    QCOMPARE(chart.mode(), RooflineChart::Mode::Levels);
    QVERIFY(!chart.findChild<QComboBox*>(QStringLiteral("rooflineMode"))->isHidden());
    RooflineLevelsChart* levels = chart.levels();
    QCOMPARE(levels->pointLabels(),
             (QStringList{QStringLiteral("L1"), QStringLiteral("L2"), QStringLiteral("DRAM")}));
    const QList<QScatterSeries*> points = scatterOf(levels->chart());
    QCOMPARE(points.size(), 3);
    const QList<HierarchyPoint> expected = levels->roofline().points();
    for (int i = 0; i < 3; ++i) {
        // Labelled by the chart (labelPlacements()), not above each marker by Qt Charts.
        QVERIFY(!points.at(i)->pointLabelsVisible());
        QCOMPARE(points.at(i)->at(0),
                 QPointF(expected.at(i).flopsPerByte, expected.at(i).flopsPerSecond / 1e12));
    }
    // The levels differ in colour, so each point reads against its own roof.
    QVERIFY(points.at(0)->color() != points.at(2)->color());
    // Three memory roofs, and the FP32, FP64 and FP16/BF16 roofs (no tensor path ran).
    const QStringList roofs = lineNames(levels->chart());
    QVERIFY2(roofs.size() == 6, qPrintable(roofs.join(QLatin1Char('|'))));
    for (const QString& name :
         {QStringLiteral("L1 25.3 TB/s"), QStringLiteral("L2 10.1 TB/s"),
          QStringLiteral("DRAM 4.81 TB/s"), QStringLiteral("FP32 50.6 TFLOP/s")})
        QVERIFY2(roofs.contains(name), qPrintable(roofs.join(QLatin1Char('|'))));
    QVERIFY2(levels->verdict().startsWith(QStringLiteral("DRAM-bound: 64 % of the DRAM roof")),
             qPrintable(levels->verdict()));
    const QString tip = levels->pointToolTip(2);
    QVERIFY2(tip.startsWith(QStringLiteral("FP32 at DRAM: 0.177 FLOP/byte, 548 GFLOP/s")),
             qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("64.4 % of the DRAM roof")), qPrintable(tip));
    // Every point lies inside the axes.
    const auto* x = qobject_cast<QLogValueAxis*>(levels->chart()->axes(Qt::Horizontal).first());
    const auto* y = qobject_cast<QLogValueAxis*>(levels->chart()->axes(Qt::Vertical).first());
    for (QScatterSeries* p : points) {
        QVERIFY(p->at(0).x() > x->min() && p->at(0).x() < x->max());
        QVERIFY(p->at(0).y() > y->min() && p->at(0).y() < y->max());
    }
}

void TestProfileWidgets::rooflineLevelsTensorAndModes() {
    RooflineChart chart;
    chart.setRoofs(kDram, {{QStringLiteral("FP32"), kFp32}});
    chart.setPoints({{0.2, 1e11, QString()}});
    // The WMMA GEMM: its tensor roof is the HMMA bf16 path's, its points above the FP32 roof.
    chart.setHierarchy(test::recordedProfile("wmma_gemm_bf16", "hier").hierarchy);
    RooflineLevelsChart* levels = chart.levels();
    const QStringList roofs = lineNames(levels->chart());
    QVERIFY2(roofs.contains(QStringLiteral("tensor HMMA bf16→fp32 495 TFLOP/s")),
             qPrintable(roofs.join(QLatin1Char('|'))));
    QCOMPARE(scatterOf(levels->chart()).size(), 3);
    for (QScatterSeries* p : scatterOf(levels->chart()))
        QVERIFY(p->at(0).y() > 46.4); // the FP32 roof, 4.64e13 FLOP/s
    QVERIFY2(levels->verdict().startsWith(QStringLiteral("Compute-bound: 23 %")),
             qPrintable(levels->verdict()));
    // The user turns to the runs; a newer profile keeps that choice.
    auto* stack = chart.findChild<QStackedWidget*>();
    chart.setMode(RooflineChart::Mode::Runs);
    QCOMPARE(stack->currentWidget()->objectName(), QStringLiteral("rooflineChart"));
    chart.setHierarchy(test::recordedProfile("saxpy", "hier").hierarchy);
    QCOMPARE(chart.mode(), RooflineChart::Mode::Runs);
    QCOMPARE(scatterSeries(chart).size(), 1);
    // A profile without the sections has no levels: the runs' chart, and no mode to choose.
    chart.clear();
    chart.setHierarchy(test::recordedProfile("saxpy", "basic").hierarchy);
    QVERIFY(chart.findChild<QComboBox*>(QStringLiteral("rooflineMode"))->isHidden());
    QCOMPARE(stack->currentWidget()->objectName(), QStringLiteral("rooflineEmptyState"));
    QVERIFY(levels->verdict().startsWith(QStringLiteral("No hierarchical roofline")));
}

void TestProfileWidgets::rooflineLevelsReadableInTheProfileTab() {
    // The Profile tab as wide as a 1280 x 800 window: the roofline's column (beside the speed
    // of light and the stalls) keeps a plot of four decades a side readable. With
    // KERNELPAD_SCREENSHOT_DIR set, the picture is saved there (roofline-levels.png).
    ProfilePanel panel;
    const ProfileReport report = test::recordedProfile("wmma_gemm_bf16", "hier");
    panel.showReport(report);
    panel.roofline()->setHierarchy(report.hierarchy, QStringLiteral("Run 1 · wmma_gemm_bf16"));
    panel.resize(1280, 460);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    const QImage image = panel.grab().toImage();
    QVERIFY(!image.isNull());
    const QString folder = qEnvironmentVariable("KERNELPAD_SCREENSHOT_DIR");
    if (!folder.isEmpty())
        QVERIFY(image.save(QDir(folder).filePath(QStringLiteral("roofline-levels.png"))));
    const QRectF plot = panel.roofline()->levels()->chart()->plotArea();
    QVERIFY2(plot.width() >= 200 && plot.height() >= 150,
             qPrintable(QStringLiteral("%1 x %2").arg(plot.width()).arg(plot.height())));
}

namespace {

/// "L1 (12, 30 20x14)": what a failure prints of the labels placed.
QString describe(const QVector<ChartLabelPlacement>& labels) {
    QStringList out;
    for (const ChartLabelPlacement& l : labels)
        out << QStringLiteral("%1 (%2, %3 %4x%5)")
                   .arg(l.text)
                   .arg(l.rect.x())
                   .arg(l.rect.y())
                   .arg(l.rect.width())
                   .arg(l.rect.height());
    return out.join(QStringLiteral("; "));
}

QRectF markerRect(const QPointF& centre, qreal size) {
    return QRectF(centre - QPointF(size / 2, size / 2), QSizeF(size, size));
}

/// Every pair of labels apart and no label on a marker; the first broken rule, or empty.
QString overlapIn(const QVector<ChartLabelPlacement>& labels, const QVector<QPointF>& markers,
                  qreal markerSize) {
    for (int i = 0; i < labels.size(); ++i) {
        for (int j = i + 1; j < labels.size(); ++j)
            if (labels.at(i).rect.intersects(labels.at(j).rect))
                return QStringLiteral("'%1' and '%2' overlap: %3")
                    .arg(labels.at(i).text, labels.at(j).text, describe(labels));
        for (int m = 0; m < markers.size(); ++m)
            if (labels.at(i).rect.intersects(markerRect(markers.at(m), markerSize)))
                return QStringLiteral("'%1' covers marker %2: %3")
                    .arg(labels.at(i).text)
                    .arg(m)
                    .arg(describe(labels));
    }
    return {};
}

} // namespace

void TestProfileWidgets::labelsPlacedApart_data() {
    QTest::addColumn<QVector<QPointF>>("centres");
    QTest::addColumn<QStringList>("shown");
    QTest::newRow("two points close, side by side")
        << QVector<QPointF>{{100, 100}, {108, 102}} << QStringList{"L1", "L2"};
    QTest::newRow("two points on one another share a label")
        << QVector<QPointF>{{100, 100}, {101, 101}, {200, 50}}
        << QStringList{QStringLiteral("L1 · L2"), "DRAM"};
    QTest::newRow("a tight cluster of four")
        << QVector<QPointF>{{100, 100}, {112, 100}, {100, 112}, {112, 112}}
        << QStringList{"L1", "L2", "DRAM", "L1 FP64"};
    QTest::newRow("against the frame's corner")
        << QVector<QPointF>{{294, 8}, {286, 14}} << QStringList{"L1", "L2"};
}

void TestProfileWidgets::labelsPlacedApart() {
    QFETCH(QVector<QPointF>, centres);
    QFETCH(QStringList, shown);
    const QStringList names{"L1", "L2", "DRAM", "L1 FP64"};
    QVector<ChartLabelAnchor> anchors;
    for (int i = 0; i < centres.size(); ++i)
        anchors.append({centres.at(i), names.at(i)});
    const qreal marker = 12;
    const QRectF bounds(0, 0, 300, 200);
    const QFontMetricsF metrics{QFont()};
    const QVector<ChartLabelPlacement> labels =
        placeChartLabels(anchors, marker, bounds,
                         [&](const QString& text) { return metrics.boundingRect(text).size(); });
    QStringList texts;
    for (const ChartLabelPlacement& l : labels)
        texts << l.text;
    QCOMPARE(texts, shown);
    const QString overlap = overlapIn(labels, centres, marker);
    QVERIFY2(overlap.isEmpty(), qPrintable(overlap));
    for (const ChartLabelPlacement& l : labels)
        QVERIFY2(bounds.contains(l.rect), qPrintable(describe(labels)));
    // A label away from its marker is tied to it by a leader from the marker's edge.
    for (const ChartLabelPlacement& l : labels) {
        if (!l.leader)
            continue;
        const QPointF centre = centres.at(l.anchors.first());
        QVERIFY(QLineF(centre, l.leader->p1()).length() <= marker / 2 + 0.01);
        QCOMPARE(l.leader->p2().x(), std::clamp(centre.x(), l.rect.left(), l.rect.right()));
    }
}

void TestProfileWidgets::rooflineLevelLabelsNeverOverlap_data() {
    QTest::addColumn<QSize>("size");
    // Whether Qt Charts' own labels collided at that size by a clear margin (the first row's
    // by less than a pixel, depending on the font).
    QTest::addColumn<bool>("qtLabelsCollide");
    QTest::newRow("the Profile tab's column (1280 x 800 window)") << QSize(460, 420) << false;
    QTest::newRow("the smallest chart") << QSize(300, 260) << true;
    QTest::newRow("a large chart") << QSize(1000, 700) << false;
}

void TestProfileWidgets::rooflineLevelLabelsNeverOverlap() {
    // The WMMA GEMM (tests/data/ncu/wmma_gemm_bf16.hier.*): its L1 and L2 points lie close
    // together, and Qt Charts' own labels, centred above each marker, were drawn over each other.
    QFETCH(QSize, size);
    QFETCH(bool, qtLabelsCollide);
    RooflineLevelsChart levels;
    levels.setRoofline(test::recordedProfile("wmma_gemm_bf16", "hier").hierarchy,
                       QStringLiteral("Run 1 · wmma_gemm_bf16"));
    levels.resize(size);
    levels.show();
    QVERIFY(QTest::qWaitForWindowExposed(&levels));
    QCoreApplication::processEvents();
    const QList<QScatterSeries*> points = scatterOf(levels.chart());
    QCOMPARE(points.size(), 3);
    QVector<QPointF> markers;
    for (QScatterSeries* p : points)
        markers << levels.chart()->mapToPosition(p->at(0), p);
    const QVector<ChartLabelPlacement> labels = levels.labelPlacements();
    QVERIFY2(!labels.isEmpty(), "no labels placed");
    // Every point is named by one label.
    QVector<int> named;
    for (const ChartLabelPlacement& l : labels)
        named += l.anchors;
    std::sort(named.begin(), named.end());
    QCOMPARE(named, (QVector<int>{0, 1, 2}));
    const qreal marker = 12; // the levels' marker size (kLevelsPointSize)
    const QString overlap = overlapIn(labels, markers, marker);
    QVERIFY2(overlap.isEmpty(), qPrintable(overlap));
    // The bug this guards against is in this recording: Qt Charts' own place for each label,
    // centred above its marker, puts the L1 and L2 labels on each other.
    QVector<ChartLabelPlacement> above;
    const QFontMetricsF metrics(levels.chart()->font());
    for (int i = 0; i < markers.size(); ++i) {
        const QString text = levels.pointLabels().at(i);
        const QSizeF s = metrics.boundingRect(text).size();
        above.append({text,
                      QRectF(QPointF(markers.at(i).x() - s.width() / 2,
                                     markers.at(i).y() - marker / 2 - s.height()),
                             s),
                      {i},
                      std::nullopt});
    }
    if (qtLabelsCollide)
        QVERIFY2(above.at(0).rect.intersects(above.at(1).rect), qPrintable(describe(above)));
    // What is drawn is what was placed.
    QStringList texts;
    for (const ChartLabelPlacement& l : labels)
        texts << l.text;
    QVector<QRectF> drawn;
    for (QGraphicsItem* item : levels.chart()->childItems())
        if (auto* text = dynamic_cast<QGraphicsSimpleTextItem*>(item);
            text && texts.contains(text->text()) && text->isVisible())
            drawn << text->mapRectToParent(text->boundingRect());
    QCOMPARE(drawn.size(), labels.size());
    for (const ChartLabelPlacement& l : labels)
        QVERIFY2(drawn.contains(l.rect), qPrintable(describe(labels)));
}

void TestProfileWidgets::stallsSortedWithTooltips() {
    StallChart chart;
    auto* stack = chart.findChild<QStackedWidget*>();
    QCOMPARE(stack->currentWidget()->objectName(), QStringLiteral("stallEmptyState"));
    chart.setStalls({{QStringLiteral("Wait"), 100, QStringLiteral("waiting on a fixed latency")},
                     {QStringLiteral("Long Scoreboard"), 300,
                      QStringLiteral("waiting for data from global or local memory")},
                     {QStringLiteral("Sleeping"), 0, QString()}});
    QCOMPARE(stack->currentWidget()->objectName(), QStringLiteral("stallChart"));
    QCOMPARE(chart.bars().size(), 2);
    QCOMPARE(chart.bars().first().name, QStringLiteral("Long Scoreboard"));
    QCOMPARE(chart.totalSamples(), 400.0);
    const QString tip = chart.barToolTip(0);
    QCOMPARE(tip, QStringLiteral("Long Scoreboard: 300 samples, 75.0 % of all stall samples\n"
                                 "waiting for data from global or local memory"));
    auto* series = qobject_cast<QHorizontalBarSeries*>(chart.chart()->series().value(0));
    QVERIFY(series);
    QCOMPARE(series->barSets().size(), 1);
    // Drawn bottom-up: the largest is the last value, on top.
    QCOMPARE(series->barSets().first()->at(1), 300.0);
}

void TestProfileWidgets::stallsBeyondTheCapBecomeOther() {
    StallChart chart;
    QVector<StallBar> bars;
    for (int i = 1; i <= StallChart::kMaxBars + 3; ++i)
        bars.append({QStringLiteral("reason %1").arg(i), double(i), QString()});
    chart.setStalls(bars);
    QCOMPARE(chart.bars().size(), StallChart::kMaxBars);
    const StallBar& other = chart.bars().last();
    QVERIFY(other.name.startsWith(QStringLiteral("other (4 reasons)")));
    QCOMPARE(other.samples, 1.0 + 2 + 3 + 4);
    QVERIFY(other.description.contains(QStringLiteral("reason 1")));
}

void TestProfileWidgets::heatLevels_data() {
    QTest::addColumn<double>("samples");
    QTest::addColumn<double>("max");
    QTest::addColumn<int>("level");
    QTest::newRow("no samples") << 0.0 << 100.0 << 0;
    QTest::newRow("hottest line") << 100.0 << 100.0 << ProfileMargin::kHeatLevels;
    QTest::newRow("one sample of many") << 1.0 << 100000.0 << 1;
    QTest::newRow("half") << 50.0 << 100.0 << ProfileMargin::kHeatLevels / 2;
    QTest::newRow("no profile samples") << 5.0 << 0.0 << 0;
}

void TestProfileWidgets::heatLevels() {
    QFETCH(double, samples);
    QFETCH(double, max);
    QFETCH(int, level);
    QCOMPARE(ProfileMargin::heatLevelFor(samples, max), level);
}

void TestProfileWidgets::marginHeatFlagsAndTooltips() {
    CodeEditor editor;
    editor.setText(source(10));
    ProfileMargin margin(&editor);
    QCOMPARE(editor.marginWidth(ProfileMargin::kMargin), 0);
    margin.show({{3, 600, false, false, QStringLiteral("line 3: 600 samples")},
                 {6, 1200, true, false, QStringLiteral("line 6: uncoalesced")},
                 {8, 0, false, true, QStringLiteral("line 8: 32-way conflicts")}});
    QVERIFY(margin.isShown());
    QVERIFY(editor.marginWidth(ProfileMargin::kMargin) > 0);
    QCOMPARE(margin.heatLevelAt(5), ProfileMargin::kHeatLevels);
    QCOMPARE(margin.heatLevelAt(2), ProfileMargin::kHeatLevels / 2);
    QCOMPARE(margin.heatLevelAt(7), 0);
    QVERIFY(margin.flaggedAt(5));
    QVERIFY(margin.flaggedAt(7));
    QVERIFY(!margin.flaggedAt(2));
    // The markers are in the editor, where Scintilla draws them.
    QVERIFY(editor.markersAtLine(5) & (1u << ProfileMargin::kFlagMarker));
    QVERIFY(editor.markersAtLine(5) &
            (1u << (ProfileMargin::kFirstHeatMarker + ProfileMargin::kHeatLevels - 1)));
    QCOMPARE(margin.toolTipAt(5), QStringLiteral("line 6: uncoalesced"));
    QCOMPARE(margin.toolTipAt(0), QString());
    margin.clear();
    QVERIFY(!margin.isShown());
    QCOMPARE(editor.markersAtLine(5), 0u);
    QCOMPARE(editor.marginWidth(ProfileMargin::kMargin), 0);
}

void TestProfileWidgets::marginFollowsEditsAndGoesStale() {
    CodeEditor editor;
    editor.setText(source(10));
    ProfileMargin margin(&editor);
    margin.show({{6, 100, true, false, QStringLiteral("line 6")}});
    // Two lines typed above: the marker moves down with its line.
    editor.insertAt(QStringLiteral("// a\n// b\n"), 0, 0);
    QCOMPARE(margin.heatLevelAt(5), 0);
    QCOMPARE(margin.heatLevelAt(7), ProfileMargin::kHeatLevels);
    QVERIFY(margin.flaggedAt(7));
    margin.setStale(QStringLiteral("Stale: the source was edited after this profile."));
    QVERIFY(margin.isStale());
    QVERIFY(margin.toolTipAt(7).startsWith(QStringLiteral("Stale: the source was edited")));
    QVERIFY(margin.toolTipAt(7).endsWith(QStringLiteral("line 6")));
    margin.setStale(QString());
    QCOMPARE(margin.toolTipAt(7), QStringLiteral("line 6"));
}

void TestProfileWidgets::marginIgnoresLinesPastTheEnd() {
    CodeEditor editor;
    editor.setText(source(4));
    ProfileMargin margin(&editor);
    margin.show({{9, 100, true, false, QStringLiteral("gone")}, {0, 5, false, false, {}}});
    QVERIFY(!margin.isShown());
    QCOMPARE(editor.marginWidth(ProfileMargin::kMargin), 0);
}

KERNELPAD_TEST_MAIN(TestProfileWidgets)
} // namespace tst_profilewidgets
#include "tst_profilewidgets.moc"
