#include "SassWindowTiming.h"

#include "core/compile/Sass.h"
#include "core/compile/SassCache.h"
#include "core/compile/SassLiveRanges.h"
#include "core/engine/Engine.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/views/SassResultView.h"
#include "ui/widgets/SassView.h"

#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QProcess>
#include <QTemporaryFile>
#include <QTimer>

namespace kernelpad {

namespace {

constexpr int kAnswerTimeoutMs = 120000;

/// Notes when a compile's answer reaches the viewers: added before the SASS view, so it hears
/// it first, before the view asks for the disassembly.
class CompileClock : public WorkbenchViewer {
public:
    void compiled(const Workbench& workbench) override {
        if (armed && workbench.lastCompile() && finishedNs < 0)
            finishedNs = clock.nsecsElapsed();
    }
    QElapsedTimer clock;
    bool armed = false;
    qint64 finishedNs = -1;
};

} // namespace

struct WindowBench::Parts {
    Engine* engine = nullptr;
    ProjectDocument document;
    Workbench workbench;
    CompileClock stopwatch;
    SassResultView* view; ///< a child of its widget, as the window's ViewRegistry makes it
    std::unique_ptr<QWidget> widget;
    QString source;

    explicit Parts(Engine* e)
        : engine(e)
        , workbench(e, &document)
        , view(new SassResultView(ViewContext{&workbench, nullptr, nullptr}, nullptr))
        , widget(view->widget()) {
        view->setParent(widget.get());
    }
};

WindowBench::WindowBench(Engine* engine, const Project& project, const QString& directory)
    : d(std::make_unique<Parts>(engine)) {
    d->workbench.setCompileWhileTyping(false);
    d->workbench.addViewer(&d->stopwatch);
    d->workbench.addViewer(d->view);
    d->document.replace(project, QString(), directory);
    d->source = project.source;
    // Shown as the tab is when the user looks at it: from now on compiles carry -lineinfo
    // and each one is disassembled as it comes back.
    d->widget->resize(900, 600);
    d->widget->show();
    d->stopwatch.clock.start();
}

WindowBench::~WindowBench() {
    d->workbench.removeViewer(d->view);
    d->workbench.removeViewer(&d->stopwatch);
}

std::optional<WindowSample> WindowBench::edit(const QString& tag, QString* error) {
    const QString comment = d->document.project().language == SourceLanguage::Nvvm
                                ? QStringLiteral("\n; %1\n")
                                : QStringLiteral("\n// %1\n");
    d->document.setSource(d->source + comment.arg(tag));
    // A comment leaves the CUBIN as it was: without this SassCache would answer, and what is
    // measured is the first disassembly of new code.
    SassCache::instance().clear();
    WindowSample sample;
    qint64 listedNs = -1;
    qint64 readyNs = -1;
    auto* sassView = qobject_cast<SassView*>(d->widget.get());
    QEventLoop loop;
    // Connected after the view's own connections: these run once the view has shown the text.
    const QMetaObject::Connection listed = QObject::connect(
        d->engine, &Engine::sassListed, &loop, [&](quint64, const SassReport& report) {
            if (listedNs < 0 && sassView->report().sass.listing.text == report.sass.listing.text &&
                d->workbench.lastCompile() && report.compile.ptx == d->workbench.lastCompile()->ptx)
                listedNs = d->stopwatch.clock.nsecsElapsed();
        });
    const QMetaObject::Connection ready = QObject::connect(
        d->engine, &Engine::sassReady, &loop, [&](quint64, const SassReport& report) {
            if (d->stopwatch.finishedNs < 0 || !d->workbench.lastCompile() ||
                report.compile.ptx != d->workbench.lastCompile()->ptx || report.sass.cancelled)
                return;
            readyNs = d->stopwatch.clock.nsecsElapsed();
            sample.report = report;
            loop.quit();
        });
    d->stopwatch.armed = true;
    d->stopwatch.finishedNs = -1;
    d->workbench.compile();
    QTimer::singleShot(kAnswerTimeoutMs, &loop, &QEventLoop::quit);
    loop.exec();
    QObject::disconnect(listed);
    QObject::disconnect(ready);
    d->stopwatch.armed = false;
    if (!d->workbench.lastCompile() || !d->workbench.lastCompile()->ok) {
        *error = QStringLiteral("does not compile: %1")
                     .arg(d->workbench.lastCompile() ? d->workbench.lastCompile()->error
                                                     : QStringLiteral("no answer"));
        return std::nullopt;
    }
    if (readyNs < 0 || d->stopwatch.finishedNs < 0) {
        *error = QStringLiteral("no SASS within %1 s of the compile").arg(kAnswerTimeoutMs / 1000);
        return std::nullopt;
    }
    if (!sample.report.ok()) {
        *error = sample.report.sass.error;
        return std::nullopt;
    }
    // A cache hit shows the text with the report: no separate listing signal.
    if (listedNs < 0)
        listedNs = readyNs;
    sample.listedMs = double(listedNs - d->stopwatch.finishedNs) / 1e6;
    sample.readyMs = double(readyNs - d->stopwatch.finishedNs) / 1e6;
    return sample;
}

std::optional<BareSample> timeBareNvdisasm(const QString& nvdisasm, const QByteArray& cubin,
                                           QString* error) {
    QTemporaryFile file(QDir::tempPath() + QStringLiteral("/sass_bench-XXXXXX.cubin"));
    QTemporaryFile lifeOutput(QDir::tempPath() + QStringLiteral("/sass_bench-XXXXXX.life"));
    if (!file.open() || file.write(cubin) != cubin.size() || !file.flush() || !lifeOutput.open()) {
        *error = QStringLiteral("cannot write the CUBIN to %1").arg(file.fileName());
        return std::nullopt;
    }
    QElapsedTimer clock;
    clock.start();
    // As disassembleCubin() starts them: the life ranges into a file, the listing through a
    // pipe with the same flags (-c -gi -ndf).
    QProcess life;
    life.setProcessChannelMode(QProcess::MergedChannels);
    life.setStandardOutputFile(lifeOutput.fileName());
    life.start(nvdisasm, liveRangeArguments(file.fileName()));
    QProcess listing;
    listing.start(nvdisasm, {QStringLiteral("-c"), QStringLiteral("-gi"), QStringLiteral("-ndf"),
                             file.fileName()});
    QByteArray out;
    while (listing.state() != QProcess::NotRunning) {
        listing.waitForReadyRead(kNvdisasmTimeoutMs);
        out += listing.readAllStandardOutput();
    }
    BareSample sample;
    sample.listingMs = double(clock.nsecsElapsed()) / 1e6;
    const bool lifeEnded = life.waitForFinished(kNvdisasmTimeoutMs);
    sample.bothMs = std::max(sample.listingMs, double(clock.nsecsElapsed()) / 1e6);
    if (listing.exitStatus() != QProcess::NormalExit || listing.exitCode() != 0 || !lifeEnded ||
        life.exitCode() != 0 || out.isEmpty()) {
        *error = QStringLiteral("bare %1 failed on the CUBIN (listing exit %2, life ranges exit "
                                "%3)")
                     .arg(nvdisasm)
                     .arg(listing.exitCode())
                     .arg(life.exitCode());
        return std::nullopt;
    }
    return sample;
}

} // namespace kernelpad
