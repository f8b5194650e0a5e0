#include "ui/dialogs/DeviceDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace kernelpad {

DeviceDialog::DeviceDialog(const QVector<DeviceInfo>& devices, int currentIndex,
                           const QString& driverError, QWidget* parent)
    : QDialog(parent)
    , m_devices(devices)
    , m_selector(new QComboBox(this))
    , m_table(new QTableWidget(this))
    , m_message(new QLabel(this)) {
    setWindowTitle(tr("CUDA Device"));
    for (const DeviceInfo& d : devices)
        m_selector->addItem(QStringLiteral("%1: %2 (%3)").arg(d.ordinal).arg(d.name, d.arch()));
    m_selector->setEnabled(devices.size() > 1);

    m_table->setColumnCount(2);
    m_table->setHorizontalHeaderLabels({tr("Attribute"), tr("Value")});
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setAlternatingRowColors(true);

    m_message->setWordWrap(true);
    if (devices.isEmpty()) {
        m_message->setText(driverError.isEmpty()
                               ? tr("No CUDA device was found.")
                               : tr("No CUDA device is available: %1").arg(driverError));
    }
    m_message->setVisible(devices.isEmpty());

    auto* form = new QFormLayout;
    form->addRow(tr("Device:"), m_selector);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setEnabled(!devices.isEmpty());
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_message);
    layout->addWidget(m_table, 1);
    layout->addWidget(buttons);

    connect(m_selector, &QComboBox::currentIndexChanged, this, &DeviceDialog::showDevice);
    if (!devices.isEmpty()) {
        m_selector->setCurrentIndex(qBound(0, currentIndex, int(devices.size()) - 1));
        showDevice(m_selector->currentIndex());
    }
    resize(520, 560);
}

void DeviceDialog::setRunner(const RunnerSpec& runner) {
    if (runner.isLocal())
        return;
    for (int i = 0; i < m_devices.size() && i < m_selector->count(); ++i)
        m_selector->setItemText(
            i, QStringLiteral("%1: %2, %3 (device %4)")
                   .arg(runner.displayName(), m_devices[i].name, m_devices[i].arch())
                   .arg(m_devices[i].ordinal));
    setWindowTitle(tr("CUDA Device on %1").arg(runner.displayName()));
}

int DeviceDialog::selectedIndex() const {
    return m_devices.isEmpty() ? -1 : m_selector->currentIndex();
}

int DeviceDialog::attributeCount() const {
    return m_table->rowCount();
}

void DeviceDialog::showDevice(int index) {
    m_table->setRowCount(0);
    if (index < 0 || index >= m_devices.size())
        return;
    const QVector<QPair<QString, QString>> rows = m_devices.at(index).describe();
    m_table->setRowCount(int(rows.size()));
    for (int r = 0; r < rows.size(); ++r) {
        m_table->setItem(r, 0, new QTableWidgetItem(rows.at(r).first));
        m_table->setItem(r, 1, new QTableWidgetItem(rows.at(r).second));
    }
}

} // namespace kernelpad
