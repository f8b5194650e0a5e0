#pragma once
// `kernelpad-cli compile --sass`: the SASS of the compiled CUBIN, per kernel, with the source
// line each run of instructions comes from.

#include "core/compile/CompileResult.h"
#include "core/compile/LineMap.h"
#include "core/compile/Sass.h"

#include <QJsonArray>
#include <QTextStream>

namespace kernelpad::cli {

/// Each function of `listing` under a heading naming its kernel, each instruction as
/// "  0080  @P0 EXIT", and before each change of source line a "// name:N: text" line.
void printSass(QTextStream& out, const SassResult& sass, const CompileResult& compile,
               const QString& source, const QString& sourceName);
/// The functions as JSON: name, kernel, instructions with address, predicate, opcode,
/// operands and the source line (0 when none).
[[nodiscard]] QJsonArray sassJson(const SassListing& listing, const CompileResult& compile,
                                  const QString& sourceName);

} // namespace kernelpad::cli
