// Kernel-argument bytes for every scalar type and for structs, compared with what this C++
// compiler stores for the same values.
#include "../support/TestMain.h"
#include "core/launch/Packing.h"
#include "core/launch/ScalarCodec.h"

#include <QtTest>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace tst_packing {

using namespace kernelpad;

namespace {

template <typename T> QByteArray bytesOf(const T& value) {
    return QByteArray(reinterpret_cast<const char*>(&value), int(sizeof(T)));
}

QByteArray halfBits(quint16 bits) {
    return bytesOf(bits);
}

struct alignas(8) Float2 {
    float x, y;
};
struct alignas(16) Double2 {
    double x, y;
};

// Same layout as the struct described in packStruct() below.
struct Params {
    char c;
    double d;
    short s[2];
    Float2 z;
};

ArgumentSpec scalarArg(const QString& name, ScalarType type, const QString& value) {
    ArgumentSpec a;
    a.name = name;
    a.kind = ArgumentSpec::Kind::Scalar;
    a.type = ValueType::of(type);
    a.value = value;
    return a;
}

ArgumentSpec bufferArg(const QString& name) {
    ArgumentSpec a;
    a.name = name;
    a.kind = ArgumentSpec::Kind::Buffer;
    return a;
}

ValueType paramsType() {
    return ValueType::ofStruct(StructType{"Params",
                                          {{"c", ScalarType::Int8, 1},
                                           {"d", ScalarType::Float64, 1},
                                           {"s", ScalarType::Int16, 2},
                                           {"z", ScalarType::Complex64, 1}}});
}

} // namespace

} // namespace tst_packing
Q_DECLARE_METATYPE(kernelpad::ArgumentSpec)
namespace tst_packing {} // namespace tst_packing
Q_DECLARE_METATYPE(kernelpad::ParamLayout)
namespace tst_packing {

class TestPacking : public QObject {
    Q_OBJECT
private slots:
    void scalars_data();
    void scalars();
    void float16_data();
    void float16();
    void float16RoundTrip();
    void errors_data();
    void errors();
    void packStruct();
    void seedTestStruct();
    void packedArgs();
    void packedArgsErrors();
    void checkParams_data();
    void checkParams();
};

void TestPacking::scalars_data() {
    QTest::addColumn<int>("type");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QByteArray>("expected");
    QTest::newRow("bool true") << int(ScalarType::Bool) << "true" << bytesOf(true);
    QTest::newRow("bool 0") << int(ScalarType::Bool) << "0" << bytesOf(false);
    QTest::newRow("bool False") << int(ScalarType::Bool) << "False" << bytesOf(false);
    QTest::newRow("int8 min") << int(ScalarType::Int8) << "-128" << bytesOf(int8_t(-128));
    QTest::newRow("int8 hex") << int(ScalarType::Int8) << "0x7f" << bytesOf(int8_t(127));
    QTest::newRow("int16 negative") << int(ScalarType::Int16) << "-300" << bytesOf(int16_t(-300));
    QTest::newRow("int32") << int(ScalarType::Int32) << " 1024 " << bytesOf(int32_t(1024));
    QTest::newRow("int32 min") << int(ScalarType::Int32) << "-2147483648"
                               << bytesOf(std::numeric_limits<int32_t>::min());
    QTest::newRow("int32 negative hex")
        << int(ScalarType::Int32) << "-0x10" << bytesOf(int32_t(-16));
    QTest::newRow("int64 min") << int(ScalarType::Int64) << "-9223372036854775808"
                               << bytesOf(std::numeric_limits<int64_t>::min());
    QTest::newRow("int64 max") << int(ScalarType::Int64) << "9223372036854775807"
                               << bytesOf(std::numeric_limits<int64_t>::max());
    QTest::newRow("uint8 max") << int(ScalarType::UInt8) << "255" << bytesOf(uint8_t(255));
    QTest::newRow("uint16 hex") << int(ScalarType::UInt16) << "0xBEEF" << bytesOf(uint16_t(0xBEEF));
    QTest::newRow("uint32 max") << int(ScalarType::UInt32) << "4294967295"
                                << bytesOf(std::numeric_limits<uint32_t>::max());
    QTest::newRow("uint64 max") << int(ScalarType::UInt64) << "0xFFFFFFFFFFFFFFFF"
                                << bytesOf(std::numeric_limits<uint64_t>::max());
    QTest::newRow("float32") << int(ScalarType::Float32) << "2.5" << bytesOf(2.5f);
    QTest::newRow("float32 0.1 rounds as float")
        << int(ScalarType::Float32) << "0.1" << bytesOf(0.1f);
    QTest::newRow("float32 exponent") << int(ScalarType::Float32) << "-1e-3" << bytesOf(-1e-3f);
    QTest::newRow("float64") << int(ScalarType::Float64) << "0.1" << bytesOf(0.1);
    QTest::newRow("float64 integer text") << int(ScalarType::Float64) << "3" << bytesOf(3.0);
    QTest::newRow("complex64 pair")
        << int(ScalarType::Complex64) << "1.5, -2" << bytesOf(Float2{1.5f, -2.0f});
    QTest::newRow("complex64 parenthesised")
        << int(ScalarType::Complex64) << "(0.1, 3)" << bytesOf(Float2{0.1f, 3.0f});
    QTest::newRow("complex64 real only")
        << int(ScalarType::Complex64) << "4" << bytesOf(Float2{4.0f, 0.0f});
    QTest::newRow("complex128 pair")
        << int(ScalarType::Complex128) << "0.1,0.2" << bytesOf(Double2{0.1, 0.2});
}

void TestPacking::scalars() {
    QFETCH(int, type);
    QFETCH(QString, text);
    QFETCH(QByteArray, expected);
    QString error;
    const auto bytes = packValue(ValueType::of(ScalarType(type)), text, &error);
    QVERIFY2(bytes, qPrintable(error));
    QCOMPARE(bytes->size(), expected.size());
    QVERIFY(std::memcmp(bytes->constData(), expected.constData(), size_t(expected.size())) == 0);
}

void TestPacking::float16_data() {
    // Bit patterns from the binary16 definition: sign | 5-bit exponent (bias 15) | 10-bit
    // fraction; subnormals are fraction * 2^-24.
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("bits");
    QTest::newRow("one") << "1.0" << 0x3C00;
    QTest::newRow("minus two") << "-2" << 0xC000;
    QTest::newRow("half") << "0.5" << 0x3800;
    QTest::newRow("largest finite 65504") << "65504" << 0x7BFF;
    QTest::newRow("65519 rounds down to 65504") << "65519" << 0x7BFF;
    QTest::newRow("0.1 rounds to 0x2E66") << "0.1" << 0x2E66; // 1.6 * 2^-4, 614.4 -> 614
    QTest::newRow("one third") << "0.333333333" << 0x3555;    // 1.333 * 2^-2, 341.33 -> 341
    QTest::newRow("smallest normal 2^-14") << "6.103515625e-05" << 0x0400;
    QTest::newRow("smallest subnormal 2^-24") << "5.9604644775390625e-08" << 0x0001;
    QTest::newRow("1e-8 underflows to zero") << "1e-8" << 0x0000;
    QTest::newRow("3e-8 rounds up to 2^-24") << "3e-8" << 0x0001;
    QTest::newRow("2^-25 tie goes to even zero") << "2.98023223876953125e-08" << 0x0000;
    QTest::newRow("3*2^-25 tie goes to even 2") << "8.94069671630859375e-08" << 0x0002;
    QTest::newRow("1+2^-11 tie goes to even") << "1.00048828125" << 0x3C00;
    QTest::newRow("1+3*2^-11 tie goes to even") << "1.00146484375" << 0x3C02;
    QTest::newRow("2047.5 rounds up the exponent") << "2047.5" << 0x6800; // 2048 = 2^11
    QTest::newRow("negative zero") << "-0.0" << 0x8000;
    QTest::newRow("infinity") << "inf" << 0x7C00;
    QTest::newRow("minus infinity") << "-inf" << 0xFC00;
}

void TestPacking::float16() {
    QFETCH(QString, text);
    QFETCH(int, bits);
    QString error;
    const auto bytes = packValue(ValueType::of(ScalarType::Float16), text, &error);
    QVERIFY2(bytes, qPrintable(error));
    QCOMPARE(*bytes, halfBits(quint16(bits)));
}

// The one float16 codec (packing, buffer init, host verification): every binary16 value,
// subnormals and both infinities included, decodes to a double that encodes back to the same
// bits; NaNs stay NaNs of the same sign.
void TestPacking::float16RoundTrip() {
    for (int bits = 0; bits <= 0xFFFF; ++bits) {
        const double value = detail::halfBitsToDouble(quint16(bits));
        const quint16 back = detail::doubleToHalfBits(value);
        const bool isNan = (bits & 0x7C00) == 0x7C00 && (bits & 0x03FF) != 0;
        if (isNan) {
            QVERIFY2(std::isnan(value), qPrintable(QString::number(bits, 16)));
            QCOMPARE(back, quint16((bits & 0x8000) | 0x7E00));
        } else {
            QCOMPARE(back, quint16(bits));
        }
    }
    QCOMPARE(detail::halfBitsToDouble(0x0001), std::ldexp(1.0, -24));    // smallest subnormal
    QCOMPARE(detail::halfBitsToDouble(0x03FF), std::ldexp(1023.0, -24)); // largest subnormal
    QCOMPARE(detail::halfBitsToDouble(0x7BFF), 65504.0);
    QCOMPARE(detail::halfBitsToDouble(0xFC00), -std::numeric_limits<double>::infinity());
    QCOMPARE(detail::doubleToHalfBits(std::numeric_limits<double>::quiet_NaN()), quint16(0x7E00));
    // Straight from the double, not through float: 1 + 2^-11 + 2^-40 is above the tie, so it
    // rounds up, where rounding to float first would land on the tie and go to even.
    QCOMPARE(detail::doubleToHalfBits(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)),
             quint16(0x3C01));
    QCOMPARE(detail::doubleToHalfBits(65520.0), quint16(0x7C00)); // halfway to 2^16: infinity
}

