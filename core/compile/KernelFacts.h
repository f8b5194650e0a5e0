#pragma once
// What a compile alone tells about one kernel's resources, without a driver: what its PTX
// declares, and what ptxas reported in the program log when asked (-Xptxas -v).

#include <QString>

#include <array>

namespace kernelpad {

/// One kernel's resources as far as the compile knows them. PTX figures are declarations:
/// ptxas may still keep a local array in registers, and the driver's figures (registers of
/// the loaded kernel, its max threads per block, occupancy) need a device.
struct KernelCompileFacts {
    bool inPtx = false; ///< the entry was found in the PTX
    /// `.maxntid` / `.reqntid` (launch bounds); zeros when not declared.
    std::array<int, 3> maxntid{0, 0, 0};
    std::array<int, 3> reqntid{0, 0, 0};
    int maxnreg = 0;            ///< `.maxnreg` (a register cap); 0 when not declared
    int minBlocksPerSm = 0;     ///< `.minnctapersm` (launch bounds' second argument); 0 when none
    qint64 sharedBytes = 0;     ///< static `.shared` arrays the entry declares or uses
    bool dynamicShared = false; ///< the entry uses an `.extern .shared` array
    qint64 localBytes = 0;      ///< `.local` declared in the entry (local arrays, the stack)

    /// ptxas's verbose report for this entry (-Xptxas -v): the figures below are valid.
    bool ptxasReported = false;
    int registers = 0;
    int barriers = 0;
    qint64 ptxasSharedBytes = 0; ///< "bytes smem"
    qint64 constBytes = 0;       ///< "bytes cmem[0]" (parameters and constants)
    qint64 stackBytes = 0;       ///< "bytes stack frame"
    qint64 spillStoreBytes = 0;
    qint64 spillLoadBytes = 0;
};

/// The facts about the entry `lowered` from the compile's PTX and program log. Linear in the
/// input; never fails (absent figures stay zero).
[[nodiscard]] KernelCompileFacts kernelCompileFacts(const QString& ptx, const QString& log,
                                                    const QString& lowered);

} // namespace kernelpad
