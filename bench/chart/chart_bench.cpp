// bench/chart: a live sweep's redraw of the Sweep dock's chart at a thousand records, timed here
// rather than asserted in tests/ui/tst_sweepchart.cpp (which checks the same redraws' modes and
// points), so that a loaded build machine cannot fail the test suite. A live sweep calls
// setSweep after every record; one redraw (rebuild and paint) of each mode must stay under
// 250 ms, a frame budget a person would notice:
//   line     one tunable, 1000 values
//   heatmap  two tunables, 40 x 25
//   bars     three tunables, 10 x 10 x 10 (the best ten drawn)
// Each redraw runs --runs times (default 5); the median is compared with the target. Exit 1
// when a target is missed. Needs no GPU; runs offscreen (QT_QPA_PLATFORM=offscreen).

#include "core/sweep/SweepSpace.h"
#include "ui/widgets/SweepChart.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>

#include <algorithm>
#include <cstdio>

using namespace kernelpad;

namespace {

constexpr int kRecords = 1000;
constexpr double kBudgetMs = 250;

SweepTunable tunable(const QString& name) {
    SweepTunable t;
    t.name = name;
    t.values.kind = SweepValues::Kind::List;
    return t;
}

SweepRecord record(const QStringList& names, const QVector<double>& values, double ms) {
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
    return r;
}

struct Case {
    const char* name = "";
    SweepSpec spec;
    QVector<SweepRecord> records;
};

QVector<Case> cases() {
    Case line{"line", {}, {}}, grid{"heatmap", {}, {}}, bars{"bars", {}, {}};
    const QString bx = QStringLiteral("bx"), by = QStringLiteral("by");
    const QString tile = QStringLiteral("TILE"), unroll = QStringLiteral("UNROLL");
    line.spec.tunables = {tunable(unroll)};
    grid.spec.tunables = {tunable(bx), tunable(by)};
    bars.spec.tunables = {tunable(bx), tunable(tile), tunable(unroll)};
    for (int i = 0; i < kRecords; ++i) {
        line.spec.tunables[0].values.list.append(i + 1);
        line.records.append(record({unroll}, {double(i + 1)}, 1.0 + (i % 37) / 10.0));
        grid.records.append(
            record({bx, by}, {double(i % 40), double(i / 40)}, 1.0 + (i % 53) / 10.0));
        bars.records.append(record({bx, tile, unroll},
                                   {double(i % 10), double(i / 10 % 10), double(i / 100)},
                                   1.0 + i % 71));
    }
    for (int v = 0; v < 40; ++v)
        grid.spec.tunables[0].values.list.append(v);
    for (int v = 0; v < 25; ++v)
        grid.spec.tunables[1].values.list.append(v);
    for (int v = 0; v < 10; ++v)
        for (SweepTunable& t : bars.spec.tunables)
            t.values.list.append(v);
    return {line, grid, bars};
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Sweep chart redraw time (bench/chart)"));
    parser.addHelpOption();
    const QCommandLineOption runsOption(QStringLiteral("runs"),
                                        QStringLiteral("Timed redraws of each (default 5)."),
                                        QStringLiteral("n"), QStringLiteral("5"));
    parser.addOption(runsOption);
    parser.process(app);
    const int runs = std::max(1, parser.value(runsOption).toInt());

    SweepChart chart;
    chart.resize(1200, 800);
    chart.show();
    QCoreApplication::processEvents();
    bool allOk = true;
    std::printf("%d records, median of %d redraws\n", kRecords, runs);
    for (const Case& c : cases()) {
        QVector<double> ms;
        for (int r = 0; r < runs; ++r) {
            chart.setSweep(SweepSpec(), {}); // each redraw rebuilds from nothing, as the first
            QCoreApplication::processEvents();
            QElapsedTimer timer;
            timer.start();
            chart.setSweep(c.spec, c.records);
            chart.repaint();
            QCoreApplication::processEvents();
            ms.append(double(timer.nsecsElapsed()) / 1e6);
        }
        std::sort(ms.begin(), ms.end());
        const double median = ms[ms.size() / 2];
        const bool ok = median < kBudgetMs;
        allOk = allOk && ok;
        std::printf("%-8s %8.1f ms  target < %.0f ms  %s\n", c.name, median, kBudgetMs,
                    ok ? "ok" : "MISSED");
    }
    return allOk ? 0 : 1;
}
