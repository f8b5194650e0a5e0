#pragma once
// The window's result views (ui/ResultView.h) by id: each registered with its title, its place
// (a result tab or a dock) and a factory; made when its tab or dock is first shown, then told
// every Workbench event and project edit once (docs/ARCHITECTURE.md, "The window").

#include "ui/ResultView.h"
#include "ui/windows/ViewPlace.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <QVector>

#include <functional>

class QBoxLayout;
class QDockWidget;
class QMainWindow;
class QTabWidget;
class QWidget;

namespace kernelpad {

class ViewRegistry : public QObject, public WorkbenchViewer {
    Q_OBJECT
public:
    using Factory = std::function<ResultView*(const ViewContext&)>;

    /// Views go into `window`'s docks or the context's result tabs. The registry hears the
    /// Workbench once its owner adds it as a viewer (Workbench::addViewer()), after the panels
    /// that must follow an event first; the document's edits it hears at once.
    ViewRegistry(const ViewContext& context, QMainWindow* window);
    ~ViewRegistry() override;

    /// Adds the view `id` (unique; an id given twice is refused with a null return) as a tab
    /// at the end of the result tabs, as a dock named `id` + "Dock" or as a banner (made at
    /// once). Returns the page, dock or banner that holds (or will hold) the view's widget.
    QWidget* registerView(const QString& id, const QString& title, ViewPlace place, Factory factory,
                          ViewCreation creation = ViewCreation::WhenShown);
    /// The view `id` once made, else null.
    [[nodiscard]] ResultView* view(const QString& id) const;
    /// The view `id`, made now if it was not yet; null for an unknown id.
    ResultView* ensureView(const QString& id);
    /// Where ViewPlace::Banner views go: into `layout`, from position `index` on.
    void setBannerArea(QBoxLayout* layout, int index);
    /// The registered ids, in registration order.
    [[nodiscard]] QStringList ids() const;

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

private:
    struct Entry {
        QString id;
        Factory factory;
        QPointer<QWidget> holder; ///< the tab page or the dock
        QPointer<ResultView> view;
    };
    Entry* find(const QString& id);
    ResultView* create(Entry& entry);
    /// Keeps `view` (made for `entry`) and tells it the current state.
    void adopt(Entry& entry, ResultView* view);
    /// The view of the tab or dock that was shown: made, or told it came to the front.
    void holderShown(const QString& id);
    template <typename Call> void forward(Call call);

    ViewContext m_context;
    QMainWindow* m_window;
    QVector<Entry> m_entries;
    QPointer<QBoxLayout> m_bannerLayout;
    int m_bannerIndex = 0;
};

} // namespace kernelpad
