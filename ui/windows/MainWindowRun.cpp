// MainWindow: compile, run, and showing what the Engine sends back.

#include "ui/windows/MainWindow.h"
#include "ui/windows/MainWindowFormat.h"

#include "core/engine/Engine.h"
#include "core/launch/BufferInit.h"
#include "core/launch/LaunchValidation.h"
#include "core/project/ProjectDiff.h"
#include "ui/ProjectDocument.h"
#include "ui/models/ArgumentTableModel.h"
#include "ui/widgets/ArgumentTableView.h"
#include "ui/widgets/BufferViewer.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/CompileOptionsPanel.h"
#include "ui/widgets/ConsolePanel.h"
#include "ui/widgets/DiagnosticsList.h"
#include "ui/widgets/LaunchPanel.h"
#include "ui/widgets/PtxView.h"
#include "ui/widgets/ResourcesPanel.h"
#include "ui/widgets/TimingChartView.h"
#include "ui/widgets/VerificationPanel.h"

#include <QAction>
#include <QComboBox>
#include <QDateTime>
#include <QJsonDocument>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>

namespace kernelpad {

using mainwindow::formatMs;

QString MainWindow::runBlockedReason() const {
    if (m_running)
        return tr("A run is in progress");
    if (!m_devicesKnown)
        return tr("Looking for CUDA devices…");
    if (!m_driverError.isEmpty())
        return tr("No CUDA driver: compile-only mode");
    if (m_devices.isEmpty())
        return tr("No CUDA device found");
    const Project project = currentProject();
    if (project.kernel.isEmpty())
        return tr("No kernel selected: compile to list the kernels");
    if (m_lastCompile && !m_lastCompile->ok && m_lastCompiledSource == project.source)
        return tr("The source has compile errors");
    if (const QString optionProblem = project.options.validate(); !optionProblem.isEmpty())
        return tr("Compile options: %1").arg(optionProblem);
    if (m_launch) {
        if (const QString launchProblem = m_launch->problem(); !launchProblem.isEmpty())
            return tr("Launch: %1").arg(launchProblem);
    }
    if (const QString timingProblem = project.timing.validate(); !timingProblem.isEmpty())
        return tr("Timing: %1").arg(timingProblem);
    if (m_arguments) {
        const QStringList problems = m_arguments->model()->problems();
        if (!problems.isEmpty()) {
            return problems.size() == 1 ? tr("Arguments: %1").arg(problems.first())
                                        : tr("Arguments: %1 (and %2 more)")
                                              .arg(problems.first())
                                              .arg(problems.size() - 1);
        }
    }
    return QString();
}

void MainWindow::updateRunState() {
    if (!m_runAction)
        return;
    const QString reason = runBlockedReason();
    m_runAction->setEnabled(reason.isEmpty());
    for (QAction* a : {m_memcheckAction, m_racecheckAction, m_initcheckAction, m_ceilingAction})
        if (a)
            a->setEnabled(reason.isEmpty());
    m_runAction->setToolTip(reason.isEmpty() ? tr("Run the kernel (Ctrl+R, F5)")
                                             : tr("Run is unavailable: %1").arg(reason));
    // The running state has its own progress display; the label is for why Run is off.
    m_reasonLabel->setText(reason.isEmpty() || m_running ? QString()
                                                         : tr("Run unavailable: %1").arg(reason));
    m_reasonLabel->setToolTip(reason);
    m_cancelAction->setEnabled(m_running);
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
    if (!m_engine)
        return;
    const QString reason = runBlockedReason();
    if (!reason.isEmpty()) {
        statusBar()->showMessage(tr("Cannot run: %1").arg(reason), 5000);
        return;
    }
    m_compileTimer->stop();
    request.project = currentProject();
    request.projectDir = m_document->directory();
    request.device = currentDevice() ? currentDevice()->ordinal : 0;
    m_runningProject = request.project;
    m_runId = m_engine->run(request);
    m_lastCompiledSource = request.project.source;
    setRunning(true);
}

void MainWindow::cancel() {
    if (m_engine && m_running) {
        m_engine->cancel();
        m_progressLabel->setText(tr("Cancelling…"));
    }
}

void MainWindow::setRunning(bool running) {
    m_running = running;
    m_progress->setVisible(running);
    m_progressLabel->setVisible(running);
    if (running) {
        m_progress->setRange(0, 0); // busy until the first progress report
        m_progressLabel->setText(tr("Running…"));
    }
    m_compileAction->setEnabled(!running);
    updateRunState();
}

void MainWindow::onRunProgress(quint64 id, const QString& stage, int done, int total) {
    if (id != m_runId || !m_running)
        return;
    if (total > 0) {
        m_progress->setRange(0, total);
        m_progress->setValue(done);
        m_progressLabel->setText(QStringLiteral("%1 %2/%3").arg(stage).arg(done).arg(total));
    } else {
        m_progress->setRange(0, 0);
        m_progressLabel->setText(stage);
    }
}

void MainWindow::onRunFinished(quint64 id, const RunResult& result) {
    if (id != m_runId)
        return;
    setRunning(false);
    const bool compiled = !result.compile.log.isEmpty() || !result.compile.ptx.isEmpty() ||
                          !result.compile.diagnostics.isEmpty() || !result.compile.error.isEmpty();
    if (compiled)
        showCompile(result.compile);
    if (m_console && result.status != RunStatus::CompileError)
        m_console->showRun(m_runningProject.kernel, result.console, QDateTime::currentDateTime());
    if (result.sanitizerTool != SanitizerTool::None) {
        showSanitizerReports(result);
        return;
    }

    const QString note = describeProjectChanges(m_lastRunProject, m_runningProject);
    if (m_timing)
        m_timing->showRun(result, note);
    if (m_verification)
        m_verification->showResult(result);
    if (m_buffers)
        m_buffers->setOutputs(result.outputs);
    if (m_resources && result.status != RunStatus::CompileError && !result.device.name.isEmpty())
        m_resources->showResources(m_runningProject.kernel, result.resources, result.device,
                                   result.launch);

    const bool measured = result.timing.reps() > 0;
    if (measured) {
        m_lastRunProject = m_runningProject;
        m_runLabel->setText(tr("Last run: median %1 (%2 reps)")
                                .arg(formatMs(result.timing.medianMs))
                                .arg(result.timing.reps()));
        m_runLabel->setToolTip(note);
    }
    if (result.status == RunStatus::Ok) {
        statusBar()->showMessage(tr("Run finished: median %1, %2")
                                     .arg(formatMs(result.timing.medianMs),
                                          result.verified() ? tr("verified") : tr("not verified")),
                                 8000);
        m_tabs->setCurrentIndex(TimingTab);
    } else {
        const QString message =
            tr("Run ended (%1): %2").arg(runStatusName(result.status), result.error);
        statusBar()->showMessage(message, 15000);
        if (m_log && !result.error.isEmpty())
            m_log->appendPlainText(QStringLiteral("\n") + message);
        const bool showVerification =
            result.status == RunStatus::VerificationFailed && !verificationPinned();
        m_tabs->setCurrentIndex(showVerification                           ? VerificationTab
                                : result.status == RunStatus::CompileError ? DiagnosticsTab
                                : measured                                 ? TimingTab
                                                                           : LogTab);
    }
    updateRunState();
    emit runShown(result);
}

void MainWindow::showSanitizerReports(const RunResult& result) {
    // Times under a sanitizer mean nothing: the chart and its history are left alone.
    QVector<Diagnostic> marks = result.compile.diagnostics;
    for (const SanitizerReport& report : result.sanitizer)
        marks.push_back(report.diagnostic());
    const QString sourceName = m_baseProject.sourceName;
    if (m_editor)
        m_editor->setDiagnostics(marks, sourceName);
    if (m_diagnostics)
        m_diagnostics->setDiagnostics(marks, sourceName);
    if (m_verification)
        m_verification->showResult(result);
    const QString tool = sanitizerToolName(result.sanitizerTool);
    const int errors = result.sanitizerErrorCount();
    QString message;
    if (result.status == RunStatus::BadInput ||
        (errors == 0 && !result.error.isEmpty() && result.status != RunStatus::Ok &&
         result.status != RunStatus::VerificationFailed))
        message = tr("%1 could not check the run: %2").arg(tool, result.error);
    else if (errors == 0)
        message = tr("%1 found no errors").arg(tool);
    else
        message =
            tr("%1 found %n error(s); they are marked in the editor", nullptr, errors).arg(tool);
    statusBar()->showMessage(message, 15000);
    if (m_log) {
        m_log->appendPlainText(QStringLiteral("\n") + message);
        for (const SanitizerReport& report : result.sanitizer)
            m_log->appendPlainText(report.message());
        if (!result.sanitizerNote.isEmpty())
            m_log->appendPlainText(result.sanitizerNote);
    }
    m_tabs->setCurrentIndex(errors > 0 ? DiagnosticsTab : LogTab);
    updateRunState();
    emit runShown(result);
}

} // namespace kernelpad
