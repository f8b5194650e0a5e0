// MainWindow: compile, run, and showing what the Engine sends back.

#include "ui/windows/MainWindow.h"

#include "core/engine/Engine.h"
#include "core/launch/BufferInit.h"
#include "core/launch/LaunchValidation.h"
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

namespace {

constexpr int kMaxChangeParts = 4; ///< the "what changed" note stays one short line

QString formatMs(double ms) {
    if (ms <= 0)
        return QStringLiteral("0 ms");
    if (ms < 1.0)
        return QStringLiteral("%1 µs").arg(ms * 1e3, 0, 'f', ms < 0.01 ? 2 : 1);
    if (ms < 1000.0)
        return QStringLiteral("%1 ms").arg(ms, 0, 'f', ms < 10 ? 3 : 1);
    return QStringLiteral("%1 s").arg(ms / 1e3, 0, 'f', 2);
}

QString formatDims(const std::array<int, 3>& d) {
    if (d[1] == 1 && d[2] == 1)
        return QString::number(d[0]);
    if (d[2] == 1)
        return QStringLiteral("%1×%2").arg(d[0]).arg(d[1]);
    return QStringLiteral("%1×%2×%3").arg(d[0]).arg(d[1]).arg(d[2]);
}

bool sameJson(const QJsonObject& a, const QJsonObject& b) {
    return QJsonDocument(a).toJson(QJsonDocument::Compact) ==
           QJsonDocument(b).toJson(QJsonDocument::Compact);
}

bool sameArguments(const QVector<ArgumentSpec>& a, const QVector<ArgumentSpec>& b) {
    if (a.size() != b.size())
        return false;
    for (int i = 0; i < a.size(); ++i) {
        if (!sameJson(a.at(i).toJson(), b.at(i).toJson()))
            return false;
    }
    return true;
}

} // namespace

const DeviceInfo* MainWindow::currentDevice() const {
    if (m_deviceIndex < 0 || m_deviceIndex >= m_devices.size())
        return nullptr;
    return &m_devices.at(m_deviceIndex);
}

void MainWindow::onDevicesChanged(const QVector<DeviceInfo>& devices, const QString& driverError) {
    m_devices = devices;
    m_driverError = driverError;
    m_devicesKnown = true;
    if (m_deviceIndex >= devices.size())
        m_deviceIndex = 0;
    const DeviceInfo* device = currentDevice();

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
               "diagnostics, PTX and projects all work; to run kernels, open the project on a "
               "machine with an NVIDIA GPU and its driver.")
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
    if (m_options)
        m_options->setDeviceArch(device ? device->arch() : QString::fromLatin1(kDefaultArch));
    if (m_timing)
        m_timing->setPeakBandwidthGBs(device ? device->peakBandwidthGBs() : 0.0);
    updateLaunchLimits();
    updateRunState();
}

void MainWindow::compile() {
    m_compileTimer->stop();
    if (!m_engine)
        return;
    const Project project = currentProject();
    const DeviceInfo* device = currentDevice();
    m_compileId = m_engine->compile(project, m_document->directory(), device ? device->ordinal : 0);
    m_lastCompiledSource = project.source;
    m_compileLabel->setText(tr("Compiling…"));
}

void MainWindow::onCompiled(quint64 id, const CompileResult& result) {
    if (id != m_compileId)
        return; // another window's request, or superseded by a newer compile
    showCompile(result);
    emit compileShown(result);
}

