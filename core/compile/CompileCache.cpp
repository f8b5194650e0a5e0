#include "core/compile/CompileCache.h"

#include <QCryptographicHash>

namespace kernelpad {

QByteArray CompileCache::key(const QString& source, const QString& sourceName,
                             const QStringList& flags, const QStringList& nameExpressions,
                             const QString& nvrtcVersion)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    // A separator that cannot occur in the fields keeps ("ab","c") and ("a","bc") apart.
    const QByteArray sep("\x1f", 1);
    for (const QString& part : {source, sourceName, flags.join(sep), nameExpressions.join(sep), nvrtcVersion}) {
        hash.addData(part.toUtf8());
        hash.addData(QByteArray("\x1e", 1));
    }
    return hash.result();
}

std::optional<CompileResult> CompileCache::find(const QByteArray& key)
{
    std::lock_guard lock(m_mutex);
    auto it = m_entries.constFind(key);
    if (it == m_entries.constEnd())
        return std::nullopt;
    m_order.remove(key);
    m_order.push_front(key);
    CompileResult hit = it.value();
    hit.cacheHit = true;
    return hit;
}

void CompileCache::insert(const QByteArray& key, const CompileResult& result)
{
    if (!result.ok)
        return;
    std::lock_guard lock(m_mutex);
    if (!m_entries.contains(key))
        m_order.push_front(key);
    m_entries.insert(key, result);
    while (int(m_order.size()) > m_capacity) {
        m_entries.remove(m_order.back());
        m_order.pop_back();
    }
}

} // namespace kernelpad
