#pragma once
// A sweep's results: one record per configuration (its parameters, status, times, device,
// error), appended to a JSON-lines file as each arrives so that an interrupted sweep resumes
// from it, and exported as a CSV or JSON table sorted best first.
//
// The results file is KernelPad's own: its first line is a header that says so
// ({"kernelpad":"sweep-results","version":1}), every other line is a record, and it is read
// and appended only as a regular file of the user's with one link, never through a symbolic
// link and never truncated; a file that is not one is refused and left as it is.

#include "core/io/SafeFile.h"
#include "core/project/SweepSpec.h"
#include "core/sweep/SweepConfirmation.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QVector>

#include <cmath>
#include <limits>
#include <optional>

namespace kernelpad {

/// The outcome of one configuration.
struct SweepRecord {
    /// A configuration the mapping refused (it cannot launch); never sent to a runner.
    static inline const QString kInvalid = QStringLiteral("invalid");

    QString key; ///< "bx=32,by=8" (SweepSpace::key)
    QStringList names;
    QVector<double> values;
    QString status; ///< "ok", a RunStatus name ("compile-error", ...) or "invalid"
    QString error;  ///< why it failed, empty when it passed
    double medianMs = std::numeric_limits<double>::quiet_NaN();
    double minMs = std::numeric_limits<double>::quiet_NaN();
    double bandwidthGBs = std::numeric_limits<double>::quiet_NaN();
    QString device; ///< the device's name, empty when it never reached one
    /// The device's copy ceiling (DeviceCeiling.h) in GB/s as the run reported it: what a size
    /// sweep's chart draws its GB/s against. NaN when the run did not know it (or the record
    /// comes from a file written before records carried it).
    double ceilingGBs = std::numeric_limits<double>::quiet_NaN();
    /// The library baseline's median over the kernel's (above 1 the kernel is faster); NaN
    /// when the project has none or it was not measured (JSON "baselineRatio", absent then).
    double baselineRatio = std::numeric_limits<double>::quiet_NaN();
    /// Joules per launch from NVML's energy counter (core/run/Telemetry.h); NaN without NVML
    /// or when the timed interval was too short (JSON "energyJ", absent then).
    double energyJ = std::numeric_limits<double>::quiet_NaN();
    /// How long the configuration was out on its device, from its hand-over to its answer
    /// (compile, set-up, timing, verification): a later sweep of the same space starts the
    /// longest first by it, and the busy shares add it up (JSON "wallMs", absent when unknown).
    double wallMs = std::numeric_limits<double>::quiet_NaN();
    /// Which budget timed it (SweepTimingBudget::name(): "fast", "accurate", "50 ms"); files
    /// written before records carried it read as "accurate", the only budget there was.
    QString timingBudget = QStringLiteral("accurate");
    /// The winner of a sweep timed with another budget, timed again with the project's own
    /// timing ("accurate") when the sweep ended: its median and minimum, NaN until then.
    double accurateMedianMs = std::numeric_limits<double>::quiet_NaN();
    double accurateMinMs = std::numeric_limits<double>::quiet_NaN();
    /// Why that re-timing failed (the run's error); empty when it passed or did not run.
    QString accurateError;
    /// The best's A/B against the runner-up (SweepConfirmation.h), kept on the best's record
    /// (appended again); absent when none ran (JSON "confirmation").
    std::optional<SweepConfirmation> confirmation;

    /// Compiled, ran and verified.
    [[nodiscard]] bool passed() const { return status == QLatin1String("ok"); }
    /// Timed again with the accurate budget (accurateMedianMs holds the time).
    [[nodiscard]] bool isRetimed() const { return std::isfinite(accurateMedianMs); }
    /// Lower is better; NaN for a failed configuration, which is never the best.
    [[nodiscard]] double score(SweepObjective objective) const;

