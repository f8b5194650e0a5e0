// GpuComparer's kernels (core/verify/GpuCompare.cpp). Not built by nvcc: NVRTC compiles this
// text at run time, embedded at build time as kGpuCompareSource (GpuCompareKernels.h). The
// macros KP_THREADS, KP_ITEMS and KP_RECORDS come from the compile options
// (gpuCompareProgram()), so that the host and the device agree on them.

typedef unsigned long long u64;

// Must match GpuCompareResult/GpuCompareRecord on the host (GpuCompare.cpp).
struct KpRecord {
    long long index;
    double got;
    double expected;
};

// Field order of the `stats` array.
enum {
    kStatMismatches,
    kStatNan,
    kStatUnwritten,
    kStatMaxAbsBits,
    kStatMaxRelBits,
    kStatMaxUlpBits
};

#define KP_WARPS (KP_THREADS / 32)
#define KP_TILE (KP_THREADS * KP_ITEMS)
#define KP_FULL_MASK 0xffffffffu

__device__ __forceinline__ double kpInf() { return __longlong_as_double(0x7ff0000000000000LL); }
__device__ __forceinline__ double kpNan() { return __longlong_as_double(0x7ff8000000000000LL); }
__device__ __forceinline__ bool kpIsNan(double x) { return x != x; }
__device__ __forceinline__ bool kpIsInf(double x) { return fabs(x) == kpInf(); }

// core/launch/ScalarCodec's halfBitsToDouble, bit for bit: subnormals are mantissa * 2^-24 (exact), normals
// are built directly as a double.
__device__ __forceinline__ double kpHalfToDouble(unsigned short h)
{
    const int exponent = (h >> 10) & 0x1f;
    const long long mantissa = h & 0x3ff;
    double value;
    if (exponent == 0)
        value = double(mantissa) * 5.9604644775390625e-8; // 2^-24
    else if (exponent == 0x1f)
        value = mantissa ? kpNan() : kpInf();
    else
        value = __longlong_as_double((long long)(exponent - 15 + 1023) << 52 | mantissa << 42);
    return (h >> 15) ? -value : value;
}

// core/launch/ScalarCodec's ulpOf: the spacing of a binary format with `fractionBits` stored
// bits and smallest normal 2^minExp at |x| (a power of two, so diff / ulp is exact).
__device__ __forceinline__ double kpUlp(double x, int fractionBits, int minExp)
{
    const double a = fabs(x);
    if (kpIsInf(a) || kpIsNan(a))
        return kpInf();
    int exponent = a == 0 ? minExp : ilogb(a);
    if (exponent < minExp)
        exponent = minExp;
    return ldexp(1.0, exponent - fractionBits);
}

// core/launch/MiniFloat's miniBitsToDouble, bit for bit: a sign bit, exponent and fraction
// in the low `width` bits with the given bias. ieeeSpecials: the all-ones exponent holds inf
// and NaN (bf16, e5m2); otherwise magnitudes above maxFinite are NaN (e4m3's S.1111.111; fp4
// has none above its largest value).
__device__ __forceinline__ double kpMiniToDouble(unsigned bits, int width, int fractionBits,
                                                 int bias, bool ieeeSpecials, unsigned maxFinite)
{
    const int exponentBits = width - 1 - fractionBits;
    const bool negative = (bits >> (width - 1)) & 1u;
    const int exponent = (bits >> fractionBits) & ((1 << exponentBits) - 1);
    const int fraction = bits & ((1 << fractionBits) - 1);
    const unsigned magnitude = bits & ((1u << (width - 1)) - 1);
    double value;
    if (ieeeSpecials && exponent == (1 << exponentBits) - 1)
        value = fraction ? kpNan() : kpInf();
    else if (!ieeeSpecials && magnitude > maxFinite)
        value = kpNan();
    else if (exponent == 0)
        value = ldexp(double(fraction), 1 - bias - fractionBits);
    else
        value = ldexp(double(fraction + (1 << fractionBits)), exponent - bias - fractionBits);
    return negative ? -value : value;
}

