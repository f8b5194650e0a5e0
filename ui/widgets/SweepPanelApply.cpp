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
    const int index = stack ? stack->index() : 0;
    if (m_appliedIndex > 0 && index < m_appliedIndex) {
        // Undone (by this button or the Edit menu), or the history was cleared: a later step
        // at the same index is not this apply.
        if (stack && stack->count() >= m_appliedIndex)
            showMessage(tr("Undone: the settings are back as they were before %1.")
                            .arg(m_appliedText),
                        false);
        m_appliedIndex = -1;
        m_appliedText.clear();
    }
    m_undoApply->setToolTip(stack ? stack->undoText() : QString());
    m_undoApply->setVisible(m_appliedIndex > 0 && index == m_appliedIndex);
}

void SweepPanel::undoApply() {
    if (m_document && m_appliedIndex > 0 &&
        m_document->settingsHistory()->stack()->index() == m_appliedIndex)
        m_document->settingsHistory()->undo();
}

} // namespace kernelpad
