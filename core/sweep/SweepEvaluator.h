#pragma once
// What evaluates a sweep's configurations: an asynchronous "run this request" with a
// capacity (how many at once) and a signal per result naming the device it ran on. The
// sweep panel, the CLI and tests drive a Sweep through it; RunnerSweepEvaluator is the one
// over a single warm runner, and an adapter over a pool of runners (several devices) fits
// the same three calls. A sweep confirms its winner by an interleaved A/B against the
// runner-up (compareAb(), core/run/AbDriver.h): on one runner, or over a pool one A/B per device
// of one model, pooled (PoolSweepEvaluator.h).

#include "core/run/AbDriver.h"
#include "core/run/RunTypes.h"

#include <QHash>
#include <QObject>
#include <QString>

#include <memory>

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
    /// Starts an interleaved A/B of `order`, answered by abFinished(tag, ...): on one runner and
    /// one device, or (an evaluator over several devices of one model) one A/B per device with
    /// the verdict pooled (AbResult::devices). Never while a configuration is in flight, unless
    /// comparesBesideRuns(): then beside the best's re-timing. cancel() stops it too
    /// (abFinished() then follows, cancelled, or not at all). This default answers at once that
    /// the evaluator cannot compare: an evaluator without a runner of its own has none to
    /// interleave on.
    virtual void compareAb(quint64 tag, const AbOrder& order);
    /// The sweep has handed out its last configuration and `requests` are what its follow-up
    /// (the best's re-timing, the A/B of the runner-up and the best) will run, as things stand:
    /// an evaluator over several runners may compile them ahead where a runner idles, so that
    /// the follow-up pays no compile the sweep already did elsewhere. Called again as the
    /// standings change. This default does nothing (one runner has compiled both already).
    virtual void prepareFollowUp(const QVector<RunRequest>& requests);
    /// Whether compareAb() may start while one run (the best's re-timing) is in flight, the
    /// two then running on different devices. This default: no (one runner, one at a time).
    [[nodiscard]] virtual bool comparesBesideRuns() const { return false; }

signals:
    void finished(quint64 tag, const kernelpad::RunResult& result, const QString& device);
    void abFinished(quint64 tag, const kernelpad::AbResult& result);
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
    /// The A/B's runs go to the same runner, one at a time.
    void compareAb(quint64 tag, const AbOrder& order) override;
    [[nodiscard]] RunnerClient* client() const { return m_client; }

private:
    RunnerClient* m_client;
    QHash<quint64, quint64> m_tags; ///< the client's run id -> the caller's tag
    quint64 m_nextId = 1;
    std::unique_ptr<AbDriver> m_ab; ///< the comparison, kept until the next one
    quint64 m_abTag = 0;
    quint64 m_abRun = 0; ///< the client's run id of the A/B's run in flight, 0 when none
};

} // namespace kernelpad
