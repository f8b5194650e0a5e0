// SweepPanel: Run Sweep with its progress, elapsed time and Cancel; the results table; Apply
// best or a chosen row; the CSV and JSON export.

#include "core/engine/Engine.h"
#include "core/project/ProjectDiff.h"
#include "core/run/Summary.h"
#include "core/sweep/SweepApply.h"
#include "core/sweep/SweepForm.h"
#include "core/sweep/SweepSpace.h"
#include "ui/ProjectDocument.h"
#include "ui/SettingsHistory.h"
#include "ui/WorkbenchRequest.h"
#include "ui/models/SweepResultsModel.h"
#include "ui/widgets/SweepPanel.h"

#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QUndoStack>
#include <QVBoxLayout>

namespace kernelpad {

QWidget* SweepPanel::buildResults() {
    auto* pane = new QWidget(this);
    m_run = new QPushButton(tr("Run Sweep"), pane);
    m_run->setObjectName(QStringLiteral("runSweep"));
    m_cancel = new QPushButton(tr("Cancel"), pane);
    m_progress = new QProgressBar(pane);
    m_progress->setFormat(QStringLiteral("%v / %m"));
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_elapsed = new QLabel(pane);
    connect(m_run, &QPushButton::clicked, this, [this] { runSweep(); });
    connect(m_cancel, &QPushButton::clicked, this, &SweepPanel::cancel);
    m_tick.setInterval(250);
    connect(&m_tick, &QTimer::timeout, this, [this] {
        m_elapsed->setText(tr("%1 s").arg(double(m_clock.elapsed()) / 1000.0, 0, 'f', 1));
    });
    auto* runRow = new QHBoxLayout;
    runRow->addWidget(m_run);
    runRow->addWidget(m_cancel);
    runRow->addWidget(m_progress, 1);
    runRow->addWidget(m_elapsed);
    // Why Run Sweep is disabled, right under it: the form's message may be scrolled away.
    m_runReason = new QLabel(pane);
    m_runReason->setObjectName(QStringLiteral("sweepRunReason"));
    m_runReason->setWordWrap(true);
    m_runReason->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_runReason->hide();
    QCheckBox* confirm = buildConfirmCheck(pane);

    m_model = new SweepResultsModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(SweepResultsModel::kSortRole);
    m_resultsView = new QTableView(pane);
    m_resultsView->setObjectName(QStringLiteral("sweepResults"));
    m_resultsView->setModel(m_proxy);
    m_resultsView->setSortingEnabled(true);
    m_resultsView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_resultsView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_resultsView->verticalHeader()->hide();
    m_resultsView->horizontalHeader()->setStretchLastSection(true);
    connect(m_resultsView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                updateButtons();
                const int row = m_proxy->mapToSource(current).row();
                if (row >= 0 && row < m_model->records().size())
                    emit configurationSelected(m_model->records()[row].key);
            });
    m_file = new QLabel(pane);
    m_file->setObjectName(QStringLiteral("sweepResultsFile"));
    m_file->setWordWrap(true);
    m_file->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_results = new QSplitter(Qt::Horizontal, pane);
    m_results->addWidget(m_resultsView);

    m_applyBest = new QPushButton(tr("Apply Best"), pane);
    m_applyRow = new QPushButton(tr("Apply Selected"), pane);
    m_applyRow->setToolTip(tr("Apply the selected configuration to the project"));
    m_exportCsv = new QPushButton(tr("Export CSV…"), pane);
    m_exportJson = new QPushButton(tr("Export JSON…"), pane);
    connect(m_applyBest, &QPushButton::clicked, this, &SweepPanel::applyBest);
    connect(m_applyRow, &QPushButton::clicked, this,
            [this] { applyRecord(m_proxy->mapToSource(m_resultsView->currentIndex()).row()); });
    for (QPushButton* button : {m_exportCsv, m_exportJson}) {
        const bool json = button == m_exportJson;
        connect(button, &QPushButton::clicked, this, [this, json] {
            const QString base = m_document && !m_document->isUntitled()
                                     ? QFileInfo(m_document->path()).completeBaseName()
                                     : QStringLiteral("sweep");
            const QString path = QFileDialog::getSaveFileName(
                this, json ? tr("Export Sweep as JSON") : tr("Export Sweep as CSV"),
                base + (json ? QStringLiteral("-sweep.json") : QStringLiteral("-sweep.csv")),
                json ? tr("JSON (*.json)") : tr("CSV (*.csv)"));
            if (!path.isEmpty())
                exportTo(path, json);
        });
    }
    // Two rows, so that a narrow dock shows every button.
    auto* applyRow = new QGridLayout;
    applyRow->addWidget(m_applyBest, 0, 0);
    applyRow->addWidget(m_applyRow, 0, 1);
    applyRow->addWidget(m_exportCsv, 1, 0);
    applyRow->addWidget(m_exportJson, 1, 1);

