#include "ui/windows/ViewRegistry.h"

#include "ui/ProjectDocument.h"

#include <QBoxLayout>
#include <QDockWidget>
#include <QMainWindow>
#include <QTabWidget>
#include <QVBoxLayout>

namespace kernelpad {

ViewRegistry::ViewRegistry(const ViewContext& context, QMainWindow* window)
    : QObject(window)
    , m_context(context)
    , m_window(window) {
    Workbench* workbench = context.workbench;
    ProjectDocument* document = workbench->document();
    const auto edited = [this, workbench](ResultView::ProjectPart part) {
        return [this, workbench, part] {
            forward([&](ResultView* view) { view->projectEdited(*workbench, part); });
        };
    };
    connect(document, &ProjectDocument::kernelChanged, this,
            edited(ResultView::ProjectPart::Kernel));
    connect(document, &ProjectDocument::launchChanged, this,
            edited(ResultView::ProjectPart::Launch));
    connect(document, &ProjectDocument::argumentsChanged, this,
            edited(ResultView::ProjectPart::Arguments));
    connect(document, &ProjectDocument::pipelineChanged, this,
            edited(ResultView::ProjectPart::Pipeline));
    if (m_context.resultTabs)
        connect(m_context.resultTabs, &QTabWidget::currentChanged, this, [this](int index) {
            const QWidget* page = m_context.resultTabs->widget(index);
            for (const Entry& entry : std::as_const(m_entries))
                if (page && entry.holder == page) {
                    holderShown(entry.id);
                    return;
                }
        });
}

ViewRegistry::~ViewRegistry() = default;

QWidget* ViewRegistry::registerView(const QString& id, const QString& title, ViewPlace place,
                                    Factory factory, ViewCreation creation) {
    const bool tab = place == ViewPlace::ResultTabs;
    const bool banner = place == ViewPlace::Banner;
    if (id.isEmpty() || find(id) || !factory || (tab && !m_context.resultTabs) ||
        (banner && !m_bannerLayout))
        return nullptr;
    m_entries.append(Entry{id, std::move(factory), nullptr, nullptr});
    if ((tab && creation == ViewCreation::AtOnce) || banner) {
        // The view's widget is the tab's page, or the banner, itself.
        Entry& entry = m_entries.last();
        ResultView* view = entry.factory(m_context);
        if (!view || !view->widget()) {
            m_entries.removeLast();
            return nullptr;
        }
        if (banner)
            m_bannerLayout->insertWidget(m_bannerIndex++, view->widget());
        else
            m_context.resultTabs->addTab(view->widget(), title);
        entry.holder = view->widget();
        adopt(entry, view);
        return entry.holder;
    }
    // The page or dock exists from the start (so the tab order and the saved dock layout do
    // not depend on what was looked at); the view and its widget come when it is shown.
    QWidget* holder = nullptr;
    if (tab) {
        holder = new QWidget(m_context.resultTabs);
        holder->setObjectName(id + QStringLiteral("Page"));
        auto* layout = new QVBoxLayout(holder);
        layout->setContentsMargins(0, 0, 0, 0);
        m_entries.last().holder = holder;
        m_context.resultTabs->addTab(holder, title);
    } else {
        auto* dock = new QDockWidget(title, m_window);
        dock->setObjectName(id + QStringLiteral("Dock"));
        dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                          QDockWidget::DockWidgetClosable);
        const Qt::DockWidgetArea area = place == ViewPlace::LeftDock    ? Qt::LeftDockWidgetArea
                                        : place == ViewPlace::RightDock ? Qt::RightDockWidgetArea
                                                                        : Qt::BottomDockWidgetArea;
        m_entries.last().holder = dock;
        m_window->addDockWidget(area, dock);
        connect(dock, &QDockWidget::visibilityChanged, this, [this, id](bool visible) {
            if (visible)
                holderShown(id);
        });
        holder = dock;
    }
    // A tab added in front of the others (the first) was made through currentChanged.
    if (creation == ViewCreation::AtOnce)
        ensureView(id);
    return holder;
}

