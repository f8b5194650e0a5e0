#include "core/profile/NcuPages.h"

#include <QFileInfo>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace kernelpad {
namespace {

/// Removes ncu's own lines ("==WARNING== ...", "==PROF== ...") from a page, collecting the
/// warnings and errors: they are not CSV (a comma in one would split it into fields).
QString withoutToolLines(const QString& text, QStringList* warnings) {
    QStringList kept;
    const QStringList lines = text.split(QLatin1Char('\n'));
    for (const QString& line : lines) {
        const QString trimmed = line.trimmed();
        if (trimmed.startsWith(QLatin1String("=="))) {
            if (warnings && (trimmed.startsWith(QLatin1String("==WARNING==")) ||
                             trimmed.startsWith(QLatin1String("==ERROR=="))))
                warnings->append(trimmed);
            continue;
        }
        kept << line;
    }
    return kept.join(QLatin1Char('\n'));
}

QString field(const QStringList& row, int index) {
    return index >= 0 && index < row.size() ? row[index] : QString();
}

/// The index of each wanted column in `header`; fails naming the first one missing.
bool findColumns(const QStringList& header, const QStringList& wanted, QList<int>* out,
                 const QString& page, QString* error) {
    out->clear();
    for (const QString& name : wanted) {
        const int i = int(header.indexOf(name));
        if (i < 0) {
            if (error)
                *error = QStringLiteral("the %1 page has no '%2' column (is this ncu's CSV "
                                        "output of --page %1?)")
                             .arg(page, name);
            return false;
        }
        out->append(i);
    }
    return true;
}

qint64 count(const QString& text) {
    const std::optional<double> v = parseNcuNumber(text);
    return v ? qint64(std::llround(*v)) : 0;
}

constexpr std::array<std::pair<const char*, const char*>, 18> kStallNames{{
    {"barrier", "barrier"},
    {"branch_resolving", "branch_resolving"},
    {"dispatch", "dispatch_stall"},
    {"drain", "drain"},
    {"imc", "imc_miss"},
    {"lg", "lg_throttle"},
    {"long_sb", "long_scoreboard"},
    {"math", "math_pipe_throttle"},
    {"membar", "membar"},
    {"mio", "mio_throttle"},
    {"misc", "misc"},
    {"no_inst", "no_instructions"},
    {"not_selected", "not_selected"},
    {"selected", "selected"},
    {"short_sb", "short_scoreboard"},
    {"sleep", "sleeping"},
    {"tex", "tex_throttle"},
    {"wait", "wait"},
}};

} // namespace

std::optional<QList<QStringList>> parseCsv(const QString& text, QString* error) {
    QList<QStringList> rows;
    QStringList row;
    QString current;
    bool quoted = false;     // inside a quoted field
    bool afterQuote = false; // a quoted field just closed; only a separator may follow
    bool fieldStarted = false;
    int line = 1;
    const auto endField = [&] {
        row << current;
        current.clear();
        afterQuote = false;
        fieldStarted = false;
    };
    const auto endRow = [&] {
        if (fieldStarted || afterQuote || !row.isEmpty())
            endField();
        if (!(row.size() == 1 && row.first().isEmpty()) && !row.isEmpty())
            rows << row;
        row.clear();
    };
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (quoted) {
            if (c == QLatin1Char('"')) {
                if (i + 1 < text.size() && text[i + 1] == QLatin1Char('"')) {
                    current += QLatin1Char('"');
                    ++i;
                } else {
                    quoted = false;
                    afterQuote = true;
                }
            } else {
                if (c == QLatin1Char('\n'))
                    ++line;
                current += c;
            }
            continue;
        }
        if (c == QLatin1Char(',')) {
            endField();
            fieldStarted = true; // a separator always opens a next field, even an empty one
            continue;
        }
        if (c == QLatin1Char('\n')) {
            endRow();
            ++line;
            continue;
        }
        if (c == QLatin1Char('\r'))
            continue;
        if (afterQuote) {
            if (error)
                *error = QStringLiteral("line %1: text after a closing quote").arg(line);
            return std::nullopt;
        }
        if (c == QLatin1Char('"') && current.isEmpty()) {
            quoted = true;
            fieldStarted = true;
            continue;
        }
        current += c;
        fieldStarted = true;
    }
    if (quoted) {
        if (error)
            *error = QStringLiteral("line %1: a quoted field is not closed").arg(line);
        return std::nullopt;
    }
    endRow();
    return rows;
}

