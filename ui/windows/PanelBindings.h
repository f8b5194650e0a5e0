#pragma once
// How each editing panel of the window follows the document and the workbench: it writes its
// edits into the ProjectDocument and shows the document's changes. The result panels are views
// (ui/ResultView.h, ui/views). A binding lives as long as its panel (docs/ARCHITECTURE.md,
// "The window").

#include "ui/Workbench.h"

#include <QObject>

#include <functional>

class QComboBox;

namespace kernelpad {

class ArgumentTableView;
class CodeEditor;
class CompileOptionsPanel;
class LaunchPanel;
class PipelinePanel;

/// A WorkbenchViewer made of callbacks, owned by the panel it updates (so it goes with it).
class PanelViewer : public QObject, public WorkbenchViewer {
    Q_OBJECT
public:
    explicit PanelViewer(QObject* panel);

    std::function<void(const Workbench&)> onCleared;
    std::function<void(const Workbench&)> onDevices;
    std::function<void(const Workbench&)> onCompileStarted;
    std::function<void(const Workbench&)> onCompiled;
    std::function<void(const Workbench&)> onResources;
    std::function<void(const Workbench&)> onRunStarted;
    std::function<void(const Workbench&, const QString&, int, int)> onRunProgress;
    std::function<void(const Workbench&, const RunRecord&)> onRunFinished;
    std::function<void(const Workbench&)> onHistoryCleared;
    std::function<void(const Workbench&)> onProfileStarted;
    std::function<void(const Workbench&, const RunRecord*)> onProfileFinished;

    void workbenchCleared(const Workbench& workbench) override;
    void devicesChanged(const Workbench& workbench) override;
    void compileStarted(const Workbench& workbench) override;
    void compiled(const Workbench& workbench) override;
    void resourcesChanged(const Workbench& workbench) override;
    void runStarted(const Workbench& workbench) override;
    void runProgress(const Workbench& workbench, const QString& stage, int done,
                     int total) override;
    void runFinished(const Workbench& workbench, const RunRecord& run) override;
    void historyCleared(const Workbench& workbench) override;
    void profileStarted(const Workbench& workbench) override;
    void profileFinished(const Workbench& workbench, const RunRecord* run) override;
};

/// Creates a PanelViewer owned by `panel`; register it with Workbench::addViewer() once its
/// callbacks are set.
PanelViewer* makeViewer(QObject* panel);

namespace bind {
// Editing panels: two-way with the document.
void editor(Workbench* workbench, CodeEditor* editor);
void compileOptions(Workbench* workbench, CompileOptionsPanel* panel);
void kernelSelector(Workbench* workbench, QComboBox* selector);
void arguments(Workbench* workbench, ArgumentTableView* view);
void launch(Workbench* workbench, LaunchPanel* panel);
void pipeline(Workbench* workbench, PipelinePanel* panel);
} // namespace bind

} // namespace kernelpad
