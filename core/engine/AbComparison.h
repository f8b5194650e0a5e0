#pragma once
// One interleaved A/B comparison as the Engine drives it (Engine::compareAb): the steps of
// core/run/AbDriver.h, each run queued on a channel of the Engine's own, so that the
// comparison takes turns with the window's other runs on the device. Internal to core/engine.

#include "core/engine/Engine.h"
#include "core/run/AbDriver.h"

#include <QObject>

#include <optional>

namespace kernelpad {

class AbComparison : public QObject {
    Q_OBJECT
public:
    /// Starts at once on `engine` (a channel of its own); answered by finished().
    AbComparison(Engine& engine, quint64 id, const AbOrder& order);
    /// Stops after the current block: finished() follows with Status::Cancelled.
    void cancel();

signals:
    void progress(quint64 id, const QString& stage, int done, int total);
    void finished(quint64 id, const kernelpad::AbResult& result);

private:
    void onRunFinished(quint64 runId, const RunResult& result);
    void onRunProgress(quint64 runId, const QString& stage, int done, int total);

    Engine& m_engine;
    quint64 m_id;
    Engine::Channel m_channel;
    AbDriver m_driver;
    std::optional<quint64> m_pendingRun;
};

} // namespace kernelpad
