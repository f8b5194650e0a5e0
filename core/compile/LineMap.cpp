#include "core/compile/LineMap.h"

#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>

#include <algorithm>

namespace kernelpad {

namespace {

/// `.file 1 "/tmp/a.cu"` (optionally followed by a timestamp and size).
const QRegularExpression& fileDirective() {
    static const QRegularExpression re(QStringLiteral(R"re(^\s*\.file\s+(\d+)\s+"([^"]*)")re"));
    return re;
}

/// `.loc 1 6 9`, optionally `, function_name $L__info_string0, inlined_at 1 33 9`.
const QRegularExpression& locDirective() {
    static const QRegularExpression re(QStringLiteral(
        R"(^\s*\.loc\s+(\d+)\s+(\d+)(?:\s+\d+)?(?:.*\binlined_at\s+(\d+)\s+(\d+))?)"));
    return re;
}

/// The lines of `text` without their '\n' (and a '\r' before it).
QVector<QStringView> linesOf(const QString& text) {
    QVector<QStringView> lines;
    qsizetype start = 0;
    while (start <= text.size()) {
        qsizetype end = text.indexOf(u'\n', start);
        if (end < 0)
            end = text.size();
        QStringView line = QStringView(text).mid(start, end - start);
        if (line.endsWith(u'\r'))
            line.chop(1);
        lines.append(line);
        start = end + 1;
    }
    return lines;
}

/// The first position of `chain` in the source; 0 when none is.
int lineInSource(const QVector<SourcePos>& chain, const QString& sourceName) {
    for (const SourcePos& pos : chain) {
        if (isSameSourceFile(pos.file, sourceName))
            return pos.line;
    }
    return 0;
}

} // namespace

QVector<PtxLocation> parsePtxLocations(const QString& ptx) {
    const QVector<QStringView> lines = linesOf(ptx);
    // `.file` comes after the functions that use it: read the table first.
    QHash<int, QString> files;
    for (const QStringView line : lines) {
        if (!line.trimmed().startsWith(QLatin1String(".file")))
            continue;
        const QRegularExpressionMatch m = fileDirective().match(line.toString());
        if (m.hasMatch())
            files.insert(m.captured(1).toInt(), m.captured(2));
    }

    QVector<PtxLocation> locations;
    QVector<SourcePos> chain;
    for (int i = 0; i < lines.size(); ++i) {
        QStringView code = lines[i];
        if (const qsizetype comment = code.indexOf(QLatin1String("//")); comment >= 0)
            code = code.left(comment);
        code = code.trimmed();
        if (code.isEmpty())
            continue;
        if (code.startsWith(QLatin1String(".loc"))) {
            chain.clear();
            const QRegularExpressionMatch m = locDirective().match(code.toString());
            if (!m.hasMatch())
                continue;
            const int line = m.captured(2).toInt();
            if (line > 0)
                chain.append({files.value(m.captured(1).toInt()), line});
            if (m.hasCaptured(3)) {
                const int outer = m.captured(4).toInt();
                if (outer > 0)
                    chain.append({files.value(m.captured(3).toInt()), outer});
            }
            continue;
        }
        // A function's end: the next function starts without a position.
        if (code.startsWith(u'}')) {
            chain.clear();
            continue;
        }
        const bool notInstruction = code.startsWith(u'.') || code.startsWith(u'{') ||
                                    code.startsWith(u'(') || code.startsWith(u')') ||
                                    code.endsWith(u':');
        if (notInstruction || chain.isEmpty())
            continue;
        locations.append({i + 1, chain});
    }
    return locations;
}

bool isSameSourceFile(const QString& file, const QString& sourceName) {
    if (file.isEmpty() || sourceName.isEmpty())
        return false;
    if (file == sourceName)
        return true;
    const QFileInfo a(file);
    const QFileInfo b(sourceName);
    const bool eitherBare = !file.contains(u'/') || !sourceName.contains(u'/');
    return eitherBare && a.fileName() == b.fileName();
}

LineMap LineMap::build(const QString& ptx, const SassListing& sass, const QString& sourceName) {
    LineMap map;
    for (const PtxLocation& location : parsePtxLocations(ptx)) {
        const int line = lineInSource(location.source, sourceName);
        if (line <= 0)
            continue;
        map.m_ptxBySource[line].append(location.ptxLine);
        map.m_sourceByPtx.insert(location.ptxLine, line);
    }
    map.m_sourceBySass.resize(sass.functions.size());
    for (int f = 0; f < sass.functions.size(); ++f) {
        const QVector<SassInstruction>& instructions = sass.functions[f].instructions;
        QVector<int>& lines = map.m_sourceBySass[f];
        lines.resize(instructions.size());
        for (int i = 0; i < instructions.size(); ++i) {
            const int line = lineInSource(instructions[i].source, sourceName);
            lines[i] = std::max(line, 0);
            if (line > 0)
                map.m_sassBySource[line].append({f, i});
        }
    }
    return map;
}

bool LineMap::isEmpty() const {
    return m_ptxBySource.isEmpty() && m_sassBySource.isEmpty();
}

QVector<int> LineMap::sourceLines() const {
    QVector<int> lines = m_ptxBySource.keys().toVector();
    for (auto it = m_sassBySource.cbegin(); it != m_sassBySource.cend(); ++it) {
        if (!m_ptxBySource.contains(it.key()))
            lines.append(it.key());
    }
    std::sort(lines.begin(), lines.end());
    return lines;
}

QVector<int> LineMap::ptxLines(int sourceLine) const {
    return m_ptxBySource.value(sourceLine);
}

QVector<LineRange> LineMap::ptxRanges(int sourceLine) const {
    return toRanges(ptxLines(sourceLine));
}

QVector<SassRef> LineMap::sassInstructions(int sourceLine) const {
    return m_sassBySource.value(sourceLine);
}

QVector<int> LineMap::sassInstructions(int sourceLine, int function) const {
    QVector<int> indices;
    for (const SassRef& ref : m_sassBySource.value(sourceLine)) {
        if (ref.function == function)
            indices.append(ref.instruction);
    }
    return indices;
}

int LineMap::sourceLineOfPtx(int ptxLine) const {
    return m_sourceByPtx.value(ptxLine, 0);
}

int LineMap::sourceLineOfSass(int function, int instruction) const {
    if (function < 0 || function >= m_sourceBySass.size())
        return 0;
    const QVector<int>& lines = m_sourceBySass[function];
    return instruction >= 0 && instruction < lines.size() ? lines[instruction] : 0;
}

QVector<LineRange> toRanges(const QVector<int>& ascending) {
    QVector<LineRange> ranges;
    for (const int value : ascending) {
        if (!ranges.isEmpty() && ranges.last().last + 1 == value)
            ranges.last().last = value;
        else if (ranges.isEmpty() || ranges.last().last < value)
            ranges.append({value, value});
    }
    return ranges;
}

} // namespace kernelpad
