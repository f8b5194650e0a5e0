#pragma once
// The project's settings history: a compound change to everything but the source (a
// sweep configuration applied, a version's settings restored) is one step of a QUndoStack, so
// that Edit ▸ Undo Settings takes all of it back at once. The source keeps the editor's own
// undo history (Ctrl+Z); this one never touches it.

#include "core/project/Project.h"

#include <QObject>
#include <QString>

class QUndoStack;

namespace kernelpad {

class ProjectDocument;

/// The sections of a project a settings step writes: everything the setters of
/// ProjectDocument hold except the source.
enum SettingsField : unsigned {
    OptionsSetting = 1u << 0,
    KernelSetting = 1u << 1,
    ArgumentsSetting = 1u << 2,
    GlobalsSetting = 1u << 3,
    LaunchSetting = 1u << 4,
    TimingSetting = 1u << 5,
    PipelineSetting = 1u << 6,
    SweepSetting = 1u << 7,
    BaselineSetting = 1u << 8,
};
/// A set of SettingsField bits.
using SettingsFields = unsigned;

/// The settings in which `a` and `b` differ (their sources, names and descriptions ignored).
[[nodiscard]] SettingsFields settingsDifferences(const Project& a, const Project& b);

/// The undo stack of a ProjectDocument's settings. Cleared when another project replaces the
/// open one; kept by Save. See onFieldEdited() for what a later edit of a setting does.
class SettingsHistory : public QObject {
    Q_OBJECT
public:
    /// Steps kept; the oldest goes first.
    static constexpr int kUndoLimit = 100;

    /// Owned by `document` and follows its signals.
    explicit SettingsHistory(ProjectDocument* document);

    [[nodiscard]] QUndoStack* stack() const { return m_stack; }
    /// Writes the settings of `settings` (its source, name and description ignored) into the
    /// document through its setters, as one undoable step named `text` ("Apply sweep
    /// configuration bx=8, by=32"). False, with nothing pushed, when the document already holds
    /// them.
    bool apply(const Project& settings, const QString& text);
    /// The undo and redo of the step on top of the stack (false when there is none).
    bool undo();
    bool redo();
    /// Forgets every step.
    void clear();
    /// True while a step writes into the document (its setters' signals are the history's own).
    [[nodiscard]] bool isWriting() const { return m_writing; }

private:
    friend class SettingsCommand;
    /// Sets `fields` of `settings` in the document, then lets the document find out whether
    /// that brought it back to what was last opened or saved.
    void write(const Project& settings, SettingsFields fields);
    /// A setting changed by anything but a step of this history.
    void onFieldEdited(SettingsField field);
    /// Every field some step on the stack (done or undone) writes.
    [[nodiscard]] SettingsFields fieldsOnStack() const;

    ProjectDocument* m_document;
    QUndoStack* m_stack;
    bool m_writing = false;
};

} // namespace kernelpad
