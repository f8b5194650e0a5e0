#pragma once
// Every device of a set of runners (sweeps spread over every runner's devices):
// each runner is started and asked for its devices at once, side by side; a runner that cannot
// be reached, or has no device, is reported with why and left out, never fatal. The answer is
// the list of pool entries (a runner and one of its devices) a RunnerPool runs over.

#include "core/runner/RunnerPool.h"

#include <QObject>
#include <QStringList>
#include <QVector>

namespace kernelpad {

class RunnerClient;

/// Asks several runners for their devices; lives on one thread with an event loop and never
/// blocks it (the window uses it on its own thread, as Test Connection does).
class RunnerSurvey : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    ~RunnerSurvey() override;

    /// Asks each of `runners` for its devices; a survey under way is abandoned (its runners
    /// stopped). finished() follows once every runner has answered, also for an empty list.
    void start(const QVector<RunnerSpec>& runners);
    [[nodiscard]] bool isRunning() const { return m_waiting > 0 || m_finishPending; }

    /// Every device of every runner that answered, in the runners' order, then the devices'.
    [[nodiscard]] QVector<PoolEntry> entries() const;
    /// One line per runner left out, in the runners' order: "gpu-box: why".
    [[nodiscard]] QStringList problems() const;
    /// How many runners gave at least one device.
    [[nodiscard]] int runnersWithDevices() const;

    /// The same, waiting in a local event loop (the command line's use; never on a window's
    /// thread).
    [[nodiscard]] static QVector<PoolEntry> listDevices(const QVector<RunnerSpec>& runners,
                                                        QStringList* problems);

signals:
    void finished();

private:
    void onAnswer(int index, const QVector<DeviceInfo>& devices, const QString& why);
    void finishLater();

    QVector<RunnerSpec> m_runners;
    QVector<QVector<PoolEntry>> m_found; ///< per runner
    QVector<RunnerClient*> m_clients;    ///< per runner, children until they answer
    QStringList m_problems;              ///< per runner, empty for one that gave devices
    int m_waiting = 0;
    bool m_finishPending = false;
    quint64 m_generation = 0; ///< answers of an abandoned survey are dropped
};

} // namespace kernelpad