void MainWindow::showCompile(const CompileResult& result) {
    m_lastCompile = result;
    const QString sourceName = m_baseProject.sourceName;
    // The editor shows only its own file's messages; the list shows every one.
    if (m_editor)
        m_editor->setDiagnostics(result.diagnostics, sourceName);
    if (m_diagnostics) {
        m_diagnostics->setDiagnostics(result.diagnostics, sourceName);
        m_tabs->setTabText(DiagnosticsTab,
                           result.diagnostics.isEmpty()
                               ? tr("Diagnostics")
                               : tr("Diagnostics (%1)").arg(result.diagnostics.size()));
    }
    if (m_ptx)
        m_ptx->setPtx(result.ptx);
    if (m_log) {
        QStringList header;
        header << tr("NVRTC %1, %2").arg(result.nvrtcVersion, result.arch);
        if (!result.flags.isEmpty())
            header << tr("Flags: %1").arg(result.flags.join(QLatin1Char(' ')));
        header << (result.ok ? tr("Compiled in %1%2")
                                   .arg(formatMs(result.compileMs),
                                        result.cacheHit ? tr(" (cache)") : QString())
                             : tr("Compile failed: %1")
                                   .arg(m_diagnostics ? m_diagnostics->summary() : QString()));
        if (!result.error.isEmpty())
            header << tr("NVRTC could not run: %1").arg(result.error);
        m_log->setPlainText(header.join(QLatin1Char('\n')) + QStringLiteral("\n\n") +
                            (result.log.isEmpty() ? tr("(empty program log)") : result.log));
    }
    if (!result.error.isEmpty()) {
        m_compileLabel->setText(tr("Compile error"));
        m_compileLabel->setToolTip(result.error);
    } else if (result.ok) {
        m_compileLabel->setText(result.cacheHit
                                    ? tr("Compiled: %1 (cache)").arg(formatMs(result.compileMs))
                                    : tr("Compiled: %1").arg(formatMs(result.compileMs)));
        m_compileLabel->setToolTip(result.flags.join(QLatin1Char(' ')));
    } else {
        m_compileLabel->setText(tr("Compile failed: %1").arg(m_diagnostics->summary()));
        m_compileLabel->setToolTip(QString());
        if (m_tabs && m_tabs->currentIndex() != DiagnosticsTab && !result.diagnostics.isEmpty())
            m_tabs->setCurrentIndex(DiagnosticsTab);
    }
    if (result.ok)
        fillKernelSelector(result);
    updateRunState();
}

void MainWindow::fillKernelSelector(const CompileResult& result) {
    if (!m_kernelSelector)
        return;
    const QString previous = m_kernelSelector->currentText().trimmed();
    QStringList names;
    for (const KernelInfo& k : result.kernels)
        names << k.name;
    QString selected = previous;
    if (!names.contains(previous)) {
        // Keep a template name expression the user typed; otherwise follow a renamed kernel.
        if (previous.isEmpty() || !previous.contains(QLatin1Char('<')))
            selected = names.isEmpty() ? previous : names.first();
    }
    const bool wasLoading = m_loading;
    m_loading = true;
    m_kernelSelector->clear();
    m_kernelSelector->addItems(names);
    m_kernelSelector->setCurrentText(selected);
    m_loading = wasLoading;
    if (selected != previous)
        onContentChanged();
    syncArgumentsWithKernel();
}

void MainWindow::syncArgumentsWithKernel() {
    if (!m_lastCompile || !m_arguments || !m_kernelSelector || !m_editor)
        return;
    const KernelInfo* kernel = m_lastCompile->findKernel(m_kernelSelector->currentText().trimmed());
    if (!kernel)
        return;
    ArgumentTableModel* model = m_arguments->model();
    const QVector<ArgumentSpec> before = model->arguments();
    const bool wasDirty = m_document->isDirty();
    const bool wasLoading = m_loading;
    m_loading = true; // a sync that changes nothing must not mark the project edited
    model->syncWithKernel(*kernel, m_lastCompiledSource);
    m_loading = wasLoading;
    if (!sameArguments(before, model->arguments()))
        onContentChanged();
    else if (!wasDirty)
        m_document->setDirty(false);
    updateCoverCount();
    updateRunState();
}

void MainWindow::onResources(quint64 id, const QString& kernel, const KernelResources& resources) {
    if (id != m_compileId)
        return;
    m_kernelResources = resources;
    m_resourcesKernel = kernel;
    updateLaunchLimits();
    if (m_resources) {
        if (const DeviceInfo* device = currentDevice())
            m_resources->showResources(kernel, resources, *device, m_launch->config());
    }
}

void MainWindow::updateLaunchLimits() {
    if (!m_launch)
        return;
    LaunchLimits limits = genericLaunchLimits();
    if (const DeviceInfo* device = currentDevice()) {
        limits.maxThreadsPerBlock = device->maxThreadsPerBlock;
        limits.maxBlockDim = device->maxBlockDim;
        limits.maxGridDim = device->maxGridDim;
        limits.maxSharedPerBlockBytes = device->sharedMemPerBlockBytes;
        limits.maxSharedPerBlockOptinBytes = device->sharedMemPerBlockOptinBytes;
    }
    if (m_kernelResources && m_kernelSelector &&
        m_resourcesKernel == m_kernelSelector->currentText().trimmed()) {
        limits.kernelMaxThreadsPerBlock = m_kernelResources->maxThreadsPerBlock;
        limits.kernelStaticSharedBytes = m_kernelResources->staticSharedBytes;
        limits.kernelName = m_resourcesKernel;
    }
    const bool wasLoading = m_loading;
    m_loading = true;
    m_launch->setLimits(limits);
    m_loading = wasLoading;
}

