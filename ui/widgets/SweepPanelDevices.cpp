// SweepPanel: "Devices:", what Run Sweep spreads over (sweeps over every
// runner's devices): the chosen device, every device of this computer, or every device of every
// runner in Preferences. The binding finds each scope's devices and hands them in; the panel
// names them and hands them to the Engine, which spreads the sweep over them.

#include "core/engine/RunnerProbe.h"
#include "core/sweep/SweepResultsPath.h"
#include "ui/widgets/SweepPanel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSet>
#include <QSettings>

namespace kernelpad {
namespace {

const QString kScopeKey = QStringLiteral("sweep/devices");
const char* const kScopeNames[] = {"chosen", "computer", "every"};

int runnersIn(const QVector<PoolEntry>& entries) {
    QVector<RunnerSpec> seen;
    for (const PoolEntry& e : entries)
        if (!seen.contains(e.spec))
            seen.push_back(e.spec);
    return int(seen.size());
}

} // namespace

QWidget* SweepPanel::buildDevices(QWidget* parent) {
    auto* row = new QWidget(parent);
    m_devices = new QComboBox(row);
    m_devices->setObjectName(QStringLiteral("sweepDevices"));
    m_devices->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    for (int i = 0; i < 3; ++i)
        m_devices->addItem(QString());
    const QString saved = QSettings().value(kScopeKey).toString();
    for (int i = 0; i < 3; ++i)
        if (saved == QLatin1String(kScopeNames[i]))
            m_scope = DeviceScope(i);
    m_devices->setCurrentIndex(int(m_scope));
    connect(m_devices, &QComboBox::currentIndexChanged, this,
            [this](int index) { setDeviceScope(DeviceScope(index)); });
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("Devices:"), row));
    layout->addWidget(m_devices, 1);
    refreshDeviceTexts();
    return row;
}

void SweepPanel::setDeviceScope(DeviceScope scope) {
    if (m_devices->currentIndex() != int(scope)) {
        m_devices->setCurrentIndex(int(scope)); // comes back here through the signal
        return;
    }
    if (scope == m_scope)
        return;
    m_scope = scope;
    QSettings().setValue(kScopeKey, QLatin1String(kScopeNames[int(scope)]));
    updateButtons();
    scheduleResultsLookup(); // another set of devices: another results file
    emit deviceScopeChanged(scope);
}

void SweepPanel::setDeviceChoice(DeviceScope scope, const DeviceChoice& choice) {
    m_choices[int(scope)] = choice;
    if (scope == DeviceScope::Chosen)
        m_chosenKnown = true;
    refreshDeviceTexts();
    if (scope == m_scope)
        scheduleResultsLookup();
}

QString SweepPanel::resultsDeviceKey() const {
    // The names of the devices the sweep spreads over, as kernelpad-cli keys its file with
    // --runner given twice; the chosen device by the name the window knows it by.
    QStringList names;
    if (m_scope != DeviceScope::Chosen)
        for (const PoolEntry& entry : deviceEntries())
            if (!entry.deviceName.isEmpty())
                names.append(entry.deviceName);
    if (names.isEmpty())
        names.append(m_deviceName);
    return sweepDeviceKey(names);
}

QVector<PoolEntry> SweepPanel::deviceEntries() const {
    if (m_scope == DeviceScope::Chosen && !m_chosenKnown)
        return {PoolEntry{RunnerSpec::local(), m_device, QString()}};
    return m_choices[int(m_scope)].entries;
}

QString SweepPanel::deviceScopeText(DeviceScope scope) const {
    const DeviceChoice& c = m_choices[int(scope)];
    switch (scope) {
    case DeviceScope::Chosen:
        if (c.entries.size() == 1 && !c.entries.first().deviceName.isEmpty())
            return tr("the chosen device (%1)")
                .arg(RunnerProbe::deviceLabel(c.entries.first().spec, c.entries.first().deviceName,
                                              c.entries.first().device,
                                              !c.entries.first().spec.isLocal()));
        return tr("the chosen device");
    case DeviceScope::ThisComputer:
        if (c.pending)
            return tr("every device of this computer (asking…)");
        return tr("every device of this computer (%1)").arg(c.entries.size());
    case DeviceScope::EveryRunner: {
        if (c.pending)
            return tr("every device of every runner (asking…)");
        const int runners = runnersIn(c.entries);
        return tr("every device (%1 on %2 %3)")
            .arg(c.entries.size())
            .arg(runners)
            .arg(runners == 1 ? tr("runner") : tr("runners"));
    }
    }
    return {};
}

void SweepPanel::refreshDeviceTexts() {
    if (!m_devices)
        return;
    for (int i = 0; i < 3; ++i) {
        m_devices->setItemText(i, deviceScopeText(DeviceScope(i)));
        const QString& why = m_choices[i].why;
        m_devices->setItemData(
            i, why.isEmpty() ? QVariant() : QVariant(tr("Left out: %1").arg(why)), Qt::ToolTipRole);
    }
}

std::optional<QVector<PoolEntry>> SweepPanel::sweepDevices(QString* error) const {
    const DeviceChoice& c = m_choices[int(m_scope)];
    if (m_scope != DeviceScope::Chosen && c.pending) {
        *error = tr("Devices: still asking the runners for their devices; Run Sweep once the "
                    "count shows.");
        return std::nullopt;
    }
    const QVector<PoolEntry> entries = deviceEntries();
    if (entries.isEmpty()) {
        *error = tr("Devices: no device to sweep on%1.")
                     .arg(c.why.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(c.why));
        return std::nullopt;
    }
    return entries;
}

} // namespace kernelpad
