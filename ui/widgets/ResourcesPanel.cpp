#include "ui/widgets/ResourcesPanel.h"

#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

#include <algorithm>

namespace kernelpad {

namespace {

/// Registers are allocated per warp in units of 256 (CUDA occupancy calculator, cc 5.0+).
constexpr int kRegisterAllocationUnit = 256;
/// Shared memory the driver reserves per block from cc 8.0 on (CUDA C++ Programming Guide,
/// "Shared Memory" of the compute capability 8.x section).
constexpr int kReservedSharedPerBlockBytes = 1024;

/// Maximum resident blocks per SM (CUDA C++ Programming Guide, Table "Technical
/// Specifications per Compute Capability").
int maxBlocksPerSm(int major, int minor)
{
    if (major == 7 && minor == 5)
        return 16;
    if (major == 8 && (minor == 6 || minor == 7))
        return 16;
    if (major == 8 && minor == 9)
        return 24;
    if (major == 12)
        return 24;
    return 32;
}

QString bytes(qint64 n)
{
    return n == 0 ? QStringLiteral("0 B") : QLocale().formattedDataSize(n, 1, QLocale::DataSizeTraditionalFormat);
}

QString version(int v)
{
    return v > 0 ? QStringLiteral("%1.%2").arg(v / 10).arg(v % 10) : QStringLiteral("—");
}

} // namespace

int estimateBlocksPerSm(const KernelResources& r, const DeviceInfo& device,
                        const LaunchConfig& launch)
{
    const qint64 threads = launch.threadsPerBlock();
    if (threads <= 0 || device.maxThreadsPerSm <= 0)
        return 0;
    const int warp = device.warpSize > 0 ? device.warpSize : 32;
    const qint64 warpsPerBlock = (threads + warp - 1) / warp;
    qint64 blocks = std::min<qint64>(maxBlocksPerSm(device.ccMajor, device.ccMinor),
                                     device.maxThreadsPerSm / (warpsPerBlock * warp));
    if (r.registers > 0 && device.registersPerSm > 0) {
        const qint64 perWarp = (qint64(r.registers) * warp + kRegisterAllocationUnit - 1) /
                               kRegisterAllocationUnit * kRegisterAllocationUnit;
        if (device.registersPerBlock > 0 && perWarp * warpsPerBlock > device.registersPerBlock)
            return 0;
        blocks = std::min(blocks, (device.registersPerSm / perWarp) / warpsPerBlock);
    }
    const qint64 shared = qint64(r.staticSharedBytes) + launch.sharedMemBytes;
    if (shared > 0 && device.sharedMemPerSmBytes > 0) {
        const qint64 reserved = device.ccMajor >= 8 ? kReservedSharedPerBlockBytes : 0;
        blocks = std::min(blocks, device.sharedMemPerSmBytes / (shared + reserved));
    }
    return int(std::max<qint64>(0, blocks));
}

ResourcesPanel::ResourcesPanel(QWidget* parent)
    : QWidget(parent)
{
    m_title = new QLabel(this);
    m_title->setObjectName(QStringLiteral("resourcesTitle"));
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_form = new QFormLayout;
    m_form->setLabelAlignment(Qt::AlignLeft);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addLayout(m_form);
    layout->addStretch();
    clear();
}

void ResourcesPanel::setRow(const QString& label, const QString& value, const QString& toolTip)
{
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

QString ResourcesPanel::valueText(const QString& label) const
{
    const QLabel* field = m_values.value(label);
    return field ? field->text() : QString();
}

void ResourcesPanel::clear()
{
    while (m_form->rowCount() > 0)
        m_form->removeRow(0);
    m_values.clear();
    m_title->setText(tr("No kernel compiled for a device yet: resources come from the driver "
                        "after a compile or a run."));
    m_title->setWordWrap(true);
}

void ResourcesPanel::showResources(const QString& kernel, const KernelResources& r,
                                   const DeviceInfo& device, const LaunchConfig& launch)
{
    clear();
    m_title->setText(device.name.isEmpty() ? kernel
                                           : tr("%1 on %2 (%3)").arg(kernel, device.name,
                                                                     device.arch()));
    const QLocale locale;
    setRow(tr("Registers per thread"), QString::number(r.registers),
           tr("More registers per thread can lower occupancy; cap with Max registers."));
    setRow(tr("Static shared memory"), bytes(r.staticSharedBytes));
    setRow(tr("Dynamic shared memory"), bytes(launch.sharedMemBytes));
    setRow(tr("Local memory per thread"),
           r.localBytes > 0 ? tr("%1 (register spills or local arrays)").arg(bytes(r.localBytes))
                            : bytes(0));
    setRow(tr("Constant memory"), bytes(r.constBytes));
    QString limit = r.maxThreadsPerBlock > 0 ? locale.toString(r.maxThreadsPerBlock)
                                             : QStringLiteral("—");
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
        blocks = estimateBlocksPerSm(r, device, launch);
        const int warp = device.warpSize > 0 ? device.warpSize : 32;
        const qint64 warpsPerBlock = (launch.threadsPerBlock() + warp - 1) / warp;
        if (device.maxThreadsPerSm > 0)
            occupancy = double(blocks * warpsPerBlock * warp) / device.maxThreadsPerSm;
        note = tr(" (estimate)");
    }
    if (device.maxThreadsPerSm <= 0 && r.occupancy <= 0) {
        setRow(tr("Theoretical occupancy"), QStringLiteral("—"),
               tr("Needs a device to compute."));
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

} // namespace kernelpad
