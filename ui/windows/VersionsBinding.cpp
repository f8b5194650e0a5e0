// bind::versions: the Versions panel keeps every run of the project as a version, stores them
// per project file in the application's data folder (core/run/VersionHistory.h), restores one
// into the document and opens the PTX/SASS diff of two in the Diff tab.

#include "core/project/ProjectDiff.h"
#include "ui/CompileHistory.h"
#include "ui/ProjectDocument.h"
#include "ui/SettingsHistory.h"
#include "ui/models/VersionsModel.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/CompileDiffView.h"
#include "ui/widgets/VersionsPanel.h"
#include "ui/windows/PanelBindings.h"

#include <QHash>
#include <QMessageBox>
#include <QPushButton>
#include <QTabWidget>
#include <QtDebug>

#include <memory>

namespace kernelpad::bind {

namespace {

/// What the binding keeps between calls; shared by its lambdas, which the panel outlives.
struct VersionsState {
    VersionStore store{QString()};
    /// Which version each of this workbench's runs became (a profile finds it by serial).
    QHash<quint64, int> numberOfSerial;
};

QString versionTitle(const Version& v) {
    return QObject::tr("version %1 (%2)")
        .arg(v.number)
        .arg(v.finishedAt.toString(QStringLiteral("HH:mm:ss")));
}

void report(VersionsPanel* panel, const QString& error) {
    if (error.isEmpty())
        return;
    qWarning().noquote() << error;
    panel->setMessage(error);
}

void save(VersionsPanel* panel, const VersionsState& state) {
    QString error;
    if (!state.store.save(panel->model()->versions(), &error))
        report(panel,
               QObject::tr("Versions not saved to %1: %2").arg(state.store.filePath(), error));
}

/// Puts version `number`'s `project` into the document: the source as one undo step of the
/// editor, so that its Undo brings back what was there, then the settings as one step of the
/// document's settings history (its sweep section is the document's own and stays). Returns
/// what the message says about undoing.
QString applyProject(ProjectDocument* document, CodeEditor* editor, const Project& project,
                     int number) {
    const bool sourceChanged = editor->text() != project.source;
    if (sourceChanged) {
        editor->beginUndoAction();
        editor->selectAll();
        editor->replaceSelectedText(project.source);
        editor->endUndoAction();
        editor->setCursorPosition(0, 0);
    }
    // The editor's textChanged normally carries the text; this holds without the binding too.
    document->setSource(project.source);
    Project settings = project;
    settings.sweep = document->project().sweep;
    const bool settingsChanged = document->settingsHistory()->apply(
        settings, QObject::tr("Restore version %1's settings").arg(number));
    if (sourceChanged && settingsChanged)
        return QObject::tr("Undo in the editor brings the source back, Edit ▸ Undo Settings the "
                           "settings.");
    if (settingsChanged)
        return QObject::tr("Edit ▸ Undo Settings brings the settings back.");
    return QObject::tr("Undo in the editor brings the source back.");
}

/// What the document holds, appended as a version of its own (marked "kept before restore"),
/// restorable like any other. Returns the message's sentence about it.
QString keepDocumentAsVersion(VersionsPanel* panel, const VersionsState& state,
                              const Project& current) {
    VersionsModel* model = panel->model();
    Version kept;
    kept.number = model->nextNumber();
    kept.finishedAt = QDateTime::currentDateTime();
    kept.project = current;
    kept.kept = true;
    kept.status = RunStatus::Cancelled;
    const QVector<Version>& all = model->versions();
    kept.changes = describeProjectChanges(
        all.isEmpty() ? std::nullopt : std::optional<Project>(all.last().project), current);
    model->append(kept);
    save(panel, state);
    return QObject::tr(" What the document held is kept as version %1.").arg(kept.number);
}

/// The Versions panel's Restore of version `number`: refused when it is what the document
/// holds or of another language; asked first when the editor's source is in no version.
void restoreVersion(VersionsPanel* panel, ProjectDocument* document, CodeEditor* editor,
                    const std::shared_ptr<VersionsState>& state, int number) {
    VersionsModel* model = panel->model();
    const Version* chosen = model->find(number);
    if (!chosen)
        return;
    const Project target = chosen->project;
    const Project current = document->project();
    if (current == target) {
        panel->setMessage(QObject::tr("The document already holds version %1.").arg(number));
        return;
    }
    if (current.language != target.language) {
        panel->setMessage(
            QObject::tr("Version %1 is written in %2 and the document in %3: open a project "
                        "of that language to restore it.")
                .arg(number)
                .arg(languageName(target.language), languageName(current.language)));
        return;
    }
    bool projectKept = false;
    bool sourceKept = false;
    for (const Version& v : model->versions()) {
        projectKept |= v.project == current;
        sourceKept |= v.project.source == current.source;
    }
    const auto restore = [=] {
        const QString keptNote =
            projectKept ? QString() : keepDocumentAsVersion(panel, *state, current);
        const QString undo = applyProject(document, editor, target, number);
        panel->setMessage(QObject::tr("Restored version %1; %2%3").arg(number).arg(undo, keptNote));
    };
    if (sourceKept) {
        restore();
        return;
    }
    // Non-modal, so that nothing waits on a nested event loop.
    auto* box = new QMessageBox(QMessageBox::Question, QObject::tr("Restore Version"),
                                QObject::tr("The source in the editor is in no version. "
                                            "Restore version %1 over it?")
                                    .arg(number),
                                QMessageBox::NoButton, panel);
    box->setObjectName(QStringLiteral("versionsRestoreConfirm"));
    box->setInformativeText(
        QObject::tr("What the editor holds now is kept as a version of its own (marked "
                    "\"kept before restore\"), and Undo in the editor brings it back."));
    QPushButton* yes = box->addButton(QObject::tr("Restore"), QMessageBox::AcceptRole);
    box->addButton(QMessageBox::Cancel);
    box->setDefaultButton(yes);
    box->setAttribute(Qt::WA_DeleteOnClose);
    QObject::connect(box, &QMessageBox::finished, panel, [=] {
        if (box->clickedButton() == yes)
            restore();
    });
    box->open();
}

/// The PTX/SASS diff of versions `a` and `b`, shown in the Diff tab.
void diffVersions(Workbench* workbench, const VersionsState& state, VersionsModel* model,
                  CompileDiffView* diffView, QTabWidget* tabs, int a, int b) {
    auto* history = diffView->findChild<CompileHistory*>(QStringLiteral("compileHistory"));
    const Version* before = model->find(a);
    const Version* after = model->find(b);
    if (!history || !before || !after)
        return;
    const auto side = [&](const Version& v) {
        CompileHistory::ProjectVersion version{v.project, versionTitle(v), CompileResult()};
        // This workbench's runs still hold their compile; versions read from disk do not.
        for (auto it = state.numberOfSerial.cbegin(); it != state.numberOfSerial.cend(); ++it)
            if (it.value() == v.number)
                if (const RunRecord* run = workbench->findRun(it.key());
                    run && run->result.compile.ok)
                    version.compile = run->result.compile;
        return version;
    };
    QString arch;
    if (workbench->lastCompile() && !workbench->lastCompile()->arch.isEmpty())
        arch = workbench->lastCompile()->arch;
    else if (const DeviceInfo* device = workbench->currentDevice())
        arch = device->arch();
    history->compareProjects(side(*before), side(*after), workbench->document()->directory(), arch);
    tabs->setCurrentWidget(diffView);
}

} // namespace

void versions(Workbench* workbench, VersionsPanel* panel, CodeEditor* editor,
              CompileDiffView* diffView, QTabWidget* tabs) {
    ProjectDocument* document = workbench->document();
    auto state = std::make_shared<VersionsState>();
    VersionsModel* model = panel->model();

    const auto load = [=] {
        state->numberOfSerial.clear();
        state->store = VersionStore(document->path());
        QString error;
        model->setVersions(state->store.load(&error));
        panel->setMessage(QString());
        report(panel, error);
    };

    PanelViewer* viewer = makeViewer(panel);
    viewer->onCleared = [=](const Workbench&) { load(); };
    viewer->onRunFinished = [=](const Workbench&, const RunRecord& run) {
        if (state->numberOfSerial.contains(run.serial))
            return;
        const int number = model->nextNumber();
        QString changes = run.changes;
        if (state->numberOfSerial.isEmpty() && !run.sanitized()) {
            // The workbench's first run: what changed since the last version read from disk.
            const QVector<Version>& all = model->versions();
            for (auto it = all.crbegin(); it != all.crend(); ++it) {
                if (it->hasTiming()) {
                    changes = describeProjectChanges(it->project, run.project);
                    break;
                }
            }
        }
        state->numberOfSerial.insert(run.serial, number);
        model->append(Version::fromRun(number, run.finishedAt, run.project, run.result, changes,
                                       run.profile.has_value()));
        save(panel, *state);
    };
    viewer->onProfileFinished = [=](const Workbench&, const RunRecord* run) {
        if (!run || !run->profile || !state->numberOfSerial.contains(run->serial))
            return;
        const Version* kept = model->find(state->numberOfSerial.value(run->serial));
        if (!kept || kept->profiled)
            return;
        Version marked = *kept;
        marked.profiled = true;
        model->update(marked);
        save(panel, *state);
    };
    viewer->onHistoryCleared = [=](const Workbench&) {
        state->numberOfSerial.clear();
        model->clear();
        QString error;
        if (!state->store.clear(&error))
            report(panel, error);
    };
    workbench->addViewer(viewer);

    // Save As: the versions follow the project to its new file.
    QObject::connect(document, &ProjectDocument::pathChanged, panel, [=](const QString& path) {
        state->store = VersionStore(path);
        if (model->rowCount() > 0)
            save(panel, *state);
    });

    QObject::connect(panel, &VersionsPanel::restoreRequested, panel,
                     [=](int number) { restoreVersion(panel, document, editor, state, number); });
    QObject::connect(panel, &VersionsPanel::compileDiffRequested, panel, [=](int a, int b) {
        diffVersions(workbench, *state, model, diffView, tabs, a, b);
    });
}

} // namespace kernelpad::bind
