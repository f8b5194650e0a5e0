#include "core/compile/PtxParser.h"

#include "core/compile/KernelNames.h"

#include <QHash>
#include <QRegularExpression>
#include <QStringList>

#include <algorithm>
#include <climits>
#include <optional>

namespace kernelpad {

namespace {

// How far back from ".entry" to look for ".extern" (a declaration, not a kernel we can launch).
constexpr qsizetype kLinkageLookback = 64;
// Real modules hold a handful of entries; this bounds memory on hostile input.
constexpr int kMaxEntries = 65536;

} // namespace

QString ptxWithoutCommentsAndStrings(const QString& ptx) {
    QString clean = ptx;
    const qsizetype n = clean.size();
    qsizetype i = 0;
    while (i < n) {
        const QChar c = clean.at(i);
        const QChar next = i + 1 < n ? clean.at(i + 1) : QChar();
        if (c == u'/' && next == u'/') {
            while (i < n && clean.at(i) != u'\n')
                clean[i++] = u' ';
        } else if (c == u'/' && next == u'*') {
            clean[i++] = u' ';
            clean[i++] = u' ';
            while (i < n && !(clean.at(i) == u'*' && i + 1 < n && clean.at(i + 1) == u'/'))
                clean[i++] = u' ';
            for (int k = 0; k < 2 && i < n; ++k)
                clean[i++] = u' ';
        } else if (c == u'"') {
            clean[i++] = u' ';
            while (i < n && clean.at(i) != u'"' && clean.at(i) != u'\n')
                clean[i++] = u' ';
            if (i < n && clean.at(i) == u'"')
                clean[i++] = u' ';
        } else {
            ++i;
        }
    }
    return clean;
}

namespace {

bool isPtxIdentifierChar(QChar c) {
    return c.isLetterOrNumber() || c == u'_' || c == u'$' || c == u'%';
}

qsizetype skipSpaces(const QString& text, qsizetype i) {
    while (i < text.size() && text.at(i).isSpace())
        ++i;
    return i;
}

/// Parses "[N]" at `text` (after the name); returns N, 0 for "[]" or garbage, 1 without brackets.
qint64 arrayLength(const QString& text) {
    const qsizetype open = text.indexOf(u'[');
    if (open < 0)
        return 1;
    const qsizetype close = text.indexOf(u']', open);
    bool ok = false;
    const qint64 length =
        text.mid(open + 1, close < 0 ? -1 : close - open - 1).trimmed().toLongLong(&ok);
    return ok && length > 0 ? length : 0;
}

/// One ".param ..." declaration of an entry's parameter list; nullopt if it is not one.
std::optional<PtxParam> parsePtxParam(const QString& declaration) {
    const QStringList tokens = declaration.simplified().split(u' ', Qt::SkipEmptyParts);
    if (tokens.isEmpty() || tokens.first() != QLatin1String(".param"))
        return std::nullopt;
    PtxParam param;
    bool pointer = false;
    int explicitAlign = 0;
    int vectorWidth = 1;
    QString rest; // the name and anything after it ("x[8]" or "x [8]")
    for (qsizetype t = 1; t < tokens.size(); ++t) {
        const QString& token = tokens.at(t);
        if (token == QLatin1String(".align")) {
            const int value = t + 1 < tokens.size() ? tokens.at(t + 1).toInt() : 0;
            ++t;
            // After .ptr, .align is the pointee's alignment, not the parameter's.
            if (!pointer && value > 0)
                explicitAlign = value;
        } else if (token == QLatin1String(".ptr")) {
            pointer = true;
        } else if (token == QLatin1String(".v2") || token == QLatin1String(".v4")) {
            vectorWidth = token.mid(2).toInt();
        } else if (ptxTypeSizeBytes(token) > 0) {
            param.ptxType = token;
        } else if (!token.startsWith(u'.')) {
            rest = tokens.mid(t).join(u' ');
            break;
        } // state spaces (.global, .shared, ...) say where a pointer points: nothing to keep
    }
    const qsizetype bracket = rest.indexOf(u'[');
    param.name = (bracket < 0 ? rest : rest.left(bracket)).trimmed();
    if (param.name.isEmpty())
        return std::nullopt;
    const qint64 elementBytes = qint64(ptxTypeSizeBytes(param.ptxType)) * vectorWidth;
    const qint64 bytes = elementBytes * arrayLength(rest);
    param.sizeBytes = bytes <= INT_MAX ? static_cast<int>(bytes) : 0;
    param.alignBytes = explicitAlign > 0 ? explicitAlign : static_cast<int>(elementBytes);
    param.isPointer = pointer;
    return param;
}

} // namespace

int ptxTypeSizeBytes(const QString& ptxType) {
    static const QHash<QString, int> sizes{
        {QStringLiteral(".b8"), 1},   {QStringLiteral(".u8"), 1},    {QStringLiteral(".s8"), 1},
        {QStringLiteral(".pred"), 1}, {QStringLiteral(".b16"), 2},   {QStringLiteral(".u16"), 2},
        {QStringLiteral(".s16"), 2},  {QStringLiteral(".f16"), 2},   {QStringLiteral(".bf16"), 2},
        {QStringLiteral(".b32"), 4},  {QStringLiteral(".u32"), 4},   {QStringLiteral(".s32"), 4},
        {QStringLiteral(".f32"), 4},  {QStringLiteral(".f16x2"), 4}, {QStringLiteral(".bf16x2"), 4},
        {QStringLiteral(".tf32"), 4}, {QStringLiteral(".b64"), 8},   {QStringLiteral(".u64"), 8},
        {QStringLiteral(".s64"), 8},  {QStringLiteral(".f64"), 8},   {QStringLiteral(".b128"), 16},
    };
    return sizes.value(ptxType, 0);
}

/// The x, y, z of a performance-tuning directive such as ".maxntid 256, 1, 1" (PTX ISA,
/// "Performance-Tuning Directives"; y and z default to 1) in the text between an entry's
/// parameter list and its body; zeros when absent or malformed.
std::array<int, 3> readNtid(const QString& directives, QLatin1String keyword) {
    static const QRegularExpression dims(
        QStringLiteral("\\s+(\\d{1,9})(?:\\s*,\\s*(\\d{1,9}))?(?:\\s*,\\s*(\\d{1,9}))?(?!\\d)"));
    qsizetype at = directives.indexOf(keyword);
    while (at >= 0) {
        const qsizetype end = at + keyword.size();
        const bool startsWord = at == 0 || directives.at(at - 1).isSpace();
        if (startsWord) {
            const QRegularExpressionMatch m =
                dims.match(directives, end, QRegularExpression::NormalMatch,
                           QRegularExpression::AnchorAtOffsetMatchOption);
            if (m.hasMatch()) {
                std::array<int, 3> result{1, 1, 1};
                for (int i = 0; i < 3; ++i)
                    if (m.hasCaptured(i + 1))
                        result[size_t(i)] = m.captured(i + 1).toInt();
                if (result[0] > 0 && result[1] > 0 && result[2] > 0)
                    return result;
            }
        }
        at = directives.indexOf(keyword, end);
    }
    return {0, 0, 0};
}

QVector<KernelInfo> parsePtxEntries(const QString& ptx) {
    QVector<KernelInfo> kernels;
    const QString text = ptxWithoutCommentsAndStrings(ptx);
    const QLatin1String entryKeyword(".entry");
    qsizetype from = 0;
    while (from < text.size() && kernels.size() < kMaxEntries) {
        const qsizetype at = text.indexOf(entryKeyword, from);
        if (at < 0)
            break;
        from = at + entryKeyword.size(); // always advances: the loop ends
        const bool startsWord = at == 0 || text.at(at - 1).isSpace();
        const bool endsWord = from < text.size() && text.at(from).isSpace();
        if (!startsWord || !endsWord)
            continue;
        const qsizetype lookback = qMin(at, kLinkageLookback);
        const QString before = text.mid(at - lookback, lookback);
        const qsizetype lineStart = before.lastIndexOf(u'\n');
        if (before.mid(lineStart + 1).contains(QLatin1String(".extern")))
            continue;

        qsizetype i = skipSpaces(text, from);
        const qsizetype nameStart = i;
        while (i < text.size() && isPtxIdentifierChar(text.at(i)))
            ++i;
        if (i == nameStart)
            continue;
        KernelInfo kernel;
        kernel.lowered = text.mid(nameStart, i - nameStart);
        i = skipSpaces(text, i);
        if (i < text.size() && text.at(i) == u'(') {
            qsizetype close = text.indexOf(u')', i + 1);
            if (close < 0)
                close = text.size(); // truncated PTX: keep what is there
            const QStringList declarations = text.mid(i + 1, close - i - 1).split(u',');
            for (const QString& declaration : declarations) {
                if (auto param = parsePtxParam(declaration))
                    kernel.params.append(*param);
            }
            from = qMax(from, close);
            // Directives sit between the parameter list and the body.
            const qsizetype body = text.indexOf(u'{', close);
            const qsizetype nextEntry = text.indexOf(entryKeyword, close);
            qsizetype stop = body < 0 ? text.size() : body;
            if (nextEntry >= 0)
                stop = qMin(stop, nextEntry);
            if (close < stop) {
                const QString directives = text.mid(close + 1, stop - close - 1);
                kernel.maxntid = readNtid(directives, QLatin1String(".maxntid"));
                kernel.reqntid = readNtid(directives, QLatin1String(".reqntid"));
                kernel.reqnctapercluster =
                    readNtid(directives, QLatin1String(".reqnctapercluster"));
                static const QRegularExpression explicitCluster(
                    QStringLiteral("(^|\\s)\\.explicitcluster(\\s|$)"));
                kernel.explicitCluster =
                    explicitCluster.match(directives).hasMatch() || kernel.reqnctapercluster[0] > 0;
            }
        }
        kernels.append(kernel);
    }
    return kernels;
}

namespace {

/// The demangled name of a variable symbol ("_ZN2ns7counterE" -> "ns::counter"); the symbol
/// itself when it is not mangled.
QString globalDisplayName(const QString& lowered) {
    const QString demangled = demangle(lowered);
    return demangled.isEmpty() ? lowered : demangled;
}

} // namespace

QVector<ModuleGlobal> parsePtxGlobals(const QString& ptx) {
    QVector<ModuleGlobal> globals;
    const QString text = ptxWithoutCommentsAndStrings(ptx);
    int depth = 0; // only module scope: function bodies hold no .const/.global declarations
    qsizetype lineStart = 0;
    while (lineStart < text.size() && globals.size() < kMaxEntries) {
        qsizetype lineEnd = text.indexOf(u'\n', lineStart);
        if (lineEnd < 0)
            lineEnd = text.size();
        const QString line = text.mid(lineStart, lineEnd - lineStart);
        lineStart = lineEnd + 1;
        const int depthBefore = depth;
        depth = qMax(0, depth + int(line.count(u'{')) - int(line.count(u'}')));
        if (depthBefore != 0)
            continue;
        // An initializer may hold braces and commas: only what is before '=' is read.
        const qsizetype equals = line.indexOf(u'=');
        const QString declaration = (equals < 0 ? line : line.left(equals)).trimmed();
        QStringList tokens = declaration.split(u' ', Qt::SkipEmptyParts);
        while (!tokens.isEmpty() && (tokens.first() == QLatin1String(".visible") ||
                                     tokens.first() == QLatin1String(".weak") ||
                                     tokens.first() == QLatin1String(".common")))
            tokens.removeFirst();
        if (tokens.size() < 3)
            continue;
        const QString& space = tokens.first();
        if (space != QLatin1String(".const") && space != QLatin1String(".global"))
            continue;
        ModuleGlobal global;
        global.space = space.mid(1);
        int vectorWidth = 1;
        int explicitAlign = 0;
        QString rest;
        bool skip = false;
        for (qsizetype t = 1; t < tokens.size(); ++t) {
            const QString& token = tokens.at(t);
            if (token == QLatin1String(".align")) {
                explicitAlign = t + 1 < tokens.size() ? tokens.at(t + 1).toInt() : 0;
                ++t;
            } else if (token == QLatin1String(".v2") || token == QLatin1String(".v4")) {
                vectorWidth = token.mid(2).toInt();
            } else if (ptxTypeSizeBytes(token) > 0) {
                global.ptxType = token;
            } else if (token.startsWith(u'.')) {
                skip = true; // .texref, .samplerref, .surfref: not memory to write
                break;
            } else {
                rest = tokens.mid(t).join(u' ');
                break;
            }
        }
        if (skip || global.ptxType.isEmpty())
            continue;
        if (rest.endsWith(u';'))
            rest.chop(1);
        const qsizetype bracket = rest.indexOf(u'[');
        global.lowered = (bracket < 0 ? rest : rest.left(bracket)).trimmed();
        if (global.lowered.isEmpty() ||
            !std::all_of(global.lowered.cbegin(), global.lowered.cend(), isPtxIdentifierChar))
            continue;
        global.name = globalDisplayName(global.lowered);
        global.ptxCount = arrayLength(rest) * vectorWidth;
        const qint64 bytes = qint64(ptxTypeSizeBytes(global.ptxType)) * global.ptxCount;
        global.sizeBytes = bytes <= INT_MAX ? int(bytes) : 0;
        global.alignBytes =
            explicitAlign > 0 ? explicitAlign : ptxTypeSizeBytes(global.ptxType) * vectorWidth;
        global.initialized = equals >= 0;
        globals.append(global);
    }
    return globals;
}

QHash<QString, QString> declaredGlobalTypes(const QString& source) {
    // "__constant__ float filter[9];", "__device__ unsigned int counter = 0;",
    // "static __constant__ const Pair pairs[2];": the words between the keyword and the name.
    // One line and a bounded number of words, so that no source makes the match slow.
    static const QRegularExpression declaration(QStringLiteral(
        R"((?:__constant__|__device__)[ \t]+((?:[A-Za-z_][\w:<>]*[ \t]+){0,8}?[A-Za-z_][\w:<>]*)"
        R"((?:[ \t]*\*)?)[ \t]*\b([A-Za-z_]\w*)[ \t]*((?:\[[^\]\n]*\][ \t]*){0,8})(?:=|;))"));
    static const QStringList qualifiers{
        QStringLiteral("static"),     QStringLiteral("const"),        QStringLiteral("volatile"),
        QStringLiteral("__device__"), QStringLiteral("__constant__"), QStringLiteral("__managed__"),
        QStringLiteral("inline")};
    QHash<QString, QString> types;
    QRegularExpressionMatchIterator it = declaration.globalMatch(source);
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        QStringList words = m.captured(1).simplified().split(u' ', Qt::SkipEmptyParts);
        words.removeIf([](const QString& w) { return qualifiers.contains(w); });
        if (words.isEmpty())
            continue;
        QString extents = m.captured(3);
        extents.remove(u' ');
        types.insert(m.captured(2), words.join(u' ') + extents);
    }
    return types;
}

QString ptxParameterName(const QString& entry, const QString& param) {
    static const QRegularExpression identifier(QStringLiteral("^[A-Za-z][A-Za-z0-9_]*$"));
    QString name = param;
    if (!entry.isEmpty() && name.startsWith(entry + QLatin1Char('_')))
        name = name.mid(entry.size() + 1);
    if (name.startsWith(QLatin1String("param_")) || !identifier.match(name).hasMatch())
        return {};
    return name;
}

bool ptxNameLooksLikeCount(const QString& name) {
    static const QRegularExpression count(
        QStringLiteral("^(n|N|[nN][A-Za-z]?|num.*|count.*|.*_?(count|size|len|length|num)|"
                       "size|len|length|elements|width|height|depth|pitch|stride)$"),
        QRegularExpression::CaseInsensitiveOption);
    return !name.isEmpty() && count.match(name).hasMatch();
}

} // namespace kernelpad
