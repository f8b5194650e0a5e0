// The host codecs of bfloat16, float8 e4m3/e5m2 and float4 e2m1 (core/launch/MiniFloat.h):
// every bit pattern decodes and re-encodes to itself, and every rounding boundary (midpoints
// between neighbours, ties to even, overflow, subnormals, -0) rounds as cuda_bf16.hpp,
// cuda_fp8.hpp (__NV_SATFINITE) and cuda_fp4.hpp round. The same bits are checked against
// the device in tests/gpu/tst_lowprecision.cpp.
#include "../support/TestMain.h"
#include "core/launch/MiniFloat.h"
#include "core/launch/ScalarCodec.h"
#include "core/launch/ValueType.h"

#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

namespace tst_minifloat {

using namespace kernelpad;
using detail::MiniFormat;

namespace {

int patternCount(MiniFormat f) {
    return 1 << detail::miniBitWidth(f);
}

quint16 signBit(MiniFormat f) {
    return quint16(1u << (detail::miniBitWidth(f) - 1));
}

/// True for the patterns that do not come back from their own value: NaNs (one canonical
/// NaN per format) and e5m2's infinities (the constructor saturates them to 57344).
bool isSpecial(MiniFormat f, quint16 bits) {
    const double v = detail::miniBitsToDouble(f, bits);
    return std::isnan(v) || (f == MiniFormat::E5M2 && std::isinf(v));
}

QString hex(quint16 bits) {
    return QStringLiteral("0x%1").arg(bits, 0, 16);
}

/// The toolkit's host __float2bfloat16 (cuda_bf16.hpp): truncate, then round the 16 dropped
/// bits to nearest even; NaN -> 0x7FFF. An independent check of the generic rounding.
quint16 toolkitFloatToBf16(float value) {
    quint32 x;
    std::memcpy(&x, &value, sizeof x);
    if ((x & 0x7fffffffU) > 0x7f800000U)
        return 0x7fff;
    quint16 r = quint16(x >> 16);
    const quint32 remainder = x << 16;
    if (remainder > 0x80000000U || (remainder == 0x80000000U && (r & 1U)))
        ++r;
    return r;
}

} // namespace

class TestMiniFloat : public QObject {
    Q_OBJECT
private slots:
    void everyPatternRoundTrips_data();
    void everyPatternRoundTrips();
    void midpointsRoundToEven_data() { everyPatternRoundTrips_data(); }
    void midpointsRoundToEven();
    void knownValues();
    void overflowAndNan();
    void bf16MatchesToolkitTruncation();
    void textRoundTrips_data() { everyPatternRoundTrips_data(); }
    void textRoundTrips();
    void packedFp4NibbleOrder();
    void typeTable();
    void ulpSize();
};

void TestMiniFloat::everyPatternRoundTrips_data() {
    QTest::addColumn<int>("format");
    QTest::newRow("bfloat16") << int(MiniFormat::BFloat16);
    QTest::newRow("float8_e4m3") << int(MiniFormat::E4M3);
    QTest::newRow("float8_e5m2") << int(MiniFormat::E5M2);
    QTest::newRow("float4_e2m1") << int(MiniFormat::E2M1);
}

void TestMiniFloat::everyPatternRoundTrips() {
    QFETCH(int, format);
    const auto f = MiniFormat(format);
    int checked = 0;
    for (int bits = 0; bits < patternCount(f); ++bits) {
        if (isSpecial(f, quint16(bits)))
            continue;
        const double v = detail::miniBitsToDouble(f, quint16(bits));
        const quint16 back = detail::doubleToMiniBits(f, v);
        if (back != bits)
            QFAIL(qPrintable(QStringLiteral("%1 = %2 re-encodes to %3")
                                 .arg(hex(quint16(bits)))
                                 .arg(v, 0, 'g', 17)
                                 .arg(hex(back))));
        // The float path of the constructors goes through float: every value is a float.
        QCOMPARE(detail::doubleToMiniBits(f, double(float(v))), quint16(bits));
        ++checked;
    }
    QVERIFY(checked > patternCount(f) / 2);
}

void TestMiniFloat::midpointsRoundToEven() {
    QFETCH(int, format);
    const auto f = MiniFormat(format);
    const quint16 sign = signBit(f);
    // Neighbours k, k+1 among the positive finite values, 0 and the smallest subnormal
    // included: the midpoint goes to the even one, anything off it to the nearer one.
    for (quint16 k = 0; k + 1 < sign; ++k) {
        const double a = detail::miniBitsToDouble(f, k);
        const double b = detail::miniBitsToDouble(f, quint16(k + 1));
        if (!std::isfinite(b) || !(b > a))
            break;                      // past the largest finite
        const double mid = (a + b) / 2; // exact: both have few significant bits
        const quint16 even = (k % 2 == 0) ? k : quint16(k + 1);
        for (const double s : {1.0, -1.0}) {
            const quint16 sb = s < 0 ? sign : 0;
            const QString where = QStringLiteral("between %1 and %2").arg(a).arg(b);
            QVERIFY2(detail::doubleToMiniBits(f, s * mid) == (sb | even), qPrintable(where));
            QVERIFY2(detail::doubleToMiniBits(f, s * std::nextafter(mid, 0.0)) == (sb | k),
                     qPrintable(where));
            QVERIFY2(detail::doubleToMiniBits(f, s * std::nextafter(mid, 1e300)) ==
                         (sb | quint16(k + 1)),
                     qPrintable(where));
        }
    }
    QCOMPARE(detail::doubleToMiniBits(f, -0.0), sign);
    QCOMPARE(detail::doubleToMiniBits(f, 0.0), quint16(0));
    QVERIFY(std::signbit(detail::miniBitsToDouble(f, sign)));
}

void TestMiniFloat::knownValues() {
    QCOMPARE(detail::miniBitsToDouble(MiniFormat::BFloat16, 0x3F80), 1.0);
    QCOMPARE(detail::miniBitsToDouble(MiniFormat::BFloat16, 0x7F7F), 0x1.FEp127);
    QCOMPARE(detail::miniBitsToDouble(MiniFormat::BFloat16, 0x0001), 0x1p-133);
    QCOMPARE(detail::miniBitsToDouble(MiniFormat::E4M3, 0x7E), 448.0);
    QCOMPARE(detail::miniBitsToDouble(MiniFormat::E4M3, 0x01), 0x1p-9);
    QCOMPARE(detail::miniBitsToDouble(MiniFormat::E4M3, 0x38), 1.0);
    QCOMPARE(detail::miniBitsToDouble(MiniFormat::E5M2, 0x7B), 57344.0);
    QCOMPARE(detail::miniBitsToDouble(MiniFormat::E5M2, 0x01), 0x1p-16);
    QCOMPARE(detail::miniBitsToDouble(MiniFormat::E5M2, 0x3C), 1.0);
    const double fp4[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
    for (int k = 0; k < 8; ++k) {
        QCOMPARE(detail::miniBitsToDouble(MiniFormat::E2M1, quint16(k)), fp4[k]);
        QCOMPARE(detail::miniBitsToDouble(MiniFormat::E2M1, quint16(k | 8)), -fp4[k]);
    }
    QVERIFY(std::isnan(detail::miniBitsToDouble(MiniFormat::E4M3, 0x7F)));
    QVERIFY(std::isnan(detail::miniBitsToDouble(MiniFormat::E4M3, 0xFF)));
    QVERIFY(std::isinf(detail::miniBitsToDouble(MiniFormat::E5M2, 0x7C)));
    QVERIFY(std::isnan(detail::miniBitsToDouble(MiniFormat::E5M2, 0x7D)));
    QVERIFY(std::isinf(detail::miniBitsToDouble(MiniFormat::BFloat16, 0xFF80)));
}

void TestMiniFloat::overflowAndNan() {
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    // e4m3: 464 is the midpoint of 448 and the NaN slot, and rounds to even (448).
    QCOMPARE(detail::doubleToMiniBits(MiniFormat::E4M3, 464), quint16(0x7E));
    QCOMPARE(detail::doubleToMiniBits(MiniFormat::E4M3, std::nextafter(464.0, inf)), quint16(0x7E));
    QCOMPARE(detail::doubleToMiniBits(MiniFormat::E4M3, 1e30), quint16(0x7E));
    QCOMPARE(detail::doubleToMiniBits(MiniFormat::E4M3, -inf), quint16(0xFE));
    QCOMPARE(detail::doubleToMiniBits(MiniFormat::E4M3, nan), quint16(0x7F));
    QCOMPARE(detail::doubleToMiniBits(MiniFormat::E4M3, -nan), quint16(0x7F));
    // e5m2 saturates too (the constructor's __NV_SATFINITE), inf included.
    QCOMPARE(detail::doubleToMiniBits(MiniFormat::E5M2, 61440), quint16(0x7B));
    QCOMPARE(detail::doubleToMiniBits(MiniFormat::E5M2, std::nextafter(61440.0, 0.0)),
             quint16(0x7B));
    QCOMPARE(detail::doubleToMiniBits(MiniFormat::E5M2, inf), quint16(0x7B));
    QCOMPARE(detail::doubleToMiniBits(MiniFormat::E5M2, -1e300), quint16(0xFB));
    QCOMPARE(detail::doubleToMiniBits(MiniFormat::E5M2, nan), quint16(0x7F));
    // bf16 overflows to inf like float: the midpoint above the largest finite rounds up.
    QCOMPARE(detail::doubleToMiniBits(MiniFormat::BFloat16, 0x1.FFp127), quint16(0x7F80));
    QCOMPARE(detail::doubleToMiniBits(MiniFormat::BFloat16, std::nextafter(0x1.FFp127, 0.0)),
             quint16(0x7F7F));
    QCOMPARE(detail::doubleToMiniBits(MiniFormat::BFloat16, -1e300), quint16(0xFF80));
    QCOMPARE(detail::doubleToMiniBits(MiniFormat::BFloat16, nan), quint16(0x7FFF));
    // fp4: 5 ties to 4, above 6 saturates, NaN is +6.
    QCOMPARE(detail::doubleToMiniBits(MiniFormat::E2M1, 5), quint16(0x6));
    QCOMPARE(detail::doubleToMiniBits(MiniFormat::E2M1, 7), quint16(0x7));
    QCOMPARE(detail::doubleToMiniBits(MiniFormat::E2M1, -1e9), quint16(0xF));
    QCOMPARE(detail::doubleToMiniBits(MiniFormat::E2M1, -inf), quint16(0xF));
    QCOMPARE(detail::doubleToMiniBits(MiniFormat::E2M1, -nan), quint16(0x7));
    QCOMPARE(detail::doubleToMiniBits(MiniFormat::E2M1, 0.25), quint16(0x0));
    QCOMPARE(detail::doubleToMiniBits(MiniFormat::E2M1, -0.25), quint16(0x8));
}

void TestMiniFloat::bf16MatchesToolkitTruncation() {
    std::mt19937 rng(30);
    std::uniform_int_distribution<quint32> bits;
    for (int n = 0; n < 200000; ++n) {
        const quint32 x = bits(rng);
        float f;
        std::memcpy(&f, &x, sizeof f);
        if (std::isnan(f))
            continue;
        const quint16 got = detail::doubleToMiniBits(MiniFormat::BFloat16, f);
        if (got != toolkitFloatToBf16(f))
            QFAIL(qPrintable(QStringLiteral("float bits 0x%1: %2, toolkit %3")
                                 .arg(x, 8, 16, QLatin1Char('0'))
                                 .arg(hex(got), hex(toolkitFloatToBf16(f)))));
    }
}

void TestMiniFloat::textRoundTrips() {
    QFETCH(int, format);
    const auto f = MiniFormat(format);
    for (int bits = 0; bits < patternCount(f); ++bits) {
        if (isSpecial(f, quint16(bits)))
            continue;
        const QString text = detail::formatMiniBits(f, quint16(bits));
        const auto parsed = detail::parseDouble(text);
        QVERIFY2(parsed, qPrintable(text));
        QVERIFY2(detail::doubleToMiniBits(f, *parsed) == bits,
                 qPrintable(QStringLiteral("%1 prints as %2").arg(hex(quint16(bits)), text)));
    }
    QCOMPARE(detail::formatMiniBits(MiniFormat::E4M3, 0x7E), QStringLiteral("448"));
    QCOMPARE(detail::formatMiniBits(MiniFormat::BFloat16, 0x3DCD), QStringLiteral("0.1"));
    QCOMPARE(detail::formatMiniBits(MiniFormat::E5M2, 0x80), QStringLiteral("-0"));
    QCOMPARE(detail::formatMiniBits(MiniFormat::E4M3, 0x7F), QStringLiteral("nan"));
}

void TestMiniFloat::packedFp4NibbleOrder() {
    // cuda_fp4.hpp __nv_cvt_double2_to_fp4x2: .y in the high nibble, .x in the low one.
    QCOMPARE(detail::packFp4x2(1.0, -6.0), quint8(0xF2));
    char byte = char(0xF2);
    double hi = 0;
    QCOMPARE(detail::loadScalar(ScalarType::Float4E2M1x2, &byte, &hi), 1.0);
    QCOMPARE(hi, -6.0);
    QCOMPARE(detail::formatScalar(ScalarType::Float4E2M1x2, &byte), QStringLiteral("(1, -6)"));
    char out = 0;
    detail::storeScalar(ScalarType::Float4E2M1x2, 0.5, 3.0, &out);
    QCOMPARE(quint8(out), quint8(0x51));
}

void TestMiniFloat::typeTable() {
    QVERIFY(scalarTypeFromName("__nv_bfloat16") == ScalarType::BFloat16);
    QVERIFY(scalarTypeFromName("nv_bfloat16") == ScalarType::BFloat16);
    QVERIFY(scalarTypeFromName("bfloat16") == ScalarType::BFloat16);
    QVERIFY(scalarTypeFromName("float8_e4m3fn") == ScalarType::Float8E4M3);
    QVERIFY(scalarTypeFromName("__nv_fp8_e4m3") == ScalarType::Float8E4M3);
    QVERIFY(scalarTypeFromName("__nv_fp8_e5m2") == ScalarType::Float8E5M2);
    QVERIFY(scalarTypeFromName("__nv_fp4x2_e2m1") == ScalarType::Float4E2M1x2);
    QCOMPARE(scalarTypeInfo(ScalarType::BFloat16).alignBytes, 2);
    QCOMPARE(scalarTypeInfo(ScalarType::Float8E4M3).sizeBytes, 1);
    QCOMPARE(scalarTypeInfo(ScalarType::Float4E2M1x2).sizeBytes, 1);
    QCOMPARE(componentCount(ScalarType::Float4E2M1x2), 2);
    QCOMPARE(componentCount(ScalarType::BFloat16), 1);
    // A struct {char; bf16; fp8;} : bf16 aligned to 2, fp8 to 1, padded to 2.
    const StructType s{QStringLiteral("S"),
                       {{QStringLiteral("c"), ScalarType::Int8, 1},
                        {QStringLiteral("h"), ScalarType::BFloat16, 1},
                        {QStringLiteral("q"), ScalarType::Float8E5M2, 1}}};
    QCOMPARE(s.fieldOffsets(), (QVector<int>{0, 2, 4}));
    QCOMPARE(s.sizeBytes(), 6);
}

void TestMiniFloat::ulpSize() {
    QCOMPARE(detail::miniUlp(MiniFormat::BFloat16, 1.0), 0x1p-7);
    QCOMPARE(detail::miniUlp(MiniFormat::E4M3, 448), 32.0);
    QCOMPARE(detail::miniUlp(MiniFormat::E4M3, 0.0), 0x1p-9);
    QCOMPARE(detail::miniUlp(MiniFormat::E5M2, -3.0), 0.5);
    QCOMPARE(detail::miniUlp(MiniFormat::E2M1, 0.5), 0.5);
    QCOMPARE(detail::miniUlp(MiniFormat::E2M1, 5), 2.0);
}

KERNELPAD_TEST_GUILESS_MAIN(TestMiniFloat)
} // namespace tst_minifloat
#include "tst_minifloat.moc"
