#include "core/run/ErrorText.h"

#include <array>

namespace kernelpad {
namespace {

/// One row of the fault table; causes shared by several codes are named constants below.
struct FaultRow {
    CUresult code;
    const char* name;
    const char* headline;
    const char* causes;
    const char* check;
    bool memcheckLocates;
};

// A wild pointer lands in unmapped memory (ILLEGAL_ADDRESS), in a window of another address
// space (INVALID_ADDRESS_SPACE), or takes the launch down without a precise code
// (LAUNCH_FAILED): one bug, one explanation.
constexpr const char* kBadAccessHeadline = "made a bad memory access";
constexpr const char* kBadAccessCauses =
    "it read or wrote through an address that is in no buffer it may use. Usually an index "
    "past the end of a buffer (a missing or wrong `if (i < n)` test, a grid larger than the "
    "data, a 2D index computed with the wrong pitch), a pointer argument bound to the wrong or "
    "a too-small buffer, or a pointer to shared or local memory used after its block or "
    "thread ended. Which error the driver reports depends only on where the bad address "
    "lands: the same bug shows as CUDA_ERROR_ILLEGAL_ADDRESS in one run and "
    "CUDA_ERROR_INVALID_ADDRESS_SPACE or CUDA_ERROR_LAUNCH_FAILED in another";
constexpr const char* kBadAccessCheck =
    "the bounds test in front of every load and store, the grid and block against the buffer "
    "sizes in the argument table, and index arithmetic that can overflow an int";
constexpr const char* kHardwareCauses =
    "the GPU detected an error in its memory or links that no kernel code causes; the process "
    "that saw it cannot use the GPU again";
constexpr const char* kHardwareCheck =
    "nvidia-smi -q (ECC errors, retired pages, XID events in the kernel log); if it repeats on "
    "a kernel that ran before, the GPU may need a reset or service";

constexpr std::array<FaultRow, 14> kFaults{{
    {CUDA_ERROR_ECC_UNCORRECTABLE, "CUDA_ERROR_ECC_UNCORRECTABLE",
     "hit an uncorrectable ECC memory error", kHardwareCauses, kHardwareCheck, false},
    {CUDA_ERROR_NVLINK_UNCORRECTABLE, "CUDA_ERROR_NVLINK_UNCORRECTABLE",
     "hit an uncorrectable NVLink error", kHardwareCauses, kHardwareCheck, false},
    {CUDA_ERROR_CONTAINED, "CUDA_ERROR_CONTAINED",
     "caused an error the GPU contained (error containment)",
     "usually an invalid access to another GPU's memory over NVLink, less often a hardware "
     "error",
     "pointers to peer memory, then nvidia-smi -q for hardware errors", false},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", kBadAccessHeadline, kBadAccessCauses,
     kBadAccessCheck, true},
    {CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT",
     "ran longer than the display watchdog allows",
     "a loop that never ends for some threads (a condition that depends on data or on "
     "another block), a spin-wait on a flag no one sets, or simply too much work in one launch "
     "on a GPU that also drives a display",
     "loop conditions and exit paths of every thread, and the size of the launch; a GPU "
     "without a display has no such watchdog",
     false},
    {CUDA_ERROR_ASSERT, "CUDA_ERROR_ASSERT", "failed a device-side assert()",
     "an assert() in the kernel was false for at least one thread",
     "the Console: the failed assertion's file, line, block and thread are printed there", false},
    {CUDA_ERROR_HARDWARE_STACK_ERROR, "CUDA_ERROR_HARDWARE_STACK_ERROR",
     "overflowed or corrupted its call stack",
     "deep or unbounded recursion, large local arrays in functions that call each other, or a "
     "stack corrupted by a write past the end of a local array",
     "recursion depth, local arrays and their indices, and ptxas's stack frame size in "
     "Resources",
     true},
    {CUDA_ERROR_ILLEGAL_INSTRUCTION, "CUDA_ERROR_ILLEGAL_INSTRUCTION",
     "executed an illegal instruction",
     "a __trap() or a failed __builtin_trap() path, a call through a corrupted function "
     "pointer, or code built for another architecture",
     "__trap() calls and the conditions that reach them, function pointers, and the compile's "
     "target architecture against the device",
     true},
    {CUDA_ERROR_MISALIGNED_ADDRESS, "CUDA_ERROR_MISALIGNED_ADDRESS",
     "accessed memory at a misaligned address",
     "a load or store at an address that is not a multiple of its size: a float4, double or "
     "struct read through a pointer cast from a byte or int offset, or a buffer offset that is "
     "not a multiple of the element size",
     "pointer casts to wider types (reinterpret_cast<float4*>), offsets added to buffer "
     "pointers, and the alignment of structs passed by pointer",
     true},
    {CUDA_ERROR_INVALID_ADDRESS_SPACE, "CUDA_ERROR_INVALID_ADDRESS_SPACE", kBadAccessHeadline,
     kBadAccessCauses, kBadAccessCheck, true},
    {CUDA_ERROR_INVALID_PC, "CUDA_ERROR_INVALID_PC", "jumped to an invalid program address",
     "a call through a corrupted function pointer or a return address overwritten by a write "
     "past the end of a local array",
     "function pointers and local arrays written by index", true},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", kBadAccessHeadline, kBadAccessCauses,
     kBadAccessCheck, true},
    {CUDA_ERROR_TENSOR_MEMORY_LEAK, "CUDA_ERROR_TENSOR_MEMORY_LEAK",
     "exited without freeing its tensor memory",
     "a path through the kernel that allocates tensor memory and returns before deallocating "
     "it",
     "every early return after a tensor memory allocation", false},
    {CUDA_ERROR_EXTERNAL_DEVICE, "CUDA_ERROR_EXTERNAL_DEVICE",
     "waited on a device outside CUDA that reported an error",
     "an external device signalled that the data it shares with the GPU is not valid",
     "the external device and its synchronisation with CUDA", false},
}};

