#include "ui/views/ProfileView.h"

#include "core/run/Summary.h"
#include "ui/ProjectDocument.h"
#include "ui/models/ProfileViewModel.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/ProfileMargin.h"
#include "ui/widgets/ProfilePanel.h"

#include <QCoreApplication>
#include <QLocale>

namespace kernelpad {

namespace {

/// The run's position in the history, 1-based, as the timing history numbers it.
int historyNumberOf(const Workbench& workbench, const RunRecord& run) {
    for (int i = 0; i < workbench.history().size(); ++i)
        if (workbench.history().at(i).serial == run.serial)
            return i + 1;
    return 0;
}

std::optional<double> medianSecondsOf(const RunRecord& run) {
    if (run.result.timing.reps() <= 0)
        return std::nullopt;
    return run.result.timing.medianMs / 1e3;
}

QString profileEntryLabel(const Workbench& workbench, const RunRecord& run) {
    QString label =
        QCoreApplication::translate("ProfilePanel", "Run %1 · %2 · %3 set")
            .arg(historyNumberOf(workbench, run))
            .arg(QLocale().toString(run.finishedAt.time(), QLocale::ShortFormat), run.profile->set);
    if (const std::optional<double> median = medianSecondsOf(run))
        label += QStringLiteral(" · ") + formatDuration(*median);
    return label;
}

} // namespace

ProfileView::ProfileView(const ViewContext& context)
    : m_workbench(context.workbench)
    , m_panel(new ProfilePanel) {
    m_panel->setObjectName(QStringLiteral("profile"));
    if (context.editor) {
        m_margin = new ProfileMargin(context.editor);
        // A rule about particular lines takes the editor there, as a diagnostic does.
        QPointer<CodeEditor> editor = context.editor;
        connect(m_panel->advice(), &ProfileAdviceList::lineChosen, this, [editor](int line) {
            if (editor)
                editor->goToLine(line);
        });
    }
    connect(m_panel, &ProfilePanel::historyEntryChosen, this, [this](int index) {
        if (index >= 0 && index < m_serials.size())
            show(m_serials.at(index));
    });
    connect(m_panel->comparison(), &ProfileComparisonPane::baselineChosen, this, [this](int index) {
        m_baseline = index >= 0 && index < m_serials.size() ? m_serials.at(index) : 0;
        show(m_shown);
    });
    connect(m_workbench->document(), &ProjectDocument::sourceChanged, this,
            &ProfileView::updateStale);
}

void ProfileView::updateComparison(const QStringList& entries) {
    const RunRecord* baseline = m_baseline ? m_workbench->findRun(m_baseline) : nullptr;
    if (!baseline || !baseline->profile)
        m_baseline = 0;
    m_panel->comparison()->setChoices(entries, int(m_serials.indexOf(m_baseline)));
    const RunRecord* shown = m_workbench->findRun(m_shown);
    if (!m_baseline || !shown || !shown->profile) {
        m_panel->comparison()->clearComparison(QCoreApplication::translate(
            "ProfilePanel", "Choose a profiled run to see every metric against it."));
    } else if (m_baseline == m_shown) {
        m_panel->comparison()->clearComparison(QCoreApplication::translate(
            "ProfilePanel", "This is the shown run: choose another to compare with."));
    } else {
        m_panel->comparison()->showComparison(compareProfiles(*shown->profile, *baseline->profile));
    }
}

QWidget* ProfileView::widget() const {
    return m_panel;
}

void ProfileView::updateStale() {
    // The margin is stale while the editor holds another source than the one profiled.
    const RunRecord* run = m_workbench->findRun(m_shown);
    QString note;
    if (run && run->profile && run->project.source != m_workbench->document()->project().source)
        note = QCoreApplication::translate(
                   "ProfilePanel",
                   "Stale: the source was edited after run %1 was profiled; the margin's "
                   "marks follow their lines but their numbers are of that run's source.")
                   .arg(historyNumberOf(*m_workbench, *run));
    m_panel->setStaleNote(note);
    if (m_margin)
        m_margin->setStale(note);
}

void ProfileView::show(quint64 serial) {
    const RunRecord* run = m_workbench->findRun(serial);
    if (!run || !run->profile)
        return;
    m_shown = serial;
    m_panel->showReport(*run->profile);
    m_panel->roofline()->setHierarchy(run->profile->hierarchy,
                                      QStringLiteral("Run %1 · %2")
                                          .arg(historyNumberOf(*m_workbench, *run))
                                          .arg(run->profile->kernel));
    QStringList entries;
    for (quint64 s : std::as_const(m_serials))
        if (const RunRecord* r = m_workbench->findRun(s))
            entries << profileEntryLabel(*m_workbench, *r);
    m_panel->setHistory(entries, int(m_serials.indexOf(serial)));
    updateComparison(entries);
    if (m_margin) {
        m_margin->clear();
        m_margin->show(marginLines(*run->profile));
    }
    updateStale();
}

void ProfileView::updateRoofline(const Workbench& workbench) {
    QVector<ProfiledRun> runs;
    const ProfileReport* newest = nullptr;
    for (quint64 serial : std::as_const(m_serials)) {
        const RunRecord* run = workbench.findRun(serial);
        if (!run || !run->profile)
            continue;
        runs.append({historyNumberOf(workbench, *run), run->finishedAt, medianSecondsOf(*run),
                     run->changes, &*run->profile});
        newest = &*run->profile;
    }
    if (!newest) {
        m_panel->roofline()->clear();
        return;
    }
    m_panel->roofline()->setRoofs(newest->roofline.peakDramBytesPerSecond.value_or(0),
                                  rooflineRoofs(*newest));
    m_panel->roofline()->setPoints(rooflinePoints(runs));
}

void ProfileView::forget() {
    m_serials.clear();
    m_shown = 0;
    m_baseline = 0;
    m_panel->comparison()->setChoices({}, -1);
    m_panel->setHistory({}, -1);
    m_panel->setStaleNote(QString());
    m_panel->roofline()->clear();
    m_panel->showEmpty();
    if (m_margin)
        m_margin->clear();
}

void ProfileView::runFinished(const Workbench& workbench, const RunRecord& run) {
    // A late view is told every run: those with a profile join the list.
    if (!run.profile || m_serials.contains(run.serial))
        return;
    m_serials.append(run.serial);
    updateRoofline(workbench);
    show(run.serial);
}

void ProfileView::profileFinished(const Workbench& workbench, const RunRecord* run) {
    if (run && run->profile) {
        if (!m_serials.contains(run->serial))
            m_serials.append(run->serial);
        updateRoofline(workbench);
        show(run->serial);
        return;
    }
    if (const std::optional<ProfileOutcome>& outcome = workbench.lastProfile();
        outcome && !outcome->ok()) {
        m_shown = 0;
        m_panel->showError(outcome->status, outcome->error);
        m_panel->setStaleNote(QString());
        if (m_margin)
            m_margin->clear();
    }
}

} // namespace kernelpad
