#pragma once
// Live registers per SASS instruction from nvdisasm's register life ranges
// (`--print-life-ranges --life-range-mode=count`): the parser of that listing, the join into a
// SassListing by instruction address, and the nvdisasm process that makes it. nvdisasm prints
// life ranges without line information whatever -g/-gi says (tests/data/sass/README.md), so
// this listing comes from a second process, joined to the -gi one by address.

#include "core/compile/Sass.h"

#include <QHash>
#include <QString>
#include <QTemporaryFile>
#include <QVector>

#include <chrono>
#include <memory>

class QProcess;

namespace kernelpad {

/// The counts of one function of the life-range listing, by instruction address.
struct LiveRangeFunction {
    QString name; ///< the symbol, as in SassFunction::name
    QHash<qint64, LiveRegisters> byAddress;
};

/// Every function of a life-range listing, in nvdisasm's order.
struct LiveRangeListing {
    QVector<LiveRangeFunction> functions;
    [[nodiscard]] const LiveRangeFunction* findFunction(const QString& name) const;
    [[nodiscard]] int instructionCount() const;
};

/// Reads `nvdisasm --print-life-ranges --life-range-mode=count` text: per instruction the
/// trailing `// |  GPR  |  PRED  |  UGPR  |` cells (an empty cell is none live), the columns
/// named by the table's header where it has one. Skips the info line nvdisasm prints first,
/// the headers, labels and directives; an instruction line without the table, or with a cell
/// that holds no count, is left out. Linear in the input and never fails.
[[nodiscard]] LiveRangeListing parseLiveRanges(const QString& text);

/// Sets SassInstruction::live of every instruction of `listing` that `ranges` lists (the same
/// function name and address); returns how many were set.
int joinLiveRanges(SassListing* listing, const LiveRangeListing& ranges);

/// The arguments of the life-range process for the CUBIN at `path`.
[[nodiscard]] QStringList liveRangeArguments(const QString& path);

/// An nvdisasm that prints the life ranges of a CUBIN, started at construction beside the
/// listing's process. Its output goes to a temporary file rather than a pipe, so that it never
/// waits for a reader while the listing's process is read. The destructor stops it if it still
/// runs.
class LiveRangeProcess {
public:
    LiveRangeProcess(const QString& nvdisasm, const QString& cubinPath);
    ~LiveRangeProcess();
    LiveRangeProcess(const LiveRangeProcess&) = delete;
    LiveRangeProcess& operator=(const LiveRangeProcess&) = delete;

    /// Notes whether the process has ended, without waiting: called when the listing's
    /// process ends, so that finish() knows the end of one that ended during the parse.
    void poll();
    /// Waits for the process until `deadline`, parses its listing and joins it into
    /// `result->listing`; sets result->liveRanges, or result->liveRangeError naming the tool
    /// and why. Adds the parse and join to result->parseMs and sets liveRangeProcessMs.
    /// Returns the milliseconds from its start to the moment its end was seen (by poll() or
    /// this call). When `cancel` is set meanwhile the process is killed and result->cancelled
    /// set, with sassCancelledMessage() as its error.
    double finish(SassResult* result, std::chrono::steady_clock::time_point deadline,
                  const std::atomic_bool* cancel = nullptr);

private:
    QString m_nvdisasm;
    QTemporaryFile m_output;
    std::unique_ptr<QProcess> m_process;
    QString m_startError;
    std::chrono::steady_clock::time_point m_started;
    double m_endMs = -1; ///< when its end was seen; -1 while not
};

} // namespace kernelpad