// One traits type per storage format, as in Verify.cpp: Bits is the raw storage (compared
// bit for bit for the poison test), value() the double the host would compute (of component
// k < kComponents), key() what an exact integer comparison compares, ulp() one ulp of the
// type there (1 for integers).
#define KP_PLAIN_TRAITS(Name, BitsType, IsInteger, ValueExpr, FractionBits, MinExp)           \
    struct Name {                                                                               \
        typedef BitsType Bits;                                                                  \
        static constexpr bool kInteger = IsInteger;                                             \
        static constexpr int kComponents = 1;                                                   \
        static __device__ __forceinline__ double value(Bits b, int = 0) { return (ValueExpr); } \
        static __device__ __forceinline__ Bits key(Bits b) { return b; }                        \
        static __device__ __forceinline__ double ulp(double x)                                  \
        {                                                                                       \
            return IsInteger ? 1.0 : kpUlp(x, FractionBits, MinExp);                            \
        }                                                                                       \
    };
KP_PLAIN_TRAITS(KpInt8, unsigned char, true, double((signed char)b), 0, 0)
KP_PLAIN_TRAITS(KpInt16, unsigned short, true, double((short)b), 0, 0)
KP_PLAIN_TRAITS(KpInt32, unsigned int, true, double((int)b), 0, 0)
KP_PLAIN_TRAITS(KpInt64, u64, true, double((long long)b), 0, 0)
KP_PLAIN_TRAITS(KpUInt8, unsigned char, true, double(b), 0, 0)
KP_PLAIN_TRAITS(KpUInt16, unsigned short, true, double(b), 0, 0)
KP_PLAIN_TRAITS(KpUInt32, unsigned int, true, double(b), 0, 0)
KP_PLAIN_TRAITS(KpUInt64, u64, true, double(b), 0, 0)
KP_PLAIN_TRAITS(KpFloat16, unsigned short, false, kpHalfToDouble(b), 10, -14)
KP_PLAIN_TRAITS(KpFloat32, unsigned int, false, double(__int_as_float((int)b)), 23, -126)
KP_PLAIN_TRAITS(KpFloat64, u64, false, __longlong_as_double((long long)b), 52, -1022)
// The layouts of MiniFloat.cpp's layoutOf(): width, fraction bits, bias, specials, largest
// finite magnitude; the ulp's smallest normal exponent is 1 - bias.
KP_PLAIN_TRAITS(KpBFloat16, unsigned short, false, kpMiniToDouble(b, 16, 7, 127, true, 0x7F7F), 7,
                -126)
KP_PLAIN_TRAITS(KpFloat8E4M3, unsigned char, false, kpMiniToDouble(b, 8, 3, 7, false, 0x7E), 3, -6)
KP_PLAIN_TRAITS(KpFloat8E5M2, unsigned char, false, kpMiniToDouble(b, 8, 2, 15, true, 0x7B), 2,
                -14)

// float4_e2m1x2: one byte per element holding two values, the low nibble first (.x), as
// Verify.cpp's compareFp4x2Buffer reads them.
struct KpFloat4E2M1x2 {
    typedef unsigned char Bits;
    static constexpr bool kInteger = false;
    static constexpr int kComponents = 2;
    static __device__ __forceinline__ double value(Bits b, int k = 0)
    {
        return kpMiniToDouble((b >> (4 * k)) & 0xFu, 4, 1, 1, false, 0x7);
    }
    static __device__ __forceinline__ Bits key(Bits b) { return b; }
    static __device__ __forceinline__ double ulp(double x) { return kpUlp(x, 1, 0); }
};

struct KpBool {
    typedef unsigned char Bits;
    static constexpr bool kInteger = true;
    static constexpr int kComponents = 1;
    static __device__ __forceinline__ double ulp(double) { return 1.0; }
    static __device__ __forceinline__ double value(Bits b, int = 0) { return b ? 1.0 : 0.0; }
    static __device__ __forceinline__ Bits key(Bits b) { return b ? 1 : 0; } // any non-zero is true
};

