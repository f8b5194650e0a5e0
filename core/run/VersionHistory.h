#pragma once
// The versions of a project: every run's project as it ran with its timing and verification
// verdict (never its output buffers), and the store that keeps them across restarts in the
// application's data folder, one file per project file, bounded and written atomically.

#include "core/project/Project.h"
#include "core/run/RunResult.h"

#include <QDateTime>
#include <QJsonObject>
#include <QMap>
#include <QString>
#include <QVector>

#include <optional>

namespace kernelpad {

/// What a version's verification came to, as the timeline shows it.
enum class VersionVerdict {
    Passed,    ///< ran, and every checked buffer matched (or none was checked)
    Failed,    ///< ran, and a buffer did not match
    Fault,     ///< the kernel faulted (a sticky CUDA error)
    Error,     ///< did not run: compile error, bad input, timeout, no driver
    Cancelled, ///< stopped before it finished
};
[[nodiscard]] QString versionVerdictName(VersionVerdict verdict); ///< "passed", "failed", ...

/// One run of the project: what ran and what it measured.
struct Version {
    int number = 0; ///< 1 for the first run of this project file, then 2, ... (kept on disk)
    QDateTime finishedAt;
    Project project; ///< the project as it ran (source, options, launch, arguments, timing)
    QString changes; ///< what changed since the previous measured run, or empty
    RunStatus status = RunStatus::Ok;
    QString error;     ///< the run's error sentence, empty when it ended well
    int faultCode = 0; ///< the kernel fault's CUresult, 0 when none
    int buffersChecked = 0;
    int buffersFailed = 0;
    TimingStats timing; ///< samples capped at kMaxKeptSamples (the rest are dropped)
    QString device;     ///< the device's name
    SanitizerTool sanitizer = SanitizerTool::None;
    int sanitizerErrors = 0;
    bool profiled = false; ///< Nsight Compute profiled this run
    /// The driver's registers, memory and occupancy of the kernel as it ran; absent for a run
    /// that failed and for versions recorded before they were kept (JSON: "resources").
    std::optional<KernelResources> resources;
    /// The kernel's SASS opcodes with their counts ("LDG.E" -> 4), when the window
    /// disassembled the compile this version ran (core/engine/EditVerdictSass.h); absent
    /// otherwise and for versions recorded before they were kept (JSON: "sassOpcodes").
    std::optional<QMap<QString, int>> sassOpcodes;
    /// The project's library baseline as this run measured it ("cuBLAS", its median); empty
    /// and 0 when it has none or it did not run (JSON: "baseline", only when measured).
    QString baselineLibrary;
    double baselineMedianMs = 0;
    /// The library's median over the kernel's (above 1 the kernel is faster); 0 when unknown.
    [[nodiscard]] double baselineRatio() const {
        return baselineMedianMs > 0 && timing.medianMs > 0 ? baselineMedianMs / timing.medianMs : 0;
    }
    /// Not a run: the project as it was before a restore, kept so that it can be restored
    /// (its source was in no version).
    bool kept = false;

    /// Samples kept per version: enough for a median and an interval, small on disk.
    static constexpr int kMaxKeptSamples = 1000;

    /// The version of one finished run: everything but the outputs, the PTX and the log.
    [[nodiscard]] static Version fromRun(int number, const QDateTime& finishedAt,
                                         const Project& project, const RunResult& result,
                                         const QString& changes, bool profiled);
    [[nodiscard]] VersionVerdict verdict() const;
    /// Measured times (a run that did not time, or a sanitizer run, has none worth showing).
    [[nodiscard]] bool hasTiming() const {
        return !kept && sanitizer == SanitizerTool::None && timing.reps() > 0;
    }
    [[nodiscard]] QJsonObject toJson() const;
    /// Nullopt, with a message naming the field ("project.launch.block: ..."), when malformed.
    static std::optional<Version> fromJson(const QJsonObject& json, QString* error);
};

/// Keeps the versions of one project file in AppDataLocation/versions/<hash>.json, where
/// <hash> is the SHA-256 of the file's canonical path: never beside or inside the project.
class VersionStore {
public:
    /// At most this many versions are kept, the oldest dropped first.
    static constexpr int kMaxVersions = 200;
    /// And the file stays under this size (oldest versions dropped until it fits).
    static constexpr qint64 kMaxFileBytes = 8 * 1024 * 1024;
    static constexpr int kFormatVersion = 1;

    /// The store of `projectPath` under `dataDir` (empty: QStandardPaths::AppDataLocation).
    /// An empty `projectPath` (an untitled project) gives a store that keeps nothing.
    explicit VersionStore(const QString& projectPath, const QString& dataDir = QString());

    [[nodiscard]] bool isValid() const { return !m_file.isEmpty(); }
    /// The file the versions live in; empty for an untitled project.
    [[nodiscard]] QString filePath() const { return m_file; }

    /// The kept versions, oldest first; empty when there is no file. A file that cannot be
    /// read (corrupt, wrong format, too large) gives nothing and `*error` says why and where.
    [[nodiscard]] QVector<Version> load(QString* error) const;
    /// Writes the newest versions within the bounds, atomically; false with `*error` set.
    [[nodiscard]] bool save(const QVector<Version>& versions, QString* error) const;
    /// Removes the file (Clear Timing History); false with `*error` when it stays.
    [[nodiscard]] bool clear(QString* error) const;

private:
    QString m_file;
};

} // namespace kernelpad
