#include "ui/widgets/ResourcesPanel.h"

#include "core/cuda/Occupancy.h"

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

} // namespace

ResourcesPanel::ResourcesPanel(QWidget* parent)
    : QWidget(parent) {
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
    m_title->setText(tr("No kernel compiled for a device yet: resources come from the driver "
                        "after a compile or a run."));
    m_title->setWordWrap(true);
}

void ResourcesPanel::showResources(const QString& kernel, const KernelResources& r,
                                   const DeviceInfo& device, const LaunchConfig& launch) {
    clear();
    m_title->setText(device.name.isEmpty()
                         ? kernel
                         : tr("%1 on %2 (%3)").arg(kernel, device.name, device.arch()));
    const QLocale locale;
    setRow(tr("Registers per thread"), QString::number(r.registers),
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

} // namespace kernelpad
