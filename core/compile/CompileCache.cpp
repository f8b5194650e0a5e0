#include "core/compile/CompileCache.h"

#include <QElapsedTimer>

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>

namespace kernelpad {
namespace {

/// Included files larger than this are fingerprinted by size and modification time only.
constexpr qint64 kMaxHashedIncludeBytes = qint64(16) << 20;

/// The first existing file named `name` in `dirs`, or an empty string.
QString resolveInclude(const QString& name, const QStringList& dirs) {
    if (QFileInfo(name).isAbsolute())
        return QFileInfo(name).isFile() ? QDir::cleanPath(name) : QString();
    for (const QString& dir : dirs) {
        const QString candidate = QDir::cleanPath(QDir(dir).absoluteFilePath(name));
        if (QFileInfo(candidate).isFile())
            return candidate;
    }
    return {};
}

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
    // #include "x" and #include <x>; macros as include names are not followed (rare in a
    // playground; such a header changing is the one stale case left).
    static const QRegularExpression includeLine(
        QStringLiteral(R"re(^\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>))re"),
        QRegularExpression::MultilineOption);
    QCryptographicHash hash(QCryptographicHash::Sha256);
    QSet<QString> seen;
    // (text, directory of the file it came from)
    QList<QPair<QString, QString>> pending{{source, sourceDir}};
    int files = 0;
    while (!pending.isEmpty()) {
        const auto [text, dir] = pending.takeFirst();
        auto it = includeLine.globalMatch(text);
        while (it.hasNext()) {
            const QRegularExpressionMatch m = it.next();
            const bool quoted = m.capturedLength(1) > 0;
            const QString name = quoted ? m.captured(1) : m.captured(2);
            QStringList dirs = includeDirs;
            if (quoted)
                dirs.prepend(dir);
            const QString path = resolveInclude(name, dirs);
            if (path.isEmpty() || seen.contains(path))
                continue; // the toolkit's or NVRTC's (versioned by the NVRTC version), or done
            seen.insert(path);
            if (++files > kMaxFingerprintFiles) {
                hash.addData(QByteArrayLiteral("too many includes"));
                return hash.result();
            }
            const QFileInfo info(path);
            hash.addData(path.toUtf8());
            hash.addData(QByteArray::number(info.size()));
            if (info.size() > kMaxHashedIncludeBytes) {
                hash.addData(QByteArray::number(info.lastModified().toMSecsSinceEpoch()));
                continue;
            }
            QFile file(path);
            if (!file.open(QIODevice::ReadOnly))
                continue;
            const QByteArray contents = file.readAll();
            hash.addData(contents);
            pending.append({QString::fromUtf8(contents), info.absolutePath()});
        }
    }
    return files == 0 ? QByteArray() : hash.result();
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
