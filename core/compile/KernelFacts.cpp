#include "core/compile/KernelFacts.h"

#include "core/compile/PtxParser.h"

#include <QRegularExpression>
#include <QStringList>
#include <QVector>

#include <climits>
#include <optional>

namespace kernelpad {

namespace {

/// One `.shared` or `.local` variable: ".shared .align 4 .b8 cache[1024];".
struct Declaration {
    QString name;
    qint64 bytes = 0;
    bool isExtern = false; ///< `.extern .shared x[]`: dynamic shared memory
    bool isShared = false; ///< else .local
};

/// The declaration on `line`, if it declares a .shared or .local variable.
std::optional<Declaration> parseDeclaration(const QString& line) {
    static const QRegularExpression pattern(
        QStringLiteral("^\\s*(\\.extern\\s+)?\\.(shared|local)\\s+([^;]*);"));
    const QRegularExpressionMatch m = pattern.match(line);
    if (!m.hasMatch())
        return std::nullopt;
    Declaration d;
    d.isExtern = m.hasCaptured(1);
    d.isShared = m.captured(2) == QLatin1String("shared");
    const QStringList tokens = m.captured(3).simplified().split(u' ', Qt::SkipEmptyParts);
    int elementBytes = 0;
    int vectorWidth = 1;
    QString rest;
    for (qsizetype t = 0; t < tokens.size(); ++t) {
        const QString& token = tokens.at(t);
        if (token == QLatin1String(".align")) {
            ++t; // its value
        } else if (token == QLatin1String(".v2") || token == QLatin1String(".v4")) {
            vectorWidth = token.mid(2).toInt();
        } else if (const int size = ptxTypeSizeBytes(token); size > 0) {
            elementBytes = size;
        } else if (!token.startsWith(u'.')) {
            rest = tokens.mid(t).join(QString());
            break;
        }
    }
    const qsizetype bracket = rest.indexOf(u'[');
    d.name = bracket < 0 ? rest : rest.left(bracket);
    if (d.name.isEmpty())
        return std::nullopt;
    // Every "[N]" multiplies; "[]" (an extern array) has no size of its own.
    qint64 bytes = qint64(elementBytes) * vectorWidth;
    static const QRegularExpression dimension(QStringLiteral("\\[(\\d{0,12})\\]"));
    for (auto it = dimension.globalMatch(rest); it.hasNext();) {
        const qint64 n = it.next().captured(1).toLongLong();
        bytes = n > 0 && bytes <= LLONG_MAX / n ? bytes * n : 0;
    }
    d.bytes = bytes;
    return d;
}

/// The value of a directive such as ".maxnreg 32" in an entry's directives; 0 when absent.
int directiveValue(const QString& directives, const QString& keyword) {
    const QRegularExpression pattern(QRegularExpression::escape(keyword) +
                                     QStringLiteral("\\s+(\\d{1,9})(?!\\d)"));
    return pattern.match(directives).captured(1).toInt();
}

bool mentions(const QString& body, const QString& name) {
    const QRegularExpression word(QStringLiteral("(?<![\\w$.%])") +
                                  QRegularExpression::escape(name) + QStringLiteral("(?![\\w$])"));
    return word.match(body).hasMatch();
}

/// The PTX facts: the entry's directives, its declarations and the module's it uses.
void readPtx(const QString& ptx, const QString& lowered, KernelCompileFacts& facts) {
    const QString text = ptxWithoutCommentsAndStrings(ptx);
    const QRegularExpression entry(QStringLiteral("(?:^|\\s)\\.entry\\s+") +
                                   QRegularExpression::escape(lowered) + QStringLiteral("\\s*\\("));
    const QRegularExpressionMatch m = entry.match(text);
    if (!m.hasMatch())
        return;
    facts.inPtx = true;
    for (const KernelInfo& k : parsePtxEntries(ptx)) {
        if (k.lowered == lowered) {
            facts.maxntid = k.maxntid;
            facts.reqntid = k.reqntid;
            break;
        }
    }
    const qsizetype close = text.indexOf(u')', m.capturedEnd());
    const qsizetype open = close < 0 ? -1 : text.indexOf(u'{', close);
    if (open < 0)
        return; // a declaration without a body, or truncated PTX
    const QString directives = text.mid(close + 1, open - close - 1);
    facts.maxnreg = directiveValue(directives, QStringLiteral(".maxnreg"));
    facts.minBlocksPerSm = directiveValue(directives, QStringLiteral(".minnctapersm"));
    qsizetype end = open;
    for (int depth = 0; end < text.size(); ++end) {
        if (text.at(end) == u'{')
            ++depth;
        else if (text.at(end) == u'}' && --depth == 0)
            break;
    }
    const QString body = text.mid(open, end - open + 1);
    for (const QString& line : body.split(u'\n')) {
        if (const auto d = parseDeclaration(line)) {
            if (d->isShared && d->isExtern)
                facts.dynamicShared = true;
            else
                (d->isShared ? facts.sharedBytes : facts.localBytes) += d->bytes;
        }
    }
    // Module-scope shared arrays count for the entries that use them; ptxas usually moves
    // them into the one entry that does ("demoted"), but an array two kernels share stays.
    int depth = 0;
    for (const QString& line : text.split(u'\n')) {
        if (depth == 0) {
            if (const auto d = parseDeclaration(line);
                d && d->isShared && mentions(body, d->name)) {
                if (d->isExtern)
                    facts.dynamicShared = true;
                else
                    facts.sharedBytes += d->bytes;
            }
        }
        depth += int(line.count(u'{')) - int(line.count(u'}'));
    }
}

/// ptxas's verbose report (-Xptxas -v) for `lowered` in the program log:
///   ptxas info    : Compiling entry function 'reduce' for 'sm_90'
///   ptxas info    : Function properties for reduce
///       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
///   ptxas info    : Used 12 registers, used 1 barriers, 1280 bytes smem, 380 bytes cmem[0]
void readPtxasReport(const QString& log, const QString& lowered, KernelCompileFacts& facts) {
    static const QRegularExpression compiling(QStringLiteral("Compiling entry function '([^']+)'"));
    static const QRegularExpression properties(QStringLiteral("Function properties for (\\S+)"));
    static const QRegularExpression used(QStringLiteral("Used (\\d+) registers"));
    static const QRegularExpression barriers(QStringLiteral("used (\\d+) barriers"));
    static const QRegularExpression smem(QStringLiteral("(\\d+) bytes smem"));
    static const QRegularExpression cmem(QStringLiteral("(\\d+) bytes cmem\\[0\\]"));
    static const QRegularExpression frame(QStringLiteral(
        "(\\d+) bytes stack frame, (\\d+) bytes spill stores, (\\d+) bytes spill loads"));
    QString compilingName;
    QString propertiesName;
    for (const QString& line : log.split(u'\n')) {
        if (const auto c = compiling.match(line); c.hasMatch()) {
            compilingName = c.captured(1);
        } else if (const auto p = properties.match(line); p.hasMatch()) {
            propertiesName = p.captured(1);
        } else if (const auto f = frame.match(line); f.hasMatch()) {
            if (propertiesName == lowered) {
                facts.stackBytes = f.captured(1).toLongLong();
                facts.spillStoreBytes = f.captured(2).toLongLong();
                facts.spillLoadBytes = f.captured(3).toLongLong();
            }
        } else if (const auto u = used.match(line); u.hasMatch() && compilingName == lowered) {
            facts.ptxasReported = true;
            facts.registers = u.captured(1).toInt();
            facts.barriers = barriers.match(line).captured(1).toInt();
            facts.ptxasSharedBytes = smem.match(line).captured(1).toLongLong();
            facts.constBytes = cmem.match(line).captured(1).toLongLong();
        }
    }
}

} // namespace

KernelCompileFacts kernelCompileFacts(const QString& ptx, const QString& log,
                                      const QString& lowered) {
    KernelCompileFacts facts;
    if (lowered.isEmpty())
        return facts;
    readPtx(ptx, lowered, facts);
    readPtxasReport(log, lowered, facts);
    return facts;
}

} // namespace kernelpad