// Per-thread totals, reduced per block at the end.
struct KpTotals {
    u64 mismatches;
    u64 nan;
    u64 unwritten;
    double maxAbs;
    double maxRel;
    double maxUlp;
};

// Verify.cpp's Comparison::recordError; `ulp` is one ulp of the type at `expected`.
__device__ __forceinline__ void kpRecordError(KpTotals& t, double got, double expected,
                                              double ulp)
{
    if (kpIsNan(got) || kpIsInf(got) || kpIsNan(expected) || kpIsInf(expected))
        return;
    const double diff = fabs(got - expected);
    t.maxAbs = fmax(t.maxAbs, diff);
    if (diff > 0)
        t.maxUlp = fmax(t.maxUlp, diff / ulp);
    if (expected != 0)
        t.maxRel = fmax(t.maxRel, diff / fabs(expected));
}

// One component of a float comparison, as Verify.cpp's Comparison::component: true when it
// fails. Either bound is enough: atol/rtol, or within ulpTol ulps of the type at `expected`.
template <class T>
__device__ __forceinline__ bool kpComponent(double got, double expected, double atol,
                                            double rtol, double ulpTol, bool nanDiffer,
                                            KpTotals& t, bool& sawNan)
{
    const bool gotNan = kpIsNan(got);
    const bool expectedNan = kpIsNan(expected);
    if (gotNan || expectedNan) {
        sawNan = gotNan && !expectedNan;
        return nanDiffer || !(gotNan && expectedNan);
    }
    if (got == expected)
        return false;
    if (kpIsInf(got) || kpIsInf(expected))
        return true;
    const double diff = fabs(got - expected);
    // Explicit roundings: a fused multiply-add would decide borderline elements
    // differently from the host's separate multiply and add.
    const double tolerance = __dadd_rn(atol, __dmul_rn(rtol, fabs(expected)));
    const double ulp = T::ulp(expected);
    const bool bad = !(diff <= tolerance) && !(ulpTol > 0 && diff <= __dmul_rn(ulpTol, ulp));
    kpRecordError(t, got, expected, ulp);
    return bad;
}

// One element, exactly as compareScalars() (compareFp4x2Buffer for two components) judges
// it; true when it is a mismatch, with the first failing component's values in
// failGot/failExpected (what the host lists).
template <class T>
__device__ __forceinline__ bool kpCheck(typename T::Bits g, typename T::Bits e, bool exact,
                                        bool nanDiffer, double atol, double rtol, double ulpTol,
                                        KpTotals& t,
                                        double& failGot, double& failExpected)
{
    typedef typename T::Bits Bits;
    failGot = T::value(g);
    failExpected = T::value(e);
    // All bytes kPoisonByte (0xA5), unless the expected value has exactly those bytes.
    if (g == Bits(0xA5A5A5A5A5A5A5A5ULL) && g != e) {
        ++t.unwritten;
        ++t.mismatches;
        return true;
    }
    bool bad = false;
    bool sawNan = false;
    if (T::kInteger && exact) {
        bad = T::key(g) != T::key(e);
        kpRecordError(t, failGot, failExpected, T::ulp(failExpected));
    } else {
#pragma unroll
        for (int k = 0; k < T::kComponents; ++k) {
            const double got = T::value(g, k);
            const double expected = T::value(e, k);
            bool nan = false;
            if (!kpComponent<T>(got, expected, atol, rtol, ulpTol, nanDiffer, t, nan))
                continue;
            sawNan |= nan;
            if (!bad) { // the first failing component stands for the element
                failGot = got;
                failExpected = expected;
            }
            bad = true;
        }
    }
    if (bad) {
        ++t.mismatches;
        if (sawNan)
            ++t.nan;
    }
    return bad;
}

