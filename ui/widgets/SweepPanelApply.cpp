// SweepPanel: the "Undo" beside the message after Apply Best or Apply Selected. The apply is
// one step of the document's settings history (ui/SettingsHistory.h); the button takes it back
// while it is the step on top, as Edit ▸ Undo Settings does.

#include "ui/ProjectDocument.h"
#include "ui/SettingsHistory.h"
#include "ui/widgets/SweepPanel.h"

#include <QLabel>
#include <QToolButton>
#include <QUndoStack>

namespace kernelpad {

void SweepPanel::createUndoApply(QWidget* parent) {
    m_undoApply = new QToolButton(parent);
    m_undoApply->setObjectName(QStringLiteral("sweepUndoApply"));
    m_undoApply->setText(tr("Undo"));
    m_undoApply->setAutoRaise(true);
    m_undoApply->setVisible(false);
    connect(m_undoApply, &QToolButton::clicked, this, &SweepPanel::undoApply);
}

void SweepPanel::updateUndoApply() {
    const QUndoStack* stack = m_document ? m_document->settingsHistory()->stack() : nullptr;
    if (m_applied) {
        // Found by identity, not by index: the stack drops its oldest step at its limit, and
        // every step it deletes (clear, a push over undone steps, the limit) emits
        // indexChanged, so a deleted apply is forgotten before its address could be reused.
        int position = -1;
        for (int i = 0; stack && i < stack->count(); ++i)
            if (stack->command(i) == m_applied)
                position = i;
        if (position < 0 || position >= stack->index()) {
            // Undone (here or by Edit ▸ Undo Settings), or the history was cleared.
            if (position >= 0)
                showMessage(
                    tr("Undone: the settings are back as they were before %1.").arg(m_appliedText),
                    false);
            m_applied = nullptr;
            m_appliedText.clear();
        }
    }
    const bool onTop =
        m_applied && stack->index() > 0 && stack->command(stack->index() - 1) == m_applied;
    m_undoApply->setToolTip(onTop ? stack->undoText() : QString());
    m_undoApply->setVisible(onTop);
}

void SweepPanel::undoApply() {
    const QUndoStack* stack = m_document ? m_document->settingsHistory()->stack() : nullptr;
    if (m_applied && stack->index() > 0 && stack->command(stack->index() - 1) == m_applied)
        m_document->settingsHistory()->undo();
}

} // namespace kernelpad
