#include "ui/windows/PanelBindings.h"

#include "core/launch/BufferInit.h"
#include "ui/ProjectDocument.h"
#include "ui/models/ArgumentTableModel.h"
#include "ui/views/DiagnosticsView.h"
#include "ui/widgets/ArgumentTableView.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/CompileOptionsPanel.h"
#include "ui/widgets/KernelItems.h"
#include "ui/widgets/LaunchPanel.h"
#include "ui/widgets/PipelinePanel.h"

#include <QBoxLayout>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>

#include <memory>

namespace kernelpad {

PanelViewer::PanelViewer(QObject* panel)
    : QObject(panel) {}

void PanelViewer::workbenchCleared(const Workbench& s) {
    if (onCleared)
        onCleared(s);
}
void PanelViewer::devicesChanged(const Workbench& s) {
    if (onDevices)
        onDevices(s);
}
void PanelViewer::compileStarted(const Workbench& s) {
    if (onCompileStarted)
        onCompileStarted(s);
}
void PanelViewer::compiled(const Workbench& s) {
    if (onCompiled)
        onCompiled(s);
}
void PanelViewer::resourcesChanged(const Workbench& s) {
    if (onResources)
        onResources(s);
}
void PanelViewer::runStarted(const Workbench& s) {
    if (onRunStarted)
        onRunStarted(s);
}
void PanelViewer::runProgress(const Workbench& s, const QString& stage, int done, int total) {
    if (onRunProgress)
        onRunProgress(s, stage, done, total);
}
void PanelViewer::runFinished(const Workbench& s, const RunRecord& run) {
    if (onRunFinished)
        onRunFinished(s, run);
}

void PanelViewer::historyCleared(const Workbench& s) {
    if (onHistoryCleared)
        onHistoryCleared(s);
}
void PanelViewer::profileStarted(const Workbench& s) {
    if (onProfileStarted)
        onProfileStarted(s);
}
void PanelViewer::profileFinished(const Workbench& s, const RunRecord* run) {
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

void editor(Workbench* workbench, CodeEditor* editor) {
    ProjectDocument* document = workbench->document();
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
    viewer->onCompiled = [=](const Workbench& s) {
        editor->setDiagnostics(s.lastCompile()->diagnostics, document->project().sourceName);
    };
    viewer->onRunFinished = [=](const Workbench&, const RunRecord& run) {
        if (run.sanitized())
            editor->setDiagnostics(diagnosticMarks(run), run.project.sourceName);
    };
    workbench->addViewer(viewer);
}

void compileOptions(Workbench* workbench, CompileOptionsPanel* panel) {
    ProjectDocument* document = workbench->document();
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
    viewer->onDevices = [=](const Workbench& s) {
        const DeviceInfo* device = s.currentDevice();
        echo.quietly([&] {
            panel->setDeviceArch(device ? device->arch() : QString::fromLatin1(kDefaultArch));
        });
    };
    workbench->addViewer(viewer);
}

void kernelSelector(Workbench* workbench, QComboBox* selector) {
    ProjectDocument* document = workbench->document();
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
        QObject::connect(line, &QLineEdit::returnPressed, workbench, &Workbench::compile);
    PanelViewer* viewer = makeViewer(selector);
    viewer->onCompiled = [=](const Workbench& s) {
        const CompileResult& result = *s.lastCompile();
        if (!result.ok)
            return;
        echo.quietly([&] {
            fillKernelItems(selector, result.kernels); // the lowered name beside each
            selector->setCurrentText(document->project().kernel);
        });
    };
    workbench->addViewer(viewer);
    echo.quietly([&] {
        selector->clear();
        if (!document->project().kernel.isEmpty())
            selector->addItem(document->project().kernel);
        selector->setCurrentText(document->project().kernel);
    });
}

void arguments(Workbench* workbench, ArgumentTableView* view) {
    ProjectDocument* document = workbench->document();
    const Echo echo;
    ArgumentTableModel* model = view->model();
    QObject::connect(view, &ArgumentTableView::changed, document, [=] {
        if (echo.active())
            return;
        document->setArguments(model->arguments()); // each setter ignores an unchanged value
        document->setGlobals(model->globals());
    });
    auto kernel = [=] {
        const KernelInfo* compiled = workbench->currentKernel();
        return compiled ? std::optional<KernelInfo>(*compiled) : std::nullopt;
    };
    auto show = [=] {
        echo.quietly([&] {
            model->setStructTypes(workbench->structTypes());
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
    viewer->onCleared = [=](const Workbench&) {
        model->setKernel(std::nullopt);
        model->setModuleGlobals(std::nullopt);
    };
    viewer->onCompiled = [=](const Workbench& s) {
        echo.quietly([&] {
            model->setStructTypes(s.structTypes());
            model->setKernel(kernel());
            // A failed compile declares nothing: marking every global stale over a typo would
            // be noise, so the last good compile's globals stay.
            if (s.lastCompile()->ok)
                model->setModuleGlobals(s.lastCompile()->globals);
        });
    };
    workbench->addViewer(viewer);
    show();
}

void launch(Workbench* workbench, LaunchPanel* panel) {
    ProjectDocument* document = workbench->document();
    const Echo echo;
    QObject::connect(panel, &LaunchPanel::changed, document, [=] {
        if (echo.active())
            return;
        document->setLaunch(panel->config());
        document->setTiming(panel->timing());
    });
    auto showLimits = [=] { echo.quietly([&] { panel->setLimits(workbench->launchLimits()); }); };
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
    viewer->onDevices = [=](const Workbench&) { showLimits(); };
    viewer->onCompiled = [=](const Workbench&) { showLimits(); };
    viewer->onResources = [=](const Workbench&) { showLimits(); };
    viewer->onCleared = [=](const Workbench&) { showLimits(); };
    workbench->addViewer(viewer);
    show();
    showCover();
}

void pipeline(Workbench* workbench, PipelinePanel* panel) {
    ProjectDocument* document = workbench->document();
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
    viewer->onCleared = [=](const Workbench&) { panel->showTiming({}); };
    viewer->onRunFinished = [=](const Workbench&, const RunRecord& run) {
        if (!run.sanitized())
            panel->showTiming(run.result.pipeline);
    };
    workbench->addViewer(viewer);
    show();
}

} // namespace bind

} // namespace kernelpad
