#pragma once
// What compute-sanitizer found in a run: the tool a run goes through and one (merged) report,
// as a RunResult carries them. Reading the tool's log is core/runner's SanitizerLogParser.

#include "core/compile/CompileResult.h"

#include <QJsonObject>
#include <QString>

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
    static std::optional<SanitizerReport> fromJson(const QJsonObject& json, QString* error,
                                                   const QString& path = {});
    friend bool operator==(const SanitizerReport& a, const SanitizerReport& b);
};

} // namespace kernelpad