    /// One line of the results file.
    [[nodiscard]] QJsonObject toJson() const;
    static std::optional<SweepRecord> fromJson(const QJsonObject& json, QString* error);
};

/// Passing records best first by the objective, then the failures in their order.
[[nodiscard]] QVector<SweepRecord> sortedRecords(QVector<SweepRecord> records,
                                                 SweepObjective objective);
/// The best passing record, or nullopt when none passed.
[[nodiscard]] std::optional<SweepRecord> bestRecord(const QVector<SweepRecord>& records,
                                                    SweepObjective objective);

/// The table as CSV: the parameters' columns (`names`), then status, median_ms, min_ms,
/// gbps, ceiling_gbps, device, error, timing_budget, accurate_median_ms; one row per record in the
/// given order, RFC 4180 quoting.
[[nodiscard]] QString recordsToCsv(const QVector<SweepRecord>& records, const QStringList& names);
/// The table as a JSON array of records.
[[nodiscard]] QJsonArray recordsToJson(const QVector<SweepRecord>& records);

/// A results file larger than this is refused before a byte is read (a planted link to
/// /proc/self/pagemap or a huge file must not exhaust memory); an append that would pass it
/// fails, so the file stays readable. At about 200 bytes a record it holds some 300,000.
inline constexpr qint64 kSweepResultsMaxBytes = qint64(64) << 20;
/// A results file holding more records than a sweep's space may have configurations
/// (SweepSpace::kMaxConfigurations) is not one KernelPad wrote.
inline constexpr qint64 kSweepResultsMaxRecords = 1000000;
/// The version of the results file's format that this KernelPad writes and reads.
inline constexpr int kSweepResultsVersion = 1;

/// The records in `data`, the contents of a results file shown as `shown` in messages: the
/// first line must be the header; a record whose key an earlier line holds replaces that one in
/// its place (a winner timed again is appended again); a last line without its newline (cut short
/// by a kill) is skipped, as is a line that the line after it marks as cut short (the mark an
/// append writes after such a line); any other line that does not read is an error naming `shown`
/// and the line. The file's one parser (fuzz/fuzz_sweepresults.cpp feeds it).
[[nodiscard]] std::optional<QVector<SweepRecord>>
parseSweepResults(const QByteArray& data, const QString& shown, QString* error);

/// The records of the results file at `path`, read without writing it (parseSweepResults),
/// only when it is a regular file, not a symbolic link, of at most kSweepResultsMaxBytes;
/// nullopt with `error` naming the file and why (the line that does not read).
[[nodiscard]] std::optional<QVector<SweepRecord>> readSweepResults(const QString& path,
                                                                   QString* error);

/// The copy ceiling a sweep's records report: the highest finite one (several devices may
/// have run it), nullopt when none carries one.
[[nodiscard]] std::optional<double> recordsCeilingGBs(const QVector<SweepRecord>& records);

/// The JSON-lines results file of one sweep: read at open (a resumed sweep skips what it
/// holds), appended to with one write() per record.
class SweepResultsFile {
public:
    /// Opens `path` for appending (openAppendOnly: no symbolic link, no FIFO, one link, the
    /// user's), creating it with its header line (0600); the records already there are read
    /// first (readSweepResults' rules). A file that is refused is never written. Opening
    /// writes nothing to a file that exists.
    bool open(const QString& path, QString* error);
    [[nodiscard]] const QVector<SweepRecord>& existing() const { return m_existing; }
    /// Appends one line. After a last line cut short, the line starts fresh: a newline and a
    /// mark that the line above was cut short come first, so the file reads again.
    bool append(const SweepRecord& record, QString* error);
    [[nodiscard]] QString path() const { return m_path; }

private:
    bool write(const QByteArray& bytes, QString* error);

    UniqueFd m_fd;
    QString m_path;
    qint64 m_sizeBytes = 0;
    bool m_endsCutShort = false; ///< the file's last line has no newline
    QVector<SweepRecord> m_existing;
};

} // namespace kernelpad
