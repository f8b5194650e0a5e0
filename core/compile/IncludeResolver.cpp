#include "core/compile/IncludeResolver.h"

#include "core/compile/IncludeCheck.h"
#include "core/compile/StandardHeaders.h"
#include "core/compile/Toolkit.h"
#include "core/io/SafeFile.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>

#include <map>
#include <utility>

namespace kernelpad {

namespace {

/// True when `path` is `root` or lies below it; both clean and absolute.
bool isInside(const QString& path, const QString& root) {
    if (root == QLatin1String("/"))
        return path.startsWith(u'/');
    return path == root || path.startsWith(root + QLatin1Char('/'));
}

/// The canonical form of an existing path, else its clean absolute form.
QString canonicalOrClean(const QString& path) {
    const QString canonical = QFileInfo(path).canonicalFilePath();
    return canonical.isEmpty() ? QDir::cleanPath(QDir(path).absolutePath()) : canonical;
}

bool climbsUp(const QString& name) {
    return name.split(u'/').contains(QLatin1String(".."));
}

/// Where one directive leads.
struct Lookup {
    enum class Kind { NotFound, Toolkit, Project, Refused, Standard } kind = Kind::NotFound;
    QString path;      ///< as found (absolute, links not resolved): for diagnostics
    QString canonical; ///< for the project-folder check and identity
    QString why;       ///< Refused: the reason, naming paths only
    std::optional<StandardHeader> standard; ///< Standard: KernelPad's header
};

/// Walks the include tree; one instance per resolveIncludes() call.
class Resolver {
public:
    explicit Resolver(const IncludeRoots& roots)
        : m_roots(roots)
        , m_project(canonicalOrClean(roots.projectDir)) {
        if (!roots.toolkitDirs.isEmpty())
            m_toolkit = canonicalOrClean(roots.toolkitDirs.first() + QStringLiteral("/.."));
    }

    /// An include dir outside the project folder, if any.
    [[nodiscard]] std::optional<QString> badUserDir() const {
        for (const QString& dir : m_roots.userDirs) {
            if (!isInside(canonicalOrClean(dir), m_project))
                return QStringLiteral("include dir '%1' is outside the project folder %2; "
                                      "KernelPad reads headers only inside the project folder "
                                      "and the CUDA toolkit")
                    .arg(QDir::toNativeSeparators(dir), QDir::toNativeSeparators(m_project));
        }
        return std::nullopt;
    }

    /// Resolves the directives of `text` (named `shownName` in diagnostics, in `directory`),
    /// reads the project headers it reaches, and gives the text as NVRTC is to see it: each
    /// project header's name replaced by its one in-memory name.
    std::optional<IncludeProblem> walk(const QString& text, const QString& shownName,
                                       const QString& directory, int depth, QString* rewritten) {
        // Position of a name -> (its length, the in-memory name it becomes).
        std::map<qsizetype, std::pair<qsizetype, QString>> renames;
        for (const IncludeDirective& directive : scanIncludeDirectives(text)) {
            if (!directive.mayBeReal())
                continue; // NVRTC acts on none of these, so it opens nothing for them
            const auto problem = [&](const QString& message) {
                return IncludeProblem{shownName, directive.line, directive.column,
                                      directive.spelled() + QStringLiteral(": ") + message};
            };
            if (directive.kind == IncludeDirective::Kind::Computed)
                return problem(QStringLiteral("an include named by a macro is not supported; "
                                              "KernelPad reads every included file itself, so "
                                              "write the name in quotes or angle brackets"));
            if (directive.kind == IncludeDirective::Kind::Malformed)
                return problem(
                    QStringLiteral("cannot read the file name; write it as \"name\" or <name>"));
            const QString memo = QString::number(int(directive.kind)) + QLatin1Char('\n') +
                                 directory + QLatin1Char('\n') + directive.name;
            auto known = m_looked.constFind(memo);
            if (known == m_looked.cend())
                known = m_looked.insert(memo, lookup(directive, directory));
            const Lookup found = *known;
            if (found.kind == Lookup::Kind::Refused)
                return problem(found.why);
            if (found.kind == Lookup::Kind::Standard) {
                addStandard(directive, found, shownName);
                continue;
            }
            if (found.kind != Lookup::Kind::Project)
                continue; // the toolkit's (NVRTC finds it), or missing (NVRTC says so)
            if (directive.nameOffset < 0)
                return problem(QStringLiteral("a header name split by a line splice or written "
                                              "with trigraphs is not supported; write it on one "
                                              "line"));
            if (!m_headerIndex.contains(found.canonical)) {
                if (std::optional<QString> why = read(found, depth))
                    return problem(*why);
                if (m_nested)
                    return std::exchange(m_nested, std::nullopt);
            }
            renames[directive.nameOffset] = {
                directive.name.size(),
                m_headers.at(m_headerIndex.value(found.canonical)).includeName};
        }
        *rewritten = text;
        // From the end, so that earlier positions stay valid.
        for (auto it = renames.crbegin(); it != renames.crend(); ++it)
            rewritten->replace(it->first, it->second.first, it->second.second);
        return std::nullopt;
    }