void TestPacking::errors_data() {
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("uint8 300") << "uint8"
                               << "300"
                               << "value 300 does not fit in uint8";
    QTest::newRow("uint8 negative") << "uint8"
                                    << "-1"
                                    << "value -1 does not fit in uint8";
    QTest::newRow("int8 128") << "int8"
                              << "128"
                              << "value 128 does not fit in int8";
    QTest::newRow("int32 2^31") << "int32"
                                << "2147483648"
                                << "value 2147483648 does not fit in int32";
    QTest::newRow("int64 beyond") << "int64"
                                  << "9223372036854775808"
                                  << "does not fit in int64";
    QTest::newRow("uint64 beyond 64 bits") << "uint64"
                                           << "18446744073709551616"
                                           << "does not fit in uint64";
    QTest::newRow("uint16 hex too large") << "uint16"
                                          << "0x10000"
                                          << "value 0x10000 does not fit in uint16";
    QTest::newRow("int fraction") << "int32"
                                  << "2.5"
                                  << "'2.5' is not an integer";
    QTest::newRow("int garbage") << "int32"
                                 << "abc"
                                 << "'abc' is not a number";
    QTest::newRow("empty") << "float32"
                           << "  "
                           << "no value given for float32";
    QTest::newRow("float garbage") << "float32"
                                   << "1.2.3"
                                   << "'1.2.3' is not a number";
    QTest::newRow("float32 overflow") << "float32"
                                      << "1e39"
                                      << "value 1e39 does not fit in float32";
    QTest::newRow("float16 overflow") << "float16"
                                      << "65520"
                                      << "value 65520 does not fit in float16";
    QTest::newRow("bool 2") << "bool"
                            << "2"
                            << "'2' is not a bool";
    QTest::newRow("complex three parts") << "complex64"
                                         << "1, 2, 3"
                                         << "not a complex number";
    QTest::newRow("complex bad imaginary") << "complex128"
                                           << "1, x"
                                           << "'x' is not a number";
}

