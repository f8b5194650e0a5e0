#pragma once
// A scroll area for a form in a dock: scrolls vertically only and asks for the form's minimum
// width, so that the dock is never narrower than its form (MainWindowDocks.cpp, SweepView).

#include <QScrollArea>
#include <QScrollBar>

namespace kernelpad {

class FormScrollArea : public QScrollArea {
public:
    explicit FormScrollArea(QWidget* form, QWidget* parent = nullptr)
        : QScrollArea(parent) {
        setWidget(form);
        setWidgetResizable(true);
        setFrameShape(QFrame::NoFrame);
    }
    [[nodiscard]] QSize minimumSizeHint() const override {
        QSize hint = QScrollArea::minimumSizeHint();
        if (widget())
            hint.setWidth(widget()->minimumSizeHint().width() +
                          verticalScrollBar()->sizeHint().width() + 2 * frameWidth());
        return hint;
    }
    /// Another project's form starts at its top, not where the last one was scrolled.
    void scrollToTop() {
        verticalScrollBar()->setValue(0);
        horizontalScrollBar()->setValue(0);
    }
};

} // namespace kernelpad