std::optional<double> parseNcuNumber(const QString& text) {
    QString t = text.trimmed();
    if (t.isEmpty() || t == QLatin1String("-") ||
        t.compare(QLatin1String("n/a"), Qt::CaseInsensitive) == 0)
        return std::nullopt;
    t.remove(QLatin1Char(','));
    bool ok = false;
    const double v = t.toDouble(&ok);
    if (!ok || !std::isfinite(v))
        return std::nullopt;
    return v;
}

ScaledValue scaleToBaseUnit(double value, const QString& unit) {
    // Time units first: "us" and "ms" would otherwise read as a prefix on "s".
    static const std::array<std::pair<const char*, double>, 5> kTimes{
        {{"ns", 1e-9}, {"us", 1e-6}, {"usecond", 1e-6}, {"ms", 1e-3}, {"msecond", 1e-3}}};
    for (const auto& [name, factor] : kTimes)
        if (unit == QLatin1String(name))
            return {value * factor, QStringLiteral("s")};
    // ncu's prefixes are decimal (32.768 Kbyte of shared memory is 32,768 bytes).
    static const std::array<std::pair<QChar, double>, 5> kPrefixes{{{QLatin1Char('K'), 1e3},
                                                                    {QLatin1Char('k'), 1e3},
                                                                    {QLatin1Char('M'), 1e6},
                                                                    {QLatin1Char('G'), 1e9},
                                                                    {QLatin1Char('T'), 1e12}}};
    static const std::array<const char*, 3> kBases{{"byte", "hz", "Hz"}};
    if (unit.size() > 1) {
        for (const auto& [prefix, factor] : kPrefixes) {
            if (unit[0] != prefix)
                continue;
            const QString rest = unit.mid(1);
            for (const char* base : kBases)
                if (rest.startsWith(QLatin1String(base)))
                    return {value * factor,
                            rest.toLower() == QLatin1String("hz") ? QStringLiteral("hz") : rest};
        }
    }
    return {value, unit};
}

std::optional<DetailsPage> parseDetailsPage(const QString& csv, QString* error) {
    const std::optional<QList<QStringList>> rows = parseCsv(withoutToolLines(csv, nullptr), error);
    if (!rows)
        return std::nullopt;
    qsizetype headerRow = -1;
    for (qsizetype i = 0; i < rows->size(); ++i)
        if (field((*rows)[i], 0) == QLatin1String("ID")) {
            headerRow = i;
            break;
        }
    if (headerRow < 0) {
        if (error)
            *error = QStringLiteral("the details page has no header row (no row starts with "
                                    "\"ID\"): ncu printed no results");
        return std::nullopt;
    }
    QList<int> c;
    if (!findColumns((*rows)[headerRow],
                     {QStringLiteral("ID"), QStringLiteral("Kernel Name"),
                      QStringLiteral("Block Size"), QStringLiteral("Grid Size"),
                      QStringLiteral("Section Name"), QStringLiteral("Metric Name"),
                      QStringLiteral("Metric Unit"), QStringLiteral("Metric Value"),
                      QStringLiteral("Rule Name"), QStringLiteral("Rule Type"),
                      QStringLiteral("Rule Description"), QStringLiteral("Estimated Speedup Type"),
                      QStringLiteral("Estimated Speedup")},
                     &c, QStringLiteral("details"), error))
        return std::nullopt;
    DetailsPage page;
    QStringList ids;
    for (qsizetype i = headerRow + 1; i < rows->size(); ++i) {
        const QStringList& r = (*rows)[i];
        const QString id = field(r, c[0]);
        if (!ids.contains(id))
            ids << id;
        if (id != ids.first())
            continue;
        if (page.kernel.isEmpty()) {
            page.kernel = field(r, c[1]);
            page.blockSize = field(r, c[2]);
            page.gridSize = field(r, c[3]);
        }
        const QString rule = field(r, c[8]);
        if (!rule.isEmpty()) {
            ProfileRule pr;
            pr.section = field(r, c[4]);
            pr.name = rule;
            pr.type = field(r, c[9]);
            pr.description = field(r, c[10]);
            pr.speedupType = field(r, c[11]);
            pr.estimatedSpeedup = parseNcuNumber(field(r, c[12]));
            page.rules << pr;
            continue;
        }
        const QString name = field(r, c[5]);
        if (name.isEmpty())
            continue;
        ProfileMetric m;
        m.section = field(r, c[4]);
        m.name = name;
        m.unit = field(r, c[6]);
        m.text = field(r, c[7]);
        m.value = parseNcuNumber(m.text);
        page.metrics << m;
    }
    page.launches = int(ids.size());
    if (page.launches == 0) {
        if (error)
            *error = QStringLiteral("the details page has a header but no rows: no launch was "
                                    "profiled");
        return std::nullopt;
    }
    return page;
}

