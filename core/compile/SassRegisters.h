#pragma once
// Registers per source line: the peak of the live registers (SassInstruction::live) over each
// line's instructions, its local-memory traffic (STL/LDL: register spills or a local array),
// and the kernel's own figures beside them (registers from the CUBIN, spill bytes from
// ptxas -v where the compile log has them). What the editor's margin, the SASS view and
// `kernelpad-cli sass --registers` show.

#include "core/compile/SassReport.h"

#include <QJsonObject>
#include <QString>
#include <QVector>

namespace kernelpad {

/// One source line of one function (or, merged, of every function).
struct LineRegisterUse {
    int line = 0;         ///< 1-based
    LiveRegisters peak;   ///< each kind's most at any instruction of the line
    bool counted = false; ///< some instruction of the line had live counts
    int instructions = 0;
    int localStores = 0; ///< STL instructions
    int localLoads = 0;  ///< LDL instructions
    QString function;    ///< the function whose figures these are (merged: the peak's)
    int registers = 0;   ///< that function's registers per thread (0 when unknown)

    [[nodiscard]] bool spills() const { return localStores > 0 || localLoads > 0; }
    /// "spill: 3 stores, 2 loads"; empty without local-memory instructions.
    [[nodiscard]] QString spillText() const;
    /// "48 live registers (of 48), 1 predicate, 2 uniform; spill: 3 stores, 2 loads", the
    /// line's figures in words.
    [[nodiscard]] QString summary() const;
};

/// One function's figures and its lines.
struct FunctionRegisterUse {
    QString name;         ///< the symbol, as SassFunction::name
    int registers = 0;    ///< registers per thread from the CUBIN (EIATTR_REGCOUNT); 0 unknown
    LiveRegisters peak;   ///< over every instruction, with or without a source line
    bool counted = false; ///< the function had live counts
    int localStores = 0;  ///< STL instructions in the function
    int localLoads = 0;   ///< LDL instructions
    bool ptxasReported = false; ///< the compile log has ptxas -v's figures below
    qint64 spillStoreBytes = 0;
    qint64 spillLoadBytes = 0;
    QVector<LineRegisterUse> lines; ///< ascending; lines with instructions only

    [[nodiscard]] const LineRegisterUse* findLine(int line) const;
    /// "ptxas: 528 bytes spill stores, 596 bytes spill loads" or empty when not reported.
    [[nodiscard]] QString ptxasSpillText() const;
};

/// The functions of `report`'s listing, each with its source lines (report.lines). Never
/// fails: without live counts the lines still carry their local-memory instructions.
[[nodiscard]] QVector<FunctionRegisterUse> registerUse(const SassReport& report);

/// Every function's lines merged, per line the function with the most live registers there
/// (its local-memory counts summed over all): what the editor's one margin shows.
[[nodiscard]] QVector<LineRegisterUse> mergedLines(const QVector<FunctionRegisterUse>& functions);

/// A function as JSON (kernelpad-cli sass --registers --json).
[[nodiscard]] QJsonObject registerUseJson(const FunctionRegisterUse& function);

} // namespace kernelpad
