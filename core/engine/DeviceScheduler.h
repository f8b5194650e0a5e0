#pragma once
// One scheduler for the GPUs the Engine times kernels on: a run, a profile and a sweep each
// ask for the devices they time on, and a device is held by one of them at a time, so two
// timings never share a GPU and spoil each other's numbers. A request that must wait is told
// why ("waiting: sweep running on GPU 0"); waiting requests are served first come, first
// served, so a sweep that waits for several devices is not starved by runs on one of them.

#include "core/project/RunnerSpec.h"

#include <QString>
#include <QVector>

namespace kernelpad {

/// One device as the scheduler knows it: `key` names it ("local/0"), `label` shows it
/// ("GPU 0", "GPU 1 of gpu-box").
struct DeviceSlot {
    QString key;
    QString label;

    /// Device `ordinal` of the runner `spec` (this computer's in-process and runner-process
    /// runs are the same devices).
    [[nodiscard]] static DeviceSlot of(const RunnerSpec& spec, int ordinal);
    bool operator==(const DeviceSlot& o) const { return key == o.key; }
};

/// Grants devices to tickets (the Engine's request ids); plain logic, no thread of its own.
class DeviceScheduler {
public:
    /// Asks for `devices` for `ticket`; `what` names its holder to those that wait for it
    /// ("sweep running", "a run in progress"). True when granted at once; otherwise the ticket
    /// waits until every one of its devices is free and no ticket that asked earlier wants one
    /// of them.
    bool request(quint64 ticket, const QVector<DeviceSlot>& devices, const QString& what);
    /// Gives back what `ticket` holds, or withdraws its wait. Returns the tickets granted as a
    /// result, in the order they asked.
    QVector<quint64> release(quint64 ticket);
    [[nodiscard]] bool holds(quint64 ticket) const;
    [[nodiscard]] bool isWaiting(quint64 ticket) const;
    /// Why `ticket` waits: "waiting: sweep running on GPU 0", or "waiting: behind an earlier
    /// request for GPU 0"; empty when it does not wait.
    [[nodiscard]] QString waitingReason(quint64 ticket) const;

private:
    struct Ticket {
        quint64 id = 0;
        QVector<DeviceSlot> devices;
        QString what;
    };
    /// The holder of `device`, or null.
    [[nodiscard]] const Ticket* holderOf(const DeviceSlot& device) const;
    /// Whether waiting ticket number `index` (or a new one, index = size) may have its devices.
    [[nodiscard]] bool grantable(const Ticket& ticket, qsizetype index) const;

    QVector<Ticket> m_holding;
    QVector<Ticket> m_waiting; ///< in the order they asked
};

} // namespace kernelpad
