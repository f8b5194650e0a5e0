#pragma once
// What a PTX or SASS instruction does, in a sentence or two, for tooltips in the listings and
// for the CLI: looked up by the opcode as written, modifiers included ("ld.global.nc.v4.f32",
// "ISETP.GE.U32.AND"), from tables written for KernelPad after the PTX ISA and the CUDA binary
// utilities' instruction set reference.

#include <QString>
#include <QStringList>

namespace kernelpad {

/// The instruction set an opcode belongs to.
enum class InstructionSet { Ptx, Sass };

/// One modifier of an instruction and what it changes.
struct ModifierHelp {
    QString modifier; ///< as written, with PTX's dot: ".global", "U32"
    QString text;
};

/// Help for one instruction as written: the entry of its opcode and a line per modifier known.
struct InstructionHelp {
    QString opcode;  ///< the entry found: "ld", "cp.async.bulk.tensor", "ISETP"
    QString summary; ///< what it does and what it means for performance; empty when unknown
    QVector<ModifierHelp> modifiers; ///< in the order written; unknown modifiers are left out
    /// Set for a SASS uniform-datapath opcode ("ULEA") described through its vector twin.
    bool uniform = false;

    [[nodiscard]] bool isEmpty() const { return summary.isEmpty(); }
    /// "ld: summary" then one "  .global: text" line per modifier.
    [[nodiscard]] QString toPlainText() const;
    /// The same as rich text for a tooltip (escaped; the opcode bold).
    [[nodiscard]] QString toHtml() const;
};

/// The help for `instruction`, an opcode with its modifiers as PTX or nvdisasm writes it
/// (leading predicate "@p"/"@!P0" allowed and ignored). PTX names are matched on the longest
/// dotted prefix with an entry ("cp.async.bulk.tensor.2d..." finds cp.async.bulk.tensor);
/// SASS names on the part before the first dot. Empty when the opcode has no entry.
[[nodiscard]] InstructionHelp instructionHelp(InstructionSet set, const QString& instruction);

/// Every opcode with an entry, sorted.
[[nodiscard]] QStringList instructionHelpOpcodes(InstructionSet set);

/// The opcode (with modifiers) at `column` of one listing line, or empty when the column is
/// not on it. PTX lines read "  @%p1 ld.global.f32 %f1, [%rd4];"; SASS lines as the SASS view
/// shows them ("  00a0  @P0 ISETP.GE.AND P0, ...") or as nvdisasm prints them.
[[nodiscard]] QString opcodeAtColumn(InstructionSet set, const QString& line, int column);

} // namespace kernelpad
