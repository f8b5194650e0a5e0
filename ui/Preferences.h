#pragma once
// The user's preferences (Edit ▸ Preferences): editor font, theme, how new projects are timed,
// the runner's time limit and whether a kernel fault is re-run under memcheck at once. Kept in
// QSettings; the code that uses each one reads it here.

#include "core/engine/Runners.h"
#include "core/project/Project.h"
#include "core/project/TimingSpec.h"

#include <QFont>
#include <QObject>
#include <QString>
#include <QVector>

class QSettings;

namespace kernelpad {

/// One set of preferences; load() and save() go through QSettings ("preferences/...").
struct Preferences {
    /// Light or dark colours, or whatever the desktop's palette is.
    enum class ThemeChoice { System, Light, Dark };
    static constexpr int kDefaultEditorPointSize = 10;
    static constexpr int kMinEditorPointSize = 6;
    static constexpr int kMaxEditorPointSize = 48;

    QString editorFontFamily; ///< empty: monospaceFont()'s choice (DejaVu Sans Mono or fixed)
    int editorPointSize = kDefaultEditorPointSize;
    ThemeChoice theme = ThemeChoice::System;
    /// How new projects are timed; its timeLimitMs is the runner's time limit (the watchdog
    /// stops a run that takes longer). A project keeps its own once created.
    TimingSpec newProjectTiming;
    /// After a kernel fault that memcheck can place, run the kernel once under memcheck at once
    /// instead of offering to (the message then ends with the faulting line, thread and block).
    bool memcheckAfterFault = false;
    /// Compiler Explorer's matching colours on the source, PTX and SASS lines (View menu).
    bool lineColours = true;
    /// Live mode (Build ▸ Live Mode): compile and run after each pause in typing.
    bool liveMode = false;
    /// Runners besides this computer's (which is always there, first), each with its own
    /// display name.
    QVector<RunnerSpec> runners;
    /// The display name of the runner kernels run in; empty: this computer.
    QString runner;

    /// The chosen runner (this computer's when `runner` names none of `runners`).
    [[nodiscard]] RunnerSpec chosenRunner() const;

    /// The editor's font: the family (or the default monospace one) at the size.
    [[nodiscard]] QFont editorFont() const;
    /// `project` with the timing new projects get (File ▸ New, a .cu file opened).
    [[nodiscard]] Project forNewProject(Project project) const;

    /// From the application's settings; a missing or broken value keeps its default.
    [[nodiscard]] static Preferences load();
    [[nodiscard]] static Preferences load(const QSettings& settings);
    void save(QSettings& settings) const;
    /// Saves to the application's settings, applies the theme and tells every editor.
    void apply() const;
    /// Sets the application palette: dark, light (the style's standard palette), or the
    /// palette the application started with.
    static void applyTheme(ThemeChoice theme);

    friend bool operator==(const Preferences& a, const Preferences& b);
};

[[nodiscard]] QString themeChoiceName(Preferences::ThemeChoice theme); ///< "system", ...

/// Emits changed() when preferences are applied; widgets that read them listen.
class PreferencesNotifier : public QObject {
    Q_OBJECT
public:
    [[nodiscard]] static PreferencesNotifier* instance();

signals:
    void changed();

private:
    using QObject::QObject;
};

} // namespace kernelpad
