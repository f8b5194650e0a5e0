#include "core/compile/SassJob.h"

#include <QMutexLocker>

namespace kernelpad {

void SassJobs::add(quint64 id, const QString& tag) {
    const QMutexLocker lock(&m_mutex);
    if (!tag.isEmpty()) {
        for (qsizetype i = 0; i < m_jobs.size(); ++i) {
            if (m_jobs[i].tag == tag) {
                m_jobs[i].cancel->store(true);
                // Still answered (as cancelled) by its worker, which finish()es it; without a
                // tag it no longer stands in the way of this one.
                m_jobs[i].tag.clear();
            }
        }
    }
    m_jobs.append({id, tag, std::make_shared<std::atomic_bool>(false)});
}

bool SassJobs::cancel(const QString& tag) {
    if (tag.isEmpty())
        return false;
    const QMutexLocker lock(&m_mutex);
    bool found = false;
    for (Job& job : m_jobs) {
        if (job.tag == tag) {
            job.cancel->store(true);
            job.tag.clear();
            found = true;
        }
    }
    return found;
}

void SassJobs::cancelAll() {
    const QMutexLocker lock(&m_mutex);
    for (Job& job : m_jobs)
        job.cancel->store(true);
}

SassJobs::Flag SassJobs::flag(quint64 id) const {
    const QMutexLocker lock(&m_mutex);
    for (const Job& job : m_jobs) {
        if (job.id == id)
            return job.cancel;
    }
    return std::make_shared<std::atomic_bool>(false);
}

void SassJobs::finish(quint64 id) {
    const QMutexLocker lock(&m_mutex);
    m_jobs.removeIf([id](const Job& job) { return job.id == id; });
}

int SassJobs::size() const {
    const QMutexLocker lock(&m_mutex);
    return int(m_jobs.size());
}

} // namespace kernelpad
