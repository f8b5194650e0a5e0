// The seed's type table and struct layout, checked against what this C++ compiler lays out
// for the same declarations (the CUDA front end uses the same x86-64 Itanium ABI rules).
#include "../support/TestMain.h"
#include "core/launch/ValueType.h"

#include <QJsonDocument>
#include <QtTest>

#include <complex>
#include <cstddef>
#include <cstdint>

namespace tst_valuetype {

using namespace kernelpad;

namespace {

// CUDA declares float2 __align__(8) and double2 __align__(16) (vector_types.h).
struct alignas(8) Float2 {
    float x, y;
};
struct alignas(16) Double2 {
    double x, y;
};

struct Mixed { // char, double, short: padding after c and at the end
    char c;
    double d;
    short s;
};
struct TestStruct { // the seed's testStruct
    int value;
};
struct WithArray {
    char tag;
    float v[3];
    unsigned long long id;
    unsigned char flags[5];
};
struct WithComplex {
    float f;
    Double2 z;
    bool b;
};
struct SmallThenComplex64 {
    unsigned short h;
    Float2 z;
};
struct AllBytes {
    unsigned char a;
    signed char b[3];
};

StructType makeStruct(const QString& name, QVector<StructField> fields) {
    return StructType{name, std::move(fields)};
}

} // namespace

} // namespace tst_valuetype
Q_DECLARE_METATYPE(kernelpad::StructType)
namespace tst_valuetype {

class TestValueType : public QObject {
    Q_OBJECT
private slots:
    void scalarSizes_data();
    void scalarSizes();
    void names_data();
    void names();
    void tableIsComplete();
    void structLayout_data();
    void structLayout();
    void jsonRoundTrip_data();
    void jsonRoundTrip();
    void jsonErrors_data();
    void jsonErrors();
    void equality();
};

void TestValueType::scalarSizes_data() {
    QTest::addColumn<int>("type");
    QTest::addColumn<int>("cSize");
    QTest::addColumn<int>("cAlign");
    QTest::newRow("bool") << int(ScalarType::Bool) << int(sizeof(bool)) << int(alignof(bool));
    QTest::newRow("int8") << int(ScalarType::Int8) << int(sizeof(int8_t)) << int(alignof(int8_t));
    QTest::newRow("int16") << int(ScalarType::Int16) << int(sizeof(short)) << int(alignof(short));
    QTest::newRow("int32") << int(ScalarType::Int32) << int(sizeof(int)) << int(alignof(int));
    QTest::newRow("int64") << int(ScalarType::Int64) << int(sizeof(long long))
                           << int(alignof(long long));
    QTest::newRow("uint8") << int(ScalarType::UInt8) << int(sizeof(uint8_t))
                           << int(alignof(uint8_t));
    QTest::newRow("uint16") << int(ScalarType::UInt16) << int(sizeof(uint16_t))
                            << int(alignof(uint16_t));
    QTest::newRow("uint32") << int(ScalarType::UInt32) << int(sizeof(unsigned))
                            << int(alignof(unsigned));
    QTest::newRow("uint64") << int(ScalarType::UInt64) << int(sizeof(unsigned long long))
                            << int(alignof(unsigned long long));
    // half is a struct of one unsigned short in cuda_fp16.h.
    QTest::newRow("float16") << int(ScalarType::Float16) << int(sizeof(uint16_t))
                             << int(alignof(uint16_t));
    QTest::newRow("float32") << int(ScalarType::Float32) << int(sizeof(float))
                             << int(alignof(float));
    QTest::newRow("float64") << int(ScalarType::Float64) << int(sizeof(double))
                             << int(alignof(double));
    QTest::newRow("complex64") << int(ScalarType::Complex64) << int(sizeof(Float2))
                               << int(alignof(Float2));
    QTest::newRow("complex128") << int(ScalarType::Complex128) << int(sizeof(Double2))
                                << int(alignof(Double2));
}

void TestValueType::scalarSizes() {
    QFETCH(int, type);
    QFETCH(int, cSize);
    QFETCH(int, cAlign);
    const auto& info = scalarTypeInfo(ScalarType(type));
    QCOMPARE(info.sizeBytes, cSize);
    QCOMPARE(info.alignBytes, cAlign);
    QCOMPARE(ValueType::of(ScalarType(type)).sizeBytes(), cSize);
    QCOMPARE(int(info.type), type);
    // std::complex has the same size (its alignment is lower, which is why float2's is used).
    if (ScalarType(type) == ScalarType::Complex64)
        QCOMPARE(int(sizeof(std::complex<float>)), cSize);
}

void TestValueType::names_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("expected"); // -1: not supported
    const QList<QPair<const char*, ScalarType>> rows{
        {"bool", ScalarType::Bool},
        {"char", ScalarType::Int8},
        {"signed char", ScalarType::Int8},
        {"int8_t", ScalarType::Int8},
        {"int8", ScalarType::Int8},
        {"short", ScalarType::Int16},
        {"signed short", ScalarType::Int16},
        {"int16_t", ScalarType::Int16},
        {"int", ScalarType::Int32},
        {"signed int", ScalarType::Int32},
        {"int32_t", ScalarType::Int32},
        {"long long", ScalarType::Int64},
        {"signed long long", ScalarType::Int64},
        {"int64_t", ScalarType::Int64},
        {"long", ScalarType::Int64},
        {"unsigned char", ScalarType::UInt8},
        {"uint8_t", ScalarType::UInt8},
        {"unsigned short", ScalarType::UInt16},
        {"uint16_t", ScalarType::UInt16},
        {"unsigned int", ScalarType::UInt32},
        {"uint32_t", ScalarType::UInt32},
        {"std::uint32_t", ScalarType::UInt32},
        {"::uint32_t", ScalarType::UInt32},
        {"cuda::std::int64_t", ScalarType::Int64},
        {"std::size_t", ScalarType::UInt64},
        {"unsigned   int", ScalarType::UInt32},
        {"unsigned long long", ScalarType::UInt64},
        {"uint64_t", ScalarType::UInt64},
        {"unsigned long", ScalarType::UInt64},
        {"size_t", ScalarType::UInt64},
        {"half", ScalarType::Float16},
        {"__half", ScalarType::Float16},
        {"float16", ScalarType::Float16},
        {"float", ScalarType::Float32},
        {"float32", ScalarType::Float32},
        {"double", ScalarType::Float64},
        {"float64", ScalarType::Float64},
        {"float2", ScalarType::Complex64},
        {"cuFloatComplex", ScalarType::Complex64},
        {"complex<float>", ScalarType::Complex64},
        {"complex64", ScalarType::Complex64},
        {"double2", ScalarType::Complex128},
        {"cuDoubleComplex", ScalarType::Complex128},
        {"complex<double>", ScalarType::Complex128},
        {"complex128", ScalarType::Complex128},
    };
    for (const auto& [name, type] : rows)
        QTest::newRow(name) << QString::fromLatin1(name) << int(type);
    for (const char* unsupported :
         {"tfloat32", "__nv_fp6_e2m3", "Float", "flaot", "", "int128", "float4", "void*"})
        QTest::newRow(qPrintable(QStringLiteral("unsupported '%1'").arg(unsupported)))
            << QString::fromLatin1(unsupported) << -1;
}