void MainWindow::updateCoverCount() {
    if (!m_launch || !m_arguments)
        return;
    // The first output buffer is what a 1-D kernel usually covers; else the first buffer.
    const QVector<ArgumentSpec> args = m_arguments->model()->arguments();
    const ArgumentSpec* pick = nullptr;
    for (const ArgumentSpec& a : args) {
        if (!a.isBuffer())
            continue;
        if (!pick)
            pick = &a;
        if (a.buffer.direction != Direction::In) {
            pick = &a;
            break;
        }
    }
    if (!pick)
        return;
    QString error;
    if (std::optional<qint64> count = resolveCount(pick->buffer.count, args, &error)) {
        const bool wasLoading = m_loading;
        m_loading = true;
        m_launch->setCoverCount(*count);
        m_loading = wasLoading;
    }
}

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
    if (result.sanitizerTool != SanitizerTool::None) {
        showSanitizerReports(result);
        return;
    }

    const QString note = describeChanges(m_lastRunProject, m_runningProject);
    if (m_timing)
        m_timing->showRun(result, note);
    if (m_verification)
        m_verification->showResult(result);
    if (m_buffers)
        m_buffers->setOutputs(result.outputs);
    if (m_console && result.status != RunStatus::CompileError)
        m_console->showRun(m_runningProject.kernel, result.console, QDateTime::currentDateTime());
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

QString MainWindow::describeChanges(const std::optional<Project>& before, const Project& after) {
    if (!before)
        return tr("first run");
    const Project& b = *before;
    QStringList parts;
    if (b.source != after.source)
        parts << tr("source edited");
    if (b.kernel != after.kernel)
        parts << tr("kernel %1→%2").arg(b.kernel, after.kernel);
    if (!(b.options == after.options))
        parts << tr("compile options");
    if (b.launch.grid != after.launch.grid)
        parts << tr("grid %1→%2").arg(formatDims(b.launch.grid), formatDims(after.launch.grid));
    if (b.launch.block != after.launch.block)
        parts << tr("block %1→%2").arg(formatDims(b.launch.block), formatDims(after.launch.block));
    if (b.launch.sharedMemBytes != after.launch.sharedMemBytes)
        parts << tr("shared %1→%2 B").arg(b.launch.sharedMemBytes).arg(after.launch.sharedMemBytes);

    bool argumentsReshaped = b.arguments.size() != after.arguments.size();
    for (int i = 0; i < after.arguments.size() && !argumentsReshaped; ++i) {
        const ArgumentSpec& x = b.arguments.at(i);
        const ArgumentSpec& y = after.arguments.at(i);
        if (x.name != y.name || x.kind != y.kind) {
            argumentsReshaped = true;
            break;
        }
        if (!y.isBuffer()) {
            if (x.value != y.value)
                parts << QStringLiteral("%1 %2→%3").arg(y.name, x.value, y.value);
            else if (!sameJson(x.toJson(), y.toJson()))
                parts << tr("%1 type").arg(y.name);
        } else if (x.buffer.count != y.buffer.count) {
            parts << tr("%1 count %2→%3").arg(y.name, x.buffer.count, y.buffer.count);
        } else if (!sameJson(x.toJson(), y.toJson())) {
            parts << tr("%1 settings").arg(y.name);
        }
    }
    if (argumentsReshaped)
        parts << tr("arguments changed");
    // The settings that change what a figure means are named; the rest are "timing settings".
    TimingSpec rest = after.timing;
    if (b.timing.mode != after.timing.mode)
        parts << tr("%1→%2 timing")
                     .arg(timingModeName(b.timing.mode), timingModeName(after.timing.mode));
    if (b.timing.blockingKernel != after.timing.blockingKernel)
        parts << (after.timing.blockingKernel ? tr("blocking kernel on")
                                              : tr("blocking kernel off"));
    if (b.timing.repetitions != after.timing.repetitions)
        parts << tr("reps %1→%2").arg(b.timing.repetitions).arg(after.timing.repetitions);
    rest.mode = b.timing.mode;
    rest.blockingKernel = b.timing.blockingKernel;
    rest.repetitions = b.timing.repetitions;
    if (!(b.timing == rest))
        parts << tr("timing settings");

    if (parts.isEmpty())
        return tr("no change");
    if (parts.size() > kMaxChangeParts) {
        const int more = int(parts.size()) - kMaxChangeParts;
        parts = parts.mid(0, kMaxChangeParts);
        parts << tr("%1 more").arg(more);
    }
    return parts.join(QStringLiteral(", "));
}

} // namespace kernelpad
