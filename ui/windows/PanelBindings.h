#pragma once
// How each panel of the window follows the document and the session: the editing panels write
// their edits into the ProjectDocument and show its changes; the result panels are
// SessionViewers. A binding lives as long as its panel (docs/ARCHITECTURE.md, "The window").

#include "ui/Session.h"

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

/// A SessionViewer made of callbacks, owned by the panel it updates (so it goes with it).
class PanelViewer : public QObject, public SessionViewer {
    Q_OBJECT
public:
    explicit PanelViewer(QObject* panel);

    std::function<void(const Session&)> onCleared;
    std::function<void(const Session&)> onDevices;
    std::function<void(const Session&)> onCompileStarted;
    std::function<void(const Session&)> onCompiled;
    std::function<void(const Session&)> onResources;
    std::function<void(const Session&)> onRunStarted;
    std::function<void(const Session&, const QString&, int, int)> onRunProgress;
    std::function<void(const Session&, const RunRecord&)> onRunFinished;
    std::function<void(const Session&)> onHistoryCleared;
    std::function<void(const Session&)> onProfileStarted;
    std::function<void(const Session&, const RunRecord*)> onProfileFinished;

    void sessionCleared(const Session& session) override;
    void devicesChanged(const Session& session) override;
    void compileStarted(const Session& session) override;
    void compiled(const Session& session) override;
    void resourcesChanged(const Session& session) override;
    void runStarted(const Session& session) override;
    void runProgress(const Session& session, const QString& stage, int done, int total) override;
    void runFinished(const Session& session, const RunRecord& run) override;
    void historyCleared(const Session& session) override;
    void profileStarted(const Session& session) override;
    void profileFinished(const Session& session, const RunRecord* run) override;
};

/// Creates a PanelViewer owned by `panel`; register it with Session::addViewer() once its
/// callbacks are set.
PanelViewer* makeViewer(QObject* panel);

namespace bind {
// Editing panels: two-way with the document.
void editor(Session* session, CodeEditor* editor);
void compileOptions(Session* session, CompileOptionsPanel* panel);
void kernelSelector(Session* session, QComboBox* selector);
void arguments(Session* session, ArgumentTableView* view);
void launch(Session* session, LaunchPanel* panel);
void pipeline(Session* session, PipelinePanel* panel);
// Result panels: viewers of the session.
void diagnostics(Session* session, DiagnosticsList* list);
void ptx(Session* session, PtxView* view);
/// The SASS (asked of the Engine after a successful compile, while the view is shown) and the
/// source <-> PTX <-> SASS line matching between the editor, the PTX and the SASS
/// (SassBinding.cpp).
void sass(Session* session, SassView* view, CodeEditor* editor, PtxView* ptx);
/// The fault banner (FaultBinding.cpp): a kernel fault's explanation, the memcheck run that
/// finds its line (offered, or started at once with Preferences::memcheckAfterFault), what it
/// found, and the editor's cursor moved to that line.
void fault(Session* session, FaultBanner* banner, CodeEditor* editor);
/// The diff view follows the session's compiles through a CompileHistory it owns
/// (DiffBinding.cpp).
void compileDiff(Session* session, CompileDiffView* view);
/// The Versions tab (VersionsBinding.cpp): runs become versions, kept per project file;
/// Restore writes one into `editor` and the document, PTX/SASS Diff shows `diff` in `tabs`.
void versions(Session* session, VersionsPanel* panel, CodeEditor* editor, CompileDiffView* diff,
              QTabWidget* tabs);
void programLog(Session* session, QPlainTextEdit* log);
void resources(Session* session, ResourcesPanel* panel);
/// The occupancy curves of the project's kernel at its launch, following compiles, the
/// driver's figures, the device and edits of the launch (OccupancyBinding.cpp).
void occupancy(Session* session, OccupancyView* view);
void timing(Session* session, TimingChartView* chart);
void verification(Session* session, VerificationPanel* panel);
void buffers(Session* session, BufferViewer* viewer);
void console(Session* session, ConsolePanel* panel);
/// The Profile tab, the editor's profile margin and the roofline follow the session's
/// profiles; the tab's list picks which run's profile they show (ProfileBinding.cpp).
void profile(Session* session, ProfilePanel* panel, CodeEditor* editor);
/// The Sweep dock (SweepBinding.cpp).
void sweep(Session* session, SweepPanel* panel);
} // namespace bind

} // namespace kernelpad