void TestValueType::names() {
    QFETCH(QString, name);
    QFETCH(int, expected);
    const auto type = scalarTypeFromName(name);
    if (expected < 0) {
        QVERIFY2(!type, qPrintable(name));
        return;
    }
    QVERIFY2(type, qPrintable(name));
    QCOMPARE(int(*type), expected);
}

void TestValueType::tableIsComplete() {
    QCOMPARE(allScalarTypes().size(), 18);
    for (const ScalarType t : allScalarTypes()) {
        const auto& info = scalarTypeInfo(t);
        QCOMPARE(info.type, t);
        // Every type is found by its NumPy name, its canonical C name and every spelling.
        QCOMPARE(scalarTypeFromName(QLatin1String(info.numpyName)), std::optional(t));
        QCOMPARE(scalarTypeFromName(QLatin1String(info.cName)), std::optional(t));
        for (const QString& spelling : info.kernelNames)
            QCOMPARE(scalarTypeFromName(spelling), std::optional(t));
        QCOMPARE(info.sizeBytes % info.alignBytes, 0);
    }
}

void TestValueType::structLayout_data() {
    QTest::addColumn<StructType>("type");
    QTest::addColumn<QVector<int>>("offsets");
    QTest::addColumn<int>("size");
    QTest::addColumn<int>("align");

    QTest::newRow("char double short")
        << makeStruct("Mixed", {{"c", ScalarType::Int8, 1},
                                {"d", ScalarType::Float64, 1},
                                {"s", ScalarType::Int16, 1}})
        << QVector<int>{int(offsetof(Mixed, c)), int(offsetof(Mixed, d)), int(offsetof(Mixed, s))}
        << int(sizeof(Mixed)) << int(alignof(Mixed));
    QTest::newRow("seed testStruct") << makeStruct("testStruct", {{"value", ScalarType::Int32, 1}})
                                     << QVector<int>{int(offsetof(TestStruct, value))}
                                     << int(sizeof(TestStruct)) << int(alignof(TestStruct));
    QTest::newRow("array fields") << makeStruct("WithArray", {{"tag", ScalarType::Int8, 1},
                                                              {"v", ScalarType::Float32, 3},
                                                              {"id", ScalarType::UInt64, 1},
                                                              {"flags", ScalarType::UInt8, 5}})
                                  << QVector<int>{int(offsetof(WithArray, tag)),
                                                  int(offsetof(WithArray, v)),
                                                  int(offsetof(WithArray, id)),
                                                  int(offsetof(WithArray, flags))}
                                  << int(sizeof(WithArray)) << int(alignof(WithArray));
    QTest::newRow("complex128 field aligned to 16")
        << makeStruct("WithComplex", {{"f", ScalarType::Float32, 1},
                                      {"z", ScalarType::Complex128, 1},
                                      {"b", ScalarType::Bool, 1}})
        << QVector<int>{int(offsetof(WithComplex, f)), int(offsetof(WithComplex, z)),
                        int(offsetof(WithComplex, b))}
        << int(sizeof(WithComplex)) << int(alignof(WithComplex));
    QTest::newRow("complex64 field aligned to 8")
        << makeStruct("SmallThenComplex64",
                      {{"h", ScalarType::UInt16, 1}, {"z", ScalarType::Complex64, 1}})
        << QVector<int>{int(offsetof(SmallThenComplex64, h)), int(offsetof(SmallThenComplex64, z))}
        << int(sizeof(SmallThenComplex64)) << int(alignof(SmallThenComplex64));
    QTest::newRow("bytes only, no padding")
        << makeStruct("AllBytes", {{"a", ScalarType::UInt8, 1}, {"b", ScalarType::Int8, 3}})
        << QVector<int>{int(offsetof(AllBytes, a)), int(offsetof(AllBytes, b))}
        << int(sizeof(AllBytes)) << int(alignof(AllBytes));
}

