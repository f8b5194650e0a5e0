// bench/live: live mode's loop, keystroke pause -> verified result on screen, for SAXPY with
// n = 1M (at most 60 ms after the debounce, NVRTC included). The window's own
// Workbench and Engine drive it without a window: each edit appends a distinct comment (so the
// compile cache cannot answer and NVRTC runs), live mode's 300 ms pause ends in a compile, the
// compile in a run in the warm runner, and the run in a TimingChartView drawn offscreen. The
// time counted runs from the end of the pause (the compile starting) to the chart having
// shown the verified result.
//
//   live_bench [--edits N] [--limit-ms MS] [--examples DIR] [--json]
//
// Exit status: 0 when the median is within the limit, 1 over it or when a run failed or was
// not verified, 3 without a driver or a device, 4 on bad arguments.

#include "core/engine/Engine.h"
#include "core/io/Trace.h"
#include "core/project/Project.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/widgets/TimingChartView.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTextStream>

#include <algorithm>
#include <cstdio>

using namespace kernelpad;

namespace {

constexpr int kDefaultEdits = 20;
constexpr double kDefaultLimitMs = 60;
constexpr int kAnswerTimeoutMs = 60000;
constexpr qint64 kElements = 1 << 20;
constexpr int kBlock = 256;

/// Times the pause's end (compileStarted after an edit) and the result shown (runFinished,
/// after the chart has drawn it).
class Stopwatch : public WorkbenchViewer {
public:
    explicit Stopwatch(TimingChartView* chart)
        : m_chart(chart) {
        m_clock.start();
    }
    void compileStarted(const Workbench&) override {
        if (armed && pauseEndedMs < 0)
            pauseEndedMs = m_clock.nsecsElapsed() / 1e6;
    }
    void runFinished(const Workbench&, const RunRecord& run) override {
        m_chart->showRun(run.result, run.changes, run.serial);
        kernelpad::tracePhase("bench: chart updated");
        m_chart->repaint(); // on screen: drawn now, not at the next idle moment
        kernelpad::tracePhase("bench: chart drawn");
        shownMs = m_clock.nsecsElapsed() / 1e6;
        last = &run;
    }
    void arm() {
        armed = true;
        pauseEndedMs = -1;
        shownMs = -1;
        last = nullptr;
    }

