#pragma once
// The disassemblies asked for and not answered yet, each with a flag that stops it from another
// thread (SassOptions::cancel): the SASS tab's request after each compile replaces the one
// before it, as qrenderdoc's AsyncInvoke(tag) drops an older request with the same tag, and
// its nvdisasm processes (about 0.4 s of CPU each, bench/RESULTS.md) are killed rather than
// left to finish for nobody.

#include <QMutex>
#include <QString>
#include <QVector>

#include <atomic>
#include <memory>

namespace kernelpad {

/// The unanswered disassembly requests of one Engine, by id and tag; safe to use from the
/// thread that asks and the worker that runs them.
class SassJobs {
public:
    using Flag = std::shared_ptr<std::atomic_bool>;

    /// Registers request `id`; with a non-empty `tag`, first cancels the unanswered request
    /// that had the same tag.
    void add(quint64 id, const QString& tag);
    /// Cancels the unanswered request of `tag` (a queued one ends before it starts, a running
    /// one has its processes killed); false when there is none.
    bool cancel(const QString& tag);
    /// Cancels every unanswered request: the Engine is going away.
    void cancelAll();
    /// The flag request `id` polls while it runs; an unset flag of its own for an id that was
    /// never added, so that a caller always has one to pass.
    [[nodiscard]] Flag flag(quint64 id) const;
    /// Request `id` was answered: forgotten (its tag is free again).
    void finish(quint64 id);
    /// Requests not answered yet.
    [[nodiscard]] int size() const;

private:
    struct Job {
        quint64 id = 0;
        QString tag;
        Flag cancel;
    };
    mutable QMutex m_mutex;
    QVector<Job> m_jobs;
};

} // namespace kernelpad