    [[nodiscard]] const QVector<ResolvedHeader>& headers() const { return m_headers; }

private:
    /// Hands NVRTC KernelPad's header for a standard name once, under the name as written.
    /// A host-only one is left out for __has_include, which would otherwise turn true.
    void addStandard(const IncludeDirective& directive, const Lookup& found,
                     const QString& shownName) {
        if (found.standard->hostOnly && !directive.keyword.startsWith(QLatin1Char('#')))
            return;
        const QString key = QStringLiteral("<>") + directive.name;
        if (m_headerIndex.contains(key))
            return;
        m_headerIndex.insert(key, m_headers.size());
        m_headers.append({directive.name, QLatin1Char('<') + directive.name + QLatin1Char('>'),
                          found.standard->text,
                          IncludeSite{shownName, directive.line, directive.column}});
    }

    /// Reads the project header `found` and walks it. The reason it cannot be read, if any;
    /// a problem inside it is left in m_nested.
    std::optional<QString> read(const Lookup& found, int depth) {
        if (depth + 1 > kMaxIncludeDepth || m_headers.size() >= kMaxCheckedHeaders)
            return QStringLiteral("more than %1 nested or %2 headers; KernelPad stops reading here")
                .arg(kMaxIncludeDepth)
                .arg(kMaxCheckedHeaders);
        // One name per file, so that #pragma once and include guards work as on disk however
        // the file is reached ("a.cuh", "../inc/a.cuh"); absolute, so that NVRTC looks for
        // what it is not given in the header's own folder, as resolve() did, and so that no
        // toolkit header's own include can match it.
        const QString memoryName = found.canonical;
        QString why;
        const std::optional<QByteArray> bytes =
            readRegularFile(found.canonical, ReadLimits{kMaxHeaderBytes, false}, &why);
        if (!bytes)
            return why;
        m_totalBytes += bytes->size();
        if (m_totalBytes > kMaxTotalHeaderBytes)
            return QStringLiteral("the project's headers pass %1 bytes together; KernelPad stops "
                                  "reading here")
                .arg(kMaxTotalHeaderBytes);
        const qsizetype index = m_headers.size();
        m_headerIndex.insert(found.canonical, index);
        m_headers.append({memoryName, found.path, *bytes, std::nullopt});
        const QString text = QString::fromUtf8(*bytes);
        QString rewritten;
        m_nested = walk(text, found.path, QFileInfo(found.canonical).absolutePath(), depth + 1,
                        &rewritten);
        if (!m_nested && rewritten != text)
            m_headers[index].bytes = rewritten.toUtf8();
        return std::nullopt;
    }

    const IncludeRoots& m_roots;
    QString m_project;                       ///< canonical
    QString m_toolkit;                       ///< canonical toolkit root; empty without one
    QHash<QString, Lookup> m_looked;         ///< (kind, directory, name) -> where it leads
    QHash<QString, qsizetype> m_headerIndex; ///< canonical path -> index in m_headers
    QVector<ResolvedHeader> m_headers;
    std::optional<IncludeProblem> m_nested; ///< a problem inside the header read last
    qint64 m_totalBytes = 0;