    auto* layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(buildDevices(pane));
    layout->addLayout(runRow);
    layout->addWidget(confirm);
    layout->addWidget(m_runReason);
    layout->addWidget(m_file);
    layout->addWidget(m_results, 1);
    layout->addWidget(m_confirmation); // under the best's row, above Apply Best
    layout->addWidget(m_balance);
    layout->addLayout(applyRow);
    return pane;
}

bool SweepPanel::selectConfiguration(const QString& key) {
    const QVector<SweepRecord>& records = m_model->records();
    for (int row = 0; row < records.size(); ++row) {
        if (records[row].key != key)
            continue;
        const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
        m_resultsView->setCurrentIndex(index);
        m_resultsView->scrollTo(index);
        return true;
    }
    return false;
}

void SweepPanel::setChartWidget(QWidget* chart) {
    if (!chart)
        return;
    // Below the table, not beside it: the dock is narrow, and a chart needs width more than
    // height.
    m_results->setOrientation(Qt::Vertical);
    m_results->addWidget(chart);
    m_results->setStretchFactor(0, 1);
    m_results->setStretchFactor(1, 1);
}

void SweepPanel::setDevice(int device, const QString& noDevice, const QString& deviceName) {
    m_device = device;
    m_noDevice = noDevice;
    if (deviceName != m_deviceName) {
        m_deviceName = deviceName;
        scheduleResultsLookup();
    }
    updateButtons();
}

void SweepPanel::setEngine(Engine* engine) {
    if (m_engine)
        disconnect(m_engine, nullptr, this, nullptr);
    m_engine = engine;
    if (!engine)
        return;
    // Every sweep of the Engine is announced to every panel; each keeps to its own id.
    connect(engine, &Engine::sweepStarted, this,
            [this](quint64 id, const QVector<SweepRecord>& resumed, int total) {
                if (id == m_sweepId)
                    onStarted(resumed, total);
            });
    connect(engine, &Engine::sweepRecord, this, [this](quint64 id, const SweepRecord& record) {
        if (id == m_sweepId)
            onRecord(record);
    });
    connect(engine, &Engine::sweepProgress, this, [this](quint64 id, int done, int total) {
        if (id != m_sweepId)
            return;
        m_progress->setRange(0, std::max(1, total));
        m_progress->setValue(done);
    });
    connect(engine, &Engine::sweepRetiming, this, [this](quint64 id, const SweepRecord& record) {
        if (id == m_sweepId)
            showMessage(tr("Timing the best, %1, again with the project's timing…").arg(record.key),
                        false);
    });
    connect(engine, &Engine::sweepRetimed, this, [this](quint64 id, const SweepRecord& record) {
        if (id == m_sweepId)
            onRetimed(record);
    });
    connectConfirmation(engine);
    connect(engine, &Engine::sweepWaiting, this, [this](quint64 id, const QString& why) {
        if (id == m_sweepId)
            showMessage(tr("%1: Run Sweep starts once the GPU is free (Cancel stops it).")
                            .arg(why.left(1).toUpper() + why.mid(1)),
                        false);
    });
    connect(engine, &Engine::sweepFinished, this, [this](quint64 id, const QString& error) {
        if (id != m_sweepId)
            return;
        m_sweepId = 0;
        onFinished(error);
    });
    updateButtons();
}

Engine* SweepPanel::engine() const {
    return m_engine;
}

void SweepPanel::setEvaluatorFactory(SweepEvaluatorFactory factory) {
    m_factory = std::move(factory);
}

void SweepPanel::setResumeQuestion(std::function<ResumeChoice(int, const QString&)> ask) {
    m_askResume = std::move(ask);
}

QString SweepPanel::resultsPath() const {
    return m_document
               ? sweepResultsPath(m_document->project(), m_document->path(), resultsDeviceKey())
               : QString();
}

bool SweepPanel::isRunning() const {
    return m_sweepId != 0;
}