void TestPacking::errors() {
    QFETCH(QString, type);
    QFETCH(QString, text);
    QFETCH(QString, message);
    QString error;
    const auto bytes = packValue(ValueType::of(*scalarTypeFromName(type)), text, &error);
    QVERIFY(!bytes);
    QVERIFY2(error.contains(message), qPrintable(error));
}

void TestPacking::packStruct() {
    const ValueType type = paramsType();
    QCOMPARE(type.sizeBytes(), int(sizeof(Params)));
    Params expected;
    std::memset(&expected, 0, sizeof(expected)); // padding is zero in packed bytes as well
    expected.c = -3;
    expected.d = 0.25;
    expected.s[0] = 7;
    expected.s[1] = -8;
    expected.z = Float2{1.5f, 2.5f};

    QString error;
    const auto bytes = packValue(type, "-3, 0.25, 7, -8, 1.5, 2.5", &error);
    QVERIFY2(bytes, qPrintable(error));
    QCOMPARE(*bytes, bytesOf(expected));
    // The grouped form that elementToString writes reads back the same.
    const auto grouped = packValue(type, "{-3, 0.25, [7, -8], (1.5, 2.5)}", &error);
    QVERIFY2(grouped, qPrintable(error));
    QCOMPARE(*grouped, *bytes);

    QVERIFY(!packValue(type, "1, 2, 3", &error));
    QVERIFY2(error.contains("struct 'Params' takes 6 value(s)") && error.contains("3 were given"),
             qPrintable(error));
    QVERIFY(!packValue(type, "1, 2, 3, 70000, 5, 6", &error));
    QVERIFY2(error.contains("field 's[1]' of struct 'Params'") &&
                 error.contains("value 70000 does not fit in int16"),
             qPrintable(error));
    QVERIFY(!packValue(type, "", &error));
    QVERIFY2(error.contains("0 were given"), qPrintable(error));
}

