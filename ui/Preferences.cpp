#include "ui/Preferences.h"

#include "ui/Theme.h"

#include <QApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPalette>
#include <QSettings>
#include <QStyle>

namespace kernelpad {

namespace {

const QString kFontFamilyKey = QStringLiteral("preferences/editorFontFamily");
const QString kPointSizeKey = QStringLiteral("preferences/editorPointSize");
const QString kThemeKey = QStringLiteral("preferences/theme");
const QString kTimingKey = QStringLiteral("preferences/newProjectTiming");
const QString kMemcheckAfterFaultKey = QStringLiteral("preferences/memcheckAfterFault");
const QString kLineColoursKey = QStringLiteral("preferences/lineColours");
const QString kLiveModeKey = QStringLiteral("preferences/liveMode");
const QString kRunnersKey = QStringLiteral("preferences/runners");
const QString kRunnerKey = QStringLiteral("preferences/runner");

/// A palette from the dark theme's colours, for every widget (the editor and the PTX view
/// follow it through Theme::forPalette).
QPalette darkPalette() {
    const Theme t = Theme::darkTheme();
    const QColor window(0x2b, 0x2d, 0x31);
    QPalette p;
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, t.text);
    p.setColor(QPalette::Base, t.paper);
    p.setColor(QPalette::AlternateBase, t.lineNumberPaper);
    p.setColor(QPalette::Text, t.text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, t.text);
    p.setColor(QPalette::BrightText, Qt::white);
    p.setColor(QPalette::Highlight, t.selection);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::ToolTipBase, t.paper);
    p.setColor(QPalette::ToolTipText, t.text);
    p.setColor(QPalette::PlaceholderText, t.lineNumberText);
    p.setColor(QPalette::Link, t.noteColor);
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, t.lineNumberText);
    return p;
}

} // namespace

QString themeChoiceName(Preferences::ThemeChoice theme) {
    switch (theme) {
    case Preferences::ThemeChoice::Light:
        return QStringLiteral("light");
    case Preferences::ThemeChoice::Dark:
        return QStringLiteral("dark");
    case Preferences::ThemeChoice::System:
        break;
    }
    return QStringLiteral("system");
}

QFont Preferences::editorFont() const {
    QFont font = monospaceFont(editorPointSize);
    if (!editorFontFamily.isEmpty())
        font.setFamily(editorFontFamily);
    return font;
}

Project Preferences::forNewProject(Project project) const {
    project.timing = newProjectTiming;
    return project;
}

Preferences Preferences::load() {
    return load(QSettings());
}

Preferences Preferences::load(const QSettings& settings) {
    Preferences p;
    p.editorFontFamily = settings.value(kFontFamilyKey).toString();
    bool ok = false;
    const int size = settings.value(kPointSizeKey).toInt(&ok);
    if (ok && size >= kMinEditorPointSize && size <= kMaxEditorPointSize)
        p.editorPointSize = size;
    const QString theme = settings.value(kThemeKey).toString();
    for (ThemeChoice choice : {ThemeChoice::System, ThemeChoice::Light, ThemeChoice::Dark}) {
        if (theme == themeChoiceName(choice))
            p.theme = choice;
    }
    // The project file's own reader, so a hand-edited value is checked as a .kpad's is.
    const QJsonDocument timing =
        QJsonDocument::fromJson(settings.value(kTimingKey).toString().toUtf8());
    if (timing.isObject()) {
        if (const auto spec = TimingSpec::fromJson(timing.object(), nullptr))
            p.newProjectTiming = *spec;
    }
    p.memcheckAfterFault = settings.value(kMemcheckAfterFaultKey, false).toBool();
    p.lineColours = settings.value(kLineColoursKey, true).toBool();
    p.liveMode = settings.value(kLiveModeKey, false).toBool();
    // A runner that no longer reads (edited by hand, from a newer release) is left out.
    const QJsonDocument runners =
        QJsonDocument::fromJson(settings.value(kRunnersKey).toString().toUtf8());
    for (const QJsonValue& v : runners.array()) {
        QString error;
        if (const auto spec = RunnerSpec::fromJson(v.toObject(), &error); spec && !spec->isLocal())
            p.runners.push_back(*spec);
    }
    p.runner = settings.value(kRunnerKey).toString();
    return p;
}

void Preferences::save(QSettings& settings) const {
    settings.setValue(kFontFamilyKey, editorFontFamily);
    settings.setValue(kPointSizeKey, editorPointSize);
    settings.setValue(kThemeKey, themeChoiceName(theme));
    settings.setValue(
        kTimingKey,
        QString::fromUtf8(QJsonDocument(newProjectTiming.toJson()).toJson(QJsonDocument::Compact)));
    settings.setValue(kMemcheckAfterFaultKey, memcheckAfterFault);
    settings.setValue(kLineColoursKey, lineColours);
    settings.setValue(kLiveModeKey, liveMode);
    QJsonArray list;
    for (const RunnerSpec& r : runners)
        list.append(r.toJson());
    settings.setValue(kRunnersKey,
                      QString::fromUtf8(QJsonDocument(list).toJson(QJsonDocument::Compact)));
    settings.setValue(kRunnerKey, runner);
}

RunnerSpec Preferences::chosenRunner() const {
    for (const RunnerSpec& r : runners)
        if (r.displayName() == runner)
            return r;
    return RunnerSpec::local();
}

void Preferences::apply() const {
    QSettings settings;
    save(settings);
    applyTheme(theme);
    emit PreferencesNotifier::instance()->changed();
}

void Preferences::applyTheme(ThemeChoice theme) {
    // The desktop's palette, kept from before the first change so System can go back to it.
    static const QPalette system = QApplication::palette();
    switch (theme) {
    case ThemeChoice::Dark:
        QApplication::setPalette(darkPalette());
        break;
    case ThemeChoice::Light:
        QApplication::setPalette(QApplication::style()->standardPalette());
        break;
    case ThemeChoice::System:
        QApplication::setPalette(system);
        break;
    }
}

bool operator==(const Preferences& a, const Preferences& b) {
    return a.editorFontFamily == b.editorFontFamily && a.editorPointSize == b.editorPointSize &&
           a.theme == b.theme && a.newProjectTiming == b.newProjectTiming &&
           a.memcheckAfterFault == b.memcheckAfterFault && a.lineColours == b.lineColours &&
           a.liveMode == b.liveMode && a.runners == b.runners && a.runner == b.runner;
}

PreferencesNotifier* PreferencesNotifier::instance() {
    // Parented to the application so it goes with it; created on first use.
    static PreferencesNotifier* notifier = new PreferencesNotifier(qApp);
    return notifier;
}

} // namespace kernelpad
