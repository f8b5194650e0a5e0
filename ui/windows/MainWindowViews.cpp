// MainWindow: the result views (ui/views), one registerView() each, in the order of their tabs
// (MainWindow::ResultTab). A view whose content is a function of the Workbench's current state
// is made when its tab is first shown (the replay of ViewRegistry brings it up to date). The
// others are made with the window (ViewCreation::AtOnce): they show what happened in the order
// it happened (a run's figures, then a compile's), keep what a replay cannot bring back (the
// compile before the last, the versions written to disk), draw outside their tab (the SASS
// colours in the editor and the PTX, the profile margin) or are used by the window's actions.

#include "ui/windows/MainWindow.h"

#include "ui/views/BuffersView.h"
#include "ui/views/ConsoleView.h"
#include "ui/views/DiagnosticsView.h"
#include "ui/views/DiffView.h"
#include "ui/views/OccupancyResultView.h"
#include "ui/views/ProfileView.h"
#include "ui/views/ProgramLogView.h"
#include "ui/views/PtxResultView.h"
#include "ui/views/ResourcesView.h"
#include "ui/views/SassResultView.h"
#include "ui/views/TestsView.h"
#include "ui/views/TimingView.h"
#include "ui/views/VerificationView.h"
#include "ui/views/VersionsView.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/PtxView.h"
#include "ui/windows/ViewRegistry.h"

#include <QTabWidget>

namespace kernelpad {

namespace {

/// A factory for a view made of the context alone.
template <typename View> ViewRegistry::Factory makeView() {
    return [](const ViewContext& context) { return new View(context); };
}

/// The widget of another view (made before the one asking), as a view's factory needs it.
template <typename View, typename Widget>
Widget* viewPart(ViewRegistry* views, const QString& id, Widget* (View::*part)() const) {
    auto* view = qobject_cast<View*>(views->ensureView(id));
    return view ? (view->*part)() : nullptr;
}

} // namespace

void MainWindow::createViews() {
    m_views = new ViewRegistry(ViewContext{m_workbench, m_editor, m_tabs}, this);
    const auto atOnce = ViewCreation::AtOnce;
    const auto tab = ViewPlace::ResultTabs;
    ViewRegistry* views = m_views;
    // F8 walks the diagnostics; Save as PTX Project reads the PTX.
    views->registerView(QStringLiteral("programLog"), tr("Program Log"), tab,
                        makeView<ProgramLogView>(), atOnce);
    views->registerView(QStringLiteral("diagnostics"), tr("Diagnostics"), tab,
                        makeView<DiagnosticsView>(), atOnce);
    views->registerView(QStringLiteral("ptx"), tr("PTX"), tab, makeView<PtxResultView>(), atOnce);
    views->registerView(
        QStringLiteral("sass"), tr("SASS"), tab,
        [views](const ViewContext& context) {
            return new SassResultView(context,
                                      viewPart(views, QStringLiteral("ptx"), &PtxResultView::ptx));
        },
        atOnce);
    views->registerView(QStringLiteral("diff"), tr("Diff"), tab, makeView<DiffView>(), atOnce);
    views->registerView(QStringLiteral("resources"), tr("Resources"), tab,
                        makeView<ResourcesView>(), atOnce);
    views->registerView(QStringLiteral("occupancy"), tr("Occupancy"), tab,
                        makeView<OccupancyResultView>());
    views->registerView(QStringLiteral("timing"), tr("Timing"), tab, makeView<TimingView>(),
                        atOnce);
    views->registerView(QStringLiteral("verification"), tr("Verification"), tab,
                        makeView<VerificationView>(), atOnce);
    views->registerView(QStringLiteral("buffers"), tr("Buffers"), tab, makeView<BuffersView>(),
                        atOnce);
    views->registerView(QStringLiteral("console"), tr("Console"), tab, makeView<ConsoleView>(),
                        atOnce);
    views->registerView(QStringLiteral("profile"), tr("Profile"), tab, makeView<ProfileView>(),
                        atOnce);
    // The project's cases × checks; Build ▸ Run Tests makes it and starts them.
    views->registerView(QStringLiteral("tests"), tr("Tests"), tab, makeView<TestsView>());
    // Every run of the project; wide enough here to compare two side by side.
    views->registerView(
        QStringLiteral("versions"), tr("Versions"), tab,
        [views](const ViewContext& context) {
            return new VersionsView(context,
                                    viewPart(views, QStringLiteral("diff"), &DiffView::diff));
        },
        atOnce);
    if (PtxView* ptx = viewPart(views, QStringLiteral("ptx"), &PtxResultView::ptx))
        connect(ptx, &PtxView::saveAsPtxProjectRequested, this, [this] { saveAsPtxProject(); });
}

QWidget* MainWindow::viewWidget(const QString& id) const {
    const ResultView* view = m_views ? m_views->view(id) : nullptr;
    return view ? view->widget() : nullptr;
}

QWidget* MainWindow::registerView(const QString& id, const QString& title, ViewPlace place,
                                  const std::function<ResultView*(const ViewContext&)>& factory,
                                  ViewCreation creation) {
    return m_views->registerView(id, title, place, factory, creation);
}

} // namespace kernelpad