void TestPacking::seedTestStruct() {
    // The seed's testStruct { int value; } passed by value.
    const ValueType type =
        ValueType::ofStruct(StructType{"testStruct", {{"value", ScalarType::Int32, 1}}});
    QString error;
    const auto bytes = packValue(type, "42", &error);
    QVERIFY2(bytes, qPrintable(error));
    QCOMPARE(*bytes, bytesOf(int32_t(42)));
}

void TestPacking::packedArgs() {
    const QVector<ArgumentSpec> args{
        scalarArg("n", ScalarType::Int32, "1000"),
        bufferArg("x"),
        scalarArg("a", ScalarType::Float32, "2.5"),
        bufferArg("y"),
        ArgumentSpec{"p", ArgumentSpec::Kind::Scalar, paramsType(), "1, 2, 3, 4, 5, 6", {}, {}, {}},
        scalarArg("h", ScalarType::Float16, "1"),
    };
    const quint64 xAddress = 0x7f0000001000ull, yAddress = 0x7f0000202000ull;
    const QVector<quint64> addresses{0, xAddress, 0, yAddress, 0, 0};
    QString error;
    auto packed = PackedArgs::pack(args, addresses, &error);
    QVERIFY2(packed, qPrintable(error));

    // Moving must keep every pointer valid (the executor moves PackedArgs around).
    PackedArgs moved = std::move(*packed);
    QCOMPARE(moved.count(), 6);
    void** params = moved.kernelParams();
    QVERIFY(params);
    for (int i = 0; i < moved.count(); ++i)
        QCOMPARE(static_cast<const void*>(params[i]), moved.bytesOf(i));

    QCOMPARE(moved.sizeOf(0), qint64(sizeof(int32_t)));
    QCOMPARE(*static_cast<const int32_t*>(params[0]), 1000);
    QCOMPARE(moved.sizeOf(1), qint64(8));
    quint64 address = 0;
    std::memcpy(&address, params[1], sizeof(address));
    QCOMPARE(address, xAddress);
    QCOMPARE(*static_cast<const float*>(params[2]), 2.5f);
    std::memcpy(&address, params[3], sizeof(address));
    QCOMPARE(address, yAddress);
    QCOMPARE(moved.sizeOf(4), qint64(sizeof(Params)));
    const auto* p = static_cast<const Params*>(params[4]);
    QCOMPARE(int(p->c), 1);
    QCOMPARE(p->d, 2.0);
    QCOMPARE(p->s[1], short(4));
    QCOMPARE(p->z.y, 6.0f);
    // Struct storage must be aligned like the struct, as the driver copies from it.
    QCOMPARE(quintptr(params[4]) % alignof(Params), quintptr(0));
    QCOMPARE(moved.sizeOf(5), qint64(2));
    QCOMPARE(*static_cast<const quint16*>(params[5]), quint16(0x3C00));

    auto empty = PackedArgs::pack({}, {}, &error);
    QVERIFY(empty);
    QCOMPARE(empty->count(), 0);
    QVERIFY(empty->kernelParams() == nullptr);
}

