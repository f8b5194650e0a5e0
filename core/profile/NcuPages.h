#pragma once
// Readers of Nsight Compute's CSV pages (`ncu -i R --csv --page details|raw|source`), as
// ncu 2025.3 prints them (tests/data/ncu holds recordings): a CSV reader that knows ncu's
// number forms, the details page (sections -> metrics with units, and rules), the raw page
// (every metric, scaled to base units) and the source page with `--print-source cuda,sass`
// (per source line its counters, followed by its SASS rows). assembleProfileReport() makes a
// ProfileReport of the three.

#include "core/profile/ProfileReport.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace kernelpad {

/// Splits CSV text into rows of fields: fields quoted or not, "" inside quotes for a quote,
/// newlines inside quotes kept, \r\n or \n between rows; an empty line is skipped. Fails
/// ("line 3: a quoted field is not closed") on an unterminated quote or text after a closing
/// quote.
[[nodiscard]] std::optional<QList<QStringList>> parseCsv(const QString& text, QString* error);

/// A number as ncu prints it: "115,962" (thousands separators), "2.62", "1e+06"; "-", "n/a",
/// "nan", "" and text are absent.
[[nodiscard]] std::optional<double> parseNcuNumber(const QString& text);

/// `value` in `unit` expressed in the unit without its decimal prefix: 2.62 "Tbyte/s" ->
/// 2.62e12 "byte/s", 1.28 "Kbyte/cycle" -> 1280 "byte/cycle", 1.59 "Ghz" -> 1.59e9 "hz",
/// 72.99 "us" -> 7.299e-5 "s". Units without a prefix are returned as they are.
struct ScaledValue {
    double value = 0;
    QString unit;
};
[[nodiscard]] ScaledValue scaleToBaseUnit(double value, const QString& unit);

/// The details page of one profiled launch.
struct DetailsPage {
    QString kernel;    ///< Kernel Name
    QString blockSize; ///< "(256, 1, 1)"
    QString gridSize;
    QList<ProfileMetric> metrics;
    QList<ProfileRule> rules;
    int launches = 0; ///< distinct IDs on the page; the first is read
};
/// Fails with a message naming what is missing ("the details page has no 'Metric Value'
/// column") or which line is wrong.
[[nodiscard]] std::optional<DetailsPage> parseDetailsPage(const QString& csv, QString* error);

/// One metric of the raw page.
struct RawMetric {
    QString unit;                ///< as printed: "Tbyte/s"
    QString text;                ///< as printed: "2.620966"
    std::optional<double> value; ///< the number in `unit`
    std::optional<double> base;  ///< the number in baseUnit (scaleToBaseUnit)
    QString baseUnit;            ///< "byte/s"
};

/// The raw page of one profiled launch: metric name -> value.
struct RawPage {
    QHash<QString, RawMetric> metrics;
    int launches = 0;

    /// The metric's value in its base unit, or absent.
    [[nodiscard]] std::optional<double> base(const QString& name) const;
    /// The metric's text as printed; empty when absent.
    [[nodiscard]] QString text(const QString& name) const;
};
/// Fails when the page lacks the header, unit and value rows.
[[nodiscard]] std::optional<RawPage> parseRawPage(const QString& csv, QString* error);

/// The hierarchical roofline of the raw page: the metrics of ncu's
/// SpeedOfLight_Hierarchical*RooflineChart sections (both sets ask for them, ncuExtraSections);
/// a value whose metrics the page lacks (an older recording, a set without the sections)
/// stays absent.
[[nodiscard]] HierarchicalRoofline hierarchicalRoofline(const RawPage& raw);

/// The source page (`--print-source cuda,sass`) of one function: its lines with their SASS.
struct SourcePage {
    QString filePath;         ///< "File Path" (the NVRTC program name)
    QString functionName;     ///< "Function Name"
    QList<LineProfile> lines; ///< flagged with flagLine(), in page order
    QStringList warnings;     ///< ncu's ==WARNING== lines (no lineinfo, no source file)
};
/// Reads every file block on the page. A page that is only ncu's warnings (no -lineinfo)
/// gives no lines and those warnings; a page without the columns this needs fails.
[[nodiscard]] std::optional<QList<SourcePage>> parseSourcePage(const QString& csv, QString* error);

/// ncu's stall reason names as the source page prints them ("long_sb", "lg", "mio") mapped to
/// the raw page's ("long_scoreboard", "lg_throttle", "mio_throttle"), the names a
/// ProfileReport uses; a name it does not know is returned as it is.
[[nodiscard]] QString canonicalStallName(const QString& sourcePageName);

/// The pages of one profile, read back from ncu.
struct NcuPages {
    QString details;
    QString raw;
    QString source; ///< may be ncu's warnings only (no -lineinfo)
};

/// Builds the report: speed of light and occupancy from the details page (the raw page where
/// the set lacks a section), stalls from the raw page's PC samples (the source page's
/// per-line sums without them), the lines of the file named `sourceName` (else of the first
/// file, with a warning), the roofline from the raw page. Fails when the details or raw page
/// cannot be read.
[[nodiscard]] std::optional<ProfileReport> assembleProfileReport(const NcuPages& pages,
                                                                 const QString& sourceName,
                                                                 const QString& set,
                                                                 QString* error);

} // namespace kernelpad
