// "uniform", "normal" and "special" buffer contents generated on the GPU, bit for bit as the
// host's generator in core/launch/BufferInit.{h,cpp} makes them (randomKey, randomBits, unitFromBits,
// normalFromBits, then detail::storeScalar's rounding to the element type). Every double
// operation is spelled with its _rn intrinsic and the program is compiled with fmad off, so
// each is rounded once, as on the host.

__device__ __forceinline__ unsigned long long kpFinalise(unsigned long long z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

__device__ __forceinline__ unsigned long long kpBits(unsigned long long key,
                                                     unsigned long long draw)
{
    return kpFinalise(key + (draw + 1ULL) * 0x9E3779B97F4A7C15ULL);
}

// low + unit * (high - low), each operation rounded once; a value that rounds to `high`
// becomes the largest double below it.
__device__ __forceinline__ double kpUniform(unsigned long long key, unsigned long long draw,
                                            double low, double high)
{
    const double unit = __dmul_rn((double)(kpBits(key, draw) >> 11), 0x1.0p-53);
    const double x = __dadd_rn(low, __dmul_rn(unit, __dsub_rn(high, low)));
    return (x >= high && high > low) ? nextafter(high, low) : x;
}

// Wichura's AS241 with the host's constants (BufferInit.cpp), highest power first.
__device__ const double kpCentralNum[] = {
    0x1.39a296f7d925ep+11, 0x1.052d26b2e45e4p+15, 0x1.06c1c55b78f20p+16, 0x1.66c3e869b752ap+15,
    0x1.ad1d8cd4ee71dp+13, 0x1.ece5d2213c0ccp+10, 0x1.0a4888b1a436ep+7,  0x1.b18d91e9eef75p+1};
__device__ const double kpCentralDen[] = {
    0x1.46a7eca984b69p+12, 0x1.c0e457cb1ae76p+14, 0x1.3317caa64f4bep+15, 0x1.4b772d5d65266p+14,
    0x1.512322e75c89fp+12, 0x1.5797efdc8b3f7p+9,  0x1.5281b386e1ab5p+5,  1.0};
__device__ const double kpNearNum[] = {
    0x1.9615ac0b7ace9p-11, 0x1.744eb6c45ec67p-6, 0x1.ef2abb9b85c37p-3, 0x1.453cc085375b2p+0,
    0x1.d2ecb1a3d02c4p+1,  0x1.713f71462256ap+2, 0x1.2857748cab19bp+2, 0x1.6c665fde9526ap+0};
__device__ const double kpNearDen[] = {
    0x1.20d3f686439e4p-30, 0x1.1f18cbfdf2728p-11, 0x1.f207a7eab17bfp-7, 0x1.2f5123394f040p-3,
    0x1.61292f23385c9p-1,  0x1.ad278e6526633p+0,  0x1.06cefbb46a449p+1, 1.0};
__device__ const double kpFarNum[] = {
    0x1.afb74d693bf93p-23, 0x1.c6ec6cc59e02ap-16, 0x1.45c1908425345p-10, 0x1.b2b41193b4ee7p-6,
    0x1.2fad9315255cfp-2,  0x1.c8ea6461fa445p+0,  0x1.5daea6e875003p+2,  0x1.aa1b1c13ee526p+2};
__device__ const double kpFarDen[] = {
    0x1.269bff1f8c190p-49, 0x1.31446f740b9e0p-23, 0x1.35c2c496374bfp-16, 0x1.9c8bc979dc5d7p-11,
    0x1.e76f93215462ap-7,  0x1.186eb183443fbp-3,  0x1.331d34fc7d77fp-1,  1.0};
__device__ const double kpAtanhSeries[] = {
    0x1.8618618618618p-5, 0x1.af286bca1af28p-5, 0x1.e1e1e1e1e1e1ep-5, 0x1.1111111111111p-4,
    0x1.3b13b13b13b14p-4, 0x1.745d1745d1746p-4, 0x1.c71c71c71c71cp-4, 0x1.2492492492492p-3,
    0x1.999999999999ap-3, 0x1.5555555555555p-2, 1.0};

template <int N> __device__ __forceinline__ double kpHorner(const double (&c)[N], double x)
{
    double acc = c[0];
#pragma unroll
    for (int k = 1; k < N; ++k)
        acc = __dadd_rn(__dmul_rn(acc, x), c[k]);
    return acc;
}

// portableLog() of BufferInit.cpp: the exponent from the bits, then 2 atanh((m - 1) / (m + 1)).
__device__ __forceinline__ double kpLog(double x)
{
    unsigned long long bits = (unsigned long long)__double_as_longlong(x);
    int exponent = (int)((bits >> 52) & 0x7FFULL) - 1023;
    bits = (bits & 0x000FFFFFFFFFFFFFULL) | (1023ULL << 52);
    double m = __longlong_as_double((long long)bits);
    if (m > 0x1.6a09e667f3bcdp+0) {
        m = __dmul_rn(m, 0.5);
        ++exponent;
    }
    const double s = __ddiv_rn(__dsub_rn(m, 1.0), __dadd_rn(m, 1.0));
    const double series = kpHorner(kpAtanhSeries, __dmul_rn(s, s));
    const double twoS = __dmul_rn(2.0, s);
    return __dadd_rn(__dmul_rn((double)exponent, 0x1.62e42fefa39efp-1), __dmul_rn(twoS, series));
}

// normalFromBits() of BufferInit.cpp.
__device__ __forceinline__ double kpStandardNormal(unsigned long long bits)
{
    const double p = __dmul_rn((double)(2ULL * (bits >> 12) + 1ULL), 0x1.0p-53);
    const double q = __dsub_rn(p, 0.5);
    if (fabs(q) <= 0.425) {
        const double r = __dsub_rn(0.180625, __dmul_rn(q, q));
        return __ddiv_rn(__dmul_rn(kpHorner(kpCentralNum, r), q), kpHorner(kpCentralDen, r));
    }
    double r = __dsqrt_rn(-kpLog(q < 0 ? p : __dsub_rn(1.0, p)));
    double x;
    if (r <= 5.0) {
        r = __dsub_rn(r, 1.6);
        x = __ddiv_rn(kpHorner(kpNearNum, r), kpHorner(kpNearDen, r));
    } else {
        r = __dsub_rn(r, 5.0);
        x = __ddiv_rn(kpHorner(kpFarNum, r), kpHorner(kpFarDen, r));
    }
    return q < 0 ? -x : x;
}

__device__ __forceinline__ double kpNormal(unsigned long long key, unsigned long long draw,
                                           double mean, double stddev)
{
    return __dadd_rn(mean, __dmul_rn(stddev, kpStandardNormal(kpBits(key, draw))));
}

// detail::doubleToHalfBits (ScalarCodec.cpp) in integers: round to nearest, ties to even,
// overflow to infinity, NaN to the sign and 0x7E00.
__device__ __forceinline__ unsigned short kpHalfBits(double value)
{
    const unsigned long long bits = (unsigned long long)__double_as_longlong(value);
    const unsigned short sign = (unsigned short)((bits >> 48) & 0x8000ULL);
    const int biased = (int)((bits >> 52) & 0x7FFULL);
    const unsigned long long fraction = bits & 0x000FFFFFFFFFFFFFULL;
    if (biased == 0x7FF)
        return sign | (fraction ? 0x7E00 : 0x7C00);
    // value = significand * 2^(exponent - 52)
    const int exponent = biased ? biased - 1023 : -1022;
    const unsigned long long significand = biased ? (fraction | (1ULL << 52)) : fraction;
    if (exponent > 15)
        return sign | 0x7C00;
    // Normal halves keep 10 fraction bits (a shift of 42); subnormals count units of 2^-24.
    const int shift = exponent >= -14 ? 42 : 28 - exponent;
    if (shift >= 64)
        return sign; // below 2^-25: rounds to zero
    unsigned long long kept = significand >> shift;
    const unsigned long long rest = significand & ((1ULL << shift) - 1ULL);
    const unsigned long long halfway = 1ULL << (shift - 1);
    if (rest > halfway || (rest == halfway && (kept & 1ULL)))
        ++kept;
    if (exponent < -14)
        return sign | (unsigned short)kept; // 1024 units is exactly the smallest normal's bits
    int e = exponent;
    if (kept == 2048ULL) {
        kept = 1024ULL;
        ++e;
    }
    if (e > 15)
        return sign | 0x7C00;
    return sign | (unsigned short)((e + 15) << 10) | (unsigned short)(kept - 1024ULL);
}

// detail::doubleToMiniBits (MiniFloat.cpp) step for step, in the same exact double operations
// (rint is its round to nearest, ties to even): bfloat16, fp8 and fp4 of one rounding; a format
// that saturates gives maxFinite for overflow and inf, the others inf; NaN gives nanBits.
__device__ __forceinline__ unsigned kpMiniBits(double value, int width, int fractionBits,
                                               int bias, unsigned maxFinite, unsigned nanBits,
                                               bool saturates)
{
    if (isnan(value))
        return nanBits;
    const unsigned sign = signbit(value) ? 1u << (width - 1) : 0u;
    const double a = fabs(value);
    const int exponentBits = width - 1 - fractionBits;
    const unsigned overflow =
        saturates ? maxFinite : ((1u << exponentBits) - 1u) << fractionBits;
    if (isinf(a))
        return sign | overflow;
    const int minExp = 1 - bias;
    const double oneUnit = ldexp(1.0, fractionBits);
    if (a < ldexp(1.0, minExp)) // subnormal; 2^fractionBits units is the smallest normal
        return sign | (unsigned)rint(ldexp(a, fractionBits - minExp));
    int exponent = ilogb(a);
    double significand = rint(ldexp(a, fractionBits - exponent));
    if (significand >= 2 * oneUnit) {
        significand = oneUnit;
        ++exponent;
    }
    const long long magnitude =
        ((long long)(exponent + bias) << fractionBits) | (long long)(significand - oneUnit);
    if (magnitude > (long long)maxFinite)
        return sign | overflow;
    return sign | (unsigned)magnitude;
}
// The layouts of MiniFloat.cpp's layoutOf().
__device__ __forceinline__ unsigned short kpBFloat16Bits(double v)
{
    return (unsigned short)kpMiniBits(v, 16, 7, 127, 0x7F7F, 0x7FFF, false);
}
__device__ __forceinline__ unsigned char kpE4M3Bits(double v)
{
    return (unsigned char)kpMiniBits(v, 8, 3, 7, 0x7E, 0x7F, true);
}
__device__ __forceinline__ unsigned char kpE5M2Bits(double v)
{
    return (unsigned char)kpMiniBits(v, 8, 2, 15, 0x7B, 0x7F, true);
}
__device__ __forceinline__ unsigned char kpE2M1Bits(double v)
{
    return (unsigned char)kpMiniBits(v, 4, 1, 1, 0x7, 0x7, true);
}

// detail::storeScalar's integers: the value rounded to nearest (ties to even), saturated
// (2^digits is one past the largest value, so `>=` is exact), NaN to 0.
template <typename T>
__device__ __forceinline__ T kpSaturate(double value, double upper, double lowest, T largest,
                                        T smallest)
{
    if (isnan(value))
        return T(0);
    const double rounded = rint(value);
    if (rounded >= upper)
        return largest;
    if (rounded <= lowest)
        return smallest;
    return T(rounded);
}

#define KP_GRID_STRIDE(i, n)                                                                      \
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;  \
         i += (unsigned long long)gridDim.x * blockDim.x)

