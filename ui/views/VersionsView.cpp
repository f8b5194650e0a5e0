#include "ui/views/VersionsView.h"

#include "core/engine/EditVerdict.h"
#include "core/project/ProjectDiff.h"
#include "ui/CompileHistory.h"
#include "ui/ProjectDocument.h"
#include "ui/SettingsHistory.h"
#include "ui/models/VersionsModel.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/CompileDiffView.h"
#include "ui/widgets/VersionsPanel.h"

#include <QMessageBox>
#include <QPushButton>
#include <QTabWidget>
#include <QtDebug>

namespace kernelpad {

namespace {

QString versionTitle(const Version& v) {
    return QObject::tr("version %1 (%2)")
        .arg(v.number)
        .arg(v.finishedAt.toString(QStringLiteral("HH:mm:ss")));
}

/// Puts version `number`'s `project` into the document: the source as one undo step of the
/// editor, so that its Undo brings back what was there, then the settings as one step of the
/// document's settings history (its sweep section is the document's own and stays). Returns
/// what the message says about undoing.
QString applyVersionProject(ProjectDocument* document, CodeEditor* editor, const Project& project,
                            int number) {
    const bool sourceChanged = editor && editor->text() != project.source;
    if (sourceChanged) {
        editor->beginUndoAction();
        editor->selectAll();
        editor->replaceSelectedText(project.source);
        editor->endUndoAction();
        editor->setCursorPosition(0, 0);
    }
    // The editor's textChanged normally carries the text; this holds without an editor too.
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

} // namespace

VersionsView::VersionsView(const ViewContext& context, CompileDiffView* diff)
    : m_workbench(context.workbench)
    , m_panel(new VersionsPanel)
    , m_editor(context.editor)
    , m_diff(diff)
    , m_tabs(context.resultTabs) {
    m_panel->setObjectName(QStringLiteral("versions"));
    // Save As: the versions follow the project to its new file.
    connect(m_workbench->document(), &ProjectDocument::pathChanged, this,
            [this](const QString& path) {
                m_store = VersionStore(path);
                if (m_panel->model()->rowCount() > 0)
                    save();
            });
    // A version of this window's runs adds its profile to the Verdict column's sentence.
    m_panel->model()->setSideExtras([this](const Version& v, VerdictSide* side) {
        if (side->timing.medianMs <= 0)
            return; // a version that did not run well gives nothing
        for (auto it = m_numberOfSerial.cbegin(); it != m_numberOfSerial.cend(); ++it)
            if (it.value() == v.number)
                if (const RunRecord* run = m_workbench->findRun(it.key()); run && run->profile)
                    side->profile = &*run->profile;
    });
    connect(m_panel, &VersionsPanel::restoreRequested, this, &VersionsView::restore);
    connect(m_panel, &VersionsPanel::compileDiffRequested, this, &VersionsView::compareVersions);
    connect(m_panel, &VersionsPanel::abCompareRequested, this, &VersionsView::startAb);
    connect(m_panel, &VersionsPanel::abCancelRequested, this, [this] {
        if (Engine* engine = m_workbench->engine(); engine && m_abId != 0)
            engine->cancelAb(m_abId);
    });
    // A run's SASS that came after it: its version keeps the counts (and the file too).
    connect(m_workbench, &Workbench::runSassKnown, this, [this](quint64 serial) {
        const RunRecord* run = m_workbench->findRun(serial);
        if (!run || !run->sassOpcodes || !m_numberOfSerial.contains(serial))
            return;
        if (m_panel->model()->setSassOpcodes(m_numberOfSerial.value(serial), *run->sassOpcodes))
            save();
    });
    if (Engine* engine = m_workbench->engine()) {
        connect(engine, &Engine::abProgress, this, &VersionsView::abProgress);
        connect(engine, &Engine::abFinished, this, &VersionsView::abFinished);
    }
}

QWidget* VersionsView::widget() const {
    return m_panel;
}

void VersionsView::showError(const QString& error) {
    if (error.isEmpty())
        return;
    qWarning().noquote() << error;
    m_panel->setMessage(error);
}

void VersionsView::save() {
    QString error;
    if (!m_store.save(m_panel->model()->versions(), &error))
        showError(tr("Versions not saved to %1: %2").arg(m_store.filePath(), error));
}

void VersionsView::workbenchCleared(const Workbench& workbench) {
    m_numberOfSerial.clear();
    m_store = VersionStore(workbench.document()->path());
    QString error;
    m_panel->model()->setVersions(m_store.load(&error));
    m_panel->setMessage(QString());
    showError(error);
}

void VersionsView::runFinished(const Workbench&, const RunRecord& run) {
    if (m_numberOfSerial.contains(run.serial))
        return;
    VersionsModel* model = m_panel->model();
    const int number = model->nextNumber();
    QString changes = run.changes;
    if (m_numberOfSerial.isEmpty() && !run.sanitized()) {
        // The workbench's first run: what changed since the last version read from disk.
        const QVector<Version>& all = model->versions();
        for (auto it = all.crbegin(); it != all.crend(); ++it) {
            if (it->hasTiming()) {
                changes = describeProjectChanges(it->project, run.project);
                break;
            }
        }
    }
    m_numberOfSerial.insert(run.serial, number);
    Version version = Version::fromRun(number, run.finishedAt, run.project, run.result, changes,
                                       run.profile.has_value());
    version.sassOpcodes = run.sassOpcodes;
    model->append(version);
    save();
}

void VersionsView::profileFinished(const Workbench&, const RunRecord* run) {
    if (!run || !run->profile || !m_numberOfSerial.contains(run->serial))
        return;
    VersionsModel* model = m_panel->model();
    const Version* kept = model->find(m_numberOfSerial.value(run->serial));
    if (!kept || kept->profiled)
        return;
    Version marked = *kept;
    marked.profiled = true;
    model->update(marked);
    save();
}

void VersionsView::historyCleared(const Workbench&) {
    m_numberOfSerial.clear();
    m_panel->model()->clear();
    QString error;
    if (!m_store.clear(&error))
        showError(error);
}

QString VersionsView::keepDocumentAsVersion(const Project& current) {
    VersionsModel* model = m_panel->model();
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
    save();
    return tr(" What the document held is kept as version %1.").arg(kept.number);
}

void VersionsView::restore(int number) {
    VersionsModel* model = m_panel->model();
    const Version* chosen = model->find(number);
    if (!chosen)
        return;
    ProjectDocument* document = m_workbench->document();
    const Project target = chosen->project;
    const Project current = document->project();
    if (current == target) {
        m_panel->setMessage(tr("The document already holds version %1.").arg(number));
        return;
    }
    if (current.language != target.language) {
        m_panel->setMessage(
            tr("Version %1 is written in %2 and the document in %3: open a "
               "project of that language to restore it.")
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
    const auto restoreNow = [this, projectKept, current, target, number, document] {
        const QString keptNote = projectKept ? QString() : keepDocumentAsVersion(current);
        const QString undo = applyVersionProject(document, m_editor, target, number);
        m_panel->setMessage(tr("Restored version %1; %2%3").arg(number).arg(undo, keptNote));
    };
    if (sourceKept) {
        restoreNow();
        return;
    }
    // Non-modal, so that nothing waits on a nested event loop.
    auto* box = new QMessageBox(
        QMessageBox::Question, tr("Restore Version"),
        tr("The source in the editor is in no version. Restore version %1 over it?").arg(number),
        QMessageBox::NoButton, m_panel);
    box->setObjectName(QStringLiteral("versionsRestoreConfirm"));
    box->setInformativeText(
        tr("What the editor holds now is kept as a version of its own (marked \"kept before "
           "restore\"), and Undo in the editor brings it back."));
    QPushButton* yes = box->addButton(tr("Restore"), QMessageBox::AcceptRole);
    box->addButton(QMessageBox::Cancel);
    box->setDefaultButton(yes);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [box, yes, restoreNow] {
        if (box->clickedButton() == yes)
            restoreNow();
    });
    box->open();
}

void VersionsView::compareVersions(int a, int b) {
    if (!m_diff)
        return;
    auto* history = m_diff->findChild<CompileHistory*>(QStringLiteral("compileHistory"));
    VersionsModel* model = m_panel->model();
    const Version* before = model->find(a);
    const Version* after = model->find(b);
    if (!history || !before || !after)
        return;
    const auto side = [&](const Version& v) {
        CompileHistory::ProjectVersion version{v.project, versionTitle(v), CompileResult()};
        // This workbench's runs still hold their compile; versions read from disk do not.
        for (auto it = m_numberOfSerial.cbegin(); it != m_numberOfSerial.cend(); ++it)
            if (it.value() == v.number)
                if (const RunRecord* run = m_workbench->findRun(it.key());
                    run && run->result.compile.ok)
                    version.compile = run->result.compile;
        return version;
    };
    QString arch;
    if (m_workbench->lastCompile() && !m_workbench->lastCompile()->arch.isEmpty())
        arch = m_workbench->lastCompile()->arch;
    else if (const DeviceInfo* device = m_workbench->currentDevice())
        arch = device->arch();
    history->compareProjects(side(*before), side(*after), m_workbench->document()->directory(),
                             arch);
    if (m_tabs)
        m_tabs->setCurrentWidget(m_diff);
}

void VersionsView::startAb(int number) {
    Engine* engine = m_workbench->engine();
    const Version* chosen = m_panel->model()->find(number);
    if (!engine || !chosen || m_abId != 0)
        return;
    if (const QString why = m_workbench->runBlockedReason(); !why.isEmpty()) {
        m_panel->setMessage(tr("Cannot compare with version %1: %2").arg(number).arg(why));
        return;
    }
    AbOrder order;
    order.b = m_workbench->baseRequest();
    order.a = order.b;
    order.a.project = chosen->project;
    order.labelA = tr("version %1").arg(number);
    order.labelB = tr("the editor");
    m_abNumber = number;
    m_abId = engine->compareAb(order);
    m_panel->setAbRunning(true);
    m_panel->setMessage(tr("Comparing version %1 (A) with the editor (B)…").arg(number));
}

void VersionsView::abProgress(quint64 id, const QString& stage, int done, int total) {
    if (id != m_abId)
        return;
    const QString budget = total > 0 && stage.startsWith(QStringLiteral("block"))
                               ? tr(" (%1 of %2 s)")
                                     .arg(QString::number(done / 1000.0, 'f', 1),
                                          QString::number(total / 1000.0, 'f', 1))
                               : QString();
    m_panel->setMessage(tr("Comparing version %1 (A) with the editor (B): %2%3")
                            .arg(m_abNumber)
                            .arg(stage, budget));
}

void VersionsView::abFinished(quint64 id, const AbResult& result) {
    if (id != m_abId)
        return;
    m_abId = 0;
    m_panel->setAbRunning(false);
    if (result.status == AbResult::Status::Error || result.status == AbResult::Status::Cancelled) {
        m_panel->setMessage(tr("A/B with version %1: %2").arg(m_abNumber).arg(result.error));
        return;
    }
    const auto arm = [](const QString& name, const AbArmSummary& s) {
        return tr("%1 %2: median %3 ms over %4 launches, SM %5 MHz%6")
            .arg(name, s.label, QString::number(s.medianMs, 'f', 5))
            .arg(s.launches)
            .arg(s.conditions.smClockMHz)
            .arg(s.conditions.throttled ? tr(", throttled") : QString());
    };
    VerdictSide a;
    a.resources = result.a.resources;
    VerdictSide b;
    b.resources = result.b.resources;
    m_panel->setMessage(tr("A/B: %1\n%2\n%3\n%4 blocks of %5 launches, B/A %6 (%7 to %8)\n"
                           "Verdict: %9")
                            .arg(result.headline(), arm(QStringLiteral("A"), result.a),
                                 arm(QStringLiteral("B"), result.b))
                            .arg(result.blocks)
                            .arg(result.launchesPerBlock)
                            .arg(QString::number(result.verdict.ratio, 'f', 4),
                                 QString::number(result.verdict.low, 'f', 4),
                                 QString::number(result.verdict.high, 'f', 4),
                                 editVerdict(result.verdict, a, b).sentence));
}

} // namespace kernelpad
