#include "core/engine/DeviceScheduler.h"

#include <QJsonDocument>

#include <algorithm>

namespace kernelpad {

DeviceSlot DeviceSlot::of(const RunnerSpec& spec, int ordinal) {
    if (spec.isLocal())
        return {QStringLiteral("local/%1").arg(ordinal), QStringLiteral("GPU %1").arg(ordinal)};
    // The whole spec keys it: two runners of one display name may be two computers.
    const QString runner =
        QString::fromUtf8(QJsonDocument(spec.toJson()).toJson(QJsonDocument::Compact));
    return {QStringLiteral("%1/%2").arg(runner).arg(ordinal),
            QStringLiteral("GPU %1 of %2").arg(ordinal).arg(spec.displayName())};
}

const DeviceScheduler::Ticket* DeviceScheduler::holderOf(const DeviceSlot& device) const {
    for (const Ticket& t : m_holding)
        if (t.devices.contains(device))
            return &t;
    return nullptr;
}

bool DeviceScheduler::grantable(const Ticket& ticket, qsizetype index) const {
    for (const DeviceSlot& device : ticket.devices) {
        if (holderOf(device))
            return false;
        for (qsizetype earlier = 0; earlier < index && earlier < m_waiting.size(); ++earlier)
            if (m_waiting[earlier].devices.contains(device))
                return false;
    }
    return true;
}

bool DeviceScheduler::request(quint64 ticket, const QVector<DeviceSlot>& devices,
                              const QString& what) {
    release(ticket); // a ticket asks once; asking again starts over
    Ticket t{ticket, devices, what};
    if (grantable(t, m_waiting.size())) {
        m_holding.append(t);
        return true;
    }
    m_waiting.append(t);
    return false;
}

QVector<quint64> DeviceScheduler::release(quint64 ticket) {
    const auto is = [ticket](const Ticket& t) { return t.id == ticket; };
    const bool held = std::find_if(m_holding.cbegin(), m_holding.cend(), is) != m_holding.cend();
    m_holding.removeIf(is);
    m_waiting.removeIf(is);
    QVector<quint64> granted;
    if (!held)
        return granted;
    for (qsizetype i = 0; i < m_waiting.size();) {
        if (grantable(m_waiting[i], i)) {
            granted.append(m_waiting[i].id);
            m_holding.append(m_waiting.takeAt(i));
        } else {
            ++i;
        }
    }
    return granted;
}

bool DeviceScheduler::holds(quint64 ticket) const {
    return std::any_of(m_holding.cbegin(), m_holding.cend(),
                       [ticket](const Ticket& t) { return t.id == ticket; });
}

bool DeviceScheduler::isWaiting(quint64 ticket) const {
    return std::any_of(m_waiting.cbegin(), m_waiting.cend(),
                       [ticket](const Ticket& t) { return t.id == ticket; });
}

QString DeviceScheduler::waitingReason(quint64 ticket) const {
    const auto it = std::find_if(m_waiting.cbegin(), m_waiting.cend(),
                                 [ticket](const Ticket& t) { return t.id == ticket; });
    if (it == m_waiting.cend())
        return {};
    for (const DeviceSlot& device : it->devices)
        if (const Ticket* holder = holderOf(device))
            return QStringLiteral("waiting: %1 on %2").arg(holder->what, device.label);
    for (auto earlier = m_waiting.cbegin(); earlier != it; ++earlier)
        for (const DeviceSlot& device : it->devices)
            if (earlier->devices.contains(device))
                return QStringLiteral("waiting: behind an earlier request for %1")
                    .arg(device.label);
    return {};
}

} // namespace kernelpad