    bool armed = false;
    double pauseEndedMs = -1;
    double shownMs = -1;
    const RunRecord* last = nullptr;

private:
    TimingChartView* m_chart;
    QElapsedTimer m_clock;
};

double median(QVector<double> v) {
    std::sort(v.begin(), v.end());
    const qsizetype n = v.size();
    return n == 0 ? 0 : n % 2 ? v.at(n / 2) : 0.5 * (v.at(n / 2 - 1) + v.at(n / 2));
}

bool waitForRun(Workbench& workbench, Stopwatch& watch) {
    QSignalSpy shown(&workbench, &Workbench::runShown);
    while (!watch.last)
        if (!shown.wait(kAnswerTimeoutMs))
            return false;
    return true;
}

} // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QTextStream out(stdout);
    int edits = kDefaultEdits;
    double limitMs = kDefaultLimitMs;
    QString examples =
        qEnvironmentVariable("KERNELPAD_EXAMPLES", QStringLiteral("resources/examples"));
    bool json = false;
    const QStringList args = app.arguments();
    for (int i = 1; i < args.size(); ++i) {
        const QString& a = args.at(i);
        bool ok = true;
        if (a == QLatin1String("--edits") && i + 1 < args.size())
            edits = args.at(++i).toInt(&ok);
        else if (a == QLatin1String("--limit-ms") && i + 1 < args.size())
            limitMs = args.at(++i).toDouble(&ok);
        else if (a == QLatin1String("--examples") && i + 1 < args.size())
            examples = args.at(++i);
        else if (a == QLatin1String("--json"))
            json = true;
        else
            ok = false;
        if (!ok || edits < 1) {
            std::fprintf(stderr,
                         "live_bench: bad argument '%s' (usage: live_bench [--edits N] "
                         "[--limit-ms MS] [--examples DIR] [--json])\n",
                         qPrintable(a));
            return 4;
        }
    }

    QString error;
    std::optional<Project> project =
        Project::load(examples + QStringLiteral("/saxpy.kpad"), &error);
    if (!project) {
        std::fprintf(stderr, "live_bench: %s\n", qPrintable(error));
        return 4;
    }
    for (ArgumentSpec& a : project->arguments)
        if (a.name == QLatin1String("n"))
            a.value = QString::number(kElements);
    project->launch.grid = {int(kElements / kBlock), 1, 1};
    project->launch.block = {kBlock, 1, 1};

    Engine engine;
    ProjectDocument document;
    Workbench workbench(&engine, &document);
    QSignalSpy devices(&engine, &Engine::devicesChanged);
    if (!workbench.devicesKnown() && !devices.wait(kAnswerTimeoutMs)) {
        std::fprintf(stderr, "live_bench: the Engine did not list the devices\n");
        return 3;
    }
    if (workbench.devices().isEmpty()) {
        std::fprintf(stderr, "live_bench: no CUDA device: %s\n",
                     qPrintable(workbench.driverError()));
        return 3;
    }
    TimingChartView chart;
    chart.resize(900, 400);
    chart.show();
    Stopwatch watch(&chart);
    workbench.addViewer(&watch);
    document.replace(*project, QString(), examples);

    // The first live run starts the runner and uploads the inputs: not counted.
    workbench.setLiveMode(true);
    if (!waitForRun(workbench, watch)) {
        std::fprintf(stderr, "live_bench: the first live run never answered\n");
        return 1;
    }
    const QString base = document.project().source;
    QVector<double> latencies;
    QJsonArray rows;
    bool allVerified = true;
    for (int i = 1; i <= edits; ++i) {
        watch.arm();
        document.setSource(base + QStringLiteral("// edit %1\n").arg(i));
        if (!waitForRun(workbench, watch) || watch.pauseEndedMs < 0) {
            std::fprintf(stderr, "live_bench: edit %d never answered\n", i);
            return 1;
        }
        const RunResult& r = watch.last->result;
        const bool verified = r.status == RunStatus::Ok && r.verified();
        allVerified = allVerified && verified;
        const double ms = watch.shownMs - watch.pauseEndedMs;
        latencies.append(ms);
        rows.append(QJsonObject{{QStringLiteral("edit"), i},
                                {QStringLiteral("pauseToShownMs"), ms},
                                {QStringLiteral("compileMs"), r.compile.compileMs},
                                {QStringLiteral("compileCacheHit"), r.compile.cacheHit},
                                {QStringLiteral("samples"), r.timing.reps()},
                                {QStringLiteral("medianKernelMs"), r.timing.medianMs},
                                {QStringLiteral("stopReason"), r.timing.stopReason},
                                {QStringLiteral("verified"), verified},
                                {QStringLiteral("status"), runStatusName(r.status)}});
        if (!json)
            out << QStringLiteral("edit %1: %2 ms from the pause to the result shown (compile "
                                  "%3 ms%4, %5 samples, %6, %7)\n")
                       .arg(i)
                       .arg(ms, 0, 'f', 1)
                       .arg(r.compile.compileMs, 0, 'f', 1)
                       .arg(r.compile.cacheHit ? QStringLiteral(" cache hit") : QString())
                       .arg(r.timing.reps())
                       .arg(r.timing.stopReason)
                       .arg(verified ? QStringLiteral("verified") : runStatusName(r.status));
    }
    const double med = median(latencies);
    const double lo = *std::min_element(latencies.cbegin(), latencies.cend());
    const double hi = *std::max_element(latencies.cbegin(), latencies.cend());
    const bool pass = allVerified && med <= limitMs;
    if (json) {
        out << QJsonDocument(QJsonObject{{QStringLiteral("elements"), kElements},
                                         {QStringLiteral("debounceMs"), Workbench::kLiveDelayMs},
                                         {QStringLiteral("medianMs"), med},
                                         {QStringLiteral("minMs"), lo},
                                         {QStringLiteral("maxMs"), hi},
                                         {QStringLiteral("limitMs"), limitMs},
                                         {QStringLiteral("allVerified"), allVerified},
                                         {QStringLiteral("pass"), pass},
                                         {QStringLiteral("edits"), rows}})
                   .toJson(QJsonDocument::Indented);
    } else {
        out << QStringLiteral("live mode, SAXPY n = %1: pause -> verified result shown: median "
                              "%2 ms (min %3, max %4) over %5 edits; limit %6 ms: %7\n")
                   .arg(kElements)
                   .arg(med, 0, 'f', 1)
                   .arg(lo, 0, 'f', 1)
                   .arg(hi, 0, 'f', 1)
                   .arg(edits)
                   .arg(limitMs, 0, 'f', 0)
                   .arg(pass ? QStringLiteral("PASS") : QStringLiteral("FAIL"));
    }
    out.flush();
    workbench.removeViewer(&watch);
    return pass ? 0 : 1;
}
