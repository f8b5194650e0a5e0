#pragma once
// The tooltip of one of the editor's margins: the line under the pointer when the pointer is
// over that margin (ProfileMargin, RegisterMargin).

#include <Qsci/qsciscintilla.h>

#include <QHelpEvent>
#include <QToolTip>

namespace kernelpad {

/// Shows `textAt(line)` for the line under `help`'s position when it is over margin `margin`
/// of `editor` (hides the tooltip where the text is empty) and returns true; false when the
/// pointer is elsewhere, for the caller to pass the event on.
template <typename TextAt>
bool showMarginToolTip(QsciScintilla* editor, int margin, const QHelpEvent* help,
                       const TextAt& textAt) {
    int left = 0;
    for (int m = 0; m < margin; ++m)
        left += editor->marginWidth(m);
    const int right = left + editor->marginWidth(margin);
    if (help->pos().x() < left || help->pos().x() >= right)
        return false;
    const long position =
        editor->SendScintilla(QsciScintillaBase::SCI_POSITIONFROMPOINT,
                              (unsigned long)help->pos().x(), (long)help->pos().y());
    const int line = int(editor->SendScintilla(QsciScintillaBase::SCI_LINEFROMPOSITION, position));
    const QString text = textAt(line);
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(help->globalPos(), text, editor->viewport());
    return true;
}

} // namespace kernelpad
