#pragma once
// SASS, the GPU's own instructions, as nvdisasm prints them for the CUBIN the runner loads:
// the parser of `nvdisasm -c -gi` text, and running nvdisasm on a CUBIN.

#include <QByteArray>
#include <QHash>
#include <QString>
#include <QStringList>
#include <QVector>

#include <atomic>
#include <functional>
#include <optional>

namespace kernelpad {

/// A place in a source file, as nvdisasm's `//## File "...", line N` or PTX's `.loc` names it.
struct SourcePos {
    QString file;
    int line = 0; ///< 1-based
    friend bool operator==(const SourcePos& a, const SourcePos& b) {
        return a.line == b.line && a.file == b.file;
    }
};

/// The registers live at one instruction, as `nvdisasm --print-life-ranges
/// --life-range-mode=count` counts them (SassLiveRanges.h).
struct LiveRegisters {
    int gprs = 0;       ///< general-purpose registers (R0..R254)
    int predicates = 0; ///< P0..P6
    int uniforms = 0;   ///< uniform registers (UR0..UR62)
    friend bool operator==(const LiveRegisters& a, const LiveRegisters& b) {
        return a.gprs == b.gprs && a.predicates == b.predicates && a.uniforms == b.uniforms;
    }
};

/// One SASS instruction: `/*0080*/  @P0 EXIT ;`.
struct SassInstruction {
    qint64 address = 0; ///< byte offset in the function (the /*0080*/ comment)
    QString predicate;  ///< "@P0", "@!PT"; empty when unpredicated
    QString opcode;     ///< "ISETP.GE.U32.AND", with its modifiers
    QString operands;   ///< "P0, PT, R0, UR4, PT", without the closing ';'
    QString raw;        ///< the line as nvdisasm printed it
    int textLine = 0;   ///< 1-based line of the nvdisasm output
    /// Where the instruction comes from, innermost first: the inlined function's line, then
    /// the line it was inlined at. Empty without line information.
    QVector<SourcePos> source;
    /// The label a branch or call goes to (".L_x_0"); empty for other instructions.
    QString branchTarget;
    /// The registers live here, from the life-range listing joined by address; nullopt
    /// where it was not made or did not list this instruction.
    std::optional<LiveRegisters> live;
};

/// One function of the CUBIN (a kernel entry or a device function nvdisasm lists).
struct SassFunction {
    QString name; ///< the symbol: "saxpy", "_Z9transposePfPKfi"
    QVector<SassInstruction> instructions;
    /// label (".L_x_0") -> index of the instruction it precedes (instructions.size() at the
    /// end of the function).
    QHash<QString, int> labels;
    int textLine = 0; ///< 1-based line of the function's header in the nvdisasm output

    /// Index of the instruction at `address`; -1 if none.
    [[nodiscard]] int indexOfAddress(qint64 address) const;
};

/// Everything nvdisasm printed, function by function, in the order it printed them.
struct SassListing {
    QVector<SassFunction> functions;
    QString text; ///< the nvdisasm output itself, for display

    [[nodiscard]] const SassFunction* findFunction(const QString& name) const;
    [[nodiscard]] int instructionCount() const;
};

/// Reads `nvdisasm -c`, `-c -g` or `-c -gi` text. Linear in the input and never fails: lines it
/// does not understand are skipped, and a truncated listing yields what it holds.
[[nodiscard]] SassListing parseSass(const QString& text);

/// The bytes nvdisasm may print before it is stopped: a large template-heavy module runs to a
/// few MiB of SASS.
inline constexpr qint64 kMaxSassBytes = 64LL * 1024 * 1024;
/// How long nvdisasm may run: it takes well under a second for the examples.
inline constexpr int kNvdisasmTimeoutMs = 30'000;
/// How often a running disassembly looks at its cancel flag (SassOptions::cancel): a newer
/// compile's disassembly waits at most this long for the older one's processes to be killed.
inline constexpr int kSassCancelPollMs = 10;

/// Where nvdisasm was found, or every place that was looked in.
struct NvdisasmLocation {
    QString path;       ///< empty when not found
    QStringList looked; ///< every candidate, in order, for the message when missing

    /// "nvdisasm not found (install the CUDA toolkit's binary utilities; looked in ...)",
    /// naming every place.
    [[nodiscard]] QString notFoundMessage() const;
};

/// nvdisasm from $CUDA_HOME/bin, $CUDA_PATH/bin, the toolkit NVRTC uses and then each
/// directory of PATH (findToolkitProgram, Toolkit.h). $CUDA_HOME comes first: setting it picks the
/// toolkit on purpose.
[[nodiscard]] NvdisasmLocation findNvdisasm();

/// The outcome of disassembling one CUBIN.
struct SassResult {
    bool ok = false;
    QString error;       ///< why there is no SASS (tool missing, failed, timed out); names the tool
    QString nvdisasm;    ///< the nvdisasm that ran
    SassListing listing; ///< the parsed output when ok
    /// Where the time went, for bench/sass: nvdisasm processes started (one per CUBIN, every
    /// kernel and the line information in one pass; 0 when a cache answered), their wall time
    /// and the parse of their output.
    int processes = 0;
    double processMs = 0;
    double parseMs = 0;
    bool cacheHit = false; ///< SassCache answered: no process ran
    /// Stopped through SassOptions::cancel (a newer compile replaced it): its processes were
    /// killed, `error` says so, and nothing is kept in SassCache.
    bool cancelled = false;
    /// Live registers were asked for (SassOptions::liveRanges) and joined into the listing's
    /// instructions; liveRangeError says why not otherwise.
    bool liveRanges = false;
    QString liveRangeError;
    double liveRangeProcessMs = 0; ///< the life-range process alone (it overlaps processMs)
};

/// What disassembleCubin() does beside the listing.
struct SassOptions {
    int timeoutMs = kNvdisasmTimeoutMs;
    /// Also runs `nvdisasm --print-life-ranges --life-range-mode=count`, at the same time as
    /// the listing's process (it ignores -gi, so one run cannot give both), and joins its
    /// counts into the instructions by address.
    bool liveRanges = false;
    /// Called with the parsed listing as soon as it exists, before the life ranges are
    /// waited for, so that the text is never later than without them.
    std::function<void(const SassResult&)> listed;
    /// Set from another thread to stop the disassembly: both processes are killed within
    /// kSassCancelPollMs and the result is `cancelled`. Null: it runs to its end.
    const std::atomic_bool* cancel = nullptr;
};

/// The error of a disassembly stopped through SassOptions::cancel.
[[nodiscard]] QString sassCancelledMessage();

/// Runs `nvdisasm -c -gi -ndf` on `cubin` (written to a temporary file) and parses its output.
/// Blocks for up to `timeoutMs`: call it on a worker thread, never the UI thread.
[[nodiscard]] SassResult disassembleCubin(const QByteArray& cubin,
                                          int timeoutMs = kNvdisasmTimeoutMs);
/// The same with `options`: processMs is then the wall time until every process finished
/// (they run side by side), parseMs both parses and the join.
[[nodiscard]] SassResult disassembleCubin(const QByteArray& cubin, const SassOptions& options);

} // namespace kernelpad
