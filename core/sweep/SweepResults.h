#pragma once
// A sweep's results: one record per configuration (its parameters, status, times, device,
// error), appended to a JSON-lines file as each arrives so that an interrupted sweep resumes
// from it, and exported as a CSV or JSON table sorted best first.

#include "core/project/SweepSpec.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QVector>

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

    /// Compiled, ran and verified.
    [[nodiscard]] bool passed() const { return status == QLatin1String("ok"); }
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
/// gbps, ceiling_gbps, device, error; one row per record in the given order, RFC 4180 quoting.
[[nodiscard]] QString recordsToCsv(const QVector<SweepRecord>& records, const QStringList& names);
/// The table as a JSON array of records.
[[nodiscard]] QJsonArray recordsToJson(const QVector<SweepRecord>& records);

/// The records of the results file at `path`, read without writing it (a last line cut short
/// is skipped); nullopt with `error` naming the file and the line that does not read.
[[nodiscard]] std::optional<QVector<SweepRecord>> readSweepResults(const QString& path,
                                                                   QString* error);

/// The copy ceiling a sweep's records report: the highest finite one (several devices may
/// have run it), nullopt when none carries one.
[[nodiscard]] std::optional<double> recordsCeilingGBs(const QVector<SweepRecord>& records);

/// The JSON-lines results file of one sweep: read at open (a resumed sweep skips what it
/// holds), appended to and flushed after every record.
class SweepResultsFile {
public:
    /// Opens `path` for appending, creating it; the records already there are read first. A
    /// last line cut short (the sweep was killed while writing it) is dropped; any other line
    /// that does not read is an error naming the file and the line.
    bool open(const QString& path, QString* error);
    [[nodiscard]] const QVector<SweepRecord>& existing() const { return m_existing; }
    /// Appends one line and flushes it.
    bool append(const SweepRecord& record, QString* error);
    [[nodiscard]] QString path() const { return m_file.fileName(); }

private:
    QFile m_file;
    QVector<SweepRecord> m_existing;
};

} // namespace kernelpad
