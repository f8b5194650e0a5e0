#include "ui/windows/PanelBindings.h"
#include "ui/windows/MainWindowFormat.h"

#include "core/launch/BufferInit.h"
#include "ui/ProjectDocument.h"
#include "ui/SessionRangeFetcher.h"
#include "ui/models/ArgumentTableModel.h"
#include "ui/widgets/ArgumentTableView.h"
#include "ui/widgets/BufferViewer.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/CompileOptionsPanel.h"
#include "ui/widgets/ConsolePanel.h"
#include "ui/widgets/DiagnosticsList.h"
#include "ui/widgets/KernelItems.h"
#include "ui/widgets/LaunchPanel.h"
#include "ui/widgets/PipelinePanel.h"
#include "ui/widgets/PtxView.h"
#include "ui/widgets/ResourcesPanel.h"
#include "ui/widgets/TimingChartView.h"
#include "ui/widgets/VerificationPanel.h"

#include <QBoxLayout>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>

#include <memory>

namespace kernelpad {

PanelViewer::PanelViewer(QObject* panel)
    : QObject(panel) {}

void PanelViewer::sessionCleared(const Session& s) {
    if (onCleared)
        onCleared(s);
}
void PanelViewer::devicesChanged(const Session& s) {
    if (onDevices)
        onDevices(s);
}
void PanelViewer::compileStarted(const Session& s) {
    if (onCompileStarted)
        onCompileStarted(s);
}
void PanelViewer::compiled(const Session& s) {
    if (onCompiled)
        onCompiled(s);
}
void PanelViewer::resourcesChanged(const Session& s) {
    if (onResources)
        onResources(s);
}
void PanelViewer::runStarted(const Session& s) {
    if (onRunStarted)
        onRunStarted(s);
}
void PanelViewer::runProgress(const Session& s, const QString& stage, int done, int total) {
    if (onRunProgress)
        onRunProgress(s, stage, done, total);
}
void PanelViewer::runFinished(const Session& s, const RunRecord& run) {
    if (onRunFinished)
        onRunFinished(s, run);
}

void PanelViewer::historyCleared(const Session& s) {
    if (onHistoryCleared)
        onHistoryCleared(s);
}
void PanelViewer::profileStarted(const Session& s) {
    if (onProfileStarted)
        onProfileStarted(s);
}
void PanelViewer::profileFinished(const Session& s, const RunRecord* run) {
    if (onProfileFinished)
        onProfileFinished(s, run);
}

PanelViewer* makeViewer(QObject* panel) {
    return new PanelViewer(panel);
}

namespace {

/// Set while a binding shows the document in its panel, so that the panel's change signals
/// are not written back as edits (a panel may normalise what it is given).
class Echo {
public:
    Echo()
        : m_active(std::make_shared<bool>(false)) {}
    [[nodiscard]] bool active() const { return *m_active; }
    /// Runs `show` with the echo suppressed.
    template <typename Show> void quietly(Show show) const {
        const bool was = *m_active;
        *m_active = true;
        show();
        *m_active = was;
    }

private:
    std::shared_ptr<bool> m_active;
};

/// The project's own diagnostics and, after a sanitized run, its reports.
QVector<Diagnostic> marksOf(const RunRecord& run) {
    QVector<Diagnostic> marks = run.result.compile.diagnostics;
    for (const SanitizerReport& report : run.result.sanitizer)
        marks.push_back(report.diagnostic());
    return marks;
}

/// A pipeline project runs its steps' kernels, not the one in the kernel box (which types the
/// argument table and is what Resources and Occupancy describe): a note under the box says so.
void notePipelineKernels(QComboBox* selector, QLabel* note, const QString& plainToolTip,
                         const Project& project) {
    QStringList kernels;
    for (const PipelineStep& step : project.pipeline.steps)
        if (!kernels.contains(step.kernel))
            kernels << step.kernel;
    if (kernels.isEmpty()) {
        note->hide();
        selector->setToolTip(plainToolTip);
        return;
    }
    note->setText(QObject::tr("Run launches the pipeline: %1 (Pipeline dock). The kernel above "
                              "only types the arguments and is what Resources describes.")
                      .arg(kernels.join(QStringLiteral(" → "))));
    selector->setToolTip(note->text());
    note->show();
}

} // namespace

namespace bind {

void editor(Session* session, CodeEditor* editor) {
    ProjectDocument* document = session->document();
    const Echo echo;
    QObject::connect(editor, &QsciScintilla::textChanged, document, [=] {
        if (!echo.active())
            document->setSource(editor->text());
    });
    auto show = [=] {
        echo.quietly([&] {
            editor->clearDiagnostics();
            editor->setSourceLanguage(document->project().language);
            // setText() drops the undo history of the old project too, which is right here.
            editor->setText(document->project().source);
            editor->setModified(false);
            editor->setCursorPosition(0, 0);
        });
    };
    QObject::connect(document, &ProjectDocument::projectReplaced, editor, show);
    show();
    PanelViewer* viewer = makeViewer(editor);
    // The editor shows only its own file's messages; the diagnostics list shows every one.
    viewer->onCompiled = [=](const Session& s) {
        editor->setDiagnostics(s.lastCompile()->diagnostics, document->project().sourceName);
    };
    viewer->onRunFinished = [=](const Session&, const RunRecord& run) {
        if (run.sanitized())
            editor->setDiagnostics(marksOf(run), run.project.sourceName);
    };
    session->addViewer(viewer);
}

void compileOptions(Session* session, CompileOptionsPanel* panel) {
    ProjectDocument* document = session->document();
    const Echo echo;
    QObject::connect(panel, &CompileOptionsPanel::changed, document, [=] {
        if (!echo.active())
            document->setOptions(panel->options());
    });
    auto show = [=] {
        if (!(panel->options() == document->project().options))
            echo.quietly([&] { panel->setOptions(document->project().options); });
    };
    auto showLanguage = [=] { panel->setLanguage(document->project().language); };
    QObject::connect(document, &ProjectDocument::projectReplaced, panel, show);
    QObject::connect(document, &ProjectDocument::projectReplaced, panel, showLanguage);
    QObject::connect(document, &ProjectDocument::optionsChanged, panel, show);
    show();
    showLanguage();
    PanelViewer* viewer = makeViewer(panel);
    viewer->onDevices = [=](const Session& s) {
        const DeviceInfo* device = s.currentDevice();
        echo.quietly([&] {
            panel->setDeviceArch(device ? device->arch() : QString::fromLatin1(kDefaultArch));
        });
    };
    session->addViewer(viewer);
}

void kernelSelector(Session* session, QComboBox* selector) {
    ProjectDocument* document = session->document();
    const Echo echo;
    QObject::connect(selector, &QComboBox::currentTextChanged, document, [=](const QString& text) {
        if (!echo.active())
            document->setKernel(text);
    });
    auto showKernel = [=] {
        const QString kernel = document->project().kernel;
        if (selector->currentText().trimmed() != kernel)
            echo.quietly([&] { selector->setCurrentText(kernel); });
    };
    QObject::connect(document, &ProjectDocument::projectReplaced, selector, [=] {
        echo.quietly([&] {
            selector->clear();
            const QString kernel = document->project().kernel;
            if (!kernel.isEmpty())
                selector->addItem(kernel);
            selector->setCurrentText(kernel);
        });
    });
    QObject::connect(document, &ProjectDocument::kernelChanged, selector, showKernel);
    auto* note = new QLabel(selector->parentWidget());
    note->setObjectName(QStringLiteral("pipelineKernelNote"));
    note->setWordWrap(true);
    note->hide();
    // Below the kernel's row (MainWindowDocks.cpp puts it first in its pane).
    if (auto* pane = qobject_cast<QBoxLayout*>(note->parentWidget()->layout()))
        pane->insertWidget(1, note);
    const QString plainToolTip = selector->toolTip();
    auto showPipeline = [=] {
        notePipelineKernels(selector, note, plainToolTip, document->project());
    };
    QObject::connect(document, &ProjectDocument::projectReplaced, note, showPipeline);
    QObject::connect(document, &ProjectDocument::pipelineChanged, note, showPipeline);
    showPipeline();
    // Enter in the kernel box compiles the name typed there, e.g. a template instance.
    if (QLineEdit* line = selector->lineEdit())
        QObject::connect(line, &QLineEdit::returnPressed, session, &Session::compile);
    PanelViewer* viewer = makeViewer(selector);
    viewer->onCompiled = [=](const Session& s) {
        const CompileResult& result = *s.lastCompile();
        if (!result.ok)
            return;
        echo.quietly([&] {
            fillKernelItems(selector, result.kernels); // the lowered name beside each
            selector->setCurrentText(document->project().kernel);
        });
    };
    session->addViewer(viewer);
    echo.quietly([&] {
        selector->clear();
        if (!document->project().kernel.isEmpty())
            selector->addItem(document->project().kernel);
        selector->setCurrentText(document->project().kernel);
    });
}

void arguments(Session* session, ArgumentTableView* view) {
    ProjectDocument* document = session->document();
    const Echo echo;
    ArgumentTableModel* model = view->model();
    QObject::connect(view, &ArgumentTableView::changed, document, [=] {
        if (echo.active())
            return;
        document->setArguments(model->arguments()); // each setter ignores an unchanged value
        document->setGlobals(model->globals());
    });
    auto kernel = [=] {
        const KernelInfo* compiled = session->currentKernel();
        return compiled ? std::optional<KernelInfo>(*compiled) : std::nullopt;
    };
    auto show = [=] {
        echo.quietly([&] {
            model->setStructTypes(session->structTypes());
            model->setArguments(document->project().arguments);
            model->setGlobals(document->project().globals);
            model->setKernel(kernel());
        });
    };
    QObject::connect(document, &ProjectDocument::projectReplaced, view, show);
    QObject::connect(document, &ProjectDocument::argumentsChanged, view, [=] {
        // An edit made in this table is already shown; one made elsewhere (the kernel's
        // signature) is not.
        if (!echo.active() && !sameArguments(model->arguments(), document->project().arguments))
            show();
    });
    QObject::connect(document, &ProjectDocument::globalsChanged, view, [=] {
        if (!echo.active() && model->globals() != document->project().globals)
            echo.quietly([&] { model->setGlobals(document->project().globals); });
    });
    // The types the kernel takes are checked against the rows (a mismatch is marked).
    QObject::connect(document, &ProjectDocument::kernelChanged, view,
                     [=] { model->setKernel(kernel()); });
    PanelViewer* viewer = makeViewer(view);
    viewer->onCleared = [=](const Session&) {
        model->setKernel(std::nullopt);
        model->setModuleGlobals(std::nullopt);
    };
    viewer->onCompiled = [=](const Session& s) {
        echo.quietly([&] {
            model->setStructTypes(s.structTypes());
            model->setKernel(kernel());
            // A failed compile declares nothing: marking every global stale over a typo would
            // be noise, so the last good compile's globals stay.
            if (s.lastCompile()->ok)
                model->setModuleGlobals(s.lastCompile()->globals);
        });
    };
    session->addViewer(viewer);
    show();
}

void launch(Session* session, LaunchPanel* panel) {
    ProjectDocument* document = session->document();
    const Echo echo;
    QObject::connect(panel, &LaunchPanel::changed, document, [=] {
        if (echo.active())
            return;
        document->setLaunch(panel->config());
        document->setTiming(panel->timing());
    });
    auto showLimits = [=] { echo.quietly([&] { panel->setLimits(session->launchLimits()); }); };
    auto showCover = [=] {
        const QVector<ArgumentSpec>& args = document->project().arguments;
        echo.quietly([&] {
            panel->setCoverArguments(args); // "n/2" in the field resolves against these
            panel->setCoverCount(elementsToCover(args));
        });
    };
    auto show = [=] {
        echo.quietly([&] {
            if (!(panel->config() == document->project().launch))
                panel->setConfig(document->project().launch);
            if (!(panel->timing() == document->project().timing))
                panel->setTiming(document->project().timing);
        });
    };
    QObject::connect(document, &ProjectDocument::projectReplaced, panel, [=] {
        show();
        showCover();
        showLimits();
    });
    QObject::connect(document, &ProjectDocument::launchChanged, panel, show);
    QObject::connect(document, &ProjectDocument::timingChanged, panel, show);
    QObject::connect(document, &ProjectDocument::argumentsChanged, panel, showCover);
    QObject::connect(document, &ProjectDocument::kernelChanged, panel, showLimits);
    PanelViewer* viewer = makeViewer(panel);
    viewer->onDevices = [=](const Session&) { showLimits(); };
    viewer->onCompiled = [=](const Session&) { showLimits(); };
    viewer->onResources = [=](const Session&) { showLimits(); };
    viewer->onCleared = [=](const Session&) { showLimits(); };
    session->addViewer(viewer);
    show();
    showCover();
}

void pipeline(Session* session, PipelinePanel* panel) {
    ProjectDocument* document = session->document();
    const Echo echo;
    QObject::connect(panel, &PipelinePanel::changed, document, [=] {
        if (!echo.active())
            document->setPipeline(panel->pipeline());
    });
    auto show = [=] {
        const Project& p = document->project();
        // A first step runs what the single launch runs, over all the project's arguments.
        PipelineStep first;
        first.kernel = p.kernel;
        first.launch = p.launch;
        first.launch.cluster = {0, 0, 0};
        first.launch.cooperative = false;
        for (const ArgumentSpec& arg : p.arguments)
            first.args.append(PipelineBinding{arg.name, std::nullopt});
        echo.quietly([&] {
            if (!(panel->pipeline() == p.pipeline))
                panel->setPipeline(p.pipeline);
            panel->setTemplateStep(first);
            panel->setProblem(p.pipeline.problemWith(p.arguments));
        });
    };
    QObject::connect(document, &ProjectDocument::projectReplaced, panel, [=] {
        panel->showTiming({});
        show();
    });
    for (auto signal : {&ProjectDocument::pipelineChanged, &ProjectDocument::argumentsChanged,
                        &ProjectDocument::kernelChanged, &ProjectDocument::launchChanged})
        QObject::connect(document, signal, panel, show);
    PanelViewer* viewer = makeViewer(panel);
    viewer->onCleared = [=](const Session&) { panel->showTiming({}); };
    viewer->onRunFinished = [=](const Session&, const RunRecord& run) {
        if (!run.sanitized())
            panel->showTiming(run.result.pipeline);
    };
    session->addViewer(viewer);
    show();
}

void diagnostics(Session* session, DiagnosticsList* list) {
    ProjectDocument* document = session->document();
    PanelViewer* viewer = makeViewer(list);
    viewer->onCleared = [=](const Session&) { list->clearDiagnostics(); };
    viewer->onCompiled = [=](const Session& s) {
        list->setDiagnostics(s.lastCompile()->diagnostics, document->project().sourceName);
    };
    viewer->onRunFinished = [=](const Session&, const RunRecord& run) {
        if (run.sanitized())
            list->setDiagnostics(marksOf(run), run.project.sourceName);
    };
    session->addViewer(viewer);
}

void ptx(Session* session, PtxView* view) {
    PanelViewer* viewer = makeViewer(view);
    viewer->onCleared = [=](const Session&) { view->clear(); };
    // A failed compile keeps the last good PTX, marked stale.
    viewer->onCompiled = [=](const Session& s) { view->showCompile(*s.lastCompile()); };
    session->addViewer(viewer);
}

void programLog(Session* session, QPlainTextEdit* log) {
    PanelViewer* viewer = makeViewer(log);
    viewer->onCleared = [=](const Session&) { log->clear(); };
    viewer->onCompiled = [=](const Session& s) {
        const CompileResult& result = *s.lastCompile();
        QStringList header;
        header << (result.compiler.isEmpty() // PTX and NVVM IR name their own tools
                       ? QObject::tr("NVRTC %1, %2").arg(result.nvrtcVersion, result.arch)
                       : QObject::tr("%1, %2").arg(result.compiler, result.arch));
        if (!result.flags.isEmpty())
            header << QObject::tr("Flags: %1").arg(result.flags.join(QLatin1Char(' ')));
        header << (result.ok ? QObject::tr("Compiled in %1%2")
                                   .arg(formatDurationMs(result.compileMs),
                                        result.cacheHit ? QObject::tr(" (cache)") : QString())
                             : QObject::tr("Compile failed: %1")
                                   .arg(DiagnosticsList::summaryOf(result.diagnostics)));
        if (result.compilerMissing) // the message names the library and what to do
            header << result.error;
        else if (!result.error.isEmpty())
            header << QObject::tr("NVRTC could not run: %1").arg(result.error);
        log->setPlainText(header.join(QLatin1Char('\n')) + QStringLiteral("\n\n") +
                          (result.log.isEmpty() ? QObject::tr("(empty program log)") : result.log));
    };
    viewer->onRunFinished = [=](const Session&, const RunRecord& run) {
        const RunResult& result = run.result;
        if (run.sanitized()) {
            log->appendPlainText(QStringLiteral("\n") + sanitizerSummary(result));
            for (const SanitizerReport& report : result.sanitizer)
                log->appendPlainText(report.message());
            if (!result.sanitizerNote.isEmpty())
                log->appendPlainText(result.sanitizerNote);
        } else if (result.status != RunStatus::Ok && !result.error.isEmpty()) {
            log->appendPlainText(QStringLiteral("\n") + runEndedMessage(result));
        }
    };
    session->addViewer(viewer);
}

void resources(Session* session, ResourcesPanel* panel) {
    // Without a device no driver figures follow: show what the compile knows.
    auto showCompile = [=] {
        if (session->lastCompile() && !session->currentDevice())
            panel->showCompileInfo(*session->lastCompile(), session->document()->project().kernel);
    };
    QObject::connect(session->document(), &ProjectDocument::kernelChanged, panel, showCompile);
    PanelViewer* viewer = makeViewer(panel);
    viewer->onCleared = [=](const Session&) { panel->clear(); };
    viewer->onCompiled = [=](const Session&) { showCompile(); };
    viewer->onResources = [=](const Session& s) {
        if (const DeviceInfo* device = s.currentDevice())
            panel->showResources(s.resourcesKernel(), *s.kernelResources(), *device,
                                 s.document()->project().launch);
    };
    viewer->onRunFinished = [=](const Session&, const RunRecord& run) {
        const RunResult& result = run.result;
        if (!run.sanitized() && result.status != RunStatus::CompileError &&
            !result.device.name.isEmpty())
            panel->showResources(run.project.kernel, result.resources, result.device,
                                 result.launch);
    };
    session->addViewer(viewer);
}

void timing(Session* session, TimingChartView* chart) {
    PanelViewer* viewer = makeViewer(chart);
    viewer->onCleared = [=](const Session&) { chart->clearHistory(); };
    viewer->onHistoryCleared = viewer->onCleared;
    viewer->onDevices = [=](const Session& s) {
        chart->setPeakBandwidthGBs(s.currentDevice() ? s.currentDevice()->peakBandwidthGBs() : 0.0);
    };
    // Times under a sanitizer mean nothing: the chart and its history are left alone.
    viewer->onRunFinished = [=](const Session&, const RunRecord& run) {
        if (!run.sanitized())
            chart->showRun(run.result, run.changes, run.serial);
    };
    session->addViewer(viewer);
    // The baseline is pinned from the chart's context menu or Build ▸ Set as Baseline.
    QObject::connect(chart, &TimingChartView::baselineRequested, session, &Session::setBaseline);
    QObject::connect(chart, &TimingChartView::baselineClearRequested, session,
                     &Session::clearBaseline);
    QObject::connect(session, &Session::baselineChanged, chart, [=] {
        chart->setBaseline(session->baselineRun() ? session->baselineRun()->serial : 0);
    });
}

void verification(Session* session, VerificationPanel* panel) {
    PanelViewer* viewer = makeViewer(panel);
    viewer->onCleared = [=](const Session&) { panel->clear(); };
    viewer->onRunFinished = [=](const Session&, const RunRecord& run) {
        panel->showResult(run.result);
    };
    session->addViewer(viewer);
}

void buffers(Session* session, BufferViewer* buffers) {
    buffers->setRangeFetcher(new SessionRangeFetcher(session, buffers));
    PanelViewer* viewer = makeViewer(buffers);
    viewer->onCleared = [=](const Session&) { buffers->clear(); };
    viewer->onRunFinished = [=](const Session& s, const RunRecord& run) {
        // Only the newest run keeps its outputs (Session::history()).
        if (!run.sanitized() && &run == &s.history().constLast())
            buffers->setOutputs(run.result.outputs);
    };
    session->addViewer(viewer);
}

void console(Session* session, ConsolePanel* panel) {
    PanelViewer* viewer = makeViewer(panel);
    viewer->onCleared = [=](const Session&) { panel->clear(); };
    viewer->onRunFinished = [=](const Session&, const RunRecord& run) {
        if (run.result.status != RunStatus::CompileError)
            panel->showRun(run.project.kernel, run.result.console, run.finishedAt);
    };
    session->addViewer(viewer);
}

} // namespace bind

} // namespace kernelpad
