#pragma once
// What evaluates a sweep's configurations: an asynchronous "run this request" with a
// capacity (how many at once) and a signal per result naming the device it ran on. The
// sweep panel, the CLI and tests drive a Sweep through it; RunnerSweepEvaluator is the one
// over a single warm runner, and an adapter over a pool of runners (several devices) fits
// the same three calls.

#include "core/run/RunTypes.h"

#include <QHash>
#include <QObject>
#include <QString>

namespace kernelpad {

class RunnerClient;

/// Runs requests and answers each with finished(tag, result, device). Lives on a thread with
/// an event loop; never blocks it.
class SweepEvaluator : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    /// Starts one request; `tag` comes back with its result. At most capacity() at once.
    virtual void start(quint64 tag, const RunRequest& request) = 0;
    /// How many requests may be in flight at once (>= 1).
    [[nodiscard]] virtual int capacity() const = 0;
    /// Stops every request in flight; each still ends with finished() (Cancelled) or not at
    /// all, and the caller ignores what arrives after it cancelled.
    virtual void cancel() = 0;

signals:
    void finished(quint64 tag, const kernelpad::RunResult& result, const QString& device);
};

/// Evaluates over one RunnerClient (one warm runner, one request at a time): a runner that
/// dies on a fault is replaced by the client, and the next configuration runs in the new one.
class RunnerSweepEvaluator : public SweepEvaluator {
    Q_OBJECT
public:
    /// Uses `client` (not owned; must outlive this), or a RunnerClient of its own when null.
    explicit RunnerSweepEvaluator(RunnerClient* client = nullptr, QObject* parent = nullptr);
    void start(quint64 tag, const RunRequest& request) override;
    [[nodiscard]] int capacity() const override { return 1; }
    void cancel() override;
    [[nodiscard]] RunnerClient* client() const { return m_client; }

private:
    RunnerClient* m_client;
    QHash<quint64, quint64> m_tags; ///< the client's run id -> the caller's tag
    quint64 m_nextId = 1;
};

} // namespace kernelpad
