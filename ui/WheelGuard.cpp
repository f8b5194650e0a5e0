#include "ui/WheelGuard.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QEvent>
#include <QWidget>

namespace kernelpad {

namespace {

/// The spin box or combo box that `object` is or belongs to (a spin box's line edit), if any.
QWidget* wheelEditable(QObject* object) {
    auto* widget = qobject_cast<QWidget*>(object);
    for (int depth = 0; widget && depth < 2; ++depth, widget = widget->parentWidget())
        if (qobject_cast<QAbstractSpinBox*>(widget) || qobject_cast<QComboBox*>(widget))
            return widget;
    return nullptr;
}

const char kWheelGuardName[] = "kernelpadWheelGuard";

} // namespace

bool WheelGuard::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::Polish) {
        // Qt's default for both is Qt::WheelFocus: the wheel would focus the box and then edit
        // it. StrongFocus keeps Tab and click focus.
        if (QWidget* box = wheelEditable(watched);
            box == watched && box->focusPolicy() == Qt::WheelFocus)
            box->setFocusPolicy(Qt::StrongFocus);
    } else if (event->type() == QEvent::Wheel) {
        QWidget* box = wheelEditable(watched);
        if (box && !box->hasFocus()) {
            // Ignored and handled: QApplication passes it on to the parents, so the scroll
            // area around the form scrolls, and the box never sees it.
            event->ignore();
            return true;
        }
    }
    return QObject::eventFilter(watched, event);
}

void installWheelGuard() {
    QCoreApplication* app = QCoreApplication::instance();
    if (!app ||
        app->findChild<WheelGuard*>(QLatin1String(kWheelGuardName), Qt::FindDirectChildrenOnly))
        return;
    auto* guard = new WheelGuard(app);
    guard->setObjectName(QLatin1String(kWheelGuardName));
    app->installEventFilter(guard);
    // Boxes made before the guard was installed are already polished.
    for (QWidget* widget : QApplication::allWidgets())
        if (wheelEditable(widget) == widget && widget->focusPolicy() == Qt::WheelFocus)
            widget->setFocusPolicy(Qt::StrongFocus);
}

} // namespace kernelpad
