// The PTX entries of InstructionHelp: every instruction of the PTX ISA's instruction chapter,
// and the modifiers that recur across them, described in KernelPad's own words.

#include "core/compile/InstructionHelpTables.h"

namespace kernelpad::help {

const QVector<Entry>& ptxEntries() {
    static const QVector<Entry> entries = {
        // Integer arithmetic
        {"add", "Adds two values, at full rate; .sat clamps signed 32-bit results, .cc sets "
                "the carry for a following addc."},
        {"sub", "Subtracts the second operand from the first. Same cost as add."},
        {"mul", "Multiplies two values; for integers .lo keeps the low half, .hi the high half "
                "and .wide the full double-width product. 32-bit integer multiplies become IMAD "
                "in SASS, which is cheap on recent GPUs."},
        {"mad", "Multiply-add a*b+c. For floats it is the same as fma with .rn (fused); for "
                "integers .lo/.hi/.wide pick the product half as in mul."},
        {"mul24", "Multiplies the low 24 bits of two 32-bit integers. No faster than mul on "
                  "current GPUs, where it is emulated."},
        {"mad24", "Multiply-add on the low 24 bits of the operands. Emulated on current GPUs: "
                  "prefer mad."},
        {"sad", "Sum of absolute difference: |a-b|+c."},
        {"div", "Division. Integer division is a long emulated sequence (tens of instructions); "
                "float .rn is IEEE-exact and slower than .approx or .full, which use a "
                "reciprocal."},
        {"rem", "Integer remainder, emulated like integer division: costly. A power-of-two "
                "divisor is better written as a mask."},
        {"abs", "Absolute value."},
        {"neg", "Negation (two's complement for integers, sign flip for floats)."},
        {"min", "The smaller of two (or, with .relu, clamped at zero) values; NaN handling "
                "follows .NaN."},
        {"max", "The larger of two values."},
        {"popc", "Counts the set bits of a 32- or 64-bit value."},
        {"clz", "Counts the leading zero bits."},
        {"bfind", "Finds the position of the most significant set bit (or, for signed values, "
                  "the most significant bit that differs from the sign); .shiftamt gives a "
                  "left-shift amount instead."},
        {"fns", "Finds the n-th set bit of a mask, counting forward or backward from a base "
                "position."},
        {"brev", "Reverses the order of the bits."},
        {"bfe", "Bit field extract: takes len bits from position pos, sign- or zero-extended "
                "by the type."},
        {"bfi", "Bit field insert: places the low len bits of one value at position pos of "
                "another."},
        {"szext", "Sign- or zero-extends a value from a given bit position (.clamp or .wrap for "
                  "positions past the width)."},
        {"bmsk", "Builds a mask of len ones starting at bit pos."},
        {"dp4a", "Dot product of four 8-bit pairs packed in 32-bit registers, added to a 32-bit "
                 "accumulator: four multiply-adds in one instruction, for int8 inference."},
        {"dp2a", "Dot product of two 16-bit pairs with two 8-bit values, accumulated in 32 "
                 "bits; .lo/.hi pick which bytes of the 8-bit operand."},
        // Extended-precision integer arithmetic
        {"add.cc", "Adds and writes the carry-out to the condition code, the first step of a "
                   "multi-word addition."},
        {"addc", "Adds with the carry-in from the condition code (and, with .cc, writes a new "
                 "carry): the middle and last steps of multi-word addition."},
        {"sub.cc", "Subtracts and writes the borrow to the condition code."},
        {"subc", "Subtracts with the borrow-in from the condition code."},
        {"mad.cc", "Multiply-add writing the carry-out, for multi-word products."},
        {"madc", "Multiply-add with the carry-in from the condition code."},
        // Floating point
        {"testp", "Tests a float for a class (.finite, .infinite, .number, .notanumber, "
                  ".normal, .subnormal) and sets a predicate."},
        {"copysign", "Copies the sign of one float onto another."},
        {"fma", "Fused multiply-add a*b+c with one rounding: the GPU's main floating-point "
                "instruction (FFMA/DFMA/HFMA2 in SASS), two flops per thread per clock."},
        {"rcp", "Reciprocal 1/x. .approx uses the special function unit (fast, about 1 ulp); "
                ".rn is IEEE-exact and a longer sequence."},
        {"rcp.approx.ftz.f64", "A fast, coarse double-precision reciprocal (about 20 bits), "
                               "the seed of a Newton iteration."},
        {"sqrt", "Square root. .approx runs on the special function unit; .rn is IEEE-exact "
                 "and takes a sequence of instructions."},
        {"rsqrt", "Reciprocal square root 1/sqrt(x), always approximate (special function "
                  "unit)."},
        {"rsqrt.approx.ftz.f64", "A fast, coarse double-precision reciprocal square root, "
                                 "the seed of a Newton iteration."},
        {"sin", "Approximate sine on the special function unit (MUFU.SIN): fast, with reduced "
                "accuracy far from zero. sinf() without --use_fast_math is a longer sequence."},
        {"cos", "Approximate cosine on the special function unit (MUFU.COS)."},
        {"lg2", "Approximate base-2 logarithm on the special function unit (MUFU.LG2)."},
        {"ex2", "Approximate 2^x on the special function unit (MUFU.EX2); expf() becomes a "
                "multiply and this."},
        {"tanh", "Approximate hyperbolic tangent on the special function unit (sm_75+)."},
        // Comparison and selection
        {"set", "Compares two values and writes 1.0f/0xffffffff for true, 0 for false, "
                "optionally combined with a predicate."},
        {"setp", "Compares two values and writes a predicate (and optionally its negation), "
                 "optionally combined with another predicate by .and/.or/.xor. Predicates "
                 "guard later instructions instead of branching."},
        {"selp", "Selects one of two values by a predicate: a branch-free conditional."},
        {"slct", "Selects one of two values by the sign of a third operand."},
        // Logic and shift
        {"and", "Bitwise AND (on predicates too)."},
        {"or", "Bitwise OR."},
        {"xor", "Bitwise exclusive OR."},
        {"not", "Bitwise complement."},
        {"cnot", "C logical not: 1 when the operand is zero, else 0."},
        {"lop3", "Any logic function of three inputs, chosen by an 8-bit truth table: one "
                 "instruction for expressions such as (a & b) ^ c."},
        {"shf", "Funnel shift: shifts the 64-bit pair of two registers and keeps 32 bits; "
                ".l/.r give the direction, .clamp or .wrap the shift range. Also used for "
                "rotates and 64-bit shifts."},
        {"shl", "Shift left."},
        {"shr", "Shift right, arithmetic for signed types and logical for unsigned."},
        // Data movement and conversion
        {"mov", "Copies a value, an address or a special register (%tid, %ctaid) into a "
                "register. Most movs disappear when ptxas allocates registers."},
        {"shfl", "Exchanges registers between the threads of a warp (deprecated form without "
                 ".sync; use shfl.sync)."},
        {"shfl.sync", "Reads a register of another lane of the warp (.up, .down, .bfly, .idx) "
                      "without going through shared memory: the building block of warp "
                      "reductions and scans."},
        {"prmt", "Permutes bytes: picks four bytes out of two 32-bit registers."},
        {"ld", "Loads from memory into registers. The state space (.global, .shared, .local, "
               ".const, .param) decides the path and the cost: global loads take hundreds of "
               "cycles on a miss, so coalesced, vectorised (.v2/.v4) accesses matter."},
        {"ldu", "Loads a value the same for all threads of a warp (uniform) from global "
                "memory."},
        {"st", "Stores registers to memory. Global stores are written back through L2; "
               "coalesced, vectorised stores use the bandwidth best."},
        {"st.async", "An asynchronous store to the shared memory of another block of the "
                     "cluster, whose completion is counted on an mbarrier."},
        {"st.bulk", "Initialises a region of shared memory (zeroes it) in one asynchronous "
                    "bulk operation."},
        {"red.async", "An asynchronous reduction into the shared memory of another block of "
                      "the cluster, completed through an mbarrier."},
        {"multimem.ld_reduce", "Loads from a multimem address (memory mirrored on several GPUs "
                               "over NVLink) and reduces the values of all copies."},
        {"multimem.st", "Stores to every GPU's copy of a multimem address."},
        {"multimem.red", "Reduces a value into every GPU's copy of a multimem address."},
        {"prefetch", "Asks for a line to be brought into a cache level (.L1, .L2) ahead of a "
                     "load; no result, never faults."},
        {"prefetchu", "Prefetches a line into the uniform cache."},
        {"applypriority", "Changes the L2 eviction priority of a cached line (.evict_normal)."},
        {"discard", "Drops an L2 line without writing it back: its data becomes undefined. "
                    "Saves DRAM traffic for scratch data."},
        {"createpolicy", "Builds a 64-bit L2 cache eviction policy (evict first/last/normal, "
                         "for a fraction of an address range) for loads and stores with "
                         ".L2::cache_hint."},
        {"isspacep", "Tests whether a generic address lies in a state space (.global, "
                     ".shared, .local...)."},
        {"cvta", "Converts an address between a state space and the generic space."},
        {"cvt", "Converts between types (integer and float widths, rounding with "
                ".rn/.rz/.rm/.rp or .rni...). Conversions involving 64-bit values or doubles "
                "run at reduced rate."},
        {"cvt.pack", "Converts two (or four) values to a narrower type and packs them into one "
                     "register, with saturation."},
        {"mapa", "Maps a shared-memory address of this block to the same variable in another "
                 "block of the cluster (distributed shared memory)."},
        {"getctarank", "The rank in the cluster of the block whose shared memory holds an "
                       "address."},
        {"cp.async", "Copies 4, 8 or 16 bytes from global to shared memory asynchronously, "
                     "bypassing registers (LDGSTS, sm_80+), so loads overlap computation; "
                     ".cg skips L1."},
        {"cp.async.commit_group", "Closes the group of cp.async copies issued so far, to be "
                                  "waited for as one."},
        {"cp.async.wait_group", "Waits until at most N of the committed cp.async groups are "
                                "still pending: N>0 keeps a pipeline of copies in flight."},
        {"cp.async.wait_all", "Waits for every cp.async copy issued by the thread."},
        {"cp.async.bulk", "Copies a contiguous block between global and shared memory (or "
                          "between blocks of a cluster) through the copy engine (TMA, "
                          "sm_90+); completion is signalled on an mbarrier or a bulk group."},
        {"cp.reduce.async.bulk", "Reduces a contiguous block from shared memory into global "
                                 "or cluster shared memory through the copy engine."},
        {"cp.async.bulk.prefetch", "Prefetches a contiguous block of global memory into L2."},
        {"cp.async.bulk.tensor", "Copies a tile of a 1-5D tensor described by a tensor map "
                                 "between global and shared memory (TMA, sm_90+): one thread "
                                 "issues it, the hardware computes addresses and bounds."},
        {"cp.reduce.async.bulk.tensor", "Reduces a tensor tile from shared memory into global "
                                        "memory through the copy engine."},
        {"cp.async.bulk.prefetch.tensor", "Prefetches a tensor tile into L2."},
        {"cp.async.bulk.commit_group", "Closes the group of bulk copies issued so far."},
        {"cp.async.bulk.wait_group", "Waits until at most N bulk copy groups are pending "
                                     "(.read: until their sources may be reused)."},
        {"tensormap.replace", "Modifies one field of a tensor map held in memory."},
        // Texture and surface
        {"tex", "Samples a texture: the texture unit does addressing, filtering and format "
                "conversion, through the texture cache."},
        {"tld4", "Fetches the four texels a bilinear filter would use, one component each "
                 "(gather)."},
        {"txq", "Queries a texture's attributes (width, height, format...)."},
        {"istypep", "Tests whether an opaque handle is a texture, sampler or surface."},
        {"suld", "Loads from a surface (a CUDA array read with integer coordinates), with "
                 ".clamp/.trap/.zero for out-of-range coordinates."},
        {"sust", "Stores to a surface."},
        {"sured", "Reduces (add, min, max...) into a surface element."},
        {"suq", "Queries a surface's attributes."},
        // Control flow
        {"bra", "Branches to a label; with a predicate, threads of a warp may diverge and are "
                "run one path after the other until they reconverge."},
        {"brx.idx", "Branches to one of a list of labels by an index (a jump table)."},
        {"call", "Calls a function; with the ABI it passes arguments through registers or the "
                 "stack. Small device functions are usually inlined instead."},
        {"ret", "Returns from a function."},
        {"exit", "Ends the thread."},
        // Parallel synchronisation and communication
        {"bar", "Waits at a block-wide barrier (__syncthreads: bar.sync 0) until all threads "
                "arrive; .arrive signals without waiting, .red also reduces a predicate. "
                "Stalls show up as barrier stalls."},
        {"barrier", "The barrier instruction with the newer semantics (barrier.sync may be "
                    "reached from divergent code, .aligned says it is not)."},
        {"bar.warp.sync", "Waits for the threads of a warp named in a mask: __syncwarp()."},
        {"barrier.cluster", "Arrives at or waits for a barrier across all blocks of a cluster "
                            "(sm_90+)."},
        {"membar", "A memory fence: orders this thread's memory accesses as seen by others at "
                   "the scope (.cta, .gl, .sys). The system scope is costly."},
        {"fence", "A memory fence with a scope (.cta, .cluster, .gpu, .sys) and semantics "
                  "(.sc, .acq_rel); .proxy orders accesses between memory proxies such as TMA "
                  "and generic loads."},
        {"atom", "Atomic read-modify-write (add, min, max, and, or, xor, exch, cas, inc, dec) "
                 "returning the old value. Resolved in L2 for global memory: contention on one "
                 "address serialises."},
        {"red", "An atomic reduction without a result (add, min, max...): cheaper than atom "
                "when the old value is not needed."},
        {"vote", "Warp vote (deprecated form without .sync)."},
        {"vote.sync", "Combines a predicate across the warp: .all, .any, .uni, or .ballot for "
                      "a 32-bit mask of the lanes where it holds."},
        {"match.sync", "Finds the lanes of the warp holding the same value (.any) or whether "
                       "all do (.all)."},
        {"activemask", "The mask of the warp's lanes executing now."},
        {"redux.sync", "Reduces an integer across the warp (add, min, max, and, or, xor) in one "
                       "instruction (sm_80+)."},
        {"griddepcontrol", "Programmatic dependent launch: .launch_dependents lets the next "
                           "kernel start early, .wait waits for the prerequisite grids' "
                           "memory."},
        {"elect.sync", "Elects one leader lane among the lanes in a mask and tells each lane "
                       "whether it is the leader."},
        {"mbarrier.init", "Initialises an mbarrier object in shared memory with an expected "
                          "arrival count."},
        {"mbarrier.inval", "Invalidates an mbarrier so its memory can be reused."},
        {"mbarrier.expect_tx", "Adds to the number of bytes (transactions) an mbarrier phase "
                               "waits for, before bulk copies complete them."},
        {"mbarrier.complete_tx", "Counts bytes as arrived on an mbarrier, as a finished copy "
                                 "does."},
        {"mbarrier.arrive", "Arrives on an mbarrier (optionally expecting transactions) and "
                            "returns a token of the phase."},
        {"mbarrier.arrive_drop", "Arrives and lowers the expected count for later phases: a "
                                 "thread leaving the protocol."},
        {"cp.async.mbarrier.arrive", "Makes an mbarrier track the completion of this thread's "
                                     "earlier cp.async copies."},
        {"mbarrier.test_wait", "Tests without blocking whether an mbarrier phase completed."},
        {"mbarrier.try_wait", "Waits a bounded time for an mbarrier phase to complete; used in "
                              "a loop. The usual wait of TMA pipelines."},
        {"mbarrier.pending_count", "The number of arrivals still pending, from a state "
                                   "token."},
        {"tensormap.cp_fenceproxy", "Copies a tensor map to global memory and fences it so "
                                    "that later TMA operations see the new map."},
        {"clusterlaunchcontrol.try_cancel", "Asks to cancel a cluster not launched yet so this "
                                            "one can do its work (persistent kernels, "
                                            "sm_100+)."},
        {"clusterlaunchcontrol.query_cancel", "Reads the answer of a try_cancel: whether it "
                                              "succeeded and which cluster was cancelled."},
        // Warp-level matrix multiply-accumulate
        {"wmma.load", "Loads a matrix fragment for the warp's WMMA operation from memory."},
        {"wmma.store", "Stores an accumulator fragment of a WMMA operation to memory."},
        {"wmma.mma", "Warp-wide matrix multiply-accumulate on fragments (tensor cores, "
                     "sm_70+)."},
        {"mma", "Warp-wide matrix multiply-accumulate on a tile held in registers (.m16n8k16 "
                "...): the tensor cores' HMMA/IMMA/DMMA. Far higher throughput than FFMA."},
        {"mma.sp", "mma with a 2:4 structured-sparse A operand and its metadata: twice the math "
                   "rate for sparse weights."},
        {"ldmatrix", "Loads 8x8 matrix tiles from shared memory into the register layout mma "
                     "expects (LDSM); .trans transposes on the way."},
        {"stmatrix", "Stores 8x8 matrix tiles from registers to shared memory (STSM)."},
        {"movmatrix", "Transposes an 8x8 matrix held across the warp's registers."},
        // Asynchronous warpgroup matrix multiply-accumulate
        {"wgmma.mma_async", "Matrix multiply-accumulate by a warpgroup (4 warps) with operands "
                            "in shared memory (descriptors) or registers (Hopper's HGMMA); "
                            "asynchronous, waited for with wgmma.wait_group."},
        {"wgmma.mma_async.sp", "wgmma.mma_async with a 2:4 structured-sparse A operand."},
        {"wgmma.fence", "Orders register accesses before wgmma.mma_async reads them."},
        {"wgmma.commit_group", "Closes the group of wgmma operations issued so far."},
        {"wgmma.wait_group", "Waits until at most N wgmma groups are pending."},
        // Fifth-generation tensor core (sm_100)
        {"tcgen05.alloc", "Allocates columns of tensor memory for the block (sm_100+)."},
        {"tcgen05.dealloc", "Frees tensor memory columns."},
        {"tcgen05.relinquish_alloc_permit", "Gives up the block's right to allocate tensor "
                                            "memory, so others may."},
        {"tcgen05.ld", "Loads from tensor memory into registers."},
        {"tcgen05.st", "Stores registers into tensor memory."},
        {"tcgen05.wait", "Waits for earlier tcgen05.ld or tcgen05.st to complete."},
        {"tcgen05.cp", "Copies from shared memory into tensor memory."},
        {"tcgen05.shift", "Shifts rows of a matrix in tensor memory down by one."},
        {"tcgen05.mma", "Matrix multiply-accumulate on the fifth-generation tensor cores, "
                        "accumulating in tensor memory; issued by one thread."},
        {"tcgen05.mma.sp", "tcgen05.mma with a structured-sparse A operand."},
        {"tcgen05.mma.ws", "tcgen05.mma in the weight-stationary form."},
        {"tcgen05.commit", "Makes an mbarrier track the completion of earlier tcgen05 "
                           "operations."},
        {"tcgen05.fence", "Orders tcgen05 operations against thread synchronisation."},
        // Stack manipulation
        {"stacksave", "Saves the stack pointer, to restore after alloca."},
        {"stackrestore", "Restores a stack pointer saved by stacksave."},
        {"alloca", "Allocates memory on the thread's local stack (dynamic local memory): "
                   "local memory lives in DRAM behind the caches."},
        // Video instructions
        {"vadd", "Adds integers with byte or half-word selection of operands, optional "
                 "saturation and a secondary operation (scalar video instruction)."},
        {"vsub", "Subtracts with operand selection (scalar video instruction)."},
        {"vabsdiff", "Absolute difference with operand selection (scalar video instruction)."},
        {"vmin", "Minimum with operand selection (scalar video instruction)."},
        {"vmax", "Maximum with operand selection (scalar video instruction)."},
        {"vshl", "Shift left with operand selection (scalar video instruction)."},
        {"vshr", "Shift right with operand selection (scalar video instruction)."},
        {"vmad", "Multiply-add with operand selection (scalar video instruction)."},
        {"vset", "Compares with operand selection (scalar video instruction)."},
        {"vadd2", "Adds two packed 16-bit halves (SIMD video instruction)."},
        {"vsub2", "Subtracts two packed 16-bit halves."},
        {"vavrg2", "Averages two packed 16-bit halves."},
        {"vabsdiff2", "Absolute difference of two packed 16-bit halves."},
        {"vmin2", "Minimum of two packed 16-bit halves."},
        {"vmax2", "Maximum of two packed 16-bit halves."},
        {"vset2", "Compares two packed 16-bit halves."},
        {"vadd4", "Adds four packed bytes (SIMD video instruction)."},
        {"vsub4", "Subtracts four packed bytes."},
        {"vavrg4", "Averages four packed bytes."},
        {"vabsdiff4", "Absolute difference of four packed bytes."},
        {"vmin4", "Minimum of four packed bytes."},
        {"vmax4", "Maximum of four packed bytes."},
        {"vset4", "Compares four packed bytes."},
        // Miscellaneous
        {"brkpt", "Stops at a breakpoint when a debugger is attached."},
        {"nanosleep", "Suspends the thread for about the given number of nanoseconds: a polite "
                      "back-off in spin loops."},
        {"pmevent", "Triggers a performance-monitor event."},
        {"trap", "Aborts the kernel with an error (the launch fails)."},
        {"setmaxnreg", "Raises or lowers the register limit of a warpgroup (.inc/.dec), so "
                       "producer warps give registers to consumer warps (sm_90a)."},
    };
    return entries;
}

const QVector<Entry>& ptxModifiers() {
    static const QVector<Entry> modifiers = {
        // State spaces
        {".global", "global memory (device DRAM, through L2 and L1)"},
        {".shared", "shared memory of the block: on-chip, about 30 cycles, banked"},
        {".shared::cta", "this block's shared memory"},
        {".shared::cluster", "shared memory of any block of the cluster"},
        {".local", "the thread's local memory (spills, stack arrays): in DRAM behind the "
                   "caches, slow"},
        {".const", "constant memory: cached, fastest when the warp reads one address"},
        {".param", "kernel or function parameters"},
        {".tex", "texture memory"},
        // Caching and ordering
        {".nc", "the read-only (non-coherent, texture cache) path: the data must not change "
                "during the kernel; __ldg() and const __restrict__ pointers produce it"},
        {".ca", "cache at all levels (L1 and L2)"},
        {".cg", "cache in L2 only, bypassing L1"},
        {".cs", "streaming: likely used once, evicted first"},
        {".lu", "last use: the line may be dropped after the read"},
        {".cv", "volatile: fetch again, do not cache"},
        {".wb", "write back at all coherent levels"},
        {".wt", "write through to system memory"},
        {".volatile", "may not be cached or reordered (like a C volatile)"},
        {".relaxed", "relaxed memory order: atomic, no ordering of other accesses"},
        {".acquire", "acquire order: later accesses are not moved before it"},
        {".release", "release order: earlier accesses are not moved after it"},
        {".acq_rel", "acquire and release order"},
        {".sc", "sequentially consistent"},
        {".weak", "ordinary access, no ordering guarantees"},
        {".mmio", "memory-mapped I/O: performed exactly once"},
        {".cta", "scope: the threads of the block"},
        {".cluster", "scope: the threads of the cluster"},
        {".gpu", "scope: all threads on this GPU"},
        {".sys", "scope: the whole system, host and peers included (costly)"},
        {".gl", "scope: the GPU (membar.gl)"},
        // Vectors and types
        {".v2", "two elements at once: one wider access, fewer instructions"},
        {".v4", "four elements at once: a 128-bit access for 32-bit types, the widest load"},
        {".v8", "eight elements at once"},
        {".b8", "8-bit untyped"},
        {".b16", "16-bit untyped"},
        {".b32", "32-bit untyped"},
        {".b64", "64-bit untyped"},
        {".b128", "128-bit untyped"},
        {".u8", "8-bit unsigned"},
        {".u16", "16-bit unsigned"},
        {".u32", "32-bit unsigned integer"},
        {".u64", "64-bit unsigned integer (addresses): 64-bit integer maths takes two or more "
                 "instructions"},
        {".s8", "8-bit signed"},
        {".s16", "16-bit signed"},
        {".s32", "32-bit signed integer"},
        {".s64", "64-bit signed integer"},
        {".f16", "half precision"},
        {".f16x2", "two packed halves, computed together"},
        {".bf16", "bfloat16"},
        {".bf16x2", "two packed bfloat16 values"},
        {".tf32", "TensorFloat-32 (tensor core input)"},
        {".e4m3", "8-bit float with 4 exponent bits"},
        {".e5m2", "8-bit float with 5 exponent bits"},
        {".f32", "single precision"},
        {".f64", "double precision: 1/2 the FP32 rate on data-centre GPUs, 1/64 on consumer "
                 "ones"},
        {".pred", "predicate"},
        // Rounding and precision
        {".rn", "round to nearest even (IEEE)"},
        {".rz", "round toward zero"},
        {".rm", "round toward minus infinity"},
        {".rp", "round toward plus infinity"},
        {".rni", "round to nearest integer"},
        {".rzi", "round toward zero to an integer"},
        {".rmi", "round down to an integer"},
        {".rpi", "round up to an integer"},
        {".ftz", "flush subnormal inputs and results to zero (--use_fast_math, -ftz=true)"},
        {".sat", "saturate: clamp the result to the type's range ([0, 1] for floats)"},
        {".approx", "fast approximation (special function unit), not IEEE-exact"},
        {".full", "full-range approximation, about 2 ulp"},
        {".relu", "clamp negative results to zero"},
        {".NaN", "a NaN input gives a NaN result"},
        // Integer product halves
        {".lo", "keep the low half of the product"},
        {".hi", "keep the high half of the product"},
        {".wide", "keep the full double-width product"},
        {".cc", "write the carry-out to the condition code"},
        // Comparisons
        {".eq", "equal"},
        {".ne", "not equal"},
        {".lt", "less than"},
        {".le", "less or equal"},
        {".gt", "greater than"},
        {".ge", "greater or equal"},
        {".ls", "unsigned lower or same"},
        {".hs", "unsigned higher or same"},
        {".equ", "equal, or either is NaN"},
        {".neu", "not equal, or either is NaN"},
        {".ltu", "less than, or either is NaN"},
        {".leu", "less or equal, or either is NaN"},
        {".gtu", "greater than, or either is NaN"},
        {".geu", "greater or equal, or either is NaN"},
        {".num", "neither is NaN"},
        {".nan", "either is NaN"},
        {".and", "combined with a predicate by AND"},
        {".or", "combined with a predicate by OR"},
        {".xor", "combined with a predicate by XOR"},
        // Synchronisation and warps
        {".sync", "waits for (or synchronises) the named threads"},
        {".aligned", "every thread of the warp executes the same instruction (no divergence)"},
        {".arrive", "signal arrival without waiting"},
        {".red", "also reduces a predicate across the threads"},
        {".uni", "non-divergent: all threads of the warp take the branch together"},
        {".up", "read from a lower lane"},
        {".down", "read from a higher lane"},
        {".bfly", "read from lane XOR mask (butterfly)"},
        {".idx", "read from a given lane"},
        {".all", "true when it holds in every active lane"},
        {".any", "true when it holds in some active lane"},
        {".ballot", "a mask of the lanes where it holds"},
        // Atomic operations
        {".add", "add"},
        {".min", "minimum"},
        {".max", "maximum"},
        {".inc", "increment, wrapping at a bound"},
        {".dec", "decrement, wrapping at a bound"},
        {".exch", "exchange"},
        {".cas", "compare and swap"},
        // Shifts and matrix shapes
        {".l", "shift left"},
        {".r", "shift right"},
        {".clamp", "clamp the shift or coordinate to the valid range"},
        {".wrap", "wrap the shift amount modulo the width"},
        {".trans", "transpose while moving"},
        {".row", "row-major layout"},
        {".col", "column-major layout"},
        {".L2::cache_hint", "with a cache eviction policy made by createpolicy"},
        {".L2::128B", "prefetch 128 bytes into L2 with the access"},
        {".L2::256B", "prefetch 256 bytes into L2 with the access"},
        {".L1::no_allocate", "do not keep the line in L1"},
        {".L1::evict_last", "keep the line in L1 longer"},
        {".L1::evict_first", "evict the line from L1 first"},
    };
    return modifiers;
}

} // namespace kernelpad::help
