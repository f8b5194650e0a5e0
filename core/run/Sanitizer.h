#pragma once
// compute-sanitizer (memcheck, racecheck, initcheck): where it is, the arguments KernelPad runs
// the runner under it with, and its text report parsed into editor diagnostics.

#include "core/compile/CompileResult.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QVector>

#include <array>
#include <optional>

namespace kernelpad {

/// Which compute-sanitizer tool a run goes through; None is a normal run.
enum class SanitizerTool { None, Memcheck, Racecheck, Initcheck };
[[nodiscard]] QString sanitizerToolName(SanitizerTool tool); ///< "none", "memcheck", ...
[[nodiscard]] std::optional<SanitizerTool> sanitizerToolFromName(const QString& name);

/// One problem compute-sanitizer reported, identical ones merged (`count`).
struct SanitizerReport {
    using Dim3 = std::array<int, 3>;

    /// The report's first line: "Invalid __global__ write of size 4 bytes",
    /// "Race reported between Write access and Read access", "Program hit CUDA_ERROR_...".
    QString kind;
    Diagnostic::Severity severity = Diagnostic::Severity::Error;
    QString kernel;             ///< "saxpy"; empty for API errors
    QString file;               ///< the project's sourceName when it is the user's source
    int line = 0;               ///< 1-based; 0 without -lineinfo or for API errors
    std::optional<Dim3> thread; ///< threadIdx of the (first) offending thread
    std::optional<Dim3> block;  ///< blockIdx of the (first) offending thread
    QString address;            ///< "0x7fa1e0802800"
    /// What is wrong with the address or the other side of a race: "out of bounds, 4 bytes
    /// after the nearest allocation at 0x... of size 4,096 bytes".
    QString detail;
    QString relatedFile; ///< racecheck: the other access of the pair
    int relatedLine = 0;
    int count = 1; ///< identical reports (same kind, place and related place)

    /// "Invalid __global__ write of size 4 bytes by thread (3,0,0) in block (1,0,0): address
    /// 0x... is out of bounds, 4 bytes after ..." plus how many times it was seen.
    [[nodiscard]] QString message() const;
    /// What the editor marks: file, line, severity and message().
    [[nodiscard]] Diagnostic diagnostic() const;
    [[nodiscard]] QJsonObject toJson() const;
    /// Fails with a message naming the field ("line: must be an integer >= 0").
    static std::optional<SanitizerReport> fromJson(const QJsonObject& json, QString* error);
    friend bool operator==(const SanitizerReport& a, const SanitizerReport& b);
};

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

/// Parses compute-sanitizer's text output (what --log-file writes). `sourceName` is the name
/// the project's source was compiled under; reports naming it (or its file name) get it as
/// their file. Never throws; unknown lines are skipped.
[[nodiscard]] SanitizerLog parseSanitizerLog(const QString& text, const QString& sourceName);

/// Merges reports with the same kind, kernel, file, line and related place; the first keeps
/// its thread, block and address, `count` adds up. Order of first appearance is kept.
[[nodiscard]] QVector<SanitizerReport>
mergeSanitizerReports(const QVector<SanitizerReport>& reports);

/// The file a report names, mapped to the project's: NVRTC compiles the source under
/// `sourceName`, compute-sanitizer may print it with a directory.
[[nodiscard]] QString mapSanitizerFile(const QString& reported, const QString& sourceName);

/// compute-sanitizer: $KERNELPAD_COMPUTE_SANITIZER, next to the toolkit
/// (<cuda>/compute-sanitizer/compute-sanitizer, <cuda>/bin/compute-sanitizer), then PATH.
/// Empty when none is found; `searched` then lists where it looked.
[[nodiscard]] QString findComputeSanitizer(QStringList* searched = nullptr);
/// "compute-sanitizer was not found; looked in: ...": a sentence a person can act on.
[[nodiscard]] QString sanitizerNotFoundMessage(const QStringList& searched);

/// The arguments before the runner's own command line.
[[nodiscard]] QStringList sanitizerArguments(SanitizerTool tool, const QString& logFile);

/// Sanitized kernels run 10-100x slower (CUDA Compute Sanitizer docs, "Performance"), so
/// time limits of a sanitized run are multiplied by this.
inline constexpr int kSanitizerTimeScale = 30;
/// Errors printed before the tool only counts them; duplicates are merged afterwards.
inline constexpr int kSanitizerPrintLimit = 100;
/// Bytes of guard space memcheck puts after each allocation: without it a write just past
/// one buffer lands in the next one (cuMemAlloc packs them) and goes unseen.
inline constexpr int kSanitizerPaddingBytes = 4096;

} // namespace kernelpad
