#include "ui/ResultView.h"

#include <QTabWidget>

namespace kernelpad {

ResultView::ResultView(QObject* parent)
    : QObject(parent) {}

ResultView::~ResultView() = default;

void ResultView::projectEdited(const Workbench&, ProjectPart) {}

void ResultView::shown(const Workbench&) {}

void ResultView::stateReplayed(const Workbench&) {}

void setResultTabTitle(QTabWidget* tabs, const QWidget* widget, const QString& title) {
    for (const QWidget* page = widget; tabs && page; page = page->parentWidget())
        if (const int index = tabs->indexOf(const_cast<QWidget*>(page)); index >= 0) {
            tabs->setTabText(index, title);
            return;
        }
}

} // namespace kernelpad