// Every kernel takes (out, n, key, a, b, c): uniform's a, b, c are low, high and ceil(low),
// normal's a and b the mean and the standard deviation.
#define KP_PARAMS(T)                                                                               \
    T *out, unsigned long long n, unsigned long long key, double a, double b, double c

// Uniform integers: the floor of the real draw, at least ceil(low) (std::max's NaN rule).
#define KP_UNIFORM_INT(NAME, T, UPPER, LOWEST, LARGEST, SMALLEST)                                 \
    extern "C" __global__ void kpUniform_##NAME(KP_PARAMS(T))                                      \
    {                                                                                              \
        KP_GRID_STRIDE(i, n)                                                                       \
        {                                                                                          \
            const double x = floor(kpUniform(key, i, a, b));                                       \
            out[i] = kpSaturate<T>(x < c ? c : x, UPPER, LOWEST, LARGEST, SMALLEST);               \
        }                                                                                          \
    }                                                                                              \
    extern "C" __global__ void kpNormal_##NAME(KP_PARAMS(T))                                       \
    {                                                                                              \
        KP_GRID_STRIDE(i, n)                                                                       \
        out[i] = kpSaturate<T>(kpNormal(key, i, a, b), UPPER, LOWEST, LARGEST, SMALLEST);          \
    }

