#pragma once
// The tables behind InstructionHelp (InstructionHelpPtx.cpp, InstructionHelpSass.cpp): plain
// text written for KernelPad, one entry per opcode and per recurring modifier.

#include <QVector>

namespace kernelpad::help {

/// An opcode or a modifier and its help text (Latin-1 literals).
struct Entry {
    const char* name;
    const char* text;
};

[[nodiscard]] const QVector<Entry>& ptxEntries();
[[nodiscard]] const QVector<Entry>& ptxModifiers();
[[nodiscard]] const QVector<Entry>& sassEntries();
[[nodiscard]] const QVector<Entry>& sassModifiers();

} // namespace kernelpad::help
