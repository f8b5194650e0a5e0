#pragma once
// One rule for the whole application: a spin box or a combo box changes on the mouse wheel only
// when it has the keyboard focus. Scrolling a dock over a form scrolls the form instead of
// editing whichever field passes under the pointer.

#include <QObject>

namespace kernelpad {

/// The application-wide event filter that carries the wheel rule; see installWheelGuard().
class WheelGuard : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
};

/// Installs the wheel rule on the running QApplication; a second call does nothing. Spin and
/// combo boxes get Qt::StrongFocus (the wheel no longer focuses them), and a wheel event over
/// one without focus goes on to the scroll area that holds it.
void installWheelGuard();

} // namespace kernelpad
