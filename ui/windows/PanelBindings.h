#pragma once
// How each panel of the window follows the document and the workbench: the editing panels write
// their edits into the ProjectDocument and show its changes; the result panels are
// WorkbenchViewers. A binding lives as long as its panel (docs/ARCHITECTURE.md, "The window").

#include "ui/Workbench.h"

#include <QObject>

#include <functional>

class QComboBox;
class QTabWidget;
class QPlainTextEdit;

namespace kernelpad {

class ArgumentTableView;
class BufferViewer;
class CodeEditor;
class CompileOptionsPanel;
class ConsolePanel;
class DiagnosticsList;
class FaultBanner;
class LaunchPanel;
class PipelinePanel;
class OccupancyView;
class ProfilePanel;
class PtxView;
class ResourcesPanel;
class SassView;
class CompileDiffView;
class TimingChartView;
class VerificationPanel;
class VersionsPanel;
class SweepPanel;

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
// Result panels: viewers of the workbench.
void diagnostics(Workbench* workbench, DiagnosticsList* list);
void ptx(Workbench* workbench, PtxView* view);
/// The SASS (asked of the Engine after a successful compile, while the view is shown) and the
/// source <-> PTX <-> SASS line matching between the editor, the PTX and the SASS
/// (SassBinding.cpp).
void sass(Workbench* workbench, SassView* view, CodeEditor* editor, PtxView* ptx);
/// The fault banner (FaultBinding.cpp): a kernel fault's explanation, the memcheck run that
/// finds its line (offered, or started at once with Preferences::memcheckAfterFault), what it
/// found, and the editor's cursor moved to that line.
void fault(Workbench* workbench, FaultBanner* banner, CodeEditor* editor);
/// The diff view follows the workbench's compiles through a CompileHistory it owns
/// (DiffBinding.cpp).
void compileDiff(Workbench* workbench, CompileDiffView* view);
/// The Versions tab (VersionsBinding.cpp): runs become versions, kept per project file;
/// Restore writes one into `editor` and the document, PTX/SASS Diff shows `diff` in `tabs`.
void versions(Workbench* workbench, VersionsPanel* panel, CodeEditor* editor, CompileDiffView* diff,
              QTabWidget* tabs);
void programLog(Workbench* workbench, QPlainTextEdit* log);
void resources(Workbench* workbench, ResourcesPanel* panel);
/// The occupancy curves of the project's kernel at its launch, following compiles, the
/// driver's figures, the device and edits of the launch (OccupancyBinding.cpp).
void occupancy(Workbench* workbench, OccupancyView* view);
void timing(Workbench* workbench, TimingChartView* chart);
void verification(Workbench* workbench, VerificationPanel* panel);
void buffers(Workbench* workbench, BufferViewer* viewer);
void console(Workbench* workbench, ConsolePanel* panel);
/// The Profile tab, the editor's profile margin and the roofline follow the workbench's
/// profiles; the tab's list picks which run's profile they show (ProfileBinding.cpp).
void profile(Workbench* workbench, ProfilePanel* panel, CodeEditor* editor);
/// The Sweep dock (SweepBinding.cpp).
void sweep(Workbench* workbench, SweepPanel* panel);
} // namespace bind

} // namespace kernelpad