const FaultRow* rowOf(CUresult code) {
    for (const FaultRow& row : kFaults)
        if (row.code == code)
            return &row;
    return nullptr;
}

QString dim3Text(const SanitizerReport::Dim3& d) {
    return QStringLiteral("(%1,%2,%3)").arg(d[0]).arg(d[1]).arg(d[2]);
}

} // namespace

const QVector<CUresult>& kernelFaultCodes() {
    static const QVector<CUresult> codes = [] {
        QVector<CUresult> all;
        for (const FaultRow& row : kFaults)
            all << row.code;
        return all;
    }();
    return codes;
}

std::optional<FaultExplanation> explainFault(CUresult code) {
    const FaultRow* row = rowOf(code);
    if (!row)
        return std::nullopt;
    FaultExplanation e;
    e.code = row->code;
    e.name = QString::fromLatin1(row->name);
    e.headline = QString::fromLatin1(row->headline);
    e.causes = QString::fromLatin1(row->causes);
    e.check = QString::fromLatin1(row->check);
    e.memcheckLocates = row->memcheckLocates;
    return e;
}

QString faultCodeName(int code) {
    const FaultRow* row = rowOf(CUresult(code));
    return row ? QString::fromLatin1(row->name) : QStringLiteral("CUresult %1").arg(code);
}

QString explainCudaError(const CudaError& e, const QString& kernelName) {
    const QString k = kernelName.isEmpty() ? QStringLiteral("the kernel")
                                           : QStringLiteral("the kernel '%1'").arg(kernelName);
    const QString code = e.name();
    switch (e.code()) {
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
        return QStringLiteral(
                   "%1 could not be launched: it needs more registers or shared memory per "
                   "block than a multiprocessor has (%2). Use fewer threads per block, less "
                   "shared memory, or a lower max register count.")
            .arg(k, code);
    case CUDA_ERROR_OUT_OF_MEMORY:
        return QStringLiteral("The GPU ran out of memory while %1 (%2). Reduce the buffer sizes.")
            .arg(e.context(), code);
    case CUDA_ERROR_INVALID_VALUE:
        return QStringLiteral("The driver rejected a value while %1 (%2: %3). Check the launch "
                              "configuration and the argument table.")
            .arg(e.context(), code, e.description());
    default:
        break;
    }
    const std::optional<FaultExplanation> fault = explainFault(e.code());
    if (!fault && !e.isSticky())
        return QStringLiteral("%1 failed: %2 (%3).").arg(e.context(), code, e.description());
    const QString restart = QStringLiteral(
        " The GPU context cannot be used again in this process; the runner must be restarted. "
        "Your source is unchanged.");
    if (!fault) // sticky but not a kernel's doing (a destroyed context)
        return QStringLiteral("%1 failed while running (%2: %3).%4")
            .arg(k, code, e.description(), restart);
    QString text = QStringLiteral("%1 %2 (%3: %4): %5. Check %6.%7")
                       .arg(k.at(0).toUpper() + k.mid(1), fault->headline, code, e.description(),
                            fault->causes, fault->check, restart);
    if (fault->memcheckLocates)
        text += QStringLiteral(" One run under memcheck (compute-sanitizer) names the faulting "
                               "line, thread and block.");
    return text;
}

bool memcheckCanLocateFault(const RunResult& result) {
    if (result.status != RunStatus::CudaError || result.sanitizerTool != SanitizerTool::None)
        return false;
    const std::optional<FaultExplanation> fault = explainFault(CUresult(result.faultCode));
    return fault && fault->memcheckLocates;
}

QString memcheckFinding(const RunResult& memcheckRun) {
    if (memcheckRun.sanitizerTool != SanitizerTool::Memcheck)
        return QStringLiteral("The memcheck run did not happen: %1")
            .arg(memcheckRun.error.isEmpty() ? QStringLiteral("no reason given")
                                             : memcheckRun.error);
    const SanitizerReport* first = nullptr;
    for (const SanitizerReport& r : memcheckRun.sanitizer)
        if (r.severity == Diagnostic::Severity::Error && !r.kernel.isEmpty()) {
            first = &r;
            break;
        }
    if (!first) {
        if (memcheckRun.sanitizerErrors < 0 || memcheckRun.status == RunStatus::BadInput ||
            memcheckRun.status == RunStatus::Timeout || memcheckRun.status == RunStatus::Cancelled)
            return QStringLiteral("The memcheck run could not place the fault: %1")
                .arg(memcheckRun.error.isEmpty() ? memcheckRun.sanitizerNote : memcheckRun.error);
        return QStringLiteral(
            "memcheck ran the kernel again and saw no bad access: the fault depends on "
            "something that changed between the runs (timing between blocks, data left in "
            "a buffer), or it is not a memory access.");
    }
    QString what = first->kind;
    if (!first->address.isEmpty())
        what += first->detail.isEmpty()
                    ? QStringLiteral(" (address %1)").arg(first->address)
                    : QStringLiteral(" (address %1 is %2)").arg(first->address, first->detail);
    QStringList where;
    if (first->line > 0)
        where << QStringLiteral("%1:%2").arg(first->file).arg(first->line);
    else
        where << QStringLiteral("an unknown line (the module has no line information)");
    if (first->thread)
        where << QStringLiteral("thread %1").arg(dim3Text(*first->thread));
    if (first->block)
        where << QStringLiteral("block %1").arg(dim3Text(*first->block));
    return QStringLiteral("memcheck found it: %1 in '%2' at %3.")
        .arg(what, first->kernel, where.join(QStringLiteral(", ")));
}

} // namespace kernelpad
