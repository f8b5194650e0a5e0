#pragma once
// compute-sanitizer's text report (what --log-file writes) read into reports the editor can
// mark: pure, no files and no processes (SanitizerRun runs the tool).

#include "core/run/SanitizerReport.h"

#include <QString>
#include <QStringList>
#include <QVector>

#include <utility>

namespace kernelpad {

/// A whole log: the merged reports and the tool's own totals.
struct SanitizerLog {
    QVector<SanitizerReport> reports;
    /// From "ERROR SUMMARY: N errors" (or racecheck's summary): may exceed the printed
    /// reports when --print-limit cut them off. -1 when the log has no summary (the tool was
    /// killed before it could write one).
    int errorCount = -1;
    int warningCount = 0;
    int notPrinted = 0;       ///< "N errors were not printed"
    QStringList toolMessages; ///< lines the tool wrote that are no report ("Error: ...")
};

/// Reads one log line by line. `sourceName` is the name the project's source was compiled
/// under; reports naming it (or its file name) get it as their file. Never throws; unknown
/// lines are skipped.
class SanitizerLogParser {
public:
    explicit SanitizerLogParser(QString sourceName)
        : m_sourceName(std::move(sourceName)) {}

    /// One line of the log, without its line break.
    void feed(const QString& line);
    /// The reports so far, merged (mergeSanitizerReports), and the tool's totals.
    [[nodiscard]] SanitizerLog finish();

    /// A whole log at once ('\n' or "\r\n" line breaks).
    [[nodiscard]] static SanitizerLog parse(const QString& text, const QString& sourceName);

private:
    /// What the lines being read belong to: a plain report, a racecheck pair, a hazard.
    enum class Block { None, Plain, Race, Hazard };

    void flush();
    void header(const QString& text);
    void continuation(const QString& text);

    QString m_sourceName;
    SanitizerLog m_log;
    SanitizerReport m_current;
    Block m_block = Block::None;
    bool m_inBacktrace = false;
    bool m_racePairSeen = false;
    int m_hazardAccesses = 0;
    QString m_raceFirstAccess;
};

/// Merges reports with the same kind, kernel, file, line and related place; the first keeps
/// its thread, block and address, `count` adds up. Order of first appearance is kept.
[[nodiscard]] QVector<SanitizerReport>
mergeSanitizerReports(const QVector<SanitizerReport>& reports);

/// The file a report names, mapped to the project's: NVRTC compiles the source under
/// `sourceName`, compute-sanitizer may print it with a directory.
[[nodiscard]] QString mapSanitizerFile(const QString& reported, const QString& sourceName);

} // namespace kernelpad
