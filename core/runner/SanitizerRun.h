#pragma once
// One run under compute-sanitizer (memcheck, racecheck, initcheck): a one-off runner that the
// tool starts (`compute-sanitizer --tool X --log-file F ... kernelpad-cli serve`), asked for one
// sanitized run and then to exit, after which the tool's log (SanitizerLogParser) joins the
// result. The warm runner of RunnerClient is never involved.

#include "core/run/RunTypes.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <memory>
#include <optional>

namespace kernelpad {

class ToolWrappedRun;

/// compute-sanitizer (findToolkitProgram): $KERNELPAD_COMPUTE_SANITIZER, next to the toolkit
/// (<cuda>/compute-sanitizer/compute-sanitizer, <cuda>/bin/compute-sanitizer), then PATH.
/// Empty when none is found; `searched` then lists every place it looked.
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

/// One sanitized run, from start() to finished(); lives on one thread with an event loop.
class SanitizerRun : public QObject {
    Q_OBJECT
public:
    /// `sanitizer` is compute-sanitizer's path; `runner` and `runnerArguments` the runner's
    /// command line; `preparationLimitMs` the warm runner's, to which the tool's start is added.
    SanitizerRun(const QString& sanitizer, const QString& runner,
                 const QStringList& runnerArguments, int preparationLimitMs,
                 QObject* parent = nullptr);
    ~SanitizerRun() override;

    /// What a sanitized run actually sends: lineinfo on (reports name source lines), one
    /// repetition, no warm-up, fixed count, hot, and time limits scaled by kSanitizerTimeScale.
    [[nodiscard]] static RunRequest sanitizedRequest(const RunRequest& request);

    /// Starts the run of `request` (its `sanitizer` names the tool); false, with the reason in
    /// `error` and no finished() to come, when its private report folder cannot be made.
    bool start(quint64 id, const RunRequest& request, QString* error);
    /// Stops the run as a normal run is cancelled; finished() still follows.
    void cancel();

signals:
    void progress(quint64 id, const QString& stage, int done, int total);
    /// The run's result with the tool's reports, once compute-sanitizer has exited.
    void finished(quint64 id, const kernelpad::RunResult& result);

private:
    void finish();

    QString m_sanitizer;
    QString m_runner;
    QStringList m_runnerArguments;
    int m_preparationLimitMs;
    ToolWrappedRun* m_run = nullptr;      ///< the one-off runner under the tool
    std::unique_ptr<QTemporaryDir> m_dir; ///< holds report.txt; removed afterwards
    RunRequest m_request;
};

} // namespace kernelpad
