#pragma once
// How Verify.cpp and ExpressionEvaluate.cpp read one stored element: a small traits type per
// storage format (plain, half, bool), each with its value as a double and its exact bits.
// Internal to core/verify.

#include "core/launch/MiniFloat.h"
#include "core/launch/ScalarCodec.h"

#include <QtGlobal>

#include <cstring>
#include <limits>

namespace kernelpad::verifydetail {

// ---- element decoding: one small traits type per storage format ----

template <typename T> struct Plain {
    using Raw = T;
    static constexpr bool kInteger = std::numeric_limits<T>::is_integer;
    static double value(Raw r) { return double(r); }
    static Raw exact(Raw r) { return r; }
};
struct Half {
    using Raw = quint16;
    static constexpr bool kInteger = false;
    static double value(Raw r) { return detail::halfBitsToDouble(r); }
    static Raw exact(Raw r) { return r; }
};
/// bfloat16 and the float8 types: one `Raw` of bits per value (core/launch/MiniFloat.h).
template <detail::MiniFormat Format, typename R> struct Mini {
    using Raw = R;
    static constexpr bool kInteger = false;
    static double value(Raw r) { return detail::miniBitsToDouble(Format, r); }
    static Raw exact(Raw r) { return r; }
};
using BFloat16Bits = Mini<detail::MiniFormat::BFloat16, quint16>;
using E4M3Bits = Mini<detail::MiniFormat::E4M3, quint8>;
using E5M2Bits = Mini<detail::MiniFormat::E5M2, quint8>;
/// A float4_e2m1x2 byte read as one value: its low nibble (the .x of __nv_fp4x2_e2m1), as a
/// complex element reads as its real part.
struct Fp4x2Low {
    using Raw = quint8;
    static constexpr bool kInteger = false;
    static double value(Raw r) { return detail::fp4x2Component(r, 0); }
    static Raw exact(Raw r) { return r; }
};
struct Boolean {
    using Raw = quint8;
    static constexpr bool kInteger = true;
    static double value(Raw r) { return r ? 1.0 : 0.0; }
    static Raw exact(Raw r) { return r ? 1 : 0; } // any non-zero byte is true
};

template <typename Traits> inline typename Traits::Raw load(const char* p) {
    typename Traits::Raw r;
    std::memcpy(&r, p, sizeof r);
    return r;
}

} // namespace kernelpad::verifydetail
