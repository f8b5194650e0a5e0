#pragma once
// Edit ▸ Preferences: editor font and size, theme, how new projects are timed and the
// runner's time limit, the memcheck re-run after a fault, the runners and the chosen one.

#include "ui/Preferences.h"

#include <QDialog>

class QAction;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFontComboBox;
class QSpinBox;

namespace kernelpad {

class RunnersEditor;

/// Edits a Preferences; OK saves them to QSettings and applies them at once. Child object
/// names: editorFont, editorFontSize, theme, timingMode, warmup, repetitions, adaptive,
/// targetNoise, maxTimeMs, blockingKernel, timeLimitMs, memcheckAfterFault, runners (a
/// RunnersEditor), preferencesScroll (the scroll area holding them; OK and Cancel are below it).
class PreferencesDialog : public QDialog {
    Q_OBJECT
public:
    explicit PreferencesDialog(QWidget* parent = nullptr);

    void setPreferences(const Preferences& preferences);
    /// What the fields say now.
    [[nodiscard]] Preferences preferences() const;

    /// "Preferences…" (Ctrl+,) opening this dialog over `window`: the one line a menu needs.
    [[nodiscard]] static QAction* createAction(QWidget* window);

    void accept() override;

private:
    void restoreDefaults();
    /// Sizes the dialog to show all of `form` where the screen has room, else to the screen.
    void fitToScreen(const QWidget* form);

    Preferences m_preferences; ///< keeps what the fields do not show (min time, bytes, flops)
    QFontComboBox* m_font = nullptr;
    QSpinBox* m_fontSize = nullptr;
    QComboBox* m_theme = nullptr;
    QCheckBox* m_lineColours = nullptr;
    QComboBox* m_mode = nullptr;
    QSpinBox* m_warmup = nullptr;
    QSpinBox* m_repetitions = nullptr;
    QCheckBox* m_adaptive = nullptr;
    QDoubleSpinBox* m_targetNoise = nullptr; ///< percent; TimingSpec keeps a fraction
    QSpinBox* m_maxTime = nullptr;
    QCheckBox* m_blocking = nullptr;
    QSpinBox* m_timeLimit = nullptr;
    QCheckBox* m_memcheckAfterFault = nullptr;
    RunnersEditor* m_runners = nullptr;
};

} // namespace kernelpad