    [[nodiscard]] Lookup lookup(const IncludeDirective& directive, const QString& directory) const {
        const QString& name = directive.name;
        if (QDir::isAbsolutePath(name))
            return refused(QStringLiteral("an absolute path; KernelPad reads headers only inside "
                                          "the project folder %1 and the CUDA toolkit, so copy "
                                          "the header into the project")
                               .arg(QDir::toNativeSeparators(m_project)));
        const bool quoted = directive.kind == IncludeDirective::Kind::Quoted;
        if (!quoted) {
            if (Lookup tk = inToolkit(name); tk.kind != Lookup::Kind::NotFound)
                return tk;
        }
        QStringList dirs = m_roots.userDirs;
        if (quoted)
            dirs.prepend(directory);
        for (const QString& dir : std::as_const(dirs)) {
            if (Lookup found = inProject(dir, name); found.kind != Lookup::Kind::NotFound)
                return found;
        }
        if (quoted) {
            if (Lookup tk = inToolkit(name); tk.kind != Lookup::Kind::NotFound)
                return tk;
        }
        if (std::optional<StandardHeader> standard = standardHeader(name, m_roots.toolkitDirs)) {
            return {Lookup::Kind::Standard, {}, {}, {}, std::move(standard)};
        }
        if (climbsUp(name))
            return refused(QStringLiteral("not found inside the project folder %1, and NVRTC "
                                          "would look for a name with '..' next to the "
                                          "toolkit's headers")
                               .arg(QDir::toNativeSeparators(m_project)));
        return {};
    }

    [[nodiscard]] Lookup inToolkit(const QString& name) const {
        for (const QString& dir : m_roots.toolkitDirs) {
            const QString path = QDir::cleanPath(dir + QLatin1Char('/') + name);
            if (!isInside(path, QDir::cleanPath(dir)))
                return refused(QStringLiteral("climbs out of the CUDA toolkit's folder %1")
                                   .arg(QDir::toNativeSeparators(dir)));
            const QFileInfo info(path);
            if (!info.exists())
                continue;
            const QString canonical = info.canonicalFilePath();
            if (m_toolkit.isEmpty() || !isInside(canonical, m_toolkit))
                return refused(
                    QStringLiteral("'%1' leads outside the CUDA toolkit, to %2")
                        .arg(QDir::toNativeSeparators(path), QDir::toNativeSeparators(canonical)));
            if (!info.isFile())
                return notRegular(path);
            return {Lookup::Kind::Toolkit, path, canonical, {}, std::nullopt};
        }
        return {};
    }

    [[nodiscard]] Lookup inProject(const QString& dir, const QString& name) const {
        const QString path = QDir::cleanPath(dir + QLatin1Char('/') + name);
        const QFileInfo info(path);
        if (!info.exists())
            return {};
        const QString canonical = info.canonicalFilePath();
        if (!isInside(canonical, m_project))
            return refused(
                QStringLiteral("'%1' is outside the project folder %2; KernelPad reads "
                               "headers only inside the project folder and the CUDA "
                               "toolkit")
                    .arg(QDir::toNativeSeparators(canonical), QDir::toNativeSeparators(m_project)));
        if (!info.isFile())
            return notRegular(path);
        return {Lookup::Kind::Project, path, canonical, {}, std::nullopt};
    }

    [[nodiscard]] static Lookup refused(const QString& why) {
        return {Lookup::Kind::Refused, {}, {}, why, std::nullopt};
    }

    [[nodiscard]] static Lookup notRegular(const QString& path) {
        return refused(QStringLiteral("'%1' is not a regular file (a FIFO, device, socket or "
                                      "folder); NVRTC would hang or fail reading it")
                           .arg(QDir::toNativeSeparators(path)));
    }
};

} // namespace

IncludeRoots projectIncludeRoots(const QString& projectDir, const QStringList& includeDirs) {
    IncludeRoots roots;
    const QDir base(projectDir);
    roots.projectDir = QDir::cleanPath(base.absolutePath());
    roots.mainDirectory = roots.projectDir;
    for (const QString& dir : includeDirs)
        roots.userDirs << QDir::cleanPath(base.absoluteFilePath(dir));
    roots.toolkitDirs = cudaToolkitIncludeDirs();
    return roots;
}

ResolvedIncludes resolveIncludes(const QString& source, const QString& sourceName,
                                 const IncludeRoots& roots) {
    Resolver resolver(roots);
    ResolvedIncludes resolved;
    if (std::optional<QString> bad = resolver.badUserDir()) {
        resolved.problem = IncludeProblem{sourceName, 0, 0, *bad};
        return resolved;
    }
    resolved.problem =
        resolver.walk(source, sourceName, roots.mainDirectory, 0, &resolved.mainSource);
    resolved.mainName =
        QDir::cleanPath(roots.mainDirectory + QLatin1Char('/') + QFileInfo(sourceName).fileName());
    if (!resolved.problem)
        resolved.headers = resolver.headers();
    return resolved;
}

} // namespace kernelpad
