// SweepPanel: the results file of the project as it is now, read off the window's thread a
// moment after the project opens or changes and shown (table, best, chart) with where it came
// from, so that a reopened project or `--screenshot --tab sweep` shows its sweep before Run
// Sweep resumes it. A file of another version of the project is named, never shown as this
// one's.

#include "core/sweep/SweepResultsPath.h"
#include "ui/ProjectDocument.h"
#include "ui/models/SweepResultsModel.h"
#include "ui/widgets/SweepPanel.h"

#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>

namespace kernelpad {

namespace {

/// Long enough that typing in the editor does not read the file at every key.
constexpr int kLookupDelayMs = 300;

QString when(const QDateTime& modified) {
    return modified.toString(QStringLiteral("yyyy-MM-dd hh:mm"));
}

} // namespace

void SweepPanel::setUpResultsFile() {
    m_loader = new SweepResultsLoader(this);
    connect(m_loader, &SweepResultsLoader::loaded, this, &SweepPanel::onResultsLoaded);
    m_lookup.setSingleShot(true);
    m_lookup.setInterval(kLookupDelayMs);
    connect(&m_lookup, &QTimer::timeout, this, &SweepPanel::reloadResultsFile);
}

void SweepPanel::scheduleResultsLookup() {
    if (m_document && !isRunning())
        m_lookup.start();
}

void SweepPanel::reloadResultsFile() {
    m_lookup.stop();
    if (!m_document || isRunning())
        return;
    m_loader->request(m_document->project(), m_document->path(), resultsDeviceKey());
}

QString SweepPanel::resultsFileText() const {
    return m_file->text();
}

void SweepPanel::fillModel(const QVector<SweepRecord>& records) {
    // One reset for them all: a reset or an insert per record, with the best row found again
    // each time, held the window for most of a minute over 20,000 records. The columns are
    // the last record's parameters (those of the tunables when there is none), as they were
    // when records came one by one.
    QStringList names;
    if (!records.isEmpty()) {
        names = records.last().names;
    } else {
        for (const SweepTunable& t : m_runningSpec.tunables)
            names.append(t.name);
    }
    m_model->reset(names, records, m_runningSpec.objective);
    updateConfirmation();
}

void SweepPanel::showRecords(const QVector<SweepRecord>& records, int total) {
    fillModel(records);
    m_progress->setRange(0, std::max(1, total));
    m_progress->setValue(int(std::min<qsizetype>(records.size(), std::max(1, total))));
    emitRecords();
    updateButtons();
}

void SweepPanel::onResultsLoaded(const SweepResultsSnapshot& snapshot) {
    // A sweep running, or a project changed since the request, has the newer word.
    if (!m_document || isRunning() || m_lookup.isActive())
        return;
    const QString name = QFileInfo(snapshot.path).fileName();
    const bool readable = snapshot.exists && snapshot.error.isEmpty();
    const QVector<SweepRecord> records = readable ? snapshot.records : QVector<SweepRecord>();
    // Redrawn only when the file or its length changed, so a selection survives an edit that
    // leaves the hash alone.
    if (snapshot.path != m_shownPath || records.size() != m_model->records().size()) {
        m_runningSpec = m_document->project().sweep;
        m_shownPath = snapshot.path;
        showRecords(records, snapshot.total);
    }
    QString text;
    bool problem = false;
    if (snapshot.exists && !snapshot.error.isEmpty()) {
        text = tr("%1 does not read, so Run Sweep cannot resume it: %2").arg(name, snapshot.error);
        problem = true;
    } else if (!records.isEmpty()) {
        text = tr("%1 of %2 configurations from %3, %4")
                   .arg(records.size())
                   .arg(snapshot.total)
                   .arg(name, when(snapshot.modified));
        text += records.size() < snapshot.total ? tr("; Run Sweep resumes")
                                                : tr("; the sweep is complete");
    } else if (!snapshot.besideProject.isEmpty()) {
        text = tr("%1 beside the project is ignored: results now live in the cache folder.")
                   .arg(QFileInfo(snapshot.besideProject.first()).fileName());
    } else if (!snapshot.stale.isEmpty()) {
        const QFileInfo stale(snapshot.stale.first());
        text = tr("No results for the project as it is now: %1 (%2) holds those of another "
                  "version of its kernel, settings, sweep or device, and is not shown.")
                   .arg(stale.fileName(), when(stale.lastModified()));
    }
    m_file->setText(text);
    m_file->setToolTip(QDir::toNativeSeparators(snapshot.path));
    m_file->setStyleSheet(problem ? QStringLiteral("color: #c62828;") : QString());
    emit resultsFileLoaded(snapshot.path);
}

} // namespace kernelpad