std::optional<double> RawPage::base(const QString& name) const {
    const auto it = metrics.constFind(name);
    return it == metrics.cend() ? std::nullopt : it->base;
}

QString RawPage::text(const QString& name) const {
    const auto it = metrics.constFind(name);
    return it == metrics.cend() ? QString() : it->text;
}

std::optional<RawPage> parseRawPage(const QString& csv, QString* error) {
    const std::optional<QList<QStringList>> rows = parseCsv(withoutToolLines(csv, nullptr), error);
    if (!rows)
        return std::nullopt;
    qsizetype headerRow = -1;
    for (qsizetype i = 0; i < rows->size(); ++i)
        if (field((*rows)[i], 0) == QLatin1String("ID")) {
            headerRow = i;
            break;
        }
    if (headerRow < 0 || headerRow + 2 >= rows->size()) {
        if (error)
            *error =
                QStringLiteral("the raw page needs a header row (starting with \"ID\"), a "
                               "unit row and a value row; ncu printed %1")
                    .arg(headerRow < 0 ? QStringLiteral("no header") : QStringLiteral("no values"));
        return std::nullopt;
    }
    const QStringList& header = (*rows)[headerRow];
    const QStringList& units = (*rows)[headerRow + 1];
    const QStringList& values = (*rows)[headerRow + 2];
    if (values.size() != header.size()) {
        if (error)
            *error = QStringLiteral("the raw page's value row has %1 fields where the header "
                                    "has %2")
                         .arg(values.size())
                         .arg(header.size());
        return std::nullopt;
    }
    RawPage page;
    page.launches = int(rows->size() - headerRow - 2);
    for (qsizetype i = 0; i < header.size(); ++i) {
        RawMetric m;
        m.unit = field(units, int(i));
        m.text = values[i];
        m.value = parseNcuNumber(m.text);
        if (m.value) {
            const ScaledValue s = scaleToBaseUnit(*m.value, m.unit);
            m.base = s.value;
            m.baseUnit = s.unit;
        }
        page.metrics.insert(header[i], m);
    }
    return page;
}

QString canonicalStallName(const QString& sourcePageName) {
    for (const auto& [shortName, longName] : kStallNames)
        if (sourcePageName == QLatin1String(shortName))
            return QString::fromLatin1(longName);
    return sourcePageName;
}

namespace {

/// The columns of a block of the source page, from its "Line No" header row; -1 for a column
/// this ncu does not print.
struct SourceColumns {
    int line = -1, address = -1, sass = -1, stall = -1, notIssued = -1, executed = -1, sectors = -1,
        ideal = -1, excessive = -1, nWay = -1, wavefronts = -1, wavefrontsIdeal = -1,
        wavefrontsExcessive = -1;
    QList<std::pair<int, QString>> stalls; ///< column and canonical stall name

    /// Reads the header row; false with a message naming a missing column.
    bool read(const QStringList& r, QString* error) {
        QList<int> c;
        if (!findColumns(r,
                         {QStringLiteral("Line No"), QStringLiteral("Address"),
                          QStringLiteral("Warp Stall Sampling (All Samples)"),
                          QStringLiteral("Warp Stall Sampling (Not-issued Samples)"),
                          QStringLiteral("Instructions Executed")},
                         &c, QStringLiteral("source"), error))
            return false;
        line = c[0];
        address = c[1];
        sass = address + 1; // the second "Source" column: the SASS text
        stall = c[2];
        notIssued = c[3];
        executed = c[4];
        sectors = int(r.indexOf(QStringLiteral("L2 Theoretical Sectors Global")));
        ideal = int(r.indexOf(QStringLiteral("L2 Theoretical Sectors Global Ideal")));
        excessive = int(r.indexOf(QStringLiteral("L2 Theoretical Sectors Global Excessive")));
        nWay = int(r.indexOf(QStringLiteral("L1 Conflicts Shared N-Way")));
        wavefronts = int(r.indexOf(QStringLiteral("L1 Wavefronts Shared")));
        wavefrontsIdeal = int(r.indexOf(QStringLiteral("L1 Wavefronts Shared Ideal")));
        wavefrontsExcessive = int(r.indexOf(QStringLiteral("L1 Wavefronts Shared Excessive")));
        stalls.clear();
        for (qsizetype k = 0; k < r.size(); ++k)
            if (r[k].startsWith(QLatin1String("stall_")) &&
                !r[k].endsWith(QLatin1String("(Not Issued)")))
                stalls.append({int(k), canonicalStallName(r[k].mid(6))});
        return true;
    }

