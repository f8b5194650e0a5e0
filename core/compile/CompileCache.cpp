#include "core/compile/CompileCache.h"

#include "core/compile/IncludeResolver.h"

#include <QCryptographicHash>
#include <QElapsedTimer>

namespace kernelpad {
namespace {

/// Puts `note` where both the CLI and the window show it: a line of the program log and a
/// note in the diagnostics (the CLI prints the log only for failed compiles).
void addNote(CompileResult& result, const QString& note) {
    if (!result.log.isEmpty() && !result.log.endsWith(QLatin1Char('\n')))
        result.log += QLatin1Char('\n');
    result.log += note + QLatin1Char('\n');
    Diagnostic diagnostic;
    diagnostic.severity = Diagnostic::Severity::Note;
    diagnostic.message = note.startsWith(QLatin1String("note: ")) ? note.mid(6) : note;
    result.diagnostics.append(diagnostic);
}

} // namespace

CompileCache::CompileCache(int capacity, const QString& diskDirectory)
    : m_capacity(capacity) {
    if (!diskDirectory.isEmpty())
        m_disk = std::make_unique<DiskCompileCache>(diskDirectory);
}

QByteArray CompileCache::key(const QString& source, const QString& sourceName,
                             const QStringList& flags, const QStringList& nameExpressions,
                             const QString& nvrtcVersion, const QByteArray& includeFingerprint) {
    QCryptographicHash hash(QCryptographicHash::Sha256);
    // A separator that cannot occur in the fields keeps ("ab","c") and ("a","bc") apart.
    const QByteArray sep("\x1f", 1);
    for (const QString& part :
         {source, sourceName, flags.join(sep), nameExpressions.join(sep), nvrtcVersion}) {
        hash.addData(part.toUtf8());
        hash.addData(QByteArray("\x1e", 1));
    }
    // Appended only when present, so keys of sources without includes stay as they were.
    if (!includeFingerprint.isEmpty())
        hash.addData(includeFingerprint);
    return hash.result();
}

QByteArray CompileCache::includeFingerprint(const QString& source, const QString& sourceDir,
                                            const QStringList& includeDirs) {
    // The same resolver as Program::compile, so the digest covers exactly the headers NVRTC
    // is handed, read the same bounded way.
    const ResolvedIncludes resolved =
        resolveIncludes(source, QString(), projectIncludeRoots(sourceDir, includeDirs));
    if (resolved.problem) // never compiled, so never cached; keyed apart all the same
        return QCryptographicHash::hash(resolved.problem->message.toUtf8(),
                                        QCryptographicHash::Sha256);
    if (resolved.headers.isEmpty())
        return {};
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (const ResolvedHeader& header : resolved.headers) {
        for (const QByteArray& part : {header.includeName.toUtf8(), header.path.toUtf8(),
                                       QByteArray::number(header.bytes.size()), header.bytes})
            hash.addData(part);
    }
    return hash.result();
}

std::optional<CompileResult> CompileCache::find(const QByteArray& key) {
    {
        std::lock_guard lock(m_mutex);
        auto it = m_entries.constFind(key);
        if (it != m_entries.constEnd()) {
            m_order.remove(key);
            m_order.push_front(key);
            CompileResult hit = it.value();
            hit.cacheHit = true;
            hit.fromCache = CompileResult::CacheTier::Memory;
            return hit;
        }
    }
    if (!m_disk)
        return std::nullopt;
    std::optional<CompileResult> hit = m_disk->find(key);
    if (!hit)
        return std::nullopt;
    insertInMemory(key, *hit);
    hit->cacheHit = true;
    hit->fromCache = CompileResult::CacheTier::Disk;
    return hit;
}

CompileResult CompileCache::findOrCompile(const QByteArray& key,
                                          const std::function<CompileResult()>& compile) {
    QElapsedTimer lookup;
    lookup.start();
    CompileResult result;
    if (std::optional<CompileResult> hit = find(key)) {
        result = std::move(*hit);
        result.compileMs = double(lookup.nsecsElapsed()) / 1e6;
    } else {
        result = compile();
        insert(key, result);
    }
    // After insert: the note belongs to this result only, never to what the cache keeps.
    if (m_disk) {
        if (const QString notice = m_disk->takeNotice(); !notice.isEmpty())
            addNote(result, notice);
    }
    return result;
}

void CompileCache::insert(const QByteArray& key, const CompileResult& result) {
    if (!result.ok)
        return;
    insertInMemory(key, result);
    if (m_disk)
        m_disk->insert(key, result);
}

void CompileCache::insertInMemory(const QByteArray& key, const CompileResult& result) {
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