bool SweepPanel::runSweep() {
    if (isRunning() || !m_document)
        return false;
    QString error;
    if (!formSpec(&error)) {
        showMessage(error, true);
        return false;
    }
    if (m_document->project().sweep.isEmpty()) {
        showMessage(tr("The project has no tunables: add one to sweep it."), true);
        return false;
    }
    if (const QString blocked = runBlockedReason(); !blocked.isEmpty()) {
        showMessage(blocked, true);
        return false;
    }
    if (!m_engine) {
        showMessage(tr("No engine to run the sweep on."), true);
        return false;
    }
    // A stand-in evaluator (tests) needs no devices; the Engine then schedules the chosen one.
    const std::optional<QVector<PoolEntry>> devices = sweepDevices(&error);
    if (!devices && !m_factory) {
        showMessage(error, true);
        return false;
    }
    const QString path = resultsPath();
    bool resume = false;
    const QFileInfo found(path);
    std::optional<QVector<SweepRecord>> existing;
    if (found.exists() || found.isSymLink()) {
        // Read, never written: a file that does not read is named and left for the user.
        QString why;
        existing = readSweepResults(path, &why);
        if (!existing) {
            showMessage(tr("%1. Remove it to start the sweep over.").arg(why), true);
            return false;
        }
    }
    if (existing && !existing->isEmpty()) {
        const int done = int(existing->size());
        ResumeChoice choice = ResumeChoice::Resume;
        if (m_askResume) {
            choice = m_askResume(done, path);
        } else {
            QMessageBox box(QMessageBox::Question, tr("Resume Sweep"),
                            tr("%1 configurations of this sweep were already evaluated (%2).")
                                .arg(done)
                                .arg(QDir::toNativeSeparators(path)),
                            QMessageBox::Cancel, this);
            QAbstractButton* resumeButton = box.addButton(tr("Resume"), QMessageBox::AcceptRole);
            QAbstractButton* overButton = box.addButton(tr("Start Over"), QMessageBox::ResetRole);
            box.exec();
            choice = box.clickedButton() == resumeButton ? ResumeChoice::Resume
                     : box.clickedButton() == overButton ? ResumeChoice::StartOver
                                                         : ResumeChoice::Cancel;
        }
        if (choice == ResumeChoice::Cancel)
            return false;
        resume = choice == ResumeChoice::Resume;
    }
    SweepOrder order;
    // Built as Run builds its request: the same project folder finds the same inputs.
    order.base = documentRequest(*m_document, m_device);
    order.resultsPath = path;
    order.resume = resume;
    order.devices = devices.value_or(QVector<PoolEntry>());
    order.evaluator = m_factory;
    order.confirm = confirms();
    m_runningSpec = order.base.project.sweep;
    m_retimed.reset();
    m_model->reset({}, {}, m_runningSpec.objective);
    m_confirmation->hide(); // the last sweep's verdict
    m_balance->hide();
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_shownPath = path;
    m_lookup.stop();
    m_file->clear();
    m_sweepId = m_engine->sweep(order);
    showMessage(tr("Sweeping; results in %1").arg(QDir::toNativeSeparators(path)), false);
    setRunning(true);
    return true;
}

void SweepPanel::cancel() {
    if (m_engine && m_sweepId != 0)
        m_engine->cancelSweep(m_sweepId);
}

void SweepPanel::onStarted(const QVector<SweepRecord>& resumed, int total) {
    fillModel(resumed);
    m_progress->setRange(0, std::max(1, total));
    m_progress->setValue(int(resumed.size()));
    emitRecords();
}

void SweepPanel::onRecord(const SweepRecord& record) {
    if (m_model->names() != record.names)
        m_model->reset(record.names, m_model->records(), m_runningSpec.objective);
    m_model->append(record);
    updateConfirmation();
    emitRecords();
    updateButtons();
}

void SweepPanel::onRetimed(const SweepRecord& record) {
    m_retimed = record;
    replaceRecord(record);
}

void SweepPanel::replaceRecord(const SweepRecord& record) {
    QVector<SweepRecord> records = m_model->records();
    for (SweepRecord& held : records)
        if (held.key == record.key)
            held = record;
    m_model->reset(m_model->names(), records, m_runningSpec.objective);
    updateConfirmation();
    emitRecords();
}

void SweepPanel::onFinished(const QString& error) {
    setRunning(false);
    updateConfirmation();    // a cancelled A/B's line goes
    scheduleResultsLookup(); // what the file now holds, for resultsFileText()
    int passed = 0;
    for (const SweepRecord& r : m_model->records())
        passed += r.passed() ? 1 : 0;
    QString summary =
        tr("%1 of %2 configurations passed").arg(passed).arg(m_model->records().size());
    // A fast sweep's ranking is only as good as its winner's second, accurate time.
    if (m_retimed && m_retimed->isRetimed())
        summary += tr(". Best %1: %2 %3, %4 with the project's timing")
                       .arg(m_retimed->key, formatDurationMs(m_retimed->medianMs),
                            m_retimed->timingBudget, formatDurationMs(m_retimed->accurateMedianMs));
    else if (m_retimed)
        summary += tr(". Timing the best, %1, again failed: %2")
                       .arg(m_retimed->key, m_retimed->accurateError);
    if (error.isEmpty())
        showMessage(summary + QLatin1Char('.'), false);
    else if (error == QLatin1String("cancelled"))
        showMessage(tr("Cancelled: %1; Run Sweep resumes it.").arg(summary), false);
    else if (error.startsWith(QLatin1String("no CUDA device")))
        showMessage(tr("%1. A sweep needs a device: compiling the configurations alone measures "
                       "nothing.")
                        .arg(error),
                    true);
    else
        showMessage(tr("The sweep stopped: %1").arg(error), true);
}

