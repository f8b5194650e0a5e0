#pragma once
// `kernelpad-cli compile --sass` (and `kernelpad-cli sass`, the same): the SASS of the compiled
// CUBIN, per kernel, with the source line each run of instructions comes from and the registers
// live at each instruction; with --registers, the peak live registers and the spills per
// source line instead.

#include "core/compile/CompileResult.h"
#include "core/compile/LineMap.h"
#include "core/compile/Sass.h"
#include "core/compile/SassRegisters.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTextStream>

namespace kernelpad::cli {

/// `kernelpad-cli sass ARGS`: `compile ARGS --sass`.
int runSass(const QStringList& args);
/// Why compile's --registers cannot be used with these options; empty when it can.
[[nodiscard]] QString registersOptionError(bool registers, bool sass, bool diff);
/// --sass's part of compile's text: the SASS, or with `registers` the registers per line.
void printSassPart(QTextStream& out, const SassResult& sass,
                   const QVector<FunctionRegisterUse>* registers, const CompileResult& compile,
                   const QString& source, const QString& sourceName);
/// --sass's part of compile's JSON: "sass" (with `registers`: "registers") or "sassError", and
/// "liveRangeError" when nvdisasm gave no live registers.
void insertSassJson(QJsonObject* object, const SassResult& sass,
                    const QVector<FunctionRegisterUse>* registers, const CompileResult& compile,
                    const QString& sourceName);

/// Each function of `listing` under a heading naming its kernel, each instruction as
/// "  0080  @P0 EXIT" (with the live registers "  0080   12 1 2  @P0 EXIT" when the
/// listing has them), and before each change of source line a "// name:N: text" line.
void printSass(QTextStream& out, const SassResult& sass, const CompileResult& compile,
               const QString& source, const QString& sourceName);
/// The functions as JSON: name, kernel, instructions with address, predicate, opcode,
/// operands and the source line (0 when none).
[[nodiscard]] QJsonArray sassJson(const SassListing& listing, const CompileResult& compile,
                                  const QString& sourceName);

/// Per kernel its registers, peak live registers and spills (ptxas's bytes where the log has
/// them), then per source line the peak live registers and STL/LDL counts, with the line's
/// text. `liveRangeError` (when not empty) says why the counts are missing.
void printRegisters(QTextStream& out, const QVector<FunctionRegisterUse>& functions,
                    const CompileResult& compile, const QString& source, const QString& sourceName,
                    const QString& liveRangeError);
/// The same as JSON: one object per function (registerUseJson) with its kernel name.
[[nodiscard]] QJsonArray registersJson(const QVector<FunctionRegisterUse>& functions,
                                       const CompileResult& compile);

} // namespace kernelpad::cli
