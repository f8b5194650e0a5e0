#include "ui/widgets/ResourcesPanel.h"

#include "core/compile/KernelFacts.h"
#include "core/compile/ProgramOptions.h"
#include "core/cuda/Occupancy.h"
#include "core/run/OccupancyInputs.h"

#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

#include <climits>

namespace kernelpad {

namespace {

QString bytes(qint64 n) {
    return n == 0 ? QStringLiteral("0 B")
                  : QLocale().formattedDataSize(n, 1, QLocale::DataSizeTraditionalFormat);
}

QString version(int v) {
    return v > 0 ? QStringLiteral("%1.%2").arg(v / 10).arg(v % 10) : QStringLiteral("—");
}

/// The registers' text when neither a CUBIN nor ptxas's report gives them: -Xptxas -v helps
/// only a CUDA C++ compile for an sm_ arch (PTX and NVVM IR get no ptxas report, and a
/// compute_ arch runs no ptxas).
QString unknownResourceText(const CompileResult& result) {
    if (result.language != SourceLanguage::Cuda || isVirtualArch(result.arch))
        return ResourcesPanel::tr(
            "— (no CUBIN: a compute_ arch gives PTX only; known once a device loads the "
            "kernel)");
    return ResourcesPanel::tr("— (add -Xptxas -v to the extra flags: ptxas reports it)");
}

} // namespace

ResourcesPanel::ResourcesPanel(QWidget* parent)
    : QWidget(parent) {
    m_title = new QLabel(this);
    m_title->setObjectName(QStringLiteral("resourcesTitle"));
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_title->setWordWrap(true);
    m_form = new QFormLayout;
    m_form->setLabelAlignment(Qt::AlignLeft);
    m_driverNote = new QLabel(this);
    m_driverNote->setObjectName(QStringLiteral("driverNote"));
    m_driverNote->setWordWrap(true);
    m_driverNote->setText(
        tr("Only the driver adds: the registers and the max threads per block of the kernel "
           "as loaded, its binary version, and the theoretical occupancy at the chosen block. "
           "They show here when the project is compiled on a machine with an NVIDIA GPU."));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addLayout(m_form);
    layout->addWidget(m_driverNote);
    layout->addStretch();
    clear();
}

void ResourcesPanel::setRow(const QString& label, const QString& value, const QString& toolTip) {
    QLabel* field = m_values.value(label);
    if (!field) {
        field = new QLabel(this);
        field->setTextInteractionFlags(Qt::TextSelectableByMouse);
        m_form->addRow(label, field);
        m_values.insert(label, field);
    }
    field->setText(value);
    field->setToolTip(toolTip);
}

QString ResourcesPanel::valueText(const QString& label) const {
    const QLabel* field = m_values.value(label);
    return field ? field->text() : QString();
}

void ResourcesPanel::clear() {
    while (m_form->rowCount() > 0)
        m_form->removeRow(0);
    m_values.clear();
    m_driverNote->hide();
    m_title->setText(tr("Nothing compiled yet: the kernel's resources show here after a "
                        "compile (from the driver when there is a CUDA device)."));
}

void ResourcesPanel::showResources(const QString& kernel, const KernelResources& r,
                                   const DeviceInfo& device, const LaunchConfig& launch) {
    clear();
    m_title->setText(device.name.isEmpty()
                         ? kernel
                         : tr("%1 on %2 (%3)").arg(kernel, device.name, device.arch()));
    const QLocale locale;
    setRow(tr("Registers per thread"),
           tr("%1 (from %2)").arg(r.registers).arg(resourceSourceName(ResourceSource::Driver)),
           tr("More registers per thread can lower occupancy; cap with Max registers."));
    setRow(tr("Static shared memory"), bytes(r.staticSharedBytes));
    setRow(tr("Dynamic shared memory"), bytes(launch.sharedMemBytes));
    setRow(tr("Local memory per thread"),
           r.localBytes > 0 ? tr("%1 (register spills or local arrays)").arg(bytes(r.localBytes))
                            : bytes(0));
    setRow(tr("Constant memory"), bytes(r.constBytes));
    QString limit =
        r.maxThreadsPerBlock > 0 ? locale.toString(r.maxThreadsPerBlock) : QStringLiteral("—");
    if (r.maxThreadsPerBlock > 0 && launch.threadsPerBlock() > r.maxThreadsPerBlock)
        limit += tr(" (the block has %1: too many)").arg(launch.threadsPerBlock());
    setRow(tr("Max threads per block"), limit,
           tr("The kernel's limit: lower than the device's when it uses many registers."));
    setRow(tr("PTX / binary version"),
           QStringLiteral("%1 / %2").arg(version(r.ptxVersion), version(r.binaryVersion)));

    // The driver's figure when it gave one, else our estimate from the same rules.
    int blocks = r.occupancyBlocksPerSm;
    double occupancy = r.occupancy;
    QString note;
    if (blocks <= 0 && occupancy <= 0) {
        const qint64 threads = launch.threadsPerBlock();
        const Occupancy estimate = Occupancy::of(OccupancyLimits::forDevice(device), r.registers,
                                                 r.staticSharedBytes + launch.sharedMemBytes,
                                                 threads > INT_MAX ? INT_MAX : int(threads));
        blocks = estimate.activeBlocksPerSm;
        occupancy = estimate.occupancy;
        note = tr(" (estimate)");
    }
    if (device.maxThreadsPerSm <= 0 && r.occupancy <= 0) {
        setRow(tr("Theoretical occupancy"), QStringLiteral("—"), tr("Needs a device to compute."));
    } else {
        setRow(tr("Theoretical occupancy"),
               tr("%1 % (%2 blocks/SM of %3 threads)%4")
                   .arg(QString::number(occupancy * 100.0, 'f', 0))
                   .arg(blocks)
                   .arg(launch.threadsPerBlock())
                   .arg(note),
               tr("Active warps per SM over the maximum, at the chosen block size and "
                  "shared memory."));
    }
}

void ResourcesPanel::showCompileInfo(const CompileResult& result, const QString& kernel) {
    clear();
    if (!result.ok) {
        m_title->setText(tr("The current source does not compile: the kernel's resources show "
                            "here after a successful compile."));
        return;
    }
    const KernelInfo* info = result.findKernel(kernel);
    if (!info) {
        m_title->setText(tr("The last compile has no kernel named '%1'.").arg(kernel));
        return;
    }
    const KernelCompileFacts f = kernelCompileFacts(result.ptx, result.log, info->lowered);
    // One source of truth with the Occupancy tab: the CUBIN's figures, else ptxas's report.
    const ResourceFigures figures = kernelResourceFigures(result, info->lowered, nullptr);
    const bool known = figures.source != ResourceSource::None;
    const QString from = resourceSourceName(figures.source);
    m_title->setText(tr("%1 for %2: what the compile knows (no CUDA driver)")
                         .arg(info->name.isEmpty() ? info->lowered : info->name, result.arch));
    const QString unknown = unknownResourceText(result);
    setRow(tr("Registers per thread"),
           known ? tr("%1 (from %2)").arg(figures.registers).arg(from) : unknown,
           tr("More registers per thread can lower occupancy; cap with Max registers."));
    if (f.ptxasReported)
        setRow(tr("Register spills"),
               f.spillStoreBytes + f.spillLoadBytes == 0
                   ? tr("none")
                   : tr("%1 stored, %2 loaded per thread (through local memory)")
                         .arg(bytes(f.spillStoreBytes), bytes(f.spillLoadBytes)));
    QString shared = tr("%1 declared in the PTX").arg(bytes(f.sharedBytes));
    if (f.ptxasReported)
        shared += tr("; ptxas: %1").arg(bytes(f.ptxasSharedBytes));
    setRow(tr("Static shared memory"), shared,
           tr("__shared__ arrays the kernel declares or uses, per block."));
    setRow(tr("Dynamic shared memory"),
           f.dynamicShared ? tr("used (extern __shared__): its size is Launch ▸ Shared memory")
                           : tr("not used"));
    QString local = tr("%1 declared in the PTX").arg(bytes(f.localBytes));
    if (known)
        local += tr("; %1 stack frame (from %2)").arg(bytes(figures.localBytes), from);
    setRow(tr("Local memory per thread"), local,
           tr("Local arrays, register spills and the stack; ptxas may keep a small array in "
              "registers."));
    if (figures.constBytes)
        setRow(tr("Constant memory"), bytes(*figures.constBytes));
    QStringList bounds;
    if (f.maxntid[0] > 0)
        bounds << tr(".maxntid %1×%2×%3 (at most %4 threads per block)")
                      .arg(f.maxntid[0])
                      .arg(f.maxntid[1])
                      .arg(f.maxntid[2])
                      .arg(qint64(f.maxntid[0]) * f.maxntid[1] * f.maxntid[2]);
    if (f.reqntid[0] > 0)
        bounds << tr(".reqntid %1×%2×%3 (exactly this block)")
                      .arg(f.reqntid[0])
                      .arg(f.reqntid[1])
                      .arg(f.reqntid[2]);
    if (f.minBlocksPerSm > 0)
        bounds << tr(".minnctapersm %1").arg(f.minBlocksPerSm);
    if (f.maxnreg > 0)
        bounds << tr(".maxnreg %1").arg(f.maxnreg);
    setRow(tr("Launch bounds"), bounds.isEmpty() ? tr("none declared") : bounds.join(tr(", ")),
           tr("From __launch_bounds__ and --maxrregcount, as the PTX declares them."));
    m_driverNote->show();
}

} // namespace kernelpad
