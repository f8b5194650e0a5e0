#pragma once
// A result panel as the window knows it: one class per panel (ui/views), registered with the
// window's ViewRegistry by an id, a title and a place, created when its tab or dock is first
// shown and told every Workbench event after that (docs/ARCHITECTURE.md, "The window"). The view
// holds the panel's logic; its widget only draws; the Workbench talks to the Engine.

#include "ui/Workbench.h"

#include <QObject>

class QTabWidget;
class QWidget;

namespace kernelpad {

class CodeEditor;

/// What a view may need besides the Workbench when it is made.
struct ViewContext {
    Workbench* workbench = nullptr;
    /// The editor, for views that mark its lines or move its cursor.
    CodeEditor* editor = nullptr;
    /// The result tabs, for views that bring another tab to the front.
    QTabWidget* resultTabs = nullptr;
};

/// The events a result panel reacts to: the Workbench's (WorkbenchViewer: project cleared,
/// devices, compile, resources, runs, profiles; the current state is replayed when the view is
/// made, so a view made late shows the same as one made first) and the edits of the project
/// that change what is shown without a compile. Every call has a default that ignores it.
class ResultView : public QObject, public WorkbenchViewer {
    Q_OBJECT
public:
    /// The parts of the project whose edits views follow between compiles.
    enum class ProjectPart { Kernel, Launch, Arguments, Pipeline };

    explicit ResultView(QObject* parent = nullptr);
    ~ResultView() override;

    /// The widget the view draws in, made with the view; the window puts it in the view's tab
    /// or dock and owns it from then on (the view goes with it).
    [[nodiscard]] virtual QWidget* widget() const = 0;

    /// The document's `part` was edited.
    virtual void projectEdited(const Workbench& workbench, ProjectPart part);
    /// The view's tab or dock came to the front (also right after the view was made).
    virtual void shown(const Workbench& workbench);
    /// The current state has been told to the view that was just made: the events from now on
    /// are new (a fault replayed from the history starts nothing).
    virtual void stateReplayed(const Workbench& workbench);
};

/// Names the result tab that holds `widget` (its page, or inside the page of a view made late);
/// nothing when no tab of `tabs` holds it (the view is pinned or docked elsewhere).
void setResultTabTitle(QTabWidget* tabs, const QWidget* widget, const QString& title);

} // namespace kernelpad
