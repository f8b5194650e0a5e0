#include "ui/SettingsHistory.h"

#include "ui/ProjectDocument.h"

#include <QUndoCommand>
#include <QUndoStack>

namespace kernelpad {

SettingsFields settingsDifferences(const Project& a, const Project& b) {
    SettingsFields fields = 0;
    if (!(a.options == b.options))
        fields |= OptionsSetting;
    if (a.kernel.trimmed() != b.kernel.trimmed())
        fields |= KernelSetting;
    if (!sameArguments(a.arguments, b.arguments))
        fields |= ArgumentsSetting;
    if (a.globals != b.globals)
        fields |= GlobalsSetting;
    if (!(a.launch == b.launch))
        fields |= LaunchSetting;
    if (!(a.timing == b.timing))
        fields |= TimingSetting;
    if (!(a.pipeline == b.pipeline))
        fields |= PipelineSetting;
    if (!(a.sweep == b.sweep))
        fields |= SweepSetting;
    if (!(a.baseline == b.baseline))
        fields |= BaselineSetting;
    return fields;
}

/// One compound change: the settings before and after it, and which of them it writes.
class SettingsCommand : public QUndoCommand {
public:
    SettingsCommand(SettingsHistory* history, Project before, Project after, SettingsFields fields,
                    const QString& text)
        : QUndoCommand(text)
        , m_history(history)
        , m_before(std::move(before))
        , m_after(std::move(after))
        , m_fields(fields) {}

    void undo() override { m_history->write(m_before, m_fields); }
    void redo() override {
        m_history->write(m_after, m_fields);
        if (m_first) {
            // A panel may normalise what it is given (and write it back while the step is
            // writing): redo brings back what the document really held after the change.
            m_first = false;
            m_after = m_history->m_document->project();
            m_fields |= settingsDifferences(m_before, m_after);
        }
    }
    [[nodiscard]] SettingsFields fields() const { return m_fields; }

private:
    SettingsHistory* m_history;
    Project m_before;
    Project m_after;
    SettingsFields m_fields;
    bool m_first = true;
};

SettingsHistory::SettingsHistory(ProjectDocument* document)
    : QObject(document)
    , m_document(document)
    , m_stack(new QUndoStack(this)) {
    m_stack->setObjectName(QStringLiteral("settingsUndoStack"));
    // Each step holds two projects; their sources share one buffer (implicit sharing) until
    // edited, but a long workbench of applies should still not grow without end.
    m_stack->setUndoLimit(kUndoLimit);
    // Another project: its settings are not the ones these steps would write.
    connect(document, &ProjectDocument::projectReplaced, this, &SettingsHistory::clear);
    const auto watch = [this, document](void (ProjectDocument::*signal)(), SettingsField field) {
        connect(document, signal, this, [this, field] { onFieldEdited(field); });
    };
    watch(&ProjectDocument::optionsChanged, OptionsSetting);
    watch(&ProjectDocument::kernelChanged, KernelSetting);
    watch(&ProjectDocument::argumentsChanged, ArgumentsSetting);
    watch(&ProjectDocument::globalsChanged, GlobalsSetting);
    watch(&ProjectDocument::launchChanged, LaunchSetting);
    watch(&ProjectDocument::timingChanged, TimingSetting);
    watch(&ProjectDocument::pipelineChanged, PipelineSetting);
    watch(&ProjectDocument::sweepChanged, SweepSetting);
    watch(&ProjectDocument::baselineChanged, BaselineSetting);
}

bool SettingsHistory::apply(const Project& settings, const QString& text) {
    const Project& current = m_document->project();
    const SettingsFields fields = settingsDifferences(current, settings);
    if (fields == 0)
        return false;
    m_stack->push(new SettingsCommand(this, current, settings, fields, text));
    return true;
}

bool SettingsHistory::undo() {
    if (!m_stack->canUndo())
        return false;
    m_stack->undo();
    return true;
}

bool SettingsHistory::redo() {
    if (!m_stack->canRedo())
        return false;
    m_stack->redo();
    return true;
}

void SettingsHistory::clear() {
    m_stack->clear();
}

void SettingsHistory::write(const Project& settings, SettingsFields fields) {
    m_writing = true;
    if (fields & OptionsSetting)
        m_document->setOptions(settings.options);
    if (fields & KernelSetting)
        m_document->setKernel(settings.kernel);
    if (fields & ArgumentsSetting)
        m_document->setArguments(settings.arguments);
    if (fields & GlobalsSetting)
        m_document->setGlobals(settings.globals);
    if (fields & LaunchSetting)
        m_document->setLaunch(settings.launch);
    if (fields & TimingSetting)
        m_document->setTiming(settings.timing);
    if (fields & PipelineSetting)
        m_document->setPipeline(settings.pipeline);
    if (fields & SweepSetting)
        m_document->setSweep(settings.sweep);
    if (fields & BaselineSetting)
        m_document->setBaseline(settings.baseline);
    m_writing = false;
    m_document->cleanIfSaved();
}

// A setting edited by hand (or by the workbench, e.g. the arguments following a compiled kernel)
// after a step clears the history when some step writes that setting: undoing it would
// silently put back an older value over the newer edit. Pushing every such edit as a step of
// its own was the other choice; it would make each keystroke in a launch field a second undo
// step beside the editor's Ctrl+Z and the field's own undo, and turn the workbench's automatic
// edits into steps nobody made. An edit of a setting no step writes (the repetitions after a
// block shape was applied) leaves the history as it is, since undo cannot overwrite it.
void SettingsHistory::onFieldEdited(SettingsField field) {
    if (m_writing)
        return;
    if (fieldsOnStack() & field)
        m_stack->clear();
}

SettingsFields SettingsHistory::fieldsOnStack() const {
    SettingsFields fields = 0;
    for (int i = 0; i < m_stack->count(); ++i)
        if (const auto* command = dynamic_cast<const SettingsCommand*>(m_stack->command(i)))
            fields |= command->fields();
    return fields;
}

} // namespace kernelpad