// Block b compares elements [b * perBlock, min((b + 1) * perBlock, count)) tile by tile in
// index order, so it can record its own first KP_RECORDS mismatches in index order;
// kpGatherMismatches then takes blocks in order. The totals go to `stats` with atomics.
template <class T>
__device__ __forceinline__ void kpCompare(const typename T::Bits* __restrict__ got,
                                          const typename T::Bits* __restrict__ expected,
                                          u64 count, u64 perBlock, double atol, double rtol,
                                          double ulpTol, int exactFlag, u64* stats, unsigned* blockRecorded,
                                          KpRecord* blockRecords)
{
    typedef typename T::Bits Bits;
    __shared__ unsigned sWarpCounts[KP_WARPS];
    __shared__ unsigned sRecorded;
    __shared__ u64 sCounts[3][KP_WARPS];
    __shared__ double sMax[3][KP_WARPS];

    // Bit 0: integers bit for bit; bit 1: NaN equals nothing ("nan": "differ").
    const bool exact = (exactFlag & 1) != 0;
    const bool nanDiffer = (exactFlag & 2) != 0;
    const unsigned tid = threadIdx.x;
    const unsigned lane = tid & 31;
    const unsigned warp = tid >> 5;
    const u64 begin = u64(blockIdx.x) * perBlock;
    const u64 end = begin + perBlock < count ? begin + perBlock : count;
    KpRecord* records = blockRecords + u64(blockIdx.x) * KP_RECORDS;
    KpTotals t = {0, 0, 0, 0.0, 0.0, 0.0};
    if (tid == 0)
        sRecorded = 0;
    __syncthreads();

    for (u64 tile = begin; tile < end; tile += KP_TILE) {
        Bits g[KP_ITEMS];
        Bits e[KP_ITEMS];
#pragma unroll
        for (int k = 0; k < KP_ITEMS; ++k) {
            const u64 i = tile + u64(k) * KP_THREADS + tid;
            if (i < end) {
                g[k] = got[i];
                e[k] = expected[i];
            }
        }
        bool bad[KP_ITEMS];
        bool anyBad = false;
#pragma unroll
        for (int k = 0; k < KP_ITEMS; ++k) {
            const u64 i = tile + u64(k) * KP_THREADS + tid;
            double unusedGot, unusedExpected;
            bad[k] = i < end && kpCheck<T>(g[k], e[k], exact, nanDiffer, atol, rtol, ulpTol, t,
                                           unusedGot, unusedExpected);
            anyBad |= bad[k];
        }
        // sRecorded changes only between barriers below, so every thread reads the same value
        // and takes the same branch.
        if (sRecorded < KP_RECORDS && __syncthreads_or(anyBad)) {
            // Rare path: rank this tile's mismatches in index order (k, then thread). Unrolled
            // so that g, e and bad stay in registers.
#pragma unroll
            for (int k = 0; k < KP_ITEMS; ++k) {
                const unsigned mask = __ballot_sync(KP_FULL_MASK, bad[k]);
                if (lane == 0)
                    sWarpCounts[warp] = __popc(mask);
                __syncthreads();
                unsigned rank = sRecorded + __popc(mask & ((1u << lane) - 1));
                unsigned total = 0;
                for (unsigned w = 0; w < KP_WARPS; ++w) {
                    if (w < warp)
                        rank += sWarpCounts[w];
                    total += sWarpCounts[w];
                }
                if (bad[k] && rank < KP_RECORDS) {
                    // Judged again for the failing component's values (rare path).
                    KpTotals unused = {0, 0, 0, 0.0, 0.0, 0.0};
                    KpRecord r;
                    r.index = (long long)(tile + u64(k) * KP_THREADS + tid);
                    kpCheck<T>(g[k], e[k], exact, nanDiffer, atol, rtol, ulpTol, unused, r.got,
                               r.expected);
                    records[rank] = r;
                }
                __syncthreads();
                if (tid == 0)
                    sRecorded = sRecorded + total < KP_RECORDS ? sRecorded + total : KP_RECORDS;
                __syncthreads();
            }
        }
    }

    // Block reduction: warp shuffles, then one value per warp in shared memory.
    for (int offset = 16; offset > 0; offset >>= 1) {
        t.mismatches += __shfl_down_sync(KP_FULL_MASK, t.mismatches, offset);
        t.nan += __shfl_down_sync(KP_FULL_MASK, t.nan, offset);
        t.unwritten += __shfl_down_sync(KP_FULL_MASK, t.unwritten, offset);
        t.maxAbs = fmax(t.maxAbs, __shfl_down_sync(KP_FULL_MASK, t.maxAbs, offset));
        t.maxRel = fmax(t.maxRel, __shfl_down_sync(KP_FULL_MASK, t.maxRel, offset));
        t.maxUlp = fmax(t.maxUlp, __shfl_down_sync(KP_FULL_MASK, t.maxUlp, offset));
    }
    if (lane == 0) {
        sCounts[0][warp] = t.mismatches;
        sCounts[1][warp] = t.nan;
        sCounts[2][warp] = t.unwritten;
        sMax[0][warp] = t.maxAbs;
        sMax[1][warp] = t.maxRel;
        sMax[2][warp] = t.maxUlp;
    }
    __syncthreads();
    if (tid == 0) {
        KpTotals b = {0, 0, 0, 0.0, 0.0, 0.0};
        for (int w = 0; w < KP_WARPS; ++w) {
            b.mismatches += sCounts[0][w];
            b.nan += sCounts[1][w];
            b.unwritten += sCounts[2][w];
            b.maxAbs = fmax(b.maxAbs, sMax[0][w]);
            b.maxRel = fmax(b.maxRel, sMax[1][w]);
            b.maxUlp = fmax(b.maxUlp, sMax[2][w]);
        }
        if (b.mismatches)
            atomicAdd(&stats[kStatMismatches], b.mismatches);
        if (b.nan)
            atomicAdd(&stats[kStatNan], b.nan);
        if (b.unwritten)
            atomicAdd(&stats[kStatUnwritten], b.unwritten);
        // Non-negative doubles order like their bit patterns as unsigned integers.
        if (b.maxAbs > 0)
            atomicMax(&stats[kStatMaxAbsBits], (u64)__double_as_longlong(b.maxAbs));
        if (b.maxRel > 0)
            atomicMax(&stats[kStatMaxRelBits], (u64)__double_as_longlong(b.maxRel));
        if (b.maxUlp > 0)
            atomicMax(&stats[kStatMaxUlpBits], (u64)__double_as_longlong(b.maxUlp));
        blockRecorded[blockIdx.x] = sRecorded;
    }
}

