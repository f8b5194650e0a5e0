// MainWindow: devices, compiling, and what a compile tells the panels (kernel list, PTX,
// argument sync, the kernel's launch limits, the Cover count).

#include "ui/windows/MainWindow.h"
#include "ui/windows/MainWindowFormat.h"

#include "core/engine/Engine.h"
#include "core/launch/BufferInit.h"
#include "core/launch/LaunchValidation.h"
#include "ui/ProjectDocument.h"
#include "ui/models/ArgumentTableModel.h"
#include "ui/widgets/ArgumentTableView.h"
#include "ui/widgets/BufferViewer.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/CompileOptionsPanel.h"
#include "ui/widgets/DiagnosticsList.h"
#include "ui/widgets/KernelItems.h"
#include "ui/widgets/LaunchPanel.h"
#include "ui/widgets/PtxView.h"
#include "ui/widgets/ResourcesPanel.h"
#include "ui/widgets/TimingChartView.h"

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>

namespace kernelpad {

using mainwindow::formatMs;
using mainwindow::sameArguments;

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
        m_ptx->showCompile(result); // a failed compile keeps the last good PTX, marked stale
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
    // Without a device no driver figures follow: show what the compile knows.
    if (m_resources && !currentDevice())
        m_resources->showCompileInfo(result, m_kernelSelector->currentText().trimmed());
    updateLaunchLimits();
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
    fillKernelItems(m_kernelSelector, result.kernels); // the lowered name beside each
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
    // The kernel's own bounds come with the compile, so they are checked without a driver.
    if (m_lastCompile && m_lastCompile->ok && m_kernelSelector) {
        const QString kernel = m_kernelSelector->currentText().trimmed();
        if (const KernelInfo* info = m_lastCompile->findKernel(kernel)) {
            limits.kernelMaxntid = info->maxntid;
            limits.kernelReqntid = info->reqntid;
            limits.kernelName = kernel;
        }
    }
    const bool wasLoading = m_loading;
    m_loading = true;
    m_launch->setLimits(limits);
    m_loading = wasLoading;
}

void MainWindow::updateCoverCount() {
    if (!m_launch || !m_arguments)
        return;
    const QVector<ArgumentSpec> args = m_arguments->model()->arguments();
    const bool wasLoading = m_loading;
    m_loading = true;
    m_launch->setCoverArguments(args); // "n/2" in the field resolves against these
    m_launch->setCoverCount(elementsToCover(args));
    m_loading = wasLoading;
}

} // namespace kernelpad
