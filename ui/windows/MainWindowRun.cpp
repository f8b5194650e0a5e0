// MainWindow: compile and run through the Workbench, and what the window itself shows of it:
// the driver banner, the status bar, which result tab is in front, which actions are enabled.
// The panels show the rest: the editing ones through their bindings (PanelBindings.cpp), the
// result views through the ViewRegistry (MainWindowViews.cpp).

#include "ui/windows/MainWindow.h"
#include "ui/windows/MainWindowFormat.h"

#include "ui/Workbench.h"
#include "ui/widgets/DiagnosticsList.h"
#include "ui/windows/PanelBindings.h"

#include <QAction>
#include <QLabel>
#include <QProgressBar>
#include <QStatusBar>
#include <QTabWidget>

namespace kernelpad {

namespace {
constexpr int kRunMessageMs = 8000;
constexpr int kProblemMessageMs = 15000;
constexpr int kBlockedMessageMs = 5000;
} // namespace

void MainWindow::watchWorkbench() {
    PanelViewer* viewer = makeViewer(this);
    viewer->onCleared = [this](const Workbench&) {
        m_compileLabel->clear();
        m_runLabel->clear();
    };
    viewer->onDevices = [this](const Workbench&) { showDevices(); };
    viewer->onCompileStarted = [this](const Workbench&) {
        m_compileLabel->setText(tr("Compiling…"));
    };
    viewer->onCompiled = [this](const Workbench&) { showCompileStatus(); };
    viewer->onRunStarted = [this](const Workbench&) {
        m_progress->setRange(0, 0); // busy until the first progress report
        m_progressLabel->setText(tr("Running…"));
        m_progress->show();
        m_progressLabel->show();
        m_compileAction->setEnabled(false);
    };
    viewer->onRunProgress = [this](const Workbench&, const QString& stage, int done, int total) {
        if (total > 0) {
            m_progress->setRange(0, total);
            m_progress->setValue(done);
            m_progressLabel->setText(QStringLiteral("%1 %2/%3").arg(stage).arg(done).arg(total));
        } else {
            m_progress->setRange(0, 0);
            m_progressLabel->setText(stage);
        }
    };
    viewer->onRunFinished = [this](const Workbench&, const RunRecord& run) {
        showRunFinished(run);
    };
    m_workbench->addViewer(viewer);
    watchProfiles();
    connect(m_workbench, &Workbench::runStateChanged, this, &MainWindow::updateRunState);
    connect(m_workbench, &Workbench::runSassKnown, this, &MainWindow::refreshRunVerdict);
    connect(m_compileWhileTypingAction, &QAction::toggled, m_workbench,
            &Workbench::setCompileWhileTyping);
    m_workbench->setCompileWhileTyping(m_compileWhileTypingAction->isChecked());
}

void MainWindow::showDevices() {
    const DeviceInfo* device = m_workbench->currentDevice();
    const QString driverError = m_workbench->driverError();
    if (!driverError.isEmpty() || !device) {
        const QString why = driverError.isEmpty() ? tr("no CUDA device was found") : driverError;
        // The Engine's message usually starts with what the banner already says; keep only
        // the detail (which library, which error) so the sentence does not repeat itself.
        static const QString kSaid = QStringLiteral("no CUDA driver found");
        QString detail = why;
        if (detail.startsWith(kSaid, Qt::CaseInsensitive))
            detail = detail.mid(kSaid.size()).trimmed();
        if (detail.startsWith(QLatin1Char('(')) && detail.endsWith(QLatin1Char(')')))
            detail = detail.mid(1, detail.size() - 2);
        m_bannerText->setText(
            tr("No CUDA driver found — KernelPad is in compile-only mode%1. Editing, compiling, "
               "diagnostics, PTX and projects all work. To run kernels from here, add a runner "
               "on a GPU machine over ssh (Edit ▸ Preferences ▸ Runners).")
                .arg(detail.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(detail)));
        m_banner->show();
        m_deviceLabel->setText(
            tr("No CUDA device (compile-only, %1)").arg(QLatin1String(kDefaultArch)));
        m_deviceLabel->setToolTip(why);
    } else {
        m_banner->hide();
        m_deviceLabel->setText(QStringLiteral("%1 (%2)").arg(device->name, device->arch()));
        m_deviceLabel->setToolTip(tr("Device %1, %2 SMs, %3 GiB")
                                      .arg(device->ordinal)
                                      .arg(device->smCount)
                                      .arg(double(device->totalMemBytes) / (1 << 30), 0, 'f', 1));
    }
}

void MainWindow::showCompileStatus() {
    const CompileResult& result = *m_workbench->lastCompile();
    if (!result.error.isEmpty()) {
        // The compiler itself is missing, not the source wrong: say which, the tooltip says why.
        m_compileLabel->setText(!result.compilerMissing ? tr("Compile error")
                                : result.language == SourceLanguage::Cuda
                                    ? tr("NVRTC not found")
                                    : tr("nvJitLink not found"));
        m_compileLabel->setToolTip(result.error);
    } else if (result.ok) {
        m_compileLabel->setText(
            result.cacheHit ? tr("Compiled: %1 (cache)").arg(formatDurationMs(result.compileMs))
                            : tr("Compiled: %1").arg(formatDurationMs(result.compileMs)));
        m_compileLabel->setToolTip(result.flags.join(QLatin1Char(' ')));
    } else {
        m_compileLabel->setText(
            tr("Compile failed: %1").arg(DiagnosticsList::summaryOf(result.diagnostics)));
        m_compileLabel->setToolTip(QString());
        if (m_tabs->currentIndex() != DiagnosticsTab && !result.diagnostics.isEmpty())
            m_tabs->setCurrentIndex(DiagnosticsTab);
    }
}

void MainWindow::updateRunState() {
    if (!m_runAction)
        return;
    const bool running = m_workbench->isRunning();
    const QString reason = m_workbench->runBlockedReason();
    m_runAction->setEnabled(reason.isEmpty());
    for (QAction* a : {m_memcheckAction, m_racecheckAction, m_initcheckAction, m_ceilingAction})
        a->setEnabled(reason.isEmpty());
    m_runAction->setToolTip(reason.isEmpty() ? tr("Run the kernel (Ctrl+R, F5)")
                                             : tr("Run is unavailable: %1").arg(reason));
    // The running state has its own progress display; the label is for why Run is off.
    m_reasonLabel->setText(reason.isEmpty() || running ? QString()
                                                       : tr("Run unavailable: %1").arg(reason));
    m_reasonLabel->setToolTip(reason);
    m_cancelAction->setEnabled(running || m_workbench->isProfiling());
    m_compileAction->setEnabled(!running);
    updateProfileState();
    if (!running && !m_workbench->isProfiling()) {
        m_progress->hide();
        m_progressLabel->hide();
    }
}

void MainWindow::compile() {
    m_workbench->compile();
}

void MainWindow::run() {
    startRun(RunRequest());
}

void MainWindow::runWithSanitizer(SanitizerTool tool) {
    RunRequest request;
    request.sanitizer = tool;
    startRun(request);
}

void MainWindow::runMeasuringCeiling() {
    RunRequest request;
    request.measureCeiling = true;
    startRun(request);
}

void MainWindow::startRun(RunRequest request) {
    QString why;
    if (!m_workbench->run(std::move(request), &why))
        statusBar()->showMessage(tr("Cannot run: %1").arg(why), kBlockedMessageMs);
}

void MainWindow::cancel() {
    if (m_workbench->isRunning()) {
        m_workbench->cancel();
        m_progressLabel->setText(tr("Cancelling…"));
    }
}

std::pair<QString, QString> MainWindow::runFinishedTexts(const RunRecord& run) const {
    const RunResult& result = run.result;
    // The figures come from the run's summaries, formatted as the CLI and the timing panel
    // format them.
    const QVector<Summary> summaries = summarize(result);
    const Summary* median = findSummary(summaries, QStringLiteral("time.median"));
    const Summary* samples = findSummary(summaries, QStringLiteral("samples"));
    const bool measured = median && samples;
    // Against the baseline or the previous run of the kernel; empty for a failed run, which
    // is never compared (Workbench::comparedWith()).
    // The edit's verdict (time, registers, occupancy, ...) where it has one.
    QString comparison = m_workbench->editVerdictText(run);
    if (comparison.isEmpty())
        comparison = m_workbench->comparisonText(run);
    const QString withComparison =
        comparison.isEmpty() ? QString() : QStringLiteral(" — ") + comparison;
    QString label;
    if (measured)
        label = tr("Last run: %1 (%2)%3")
                    .arg(summaryPhrase(*median),
                         formatSummaryValue(*samples) + QLatin1Char(' ') + samples->name,
                         withComparison);
    QString message;
    if (result.status == RunStatus::Ok) {
        const QString verified = result.verified() ? tr("verified") : tr("not verified");
        message = (measured ? tr("Run finished: %1, %2").arg(summaryPhrase(*median), verified)
                            : tr("Run finished: %1").arg(verified)) +
                  withComparison;
    }
    return {label, message};
}

void MainWindow::refreshRunVerdict(quint64 serial) {
    const RunRecord* run = m_workbench->findRun(m_shownRunSerial);
    if (!run)
        return;
    const RunRecord* other = m_workbench->comparedWith(*run);
    if (serial != run->serial && (!other || other->serial != serial))
        return; // the sentence shown names neither this run nor the one it was compared with
    const auto [label, message] = runFinishedTexts(*run);
    if (!label.isEmpty())
        m_runLabel->setText(label);
    // Only while the message shown is still that run's: a later one is not replaced.
    if (!message.isEmpty() && statusBar()->currentMessage() == m_shownRunMessage) {
        m_shownRunMessage = message;
        statusBar()->showMessage(message, kRunMessageMs);
    }
}

void MainWindow::showRunFinished(const RunRecord& run) {
    const RunResult& result = run.result;
    m_shownRunSerial = 0;
    m_shownRunMessage.clear();
    if (run.sanitized()) {
        statusBar()->showMessage(sanitizerSummary(result), kProblemMessageMs);
        m_tabs->setCurrentIndex(result.sanitizerErrorCount() > 0 ? DiagnosticsTab : LogTab);
        return;
    }
    const auto [label, message] = runFinishedTexts(run);
    const bool measured = !label.isEmpty();
    if (measured) {
        m_runLabel->setText(label);
        m_runLabel->setToolTip(run.changes);
        m_shownRunSerial = run.serial;
    }
    if (result.status == RunStatus::Ok) {
        m_shownRunMessage = message;
        statusBar()->showMessage(message, kRunMessageMs);
        m_tabs->setCurrentIndex(TimingTab);
        return;
    }
    statusBar()->showMessage(runEndedMessage(result), kProblemMessageMs);
    const bool showVerification =
        result.status == RunStatus::VerificationFailed && !verificationPinned();
    m_tabs->setCurrentIndex(showVerification                           ? VerificationTab
                            : result.status == RunStatus::CompileError ? DiagnosticsTab
                            : measured                                 ? TimingTab
                                                                       : LogTab);
}

} // namespace kernelpad