    /// A source line's row (its number already read), flagged.
    [[nodiscard]] LineProfile lineOf(const QStringList& r, int number) const {
        LineProfile l;
        l.line = number;
        l.stallSamples = count(field(r, stall));
        l.notIssuedStallSamples = count(field(r, notIssued));
        l.instructionsExecuted = count(field(r, executed));
        l.l2SectorsGlobal = count(field(r, sectors));
        l.l2SectorsGlobalIdeal = count(field(r, ideal));
        l.l2SectorsGlobalExcessive = count(field(r, excessive));
        l.sharedConflictsNWay = parseNcuNumber(field(r, nWay)).value_or(0.0);
        l.sharedWavefronts = count(field(r, wavefronts));
        l.sharedWavefrontsIdeal = count(field(r, wavefrontsIdeal));
        l.sharedWavefrontsExcessive = count(field(r, wavefrontsExcessive));
        for (const auto& [col, name] : stalls)
            if (const qint64 n = count(field(r, col)); n > 0)
                l.stalls.append(LineStall{name, n});
        std::stable_sort(
            l.stalls.begin(), l.stalls.end(),
            [](const LineStall& a, const LineStall& b) { return a.samples > b.samples; });
        flagLine(&l);
        return l;
    }

    /// A SASS row under `target`, its line: its instruction, samples and executions.
    void addSass(const QStringList& r, const QString& addressText, LineProfile* target) const {
        ProfileSassRow s;
        s.address = addressText;
        s.instruction = field(r, sass).trimmed();
        s.stallSamples = count(field(r, stall));
        s.instructionsExecuted = count(field(r, executed));
        if (count(field(r, sectors)) > 0)
            target->globalRequests += s.instructionsExecuted;
        target->sass.append(s);
    }
};

bool failSourcePage(QString* error, const QString& message) {
    if (error)
        *error = message;
    return false;
}

} // namespace

std::optional<QList<SourcePage>> parseSourcePage(const QString& csv, QString* error) {
    QStringList warnings;
    const std::optional<QList<QStringList>> rows =
        parseCsv(withoutToolLines(csv, &warnings), error);
    if (!rows)
        return std::nullopt;
    QList<SourcePage> pages;
    SourcePage* page = nullptr;
    SourceColumns cols; // of the current block's header
    LineProfile* line = nullptr;
    for (qsizetype i = 0; i < rows->size(); ++i) {
        const QStringList& r = (*rows)[i];
        const QString first = field(r, 0);
        if (first == QLatin1String("File Path")) {
            pages.append(SourcePage{});
            page = &pages.last();
            page->filePath = field(r, 1);
            line = nullptr;
            cols.line = -1;
            continue;
        }
        if (!page) {
            failSourcePage(error, QStringLiteral("the source page starts with '%1' where ncu "
                                                 "prints \"File Path\"")
                                      .arg(first.left(80)));
            return std::nullopt;
        }
        if (first == QLatin1String("Function Name")) {
            page->functionName = field(r, 1);
            continue;
        }
        if (first == QLatin1String("Line No")) {
            if (!cols.read(r, error))
                return std::nullopt;
            continue;
        }
        if (cols.line < 0) {
            failSourcePage(error, QStringLiteral("line %1 of the source page comes before its "
                                                 "header (\"Line No\", ...)")
                                      .arg(i + 1));
            return std::nullopt;
        }
        const QString lineText = field(r, cols.line);
        if (!lineText.isEmpty()) {
            bool ok = false;
            const int number = lineText.toInt(&ok);
            if (!ok || number < 1) {
                failSourcePage(error,
                               QStringLiteral("the source page's row %1 has line number '%2'")
                                   .arg(i + 1)
                                   .arg(lineText));
                return std::nullopt;
            }
            page->lines.append(cols.lineOf(r, number));
            line = &page->lines.last();
            continue;
        }
        const QString address = field(r, cols.address);
        // "..." rows stand for instructions of the line that ncu folded away.
        if (!line || address.isEmpty() || address == QLatin1String("...") ||
            address == QLatin1String("-"))
            continue;
        cols.addSass(r, address, line);
    }
    if (pages.isEmpty() && !warnings.isEmpty()) {
        SourcePage none;
        none.warnings = warnings;
        pages.append(none);
    } else if (!pages.isEmpty()) {
        pages.first().warnings = warnings;
    }
    return pages;
}

} // namespace kernelpad
