#include "core/profile/NcuPages.h"

#include <QFileInfo>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace kernelpad {
namespace {

/// Bytes per L2 or L1 sector: the unit of ncu's sector counts.
constexpr double kSectorBytes = 32.0;

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

/// A details-page metric's value scaled to its base unit.
std::optional<double> detailsValue(const DetailsPage& page, const QString& section,
                                   const QString& name) {
    for (const ProfileMetric& m : page.metrics)
        if (m.section == section && m.name == name && m.value)
            return scaleToBaseUnit(*m.value, m.unit).value;
    return std::nullopt;
}

template <typename T> std::optional<T> firstOf(std::optional<T> a, std::optional<T> b) {
    return a ? a : b;
}

std::optional<double> times(std::optional<double> a, std::optional<double> b) {
    if (a && b)
        return *a * *b;
    return std::nullopt;
}

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

std::optional<QList<SourcePage>> parseSourcePage(const QString& csv, QString* error) {
    QStringList warnings;
    const std::optional<QList<QStringList>> rows =
        parseCsv(withoutToolLines(csv, &warnings), error);
    if (!rows)
        return std::nullopt;
    QList<SourcePage> pages;
    SourcePage* page = nullptr;
    // Columns of the current block's header.
    int lineCol = -1, addressCol = -1, sassCol = -1, stallCol = -1, notIssuedCol = -1,
        executedCol = -1, sectorsCol = -1, idealCol = -1, excessiveCol = -1, nWayCol = -1,
        wavefrontsCol = -1, wavefrontsIdealCol = -1, wavefrontsExcessiveCol = -1;
    QList<std::pair<int, QString>> stallCols;
    LineProfile* line = nullptr;
    for (qsizetype i = 0; i < rows->size(); ++i) {
        const QStringList& r = (*rows)[i];
        const QString first = field(r, 0);
        if (first == QLatin1String("File Path")) {
            pages.append(SourcePage{});
            page = &pages.last();
            page->filePath = field(r, 1);
            line = nullptr;
            lineCol = -1;
            continue;
        }
        if (!page) {
            if (error)
                *error = QStringLiteral("the source page starts with '%1' where ncu prints "
                                        "\"File Path\"")
                             .arg(first.left(80));
            return std::nullopt;
        }
        if (first == QLatin1String("Function Name")) {
            page->functionName = field(r, 1);
            continue;
        }
        if (first == QLatin1String("Line No")) {
            QList<int> c;
            if (!findColumns(r,
                             {QStringLiteral("Line No"), QStringLiteral("Address"),
                              QStringLiteral("Warp Stall Sampling (All Samples)"),
                              QStringLiteral("Warp Stall Sampling (Not-issued Samples)"),
                              QStringLiteral("Instructions Executed")},
                             &c, QStringLiteral("source"), error))
                return std::nullopt;
            lineCol = c[0];
            addressCol = c[1];
            sassCol = addressCol + 1; // the second "Source" column: the SASS text
            stallCol = c[2];
            notIssuedCol = c[3];
            executedCol = c[4];
            sectorsCol = int(r.indexOf(QStringLiteral("L2 Theoretical Sectors Global")));
            idealCol = int(r.indexOf(QStringLiteral("L2 Theoretical Sectors Global Ideal")));
            excessiveCol =
                int(r.indexOf(QStringLiteral("L2 Theoretical Sectors Global Excessive")));
            nWayCol = int(r.indexOf(QStringLiteral("L1 Conflicts Shared N-Way")));
            wavefrontsCol = int(r.indexOf(QStringLiteral("L1 Wavefronts Shared")));
            wavefrontsIdealCol = int(r.indexOf(QStringLiteral("L1 Wavefronts Shared Ideal")));
            wavefrontsExcessiveCol =
                int(r.indexOf(QStringLiteral("L1 Wavefronts Shared Excessive")));
            stallCols.clear();
            for (qsizetype k = 0; k < r.size(); ++k)
                if (r[k].startsWith(QLatin1String("stall_")) &&
                    !r[k].endsWith(QLatin1String("(Not Issued)")))
                    stallCols.append({int(k), canonicalStallName(r[k].mid(6))});
            continue;
        }
        if (lineCol < 0) {
            if (error)
                *error = QStringLiteral("line %1 of the source page comes before its header "
                                        "(\"Line No\", ...)")
                             .arg(i + 1);
            return std::nullopt;
        }
        const QString lineText = field(r, lineCol);
        if (!lineText.isEmpty()) {
            bool ok = false;
            const int number = lineText.toInt(&ok);
            if (!ok || number < 1) {
                if (error)
                    *error = QStringLiteral("the source page's row %1 has line number '%2'")
                                 .arg(i + 1)
                                 .arg(lineText);
                return std::nullopt;
            }
            LineProfile l;
            l.line = number;
            l.stallSamples = count(field(r, stallCol));
            l.notIssuedStallSamples = count(field(r, notIssuedCol));
            l.instructionsExecuted = count(field(r, executedCol));
            l.l2SectorsGlobal = count(field(r, sectorsCol));
            l.l2SectorsGlobalIdeal = count(field(r, idealCol));
            l.l2SectorsGlobalExcessive = count(field(r, excessiveCol));
            l.sharedConflictsNWay = parseNcuNumber(field(r, nWayCol)).value_or(0.0);
            l.sharedWavefronts = count(field(r, wavefrontsCol));
            l.sharedWavefrontsIdeal = count(field(r, wavefrontsIdealCol));
            l.sharedWavefrontsExcessive = count(field(r, wavefrontsExcessiveCol));
            for (const auto& [col, name] : stallCols)
                if (const qint64 n = count(field(r, col)); n > 0)
                    l.stalls.append(LineStall{name, n});
            std::stable_sort(
                l.stalls.begin(), l.stalls.end(),
                [](const LineStall& a, const LineStall& b) { return a.samples > b.samples; });
            flagLine(&l);
            page->lines.append(l);
            line = &page->lines.last();
            continue;
        }
        const QString address = field(r, addressCol);
        // "..." rows stand for instructions of the line that ncu folded away.
        if (!line || address.isEmpty() || address == QLatin1String("...") ||
            address == QLatin1String("-"))
            continue;
        ProfileSassRow s;
        s.address = address;
        s.instruction = field(r, sassCol).trimmed();
        s.stallSamples = count(field(r, stallCol));
        s.instructionsExecuted = count(field(r, executedCol));
        if (count(field(r, sectorsCol)) > 0)
            line->globalRequests += s.instructionsExecuted;
        line->sass.append(s);
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

std::optional<ProfileReport> assembleProfileReport(const NcuPages& pages, const QString& sourceName,
                                                   const QString& set, QString* error) {
    QString why;
    const std::optional<DetailsPage> details = parseDetailsPage(pages.details, &why);
    if (!details) {
        if (error)
            *error = QStringLiteral("cannot read ncu's details page: %1").arg(why);
        return std::nullopt;
    }
    const std::optional<RawPage> raw = parseRawPage(pages.raw, &why);
    if (!raw) {
        if (error)
            *error = QStringLiteral("cannot read ncu's raw page: %1").arg(why);
        return std::nullopt;
    }
    ProfileReport r;
    r.kernel = details->kernel;
    r.blockSize = details->blockSize;
    r.gridSize = details->gridSize;
    r.set = set;
    r.sourceName = sourceName;
    r.device = raw->text(QStringLiteral("device__attribute_display_name"));
    r.metrics = details->metrics;
    r.rules = details->rules;
    if (details->launches > 1)
        r.warnings << QStringLiteral("ncu profiled %1 launches; the first is shown")
                          .arg(details->launches);

    const QString sol = QStringLiteral("GPU Speed Of Light Throughput");
    const QString occupancy = QStringLiteral("Occupancy");
    const QString memory = QStringLiteral("Memory Workload Analysis");
    const auto d = [&](const QString& section, const char* name) {
        return detailsValue(*details, section, QString::fromLatin1(name));
    };
    const auto rawBase = [&](const char* name) { return raw->base(QString::fromLatin1(name)); };

    if (const std::optional<double> seconds =
            firstOf(rawBase("gpu__time_duration.sum"), d(sol, "Duration")))
        r.durationNs = *seconds * 1e9;
    SpeedOfLight& s = r.speedOfLight;
    s.computeThroughputPct = firstOf(d(sol, "Compute (SM) Throughput"),
                                     rawBase("sm__throughput.avg.pct_of_peak_sustained_elapsed"));
    s.memoryThroughputPct =
        firstOf(d(sol, "Memory Throughput"),
                rawBase("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"));
    s.dramThroughputPct =
        firstOf(d(sol, "DRAM Throughput"),
                rawBase("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"));
    s.l1ThroughputPct = firstOf(d(sol, "L1/TEX Cache Throughput"),
                                rawBase("l1tex__throughput.avg.pct_of_peak_sustained_active"));
    s.l2ThroughputPct = firstOf(d(sol, "L2 Cache Throughput"),
                                rawBase("lts__throughput.avg.pct_of_peak_sustained_elapsed"));
    s.achievedOccupancyPct = firstOf(d(occupancy, "Achieved Occupancy"),
                                     rawBase("sm__warps_active.avg.pct_of_peak_sustained_active"));
    s.theoreticalOccupancyPct = firstOf(d(occupancy, "Theoretical Occupancy"),
                                        rawBase("sm__maximum_warps_per_active_cycle_pct"));
    s.l1HitRatePct = firstOf(d(memory, "L1/TEX Hit Rate"), rawBase("l1tex__t_sector_hit_rate.pct"));
    s.l2HitRatePct = firstOf(d(memory, "L2 Hit Rate"), rawBase("lts__t_sector_hit_rate.pct"));
    s.smFrequencyHz = firstOf(d(sol, "SM Frequency"), rawBase("sm__cycles_elapsed.avg.per_second"));
    s.dramFrequencyHz =
        firstOf(d(sol, "DRAM Frequency"), rawBase("dram__cycles_elapsed.avg.per_second"));
    s.elapsedCycles = d(sol, "Elapsed Cycles");
    s.dramBytes = rawBase("dram__bytes.sum");
    if (!s.dramBytes) {
        const std::optional<double> read = rawBase("dram__bytes_read.sum");
        const std::optional<double> write = rawBase("dram__bytes_write.sum");
        if (read && write)
            s.dramBytes = *read + *write;
    }
    s.l2Bytes =
        firstOf(rawBase("lts__t_bytes.sum"), times(rawBase("lts__t_sectors.sum"), kSectorBytes));
    s.l1Bytes = firstOf(rawBase("l1tex__t_bytes.sum"),
                        times(rawBase("l1tex__t_sectors.sum"), kSectorBytes));

    // The roofline as ncu's SpeedOfLight_RooflineChart computes it: thread instructions per
    // elapsed cycle (summed over the SM sub-partitions) times the cycles per second, an FMA
    // counting as two operations.
    Roofline& roof = r.roofline;
    const std::optional<double> smspHz = rawBase("smsp__cycles_elapsed.avg.per_second");
    const auto flops = [&](const char* fma, const char* add,
                           const char* mul) -> std::optional<double> {
        const auto rate = [&](const char* op) {
            return raw->base(QStringLiteral("smsp__sass_thread_inst_executed_op_%1_pred_on.sum."
                                            "per_cycle_elapsed")
                                 .arg(QLatin1String(op)));
        };
        const std::optional<double> f = rate(fma), a = rate(add), m = rate(mul);
        if (!f || !a || !m || !smspHz)
            return std::nullopt;
        return (2.0 * *f + *a + *m) * *smspHz;
    };
    roof.achievedFp32FlopsPerSecond = flops("ffma", "fadd", "fmul");
    roof.achievedFp64FlopsPerSecond = flops("dfma", "dadd", "dmul");
    roof.dramBytesPerSecond = rawBase("dram__bytes.sum.per_second");
    if (!roof.dramBytesPerSecond && s.dramBytes && r.durationNs && *r.durationNs > 0)
        roof.dramBytesPerSecond = *s.dramBytes / (*r.durationNs * 1e-9);
    if (roof.dramBytesPerSecond && *roof.dramBytesPerSecond > 0 &&
        (roof.achievedFp32FlopsPerSecond || roof.achievedFp64FlopsPerSecond))
        roof.arithmeticIntensity = (roof.achievedFp32FlopsPerSecond.value_or(0) +
                                    roof.achievedFp64FlopsPerSecond.value_or(0)) /
                                   *roof.dramBytesPerSecond;
    const std::optional<double> smHz = rawBase("sm__cycles_elapsed.avg.per_second");
    roof.peakFp32FlopsPerSecond = times(
        times(rawBase("sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained"), 2.0),
        smHz);
    roof.peakFp64FlopsPerSecond = times(
        times(rawBase("sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained"), 2.0),
        smHz);
    roof.peakDramBytesPerSecond = times(rawBase("dram__bytes.sum.peak_sustained"),
                                        rawBase("dram__cycles_elapsed.avg.per_second"));

    // Stall reasons over the whole kernel: the PC samples of WarpStateStats.
    const QString prefix = QStringLiteral("smsp__pcsamp_warps_issue_stalled_");
    const QString notIssued = QStringLiteral("_not_issued");
    for (auto it = raw->metrics.cbegin(); it != raw->metrics.cend(); ++it) {
        if (!it.key().startsWith(prefix) || it.key().endsWith(notIssued) || !it->value)
            continue;
        StallReason reason;
        reason.name = it.key().mid(prefix.size());
        reason.samples = qint64(std::llround(*it->value));
        if (reason.samples <= 0)
            continue;
        reason.notIssuedSamples =
            qint64(std::llround(raw->base(it.key() + notIssued).value_or(0.0)));
        reason.description = stallReasonDescription(reason.name);
        r.stalls << reason;
    }

    if (!pages.source.trimmed().isEmpty()) {
        const std::optional<QList<SourcePage>> source = parseSourcePage(pages.source, &why);
        if (!source) {
            r.warnings << QStringLiteral("the per-line counters could not be read: %1").arg(why);
        } else {
            const SourcePage* chosen = nullptr;
            const QString wanted = QFileInfo(sourceName).fileName();
            for (const SourcePage& p : *source)
                if (!p.filePath.isEmpty() && !wanted.isEmpty() &&
                    QFileInfo(p.filePath).fileName() == wanted) {
                    chosen = &p;
                    break;
                }
            for (const SourcePage& p : *source) {
                if (!chosen && !p.filePath.isEmpty()) {
                    chosen = &p;
                    r.warnings << QStringLiteral("ncu names no source file '%1'; the lines are "
                                                 "those of %2")
                                      .arg(wanted, p.filePath);
                }
                r.warnings << p.warnings;
            }
            if (chosen)
                r.lines = chosen->lines;
        }
    }
    if (r.stalls.isEmpty()) {
        // Without the raw page's samples, the per-line samples summed give the same totals.
        QHash<QString, qint64> sums;
        QStringList order;
        for (const LineProfile& l : r.lines)
            for (const LineStall& st : l.stalls) {
                if (!sums.contains(st.name))
                    order << st.name;
                sums[st.name] += st.samples;
            }
        for (const QString& name : order)
            r.stalls << StallReason{name, stallReasonDescription(name), sums.value(name), 0};
    }
    std::stable_sort(r.stalls.begin(), r.stalls.end(),
                     [](const StallReason& a, const StallReason& b) {
                         return a.samples != b.samples ? a.samples > b.samples : a.name < b.name;
                     });
    return r;
}

} // namespace kernelpad
