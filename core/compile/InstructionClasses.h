#pragma once
// What kind of work each PTX and SASS instruction does (memory, arithmetic, control flow, ...),
// and a listing's instructions counted by kind, kernel by kernel.

#include "core/compile/Sass.h"

#include <QHash>
#include <QString>
#include <QVector>

#include <array>

namespace kernelpad {

/// The kinds an instruction is counted under; every instruction has exactly one.
enum class InstructionClass {
    Memory,     ///< loads, stores, atomics, reductions, cache and texture operations
    Arithmetic, ///< integer, floating-point, logic, shifts, compares, tensor-core maths
    Conversion, ///< type conversions (cvt, F2F, I2F, F2I, ...)
    Control,    ///< branches, calls, returns, exits, convergence (BSSY/BSYNC/WARPSYNC)
    Sync,       ///< barriers and memory fences (bar, membar, BAR, MEMBAR, ...)
    Other,      ///< moves, special registers, predicates, shuffles, votes, NOP
};
inline constexpr int kInstructionClassCount = 6;

/// "memory", "arithmetic", "conversion", "control", "sync", "other".
[[nodiscard]] QString instructionClassName(InstructionClass kind);
/// The classes in the order tables list them.
[[nodiscard]] std::array<InstructionClass, kInstructionClassCount> instructionClasses();

/// The class of a SASS opcode as Sass.h reads it, modifiers included ("LDG.E.64", "FFMA",
/// "ISETP.GE.AND"). Opcodes not named in the table count as Other.
[[nodiscard]] InstructionClass classifySassOpcode(const QString& opcode);
/// The class of a PTX instruction's opcode with its modifiers ("ld.global.f32",
/// "fma.rn.f32", "bar.sync"). Unknown opcodes count as Other.
[[nodiscard]] InstructionClass classifyPtxOpcode(const QString& opcode);
/// True for a SASS or PTX opcode that reads or writes thread-local memory (LDL/STL,
/// ld.local/st.local): spills and local arrays.
[[nodiscard]] bool isLocalLoad(const QString& opcode);
[[nodiscard]] bool isLocalStore(const QString& opcode);

/// The instructions of one function counted by class.
struct InstructionCounts {
    std::array<int, kInstructionClassCount> byClass{};
    int total = 0;
    int localLoads = 0;  ///< LDL / ld.local
    int localStores = 0; ///< STL / st.local

    [[nodiscard]] int count(InstructionClass kind) const {
        return byClass.at(static_cast<int>(kind));
    }
    void add(InstructionClass kind) {
        ++byClass.at(static_cast<int>(kind));
        ++total;
    }
};

/// The instructions of `function` (a parsed SASS function) counted by class.
[[nodiscard]] InstructionCounts countSass(const SassFunction& function);

/// One function of a PTX module and its instructions' opcodes in order.
struct PtxFunctionBody {
    QString name;        ///< the symbol (the lowered name)
    bool entry = false;  ///< `.entry` (a kernel) rather than `.func`
    QStringList opcodes; ///< "ld.param.u64", "fma.rn.f32", "ret", ...
};

/// The functions of `ptx` with their instructions' opcodes, in order: labels, predicates
/// (`@%p1`), directives (`.reg`, `.loc`), comments and braces are left out. Linear in the
/// input and never fails; a truncated module yields what it holds.
[[nodiscard]] QVector<PtxFunctionBody> ptxFunctionBodies(const QString& ptx);

/// The opcodes of one PTX function counted by class.
[[nodiscard]] InstructionCounts countPtx(const PtxFunctionBody& function);

} // namespace kernelpad