KP_UNIFORM_INT(int8, signed char, 0x1.0p7, -0x1.0p7, 127, -128)
KP_UNIFORM_INT(int16, short, 0x1.0p15, -0x1.0p15, 32767, -32768)
KP_UNIFORM_INT(int32, int, 0x1.0p31, -0x1.0p31, 2147483647, -2147483647 - 1)
KP_UNIFORM_INT(int64, long long, 0x1.0p63, -0x1.0p63, 9223372036854775807LL,
               -9223372036854775807LL - 1)
KP_UNIFORM_INT(uint8, unsigned char, 0x1.0p8, 0.0, 255, 0)
KP_UNIFORM_INT(uint16, unsigned short, 0x1.0p16, 0.0, 65535, 0)
KP_UNIFORM_INT(uint32, unsigned int, 0x1.0p32, 0.0, 4294967295U, 0U)
KP_UNIFORM_INT(uint64, unsigned long long, 0x1.0p64, 0.0, 18446744073709551615ULL, 0ULL)

// bool: uniform takes the top bit of the draw, normal is `value != 0`.
extern "C" __global__ void kpUniform_bool(KP_PARAMS(unsigned char))
{
    KP_GRID_STRIDE(i, n)
    out[i] = (unsigned char)(kpBits(key, i) >> 63);
}
extern "C" __global__ void kpNormal_bool(KP_PARAMS(unsigned char))
{
    KP_GRID_STRIDE(i, n)
    out[i] = kpNormal(key, i, a, b) != 0.0 ? 1 : 0;
}