void SweepPanel::setRunning(bool running) {
    if (running) {
        m_clock.start();
        m_tick.start();
        m_elapsed->setText(tr("0.0 s"));
    } else {
        m_tick.stop();
        if (m_clock.isValid())
            m_elapsed->setText(tr("%1 s").arg(double(m_clock.elapsed()) / 1000.0, 0, 'f', 1));
    }
    updateButtons();
    emit runningChanged(running);
}

QString SweepPanel::runBlockedReason() const {
    // The chosen runner's lack of a device matters only when the sweep runs on it alone.
    if (!m_noDevice.isEmpty() && m_scope == DeviceScope::Chosen)
        return tr("No CUDA device: %1. A sweep needs one: compiling the configurations alone "
                  "measures nothing. Choose a runner with a GPU in Preferences ▸ Runners, or "
                  "\"Devices:\" every device of every runner.")
            .arg(m_noDevice);
    return {};
}

void SweepPanel::updateButtons() {
    if (!m_run)
        return;
    const bool running = isRunning();
    const QString blocked = runBlockedReason();
    m_run->setEnabled(!running && m_document && !m_document->project().sweep.isEmpty() &&
                      blocked.isEmpty());
    m_run->setToolTip(blocked);
    m_runReason->setText(blocked);
    m_runReason->setVisible(!running && !blocked.isEmpty());
    m_cancel->setEnabled(running);
    m_applyBest->setEnabled(m_model->bestRow() >= 0);
    const int row = m_proxy->mapToSource(m_resultsView->currentIndex()).row();
    m_applyRow->setEnabled(row >= 0 && row < m_model->records().size() &&
                           m_model->records()[row].passed());
    m_exportCsv->setEnabled(!m_model->records().isEmpty());
    m_exportJson->setEnabled(!m_model->records().isEmpty());
}

void SweepPanel::emitRecords() {
    emit recordsChanged(m_runningSpec, m_model->records());
}

bool SweepPanel::applyBest() {
    if (m_model->bestRow() < 0) {
        showMessage(tr("No configuration passed: there is no best to apply."), true);
        return false;
    }
    return applyRecord(m_model->bestRow());
}

bool SweepPanel::applyRecord(int row) {
    if (row < 0 || row >= m_model->records().size() || !m_document)
        return false;
    const SweepRecord& record = m_model->records()[row];
    if (!record.passed()) {
        showMessage(tr("%1 failed (%2): only a passing configuration is applied.")
                        .arg(record.key, record.error),
                    true);
        return false;
    }
    return applyProject(record);
}

bool SweepPanel::applyProject(const SweepRecord& record) {
    QString error;
    const std::optional<Project> project = projectWithRecord(m_document->project(), record, &error);
    if (!project) {
        showMessage(tr("Cannot apply %1").arg(error), true);
        return false;
    }
    // One step of the settings history, so that one Undo puts every setting back.
    const QString configuration = sweepConfigurationText(record);
    const int was = recordHeldBy(m_document->project(), m_model->records());
    const Project before = m_document->project();
    if (!m_document->settingsHistory()->apply(
            *project, tr("Apply sweep configuration %1").arg(configuration))) {
        showMessage(tr("The project already holds %1.").arg(configuration), false);
        return true;
    }
    const QUndoStack* stack = m_document->settingsHistory()->stack();
    m_applied = stack->command(stack->index() - 1);
    m_appliedText = configuration;
    const QString replaced = was >= 0
                                 ? tr("was %1").arg(sweepConfigurationText(m_model->records()[was]))
                                 : describeProjectChanges(before, m_document->project());
    showMessage(tr("Applied %1 (%2): the next Run uses it.").arg(configuration, replaced), false);
    updateUndoApply();
    return true;
}

bool SweepPanel::exportTo(const QString& path, bool json) {
    const QVector<SweepRecord> sorted = sortedRecords(m_model->records(), m_runningSpec.objective);
    const QByteArray bytes =
        json ? QJsonDocument(recordsToJson(sorted)).toJson(QJsonDocument::Indented)
             : recordsToCsv(sorted, m_model->names()).toUtf8();
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        showMessage(
            tr("Export to %1 failed: %2").arg(QDir::toNativeSeparators(path), file.errorString()),
            true);
        return false;
    }
    showMessage(tr("Exported %1 configurations to %2")
                    .arg(sorted.size())
                    .arg(QDir::toNativeSeparators(path)),
                false);
    return true;
}

} // namespace kernelpad
