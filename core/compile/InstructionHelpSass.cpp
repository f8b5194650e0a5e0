// The SASS entries of InstructionHelp: the opcodes nvdisasm prints for the architectures
// KernelPad targets (Volta to Blackwell), with the modifiers that recur, in KernelPad's words.

#include "core/compile/InstructionHelpTables.h"

namespace kernelpad::help {

const QVector<Entry>& sassEntries() {
    static const QVector<Entry> entries = {
        // Loads and stores
        {"LD", "Generic load: the address may be global, shared or local, resolved at run "
               "time (a little slower than LDG/LDS)."},
        {"ST", "Generic store to an address resolved at run time."},
        {"LDG", "Load from global memory (through L1/L2). Hundreds of cycles on a miss: the "
                "warp stalls on long scoreboard until the data arrives. Coalesced and .64/.128 "
                "wide accesses use the bandwidth best."},
        {"STG", "Store to global memory. Coalesced, wide stores use the bandwidth best."},
        {"LDS", "Load from shared memory: about 30 cycles, fast unless threads of a warp hit "
                "different addresses in the same bank (bank conflicts)."},
        {"STS", "Store to shared memory; bank conflicts serialise it."},
        {"LDL", "Load from local memory (register spills, stack arrays): DRAM behind the "
                "caches. Many of them mean register pressure."},
        {"STL", "Store to local memory, usually a register spill."},
        {"LDC", "Load from constant memory (kernel parameters live in bank c[0x0]): fast "
                "when the warp reads one address."},
        {"LDSM", "Loads 8x8 matrix tiles from shared memory in the tensor-core register layout "
                 "(ldmatrix); .T transposes."},
        {"STSM", "Stores 8x8 matrix tiles to shared memory (stmatrix)."},
        {"LDGSTS", "Asynchronous copy from global to shared memory without registers "
                   "(cp.async, sm_80+); .BYPASS skips L1, .ZFILL fills out-of-range bytes with "
                   "zeros."},
        {"LDGDEPBAR", "Closes a group of LDGSTS copies (cp.async.commit_group)."},
        {"DEPBAR", "Waits until at most N dependency groups (such as LDGSTS groups) are "
                   "pending."},
        {"ATOM", "Generic atomic read-modify-write returning the old value."},
        {"ATOMG", "Atomic read-modify-write on global memory (resolved in L2): contention on "
                  "one address serialises."},
        {"ATOMS", "Atomic read-modify-write on shared memory."},
        {"RED", "Atomic reduction on global memory without a result."},
        {"REDG", "Atomic reduction on global memory without a result (atomicAdd whose value "
                 "is unused): cheaper than ATOMG."},
        {"REDUX", "Reduces a register across the warp (__reduce_add_sync...) in one "
                  "instruction."},
        {"UTMALDG", "Loads a tensor tile from global into shared memory through the copy "
                    "engine (TMA, cp.async.bulk.tensor); completion arrives on an mbarrier."},
        {"UTMASTG", "Stores a tensor tile from shared to global memory through TMA."},
        {"UTMAPF", "Prefetches a tensor tile into L2 through TMA."},
        {"UTMAREDG", "Reduces a tensor tile into global memory through TMA."},
        {"UBLKCP", "Bulk copy of a contiguous block through the copy engine (cp.async.bulk)."},
        {"UBLKRED", "Bulk reduction of a contiguous block through the copy engine."},
        {"UBLKPF", "Bulk prefetch of a contiguous block into L2."},
        {"SYNCS", "mbarrier operations in shared memory (arrive, expected bytes, try-wait) of "
                  "asynchronous copy pipelines (sm_90+)."},
        {"MEMBAR", "Memory barrier: orders memory accesses at a scope (.CTA, .GPU, .SYS)."},
        {"FENCE", "Memory fence, also between memory proxies (.VIEW.ASYNC for TMA)."},
        {"CCTL", "Cache control: invalidates or writes back cache lines."},
        {"ERRBAR", "Waits until earlier errors (such as faulting accesses) are reported."},
        // Floating point
        {"FADD", "Single-precision add, full rate."},
        {"FMUL", "Single-precision multiply, full rate."},
        {"FFMA", "Single-precision fused multiply-add a*b+c: two flops, full rate; the "
                 "instruction a compute-bound kernel should be made of."},
        {"FADD32I", "FADD with a 32-bit immediate operand."},
        {"FMUL32I", "FMUL with a 32-bit immediate operand."},
        {"FFMA32I", "FFMA with a 32-bit immediate operand."},
        {"FMNMX", "Single-precision minimum or maximum, picked by a predicate operand (PT: "
                  "min, !PT: max)."},
        {"FSETP", "Compares two floats and writes a predicate, combined with another by "
                  ".AND/.OR/.XOR."},
        {"FSET", "Compares two floats and writes a register."},
        {"FSEL", "Selects one of two floats by a predicate."},
        {"FCHK", "Checks whether a fast division is safe; if not, a slow path follows."},
        {"FRND", "Rounds a float to an integral value (.FLOOR, .CEIL, .TRUNC)."},
        {"FSWZADD", "Adds with operands swizzled across lanes (derivative-style maths)."},
        {"MUFU", "The special function unit: an approximate transcendental (.EX2, .LG2, .RCP, "
                 ".RSQ, .SIN, .COS, .SQRT, .TANH). 16 results per clock per SM against 64 to "
                 "128 FFMAs, so heavy use can limit throughput."},
        {"HADD2", "Adds two packed half-precision pairs."},
        {"HMUL2", "Multiplies two packed half-precision pairs."},
        {"HFMA2", "Fused multiply-add on two packed half-precision pairs; with .MMA it runs on "
                  "the tensor pipe, and ptxas also uses it to move constants."},
        {"HSETP2", "Compares packed halves and writes predicates."},
        {"HMNMX2", "Minimum or maximum of packed halves."},
        {"DADD", "Double-precision add: half the FP32 rate on data-centre GPUs, 1/64 on "
                 "consumer ones."},
        {"DMUL", "Double-precision multiply."},
        {"DFMA", "Double-precision fused multiply-add."},
        {"DSETP", "Compares two doubles and writes a predicate."},
        {"DMNMX", "Double-precision minimum or maximum."},
        // Integer
        {"IMAD", "Integer multiply-add a*b+c, cheap since Volta; ptxas also uses it for "
                 "moves, shifts (.SHL) and adds. .WIDE gives a 64-bit result (address "
                 "computation), .HI the high half."},
        {"IMAD32I", "IMAD with a 32-bit immediate."},
        {"IMUL", "Integer multiply."},
        {"IADD3", "Adds three integers in one instruction; .X adds the carry of an earlier "
                  "IADD3 (the high half of a 64-bit add)."},
        {"IADD", "Integer add."},
        {"VIADD", "Integer add with an immediate or register (sm_90+)."},
        {"VIADDMNMX", "Integer add followed by a minimum or maximum."},
        {"IMNMX", "Integer minimum or maximum, picked by a predicate operand."},
        {"VIMNMX", "Integer minimum or maximum (sm_90+)."},
        {"IABS", "Integer absolute value."},
        {"LEA", "Load effective address: (a << shift) + b, the usual base + index * size "
                "computation; .HI gives the high word for 64-bit addresses."},
        {"SHF", "Funnel shift of a register pair: .L/.R direction, .U32/.S32/.U64/.S64 type, "
                ".HI keeps the high word; 64-bit shifts and rotates."},
        {"SHL", "Shift left."},
        {"SHR", "Shift right."},
        {"LOP3", "Any bitwise function of three inputs from an 8-bit truth table (.LUT)."},
        {"LOP", "Bitwise logic operation."},
        {"PLOP3", "Any logic function of three predicates."},
        {"ISETP", "Compares two integers and writes a predicate, combined with another by "
                  ".AND/.OR; .EX continues a 64-bit comparison with the carry of the low "
                  "half."},
        {"ISET", "Compares two integers and writes a register."},
        {"SEL", "Selects one of two values by a predicate: a branch-free conditional."},
        {"POPC", "Counts the set bits."},
        {"FLO", "Finds the leading one (the most significant set bit)."},
        {"BREV", "Reverses the bits."},
        {"BMSK", "Builds a bit mask."},
        {"SGXT", "Sign- or zero-extends from a bit position."},
        {"BFE", "Bit field extract."},
        {"BFI", "Bit field insert."},
        {"IDP", "Integer dot product of packed bytes (.4A) or halves (.2A) with accumulate "
                "(dp4a/dp2a)."},
        {"PRMT", "Permutes bytes of two registers."},
        // Conversion
        {"F2F", "Converts between float precisions (F32, F16, F64), rounding as asked; "
                "64-bit conversions run at a reduced rate."},
        {"F2I", "Converts a float to an integer (.TRUNC, .FLOOR...)."},
        {"I2F", "Converts an integer to a float."},
        {"I2I", "Converts between integer widths with saturation."},
        {"F2FP", "Converts and packs two floats into a pair of halves or bfloat16s "
                 "(.PACK_AB)."},
        {"I2FP", "Converts an integer to a float (sm_90 form)."},
        {"F2IP", "Converts floats to packed small integers."},
        // Movement
        {"MOV", "Copies a register, a constant or an immediate."},
        {"MOV32I", "Moves a 32-bit immediate into a register."},
        {"SHFL", "Reads a register of another lane of the warp (.IDX, .UP, .DOWN, .BFLY): "
                 "__shfl_sync, the warp-level exchange."},
        {"VOTE", "Warp vote: .ALL, .ANY, .EQ or a ballot mask of the lanes whose predicate "
                 "holds."},
        {"VOTEU", "Warp vote writing a uniform register or predicate."},
        {"MATCH", "Finds lanes of the warp holding the same value (__match_any_sync)."},
        {"S2R", "Reads a special register (thread index SR_TID, block index SR_CTAID, lane "
                "id, clock) into a register; has a latency of a few dozen cycles."},
        {"S2UR", "Reads a special register (SR_CTAID...) into a uniform register, once for the "
                 "warp."},
        {"CS2R", "Reads a special register with constant latency (clocks, SRZ to zero two "
                 "registers at once)."},
        {"R2UR", "Copies a register into a uniform register (the value must be the same in "
                 "every lane)."},
        {"P2R", "Packs predicates into a register."},
        {"R2P", "Unpacks a register into predicates."},
        // Control flow
        {"BRA", "Branch; predicated, threads of a warp may diverge. .U marks a branch taken "
                "uniformly by the warp."},
        {"BRX", "Indirect branch to an address in a register (jump table)."},
        {"JMP", "Jump to an absolute address."},
        {"JMX", "Indirect jump."},
        {"CALL", "Calls a function (.ABS absolute, .REL relative)."},
        {"RET", "Returns from a function."},
        {"EXIT", "Ends the thread; predicated, only the lanes whose predicate holds."},
        {"BSSY", "Saves the reconvergence point of a divergent region in a convergence "
                 "barrier register (Volta and later)."},
        {"BSYNC", "Waits at the reconvergence point for the threads of a BSSY region: "
                  "diverged paths join here."},
        {"BREAK", "Leaves a convergence region (a loop's break)."},
        {"BMOV", "Moves a convergence barrier register."},
        {"WARPSYNC", "Waits for the lanes of a mask to reconverge (__syncwarp)."},
        {"BAR", "Block-wide barrier: .SYNC waits for all threads of the block "
                "(__syncthreads), .ARV only arrives. Time waiting shows as barrier stalls."},
        {"NANOSLEEP", "Sleeps for about the given number of nanoseconds."},
        {"YIELD", "Lets another warp run: inserted in spin loops so that they make progress."},
        {"KILL", "Ends the thread (as a discard)."},
        {"BPT", "Breakpoint or trap (.TRAP aborts the kernel)."},
        {"NOP", "Does nothing: padding after the last instruction and for alignment."},
        {"ELECT", "Elects one leader lane of a mask (elect.sync)."},
        {"ACQBULK", "Waits for the bulk copies of a block to be acquired (TMA pipelines)."},
        {"ARRIVES", "Makes an mbarrier track earlier asynchronous copies (.LDGSTSBAR: "
                    "cp.async.mbarrier.arrive)."},
        {"WARPGROUP", "Warpgroup synchronisation around HGMMA (.ARRIVE before, .DEPBAR to "
                      "wait for results)."},
        // Tensor cores
        {"HMMA", "Warp-level matrix multiply-accumulate on half, bfloat16 or tf32 inputs "
                 "(tensor cores): a tile per instruction, many times the FFMA rate."},
        {"IMMA", "Warp-level matrix multiply-accumulate on 8- or 4-bit integers."},
        {"DMMA", "Warp-level matrix multiply-accumulate in double precision (sm_80+)."},
        {"BMMA", "Warp-level matrix multiply-accumulate on single bits (AND/XOR then "
                 "popcount)."},
        {"HGMMA", "Warpgroup matrix multiply-accumulate on half, bfloat16 or tf32 operands "
                  "from shared memory (wgmma, sm_90): the fastest path on Hopper."},
        {"IGMMA", "Warpgroup matrix multiply-accumulate on 8-bit integers (sm_90)."},
        {"QGMMA", "Warpgroup matrix multiply-accumulate on 8-bit floats (sm_90)."},
        {"BGMMA", "Warpgroup matrix multiply-accumulate on single bits (sm_90)."},
        // Textures and surfaces
        {"TEX", "Samples a texture through the texture unit (filtering, addressing, format "
                "conversion)."},
        {"TLD", "Fetches a texel without filtering."},
        {"TLD4", "Fetches the four texels of a bilinear footprint (gather)."},
        {"TXQ", "Queries a texture's attributes."},
        {"SULD", "Loads from a surface."},
        {"SUST", "Stores to a surface."},
        {"SURED", "Reduces into a surface element."},
    };
    return entries;
}

const QVector<Entry>& sassModifiers() {
    static const QVector<Entry> modifiers = {
        {"E", "extended (64-bit) address"},
        {"64", "64-bit access or operands"},
        {"128", "128-bit access: four 32-bit values at once, the widest"},
        {"U8", "unsigned byte"},
        {"S8", "signed byte"},
        {"U16", "unsigned 16-bit"},
        {"S16", "signed 16-bit"},
        {"U32", "unsigned 32-bit"},
        {"S32", "signed 32-bit"},
        {"U64", "unsigned 64-bit"},
        {"S64", "signed 64-bit"},
        {"F16", "half precision"},
        {"BF16", "bfloat16"},
        {"F32", "single precision"},
        {"F64", "double precision"},
        {"TF32", "TensorFloat-32"},
        {"FTZ", "flush subnormals to zero"},
        {"RN", "round to nearest even"},
        {"RZ", "round toward zero"},
        {"RM", "round toward minus infinity"},
        {"RP", "round toward plus infinity"},
        {"SAT", "saturate to the type's range"},
        {"TRUNC", "truncate toward zero"},
        {"FLOOR", "round down"},
        {"CEIL", "round up"},
        {"WIDE", "64-bit result from 32-bit operands"},
        {"HI", "the high word"},
        {"X", "with the carry (or, for ISETP, the comparison) of the low half: the second "
              "half of a 64-bit operation"},
        {"EX", "extended comparison continuing the low half's result"},
        {"SHL", "shift left (ptxas's encoding of a shift as a multiply-add)"},
        {"MOV", "used as a move"},
        {"IADD", "used as an add"},
        {"L", "left"},
        {"R", "right"},
        {"LUT", "the function is a lookup table immediate"},
        {"CONSTANT", "read-only data, cached as constant (ld.global.nc)"},
        {"STRONG", "a strong (coherent) access at the scope that follows"},
        {"WEAK", "an ordinary access"},
        {"CTA", "scope: the block"},
        {"SM", "scope: the SM"},
        {"GPU", "scope: the GPU"},
        {"SYS", "scope: the whole system"},
        {"EF", "evict first: streaming data"},
        {"EL", "evict last: keep in cache"},
        {"LU", "last use"},
        {"NA", "no allocate in L1"},
        {"BYPASS", "bypass L1"},
        {"ZFILL", "fill out-of-range bytes with zeros"},
        {"LTC128B", "prefetch 128 bytes into L2"},
        {"GE", "greater or equal"},
        {"GT", "greater than"},
        {"LT", "less than"},
        {"LE", "less or equal"},
        {"EQ", "equal"},
        {"NE", "not equal"},
        {"NEU", "not equal or NaN"},
        {"GTU", "greater or NaN"},
        {"LTU", "less or NaN"},
        {"AND", "combined with a predicate by AND"},
        {"OR", "combined with a predicate by OR"},
        {"XOR", "combined with a predicate by XOR"},
        {"SYNC", "synchronising"},
        {"ARV", "arrive without waiting"},
        {"DEFER_BLOCKING", "the warp may be descheduled while it waits"},
        {"ALL", "all lanes"},
        {"ANY", "any lane"},
        {"IDX", "from a given lane"},
        {"UP", "from a lower lane"},
        {"DOWN", "from a higher lane"},
        {"BFLY", "from lane XOR mask"},
        {"U", "taken uniformly by the warp"},
        {"ADD", "add"},
        {"MIN", "minimum"},
        {"MAX", "maximum"},
        {"INC", "increment"},
        {"DEC", "decrement"},
        {"EXCH", "exchange"},
        {"CAS", "compare and swap"},
        {"CAST", "compare and swap"},
        {"EX2", "2^x"},
        {"LG2", "log2(x)"},
        {"RCP", "1/x"},
        {"RSQ", "1/sqrt(x)"},
        {"SQRT", "sqrt(x)"},
        {"SIN", "sine"},
        {"COS", "cosine"},
        {"TANH", "hyperbolic tangent"},
        {"T", "transposed"},
        {"MMA", "on the tensor pipe"},
        {"PACK_AB", "packs two results into one register"},
        {"ABS", "absolute target"},
        {"REL", "relative target"},
        {"NODEC", "does not count down the warp's reconvergence mask"},
    };
    return modifiers;
}

} // namespace kernelpad::help