#define KP_REAL(NAME, T, DRAW, CONVERT)                                                            \
    extern "C" __global__ void NAME(KP_PARAMS(T))                                                  \
    {                                                                                              \
        KP_GRID_STRIDE(i, n)                                                                       \
        out[i] = CONVERT(DRAW(key, i, a, b));                                                      \
    }
// Complex elements take draws 2i and 2i + 1 (re, im), stored as two components.
#define KP_COMPLEX(NAME, T, DRAW, CONVERT)                                                         \
    extern "C" __global__ void NAME(KP_PARAMS(T))                                                  \
    {                                                                                              \
        KP_GRID_STRIDE(i, n)                                                                       \
        {                                                                                          \
            out[2 * i] = CONVERT(DRAW(key, 2 * i, a, b));                                          \
            out[2 * i + 1] = CONVERT(DRAW(key, 2 * i + 1, a, b));                                  \
        }                                                                                          \
    }
#define KP_AS_DOUBLE(x) (x)

KP_REAL(kpUniform_float16, unsigned short, kpUniform, kpHalfBits)
KP_REAL(kpUniform_float32, float, kpUniform, __double2float_rn)
KP_REAL(kpUniform_float64, double, kpUniform, KP_AS_DOUBLE)
KP_COMPLEX(kpUniform_complex64, float, kpUniform, __double2float_rn)
KP_COMPLEX(kpUniform_complex128, double, kpUniform, KP_AS_DOUBLE)
KP_REAL(kpNormal_float16, unsigned short, kpNormal, kpHalfBits)
KP_REAL(kpNormal_float32, float, kpNormal, __double2float_rn)
KP_REAL(kpNormal_float64, double, kpNormal, KP_AS_DOUBLE)
KP_COMPLEX(kpNormal_complex64, float, kpNormal, __double2float_rn)
KP_COMPLEX(kpNormal_complex128, double, kpNormal, KP_AS_DOUBLE)
KP_REAL(kpUniform_bfloat16, unsigned short, kpUniform, kpBFloat16Bits)
KP_REAL(kpUniform_float8_e4m3, unsigned char, kpUniform, kpE4M3Bits)
KP_REAL(kpUniform_float8_e5m2, unsigned char, kpUniform, kpE5M2Bits)
KP_REAL(kpNormal_bfloat16, unsigned short, kpNormal, kpBFloat16Bits)
KP_REAL(kpNormal_float8_e4m3, unsigned char, kpNormal, kpE4M3Bits)
KP_REAL(kpNormal_float8_e5m2, unsigned char, kpNormal, kpE5M2Bits)
// float4_e2m1x2 takes draws 2i (low nibble, .x) and 2i + 1 (high nibble), as complex elements.
#define KP_FP4X2(NAME, DRAW)                                                                       \
    extern "C" __global__ void NAME(KP_PARAMS(unsigned char))                                      \
    {                                                                                              \
        KP_GRID_STRIDE(i, n)                                                                       \
        out[i] = (unsigned char)(kpE2M1Bits(DRAW(key, 2 * i, a, b)) |                              \
                                 kpE2M1Bits(DRAW(key, 2 * i + 1, a, b)) << 4);                     \
    }