void TestValueType::structLayout() {
    QFETCH(StructType, type);
    QFETCH(QVector<int>, offsets);
    QFETCH(int, size);
    QFETCH(int, align);
    QCOMPARE(type.fieldOffsets(), offsets);
    QCOMPARE(type.sizeBytes(), size);
    QCOMPARE(type.alignBytes(), align);
    const ValueType v = ValueType::ofStruct(type);
    QCOMPARE(v.sizeBytes(), size);
    QCOMPARE(v.alignBytes(), align);
    QCOMPARE(v.displayName(), type.name);
}

void TestValueType::jsonRoundTrip_data() {
    QTest::addColumn<ValueType>("type");
    for (const ScalarType t : allScalarTypes())
        QTest::newRow(scalarTypeInfo(t).numpyName) << ValueType::of(t);
    QTest::newRow("struct with array")
        << ValueType::ofStruct(makeStruct("params", {{"scale", ScalarType::Float32, 1},
                                                     {"dims", ScalarType::Int32, 3},
                                                     {"z", ScalarType::Complex64, 1}}));
}

void TestValueType::jsonRoundTrip() {
    QFETCH(ValueType, type);
    // Through text, as a project file would hold it.
    const QByteArray text = QJsonDocument(type.toJson()).toJson();
    QString error;
    const auto back = ValueType::fromJson(QJsonDocument::fromJson(text).object(), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(*back, type);
}

void TestValueType::jsonErrors_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown scalar")
        << QByteArray(R"({"scalar":"flaot"})") << "scalar: unknown type 'flaot'";
    QTest::newRow("scalar not a string") << QByteArray(R"({"scalar":4})") << "scalar:";
    QTest::newRow("tfloat32 unsupported")
        << QByteArray(R"({"scalar":"tfloat32"})") << "unknown type 'tfloat32'";
    QTest::newRow("neither key") << QByteArray(R"({"type":"float"})") << "'scalar' or a 'struct'";
    QTest::newRow("struct not an object") << QByteArray(R"({"struct":[1]})") << "struct:";
    QTest::newRow("struct without name")
        << QByteArray(R"({"struct":{"fields":[{"name":"a","type":"int"}]}})") << "struct.name";
    QTest::newRow("no fields") << QByteArray(R"({"struct":{"name":"s","fields":[]}})")
                               << "struct.fields";
    QTest::newRow("fields not an array")
        << QByteArray(R"({"struct":{"name":"s","fields":"a"}})") << "struct.fields";
    QTest::newRow("misspelt field type")
        << QByteArray(
               R"({"struct":{"name":"s","fields":[{"name":"a","type":"int"},{"name":"b","type":"flaot"}]}})")
        << "struct.fields[1].type: unknown type 'flaot'";
    QTest::newRow("field not an object") << QByteArray(R"({"struct":{"name":"s","fields":[3]}})")
                                         << "struct.fields[0]: expected an object";
    QTest::newRow("zero count")
        << QByteArray(R"({"struct":{"name":"s","fields":[{"name":"a","type":"int","count":0}]}})")
        << "struct.fields[0].count";
    QTest::newRow("fractional count")
        << QByteArray(R"({"struct":{"name":"s","fields":[{"name":"a","type":"int","count":1.5}]}})")
        << "struct.fields[0].count";
    QTest::newRow("duplicate field")
        << QByteArray(
               R"({"struct":{"name":"s","fields":[{"name":"a","type":"int"},{"name":"a","type":"int"}]}})")
        << "struct.fields[1].name: duplicate";
}

void TestValueType::jsonErrors() {
    QFETCH(QByteArray, json);
    QFETCH(QString, message);
    QString error;
    const auto type = ValueType::fromJson(QJsonDocument::fromJson(json).object(), &error);
    QVERIFY(!type);
    QVERIFY2(error.contains(message), qPrintable(error));
}

void TestValueType::equality() {
    const StructType a = makeStruct("s", {{"x", ScalarType::Int32, 1}});
    StructType b = a;
    QVERIFY(ValueType::ofStruct(a) == ValueType::ofStruct(b));
    b.fields[0].count = 2;
    QVERIFY(ValueType::ofStruct(a) != ValueType::ofStruct(b));
    b = a;
    b.name = "t";
    QVERIFY(!(a == b));
    QVERIFY(ValueType::of(ScalarType::Int32) != ValueType::ofStruct(a));
    QVERIFY(ValueType::of(ScalarType::Int32) == ValueType::of(ScalarType::Int32));
    QVERIFY(ValueType::of(ScalarType::Int32) != ValueType::of(ScalarType::UInt32));
}

KERNELPAD_TEST_GUILESS_MAIN(TestValueType)
} // namespace tst_valuetype
#include "tst_valuetype.moc"
