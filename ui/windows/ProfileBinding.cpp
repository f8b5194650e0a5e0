// bind::profile: the Profile tab, the editor's profile margin and the roofline show the
// workbench's profiles. Each profile is kept with its run (RunRecord::profile); the tab's list
// picks the run whose profile is shown, and the margin is marked stale, its markers following
// their lines, while the editor's source differs from the one that run profiled.

#include "core/run/Summary.h"
#include "ui/ProjectDocument.h"
#include "ui/models/ProfileViewModel.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/ProfileMargin.h"
#include "ui/widgets/ProfilePanel.h"
#include "ui/windows/PanelBindings.h"
#include <QCoreApplication>

#include <QLocale>
#include <QPointer>

#include <memory>

namespace kernelpad::bind {

namespace {

/// What the binding keeps between callbacks.
struct ProfileState {
    QVector<quint64> serials; ///< the profiled runs, oldest first, as the tab lists them
    quint64 shown = 0;        ///< the run whose profile is shown, 0 for none
};

/// The run's position in the history, 1-based, as the timing history numbers it.
int runNumber(const Workbench& workbench, const RunRecord& run) {
    for (int i = 0; i < workbench.history().size(); ++i)
        if (workbench.history().at(i).serial == run.serial)
            return i + 1;
    return 0;
}

std::optional<double> medianSeconds(const RunRecord& run) {
    if (run.result.timing.reps() <= 0)
        return std::nullopt;
    return run.result.timing.medianMs / 1e3;
}

QString entryLabel(const Workbench& workbench, const RunRecord& run) {
    QString label =
        QCoreApplication::translate("ProfilePanel", "Run %1 · %2 · %3 set")
            .arg(runNumber(workbench, run))
            .arg(QLocale().toString(run.finishedAt.time(), QLocale::ShortFormat), run.profile->set);
    if (const std::optional<double> median = medianSeconds(run))
        label += QStringLiteral(" · ") + formatDuration(*median);
    return label;
}

} // namespace

void profile(Workbench* workbench, ProfilePanel* panel, CodeEditor* editor) {
    const auto state = std::make_shared<ProfileState>();
    const QPointer<CodeEditor> sourceEditor(editor);
    auto* margin = editor ? new ProfileMargin(editor) : nullptr;
    const QPointer<ProfileMargin> profileMargin(margin);

    // The margin is stale while the editor holds another source than the one profiled.
    const auto updateStale = [=] {
        const RunRecord* run = workbench->findRun(state->shown);
        QString note;
        if (run && run->profile && run->project.source != workbench->document()->project().source)
            note = QCoreApplication::translate(
                       "ProfilePanel",
                       "Stale: the source was edited after run %1 was profiled; the margin's "
                       "marks follow their lines but their numbers are of that run's source.")
                       .arg(runNumber(*workbench, *run));
        panel->setStaleNote(note);
        if (profileMargin)
            profileMargin->setStale(note);
    };
    const auto show = [=](quint64 serial) {
        const RunRecord* run = workbench->findRun(serial);
        if (!run || !run->profile)
            return;
        state->shown = serial;
        panel->showReport(*run->profile);
        panel->setHistory(
            [&] {
                QStringList entries;
                for (quint64 s : state->serials)
                    if (const RunRecord* r = workbench->findRun(s))
                        entries << entryLabel(*workbench, *r);
                return entries;
            }(),
            int(state->serials.indexOf(serial)));
        if (profileMargin) {
            profileMargin->clear();
            profileMargin->show(marginLines(*run->profile));
        }
        updateStale();
    };
    // Every profiled run as a point in order; the roofs of the newest profile's device.
    const auto updateRoofline = [=](const Workbench& s) {
        QVector<ProfiledRun> runs;
        const ProfileReport* newest = nullptr;
        for (quint64 serial : state->serials) {
            const RunRecord* run = s.findRun(serial);
            if (!run || !run->profile)
                continue;
            runs.append({runNumber(s, *run), run->finishedAt, medianSeconds(*run), run->changes,
                         &*run->profile});
            newest = &*run->profile;
        }
        if (!newest) {
            panel->roofline()->clear();
            return;
        }
        panel->roofline()->setRoofs(newest->roofline.peakDramBytesPerSecond.value_or(0),
                                    rooflineRoofs(*newest));
        panel->roofline()->setPoints(rooflinePoints(runs));
    };
    const auto forget = [=](const Workbench&) {
        state->serials.clear();
        state->shown = 0;
        panel->setHistory({}, -1);
        panel->setStaleNote(QString());
        panel->roofline()->clear();
        panel->showEmpty();
        if (profileMargin)
            profileMargin->clear();
    };

    PanelViewer* viewer = makeViewer(panel);
    viewer->onCleared = forget;
    viewer->onHistoryCleared = forget;
    // A late panel is told every run: those with a profile join the list.
    viewer->onRunFinished = [=](const Workbench& s, const RunRecord& run) {
        if (!run.profile || state->serials.contains(run.serial))
            return;
        state->serials.append(run.serial);
        updateRoofline(s);
        show(run.serial);
    };
    viewer->onProfileFinished = [=](const Workbench& s, const RunRecord* run) {
        if (run && run->profile) {
            if (!state->serials.contains(run->serial))
                state->serials.append(run->serial);
            updateRoofline(s);
            show(run->serial);
            return;
        }
        if (const std::optional<ProfileOutcome>& outcome = s.lastProfile();
            outcome && !outcome->ok()) {
            state->shown = 0;
            panel->showError(outcome->status, outcome->error);
            panel->setStaleNote(QString());
            if (profileMargin)
                profileMargin->clear();
        }
    };
    workbench->addViewer(viewer);

    QObject::connect(panel, &ProfilePanel::historyEntryChosen, panel, [=](int index) {
        if (index >= 0 && index < state->serials.size())
            show(state->serials.at(index));
    });
    QObject::connect(workbench->document(), &ProjectDocument::sourceChanged, panel, updateStale);
}

} // namespace kernelpad::bind