KP_FP4X2(kpUniform_float4_e2m1x2, kpUniform)
KP_FP4X2(kpNormal_float4_e2m1x2, kpNormal)

// "special" contents (BufferInit.h, specialRateKey()): after the uniform kernel, value d of
// `values` (a complex number's parts and float4_e2m1x2's nibbles counted one by one) is replaced
// when its rate draw is below `rate`, by the table entry its pick draw names.
struct KpSpecialTable {
    unsigned long long bits[16];
    unsigned count;
};

__device__ __forceinline__ bool kpSpecialAt(unsigned long long d, unsigned long long rateKey,
                                            unsigned long long pickKey, double rate,
                                            const KpSpecialTable& table, unsigned long long& bits)
{
    if (!(__dmul_rn((double)(kpBits(rateKey, d) >> 11), 0x1.0p-53) < rate))
        return false;
    bits = table.bits[kpBits(pickKey, d) % table.count];
    return true;
}

#define KP_SPECIAL(NAME, T)                                                                        \
    extern "C" __global__ void NAME(T *out, unsigned long long values,                             \
                                    unsigned long long rateKey, unsigned long long pickKey,        \
                                    double rate, KpSpecialTable table)                             \
    {                                                                                              \
        KP_GRID_STRIDE(d, values)                                                                  \
        {                                                                                          \
            unsigned long long bits;                                                               \
            if (kpSpecialAt(d, rateKey, pickKey, rate, table, bits))                               \
                out[d] = (T)bits;                                                                  \
        }                                                                                          \
    }
KP_SPECIAL(kpSpecial_1, unsigned char)
KP_SPECIAL(kpSpecial_2, unsigned short)
KP_SPECIAL(kpSpecial_4, unsigned int)
KP_SPECIAL(kpSpecial_8, unsigned long long)

// float4_e2m1x2: one thread per byte, its two nibbles being values 2i and 2i + 1.
extern "C" __global__ void kpSpecial_fp4x2(unsigned char *out, unsigned long long elements,
                                           unsigned long long rateKey,
                                           unsigned long long pickKey, double rate,
                                           KpSpecialTable table)
{
    KP_GRID_STRIDE(i, elements)
    {
        unsigned byte = out[i];
        for (int c = 0; c < 2; ++c) {
            unsigned long long bits;
            if (kpSpecialAt(2 * i + c, rateKey, pickKey, rate, table, bits))
                byte = (byte & ~(0xFu << (4 * c))) | ((unsigned)bits << (4 * c));
        }
        out[i] = (unsigned char)byte;
    }
}