#define KP_COMPARE_ENTRY(Name, Traits)                                                          \
    extern "C" __global__ void __launch_bounds__(KP_THREADS) kpCompare_##Name(                 \
        const Traits::Bits* __restrict__ got, const Traits::Bits* __restrict__ expected,      \
        u64 count, u64 perBlock, double atol, double rtol, double ulpTol, int exact, u64* stats, \
        unsigned* blockRecorded, KpRecord* blockRecords)                                        \
    {                                                                                           \
        kpCompare<Traits>(got, expected, count, perBlock, atol, rtol, ulpTol, exact, stats,     \
                          blockRecorded, blockRecords);                                         \
    }
// Each type is compiled on its first use (KP_WANT_<type>): one entry takes ptxas about a
// twelfth of the time all of them take.
#if defined(KP_WANT_ALL) || defined(KP_WANT_bool)
KP_COMPARE_ENTRY(bool, KpBool)
#endif
#if defined(KP_WANT_ALL) || defined(KP_WANT_int8)
KP_COMPARE_ENTRY(int8, KpInt8)
#endif
#if defined(KP_WANT_ALL) || defined(KP_WANT_int16)
KP_COMPARE_ENTRY(int16, KpInt16)
#endif
#if defined(KP_WANT_ALL) || defined(KP_WANT_int32)
KP_COMPARE_ENTRY(int32, KpInt32)
#endif
#if defined(KP_WANT_ALL) || defined(KP_WANT_int64)
KP_COMPARE_ENTRY(int64, KpInt64)
#endif
#if defined(KP_WANT_ALL) || defined(KP_WANT_uint8)
KP_COMPARE_ENTRY(uint8, KpUInt8)
#endif
#if defined(KP_WANT_ALL) || defined(KP_WANT_uint16)
KP_COMPARE_ENTRY(uint16, KpUInt16)
#endif
#if defined(KP_WANT_ALL) || defined(KP_WANT_uint32)
KP_COMPARE_ENTRY(uint32, KpUInt32)
#endif
#if defined(KP_WANT_ALL) || defined(KP_WANT_uint64)
KP_COMPARE_ENTRY(uint64, KpUInt64)
#endif
#if defined(KP_WANT_ALL) || defined(KP_WANT_float16)
KP_COMPARE_ENTRY(float16, KpFloat16)
#endif
#if defined(KP_WANT_ALL) || defined(KP_WANT_float32)
KP_COMPARE_ENTRY(float32, KpFloat32)
#endif
#if defined(KP_WANT_ALL) || defined(KP_WANT_float64)
KP_COMPARE_ENTRY(float64, KpFloat64)
#endif
#if defined(KP_WANT_ALL) || defined(KP_WANT_bfloat16)
KP_COMPARE_ENTRY(bfloat16, KpBFloat16)
#endif
#if defined(KP_WANT_ALL) || defined(KP_WANT_float8_e4m3)
KP_COMPARE_ENTRY(float8_e4m3, KpFloat8E4M3)
#endif
#if defined(KP_WANT_ALL) || defined(KP_WANT_float8_e5m2)
KP_COMPARE_ENTRY(float8_e5m2, KpFloat8E5M2)
#endif
#if defined(KP_WANT_ALL) || defined(KP_WANT_float4_e2m1x2)
KP_COMPARE_ENTRY(float4_e2m1x2, KpFloat4E2M1x2)
#endif