void TestPacking::packedArgsErrors() {
    QString error;
    QVERIFY(!PackedArgs::pack({scalarArg("n", ScalarType::UInt8, "300")}, {0}, &error));
    QVERIFY2(error.startsWith("argument 'n': ") && error.contains("does not fit in uint8"),
             qPrintable(error));
    QVERIFY(
        !PackedArgs::pack({scalarArg("n", ScalarType::Int32, "1"), bufferArg("x")}, {0}, &error));
    QVERIFY2(error.contains("'x'") && error.contains("device address"), qPrintable(error));
}

void TestPacking::checkParams_data() {
    QTest::addColumn<QVector<ArgumentSpec>>("args");
    QTest::addColumn<QVector<ParamLayout>>("params");
    QTest::addColumn<QString>("message"); // empty: matches

    const QVector<ArgumentSpec> saxpy{scalarArg("a", ScalarType::Float32, "2"), bufferArg("x"),
                                      bufferArg("y"), scalarArg("n", ScalarType::Int32, "16")};
    const QVector<ParamLayout> saxpyParams{{0, 4}, {8, 8}, {16, 8}, {24, 4}};
    QTest::newRow("saxpy matches") << saxpy << saxpyParams << QString();
    QTest::newRow("one argument missing")
        << saxpy.mid(0, 3) << saxpyParams
        << "kernel 'saxpy' takes 4 parameters but the argument table has 3";
    QTest::newRow("one argument too many")
        << (saxpy + QVector<ArgumentSpec>{bufferArg("z")}) << saxpyParams
        << "kernel 'saxpy' takes 4 parameters but the argument table has 5";
    QVector<ArgumentSpec> wrongN = saxpy;
    wrongN[3].type = ValueType::of(ScalarType::Int64);
    QTest::newRow("n is int64 but the kernel takes int")
        << wrongN << saxpyParams
        << "argument 'n' (int64, 8 bytes) does not match parameter 4 of kernel 'saxpy', which "
           "takes 4 bytes";
    QVector<ArgumentSpec> scalarForBuffer = saxpy;
    scalarForBuffer[1] = scalarArg("x", ScalarType::Float32, "1");
    QTest::newRow("scalar where the kernel takes a pointer")
        << scalarForBuffer << saxpyParams
        << "argument 'x' (float32, 4 bytes) does not match parameter 2 of kernel 'saxpy', which "
           "takes 8 bytes";
    QVector<ParamLayout> floatForPointer = saxpyParams;
    floatForPointer[2].sizeBytes = 4;
    QTest::newRow("buffer where the kernel takes a float")
        << saxpy << floatForPointer << "argument 'y' (a buffer, passed as an 8-byte pointer)";
}

void TestPacking::checkParams() {
    QFETCH(QVector<ArgumentSpec>, args);
    QFETCH(QVector<ParamLayout>, params);
    QFETCH(QString, message);
    const QString result = checkAgainstParams(args, params, "saxpy");
    if (message.isEmpty())
        QVERIFY2(result.isEmpty(), qPrintable(result));
    else
        QVERIFY2(result.contains(message), qPrintable(result));
}

KERNELPAD_TEST_GUILESS_MAIN(TestPacking)
} // namespace tst_packing
#include "tst_packing.moc"