ViewRegistry::Entry* ViewRegistry::find(const QString& id) {
    for (Entry& entry : m_entries)
        if (entry.id == id)
            return &entry;
    return nullptr;
}

ResultView* ViewRegistry::view(const QString& id) const {
    for (const Entry& entry : m_entries)
        if (entry.id == id)
            return entry.view;
    return nullptr;
}

ResultView* ViewRegistry::ensureView(const QString& id) {
    Entry* entry = find(id);
    if (!entry)
        return nullptr;
    return entry->view ? entry->view.data() : create(*entry);
}

void ViewRegistry::setBannerArea(QBoxLayout* layout, int index) {
    m_bannerLayout = layout;
    m_bannerIndex = index;
}

QStringList ViewRegistry::ids() const {
    QStringList ids;
    for (const Entry& entry : m_entries)
        ids << entry.id;
    return ids;
}

ResultView* ViewRegistry::create(Entry& entry) {
    if (!entry.holder)
        return nullptr;
    ResultView* view = entry.factory(m_context);
    if (!view || !view->widget())
        return nullptr;
    QWidget* widget = view->widget();
    if (auto* dock = qobject_cast<QDockWidget*>(entry.holder))
        dock->setWidget(widget);
    else
        entry.holder->layout()->addWidget(widget);
    adopt(entry, view);
    return view;
}

void ViewRegistry::adopt(Entry& entry, ResultView* view) {
    // The view lives as long as what it draws in.
    view->setParent(view->widget());
    entry.view = view;
    m_context.workbench->showStateTo(view);
    view->stateReplayed(*m_context.workbench);
}

void ViewRegistry::holderShown(const QString& id) {
    Entry* entry = find(id);
    if (!entry)
        return;
    if (!entry->view)
        create(*entry);
    if (entry->view)
        entry->view->shown(*m_context.workbench);
}

template <typename Call> void ViewRegistry::forward(Call call) {
    // The views made so far: one may be made or destroyed while another handles the event.
    QVector<QPointer<ResultView>> views;
    views.reserve(m_entries.size());
    for (const Entry& entry : std::as_const(m_entries))
        if (entry.view)
            views.append(entry.view);
    for (const QPointer<ResultView>& view : std::as_const(views))
        if (view)
            call(view.data());
}

void ViewRegistry::workbenchCleared(const Workbench& w) {
    forward([&](ResultView* v) { v->workbenchCleared(w); });
}
void ViewRegistry::devicesChanged(const Workbench& w) {
    forward([&](ResultView* v) { v->devicesChanged(w); });
}
void ViewRegistry::compileStarted(const Workbench& w) {
    forward([&](ResultView* v) { v->compileStarted(w); });
}
void ViewRegistry::compiled(const Workbench& w) {
    forward([&](ResultView* v) { v->compiled(w); });
}
void ViewRegistry::resourcesChanged(const Workbench& w) {
    forward([&](ResultView* v) { v->resourcesChanged(w); });
}
void ViewRegistry::runStarted(const Workbench& w) {
    forward([&](ResultView* v) { v->runStarted(w); });
}
void ViewRegistry::runProgress(const Workbench& w, const QString& stage, int done, int total) {
    forward([&](ResultView* v) { v->runProgress(w, stage, done, total); });
}
void ViewRegistry::runFinished(const Workbench& w, const RunRecord& run) {
    forward([&](ResultView* v) { v->runFinished(w, run); });
}
void ViewRegistry::historyCleared(const Workbench& w) {
    forward([&](ResultView* v) { v->historyCleared(w); });
}
void ViewRegistry::profileStarted(const Workbench& w) {
    forward([&](ResultView* v) { v->profileStarted(w); });
}
void ViewRegistry::profileFinished(const Workbench& w, const RunRecord* run) {
    forward([&](ResultView* v) { v->profileFinished(w, run); });
}

} // namespace kernelpad