// One block of KP_THREADS threads: walks the blocks' records in block order (an exclusive
// scan of their counts, KP_THREADS blocks at a time) until KP_RECORDS are taken.
extern "C" __global__ void __launch_bounds__(KP_THREADS)
    kpGatherMismatches(const unsigned* blockRecorded, const KpRecord* blockRecords,
                       unsigned blocks, KpRecord* out, unsigned* outCount)
{
    __shared__ unsigned sWarpSums[KP_WARPS];
    __shared__ unsigned sTaken;
    const unsigned tid = threadIdx.x;
    const unsigned lane = tid & 31;
    const unsigned warp = tid >> 5;
    if (tid == 0)
        sTaken = 0;
    __syncthreads();
    for (unsigned base = 0; base < blocks; base += KP_THREADS) {
        const unsigned taken = sTaken; // the same in every thread: written between barriers
        if (taken >= KP_RECORDS)
            break;
        const unsigned b = base + tid;
        const unsigned n = b < blocks ? blockRecorded[b] : 0;
        unsigned inclusive = n;
        for (unsigned offset = 1; offset < 32; offset <<= 1) {
            const unsigned y = __shfl_up_sync(KP_FULL_MASK, inclusive, offset);
            if (lane >= offset)
                inclusive += y;
        }
        if (lane == 31)
            sWarpSums[warp] = inclusive;
        __syncthreads();
        unsigned start = taken + inclusive - n;
        unsigned total = 0;
        for (unsigned w = 0; w < KP_WARPS; ++w) {
            if (w < warp)
                start += sWarpSums[w];
            total += sWarpSums[w];
        }
        for (unsigned j = 0; j < n && start + j < KP_RECORDS; ++j)
            out[start + j] = blockRecords[u64(b) * KP_RECORDS + j];
        __syncthreads();
        if (tid == 0)
            sTaken = taken + total < KP_RECORDS ? taken + total : KP_RECORDS;
        __syncthreads();
    }
    if (tid == 0)
        *outCount = sTaken;
}
