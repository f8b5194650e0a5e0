// Tensor map arguments without a GPU: the .kpad form and its round trip, every driver rule
// checked before a run with the field it names, the 128-byte value as packed and checked
// against the kernel's parameters, and the signature's CUtensorMap rows.
#include "../support/TestMain.h"
#include "core/compile/KernelSignature.h"
#include "core/launch/ArgumentText.h"
#include "core/launch/Packing.h"
#include "core/project/Project.h"
#include "core/run/RunTensorMaps.h"

#include <cuda.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

namespace tst_tensormapspec {

using namespace kernelpad;

namespace {

ArgumentSpec bufferArgument(const QString& name, ScalarType type, const QString& count) {
    ArgumentSpec a;
    a.name = name;
    a.kind = ArgumentSpec::Kind::Buffer;
    a.buffer.elementType = ValueType::of(type);
    a.buffer.count = count;
    return a;
}

ArgumentSpec intArgument(const QString& name, const QString& value) {
    ArgumentSpec a;
    a.name = name;
    a.type = ValueType::of(ScalarType::Int32);
    a.value = value;
    return a;
}

/// A 2D float map over `src` (rows x cols floats), box 32 x 8, merged with `overrides`.
QJsonObject mapJson(const QJsonObject& overrides) {
    QJsonObject map{{"buffer", "src"},
                    {"globalDims", QJsonArray{"cols", "rows"}},
                    {"globalStrides", QJsonArray{"cols*4"}},
                    {"boxDims", QJsonArray{32, 8}}};
    for (auto it = overrides.begin(); it != overrides.end(); ++it)
        map.insert(it.key(), it.value());
    return {{"name", "map"}, {"kind", "tensorMap"}, {"tensorMap", map}};
}

/// The project's arguments around a map: src (float32, rows*cols), rows, cols.
QVector<ArgumentSpec> argsWith(const ArgumentSpec& map, ScalarType type = ScalarType::Float32) {
    return {bufferArgument("src", type, "rows*cols"), intArgument("rows", "32"),
            intArgument("cols", "64"), map};
}

} // namespace

class TestTensorMapSpec : public QObject {
    Q_OBJECT
private slots:
    void readsTheKpadForm();
    void roundTrips_data();
    void roundTrips();
    void refusedWhenRead_data();
    void refusedWhenRead();
    void refusedWhenResolved_data();
    void refusedWhenResolved();
    void addressAlignment();
    void everyElementTypeHasARow();
    void packsTheMapByValue();
    void checkedAgainstParams();
    void encodeRefusesABadMapBeforeTheDriver();
    void projectRoundTrip();
    void signatureMakesTensorMapRows();
};

void TestTensorMapSpec::readsTheKpadForm() {
    QString error;
    const auto arg = ArgumentSpec::fromJson(mapJson({{"swizzle", "64B"}}), &error);
    QVERIFY2(arg, qPrintable(error));
    QCOMPARE(arg->kind, ArgumentSpec::Kind::TensorMap);
    QCOMPARE(arg->tensorMap.rank(), 2);
    QCOMPARE(arg->tensorMap.globalStrides, QStringList{"cols*4"});
    QCOMPARE(arg->tensorMap.elementStrides, (QVector<int>{1, 1}));
    QCOMPARE(arg->tensorMap.swizzle, TensorMapSwizzle::B64);
    // 16 floats of 4 bytes fill the 64-byte span; 32 would not (see refusedWhenResolved).
    ArgumentSpec map = *arg;
    map.tensorMap.boxDims = {16, 8};
    const auto resolved = resolveTensorMap(map, argsWith(map), &error);
    QVERIFY2(resolved, qPrintable(error));
    QCOMPARE(resolved->bufferIndex, 0);
    QCOMPARE(resolved->globalDims[0], quint64(64));
    QCOMPARE(resolved->globalDims[1], quint64(32));
    QCOMPARE(resolved->globalStrides[0], quint64(256));
    QCOMPARE(resolved->dataType, int(CU_TENSOR_MAP_DATA_TYPE_FLOAT32));
}

void TestTensorMapSpec::roundTrips_data() {
    QTest::addColumn<QJsonObject>("overrides");
    QTest::newRow("tiled defaults") << QJsonObject{};
    QTest::newRow("every tiled field") << QJsonObject{{"swizzle", "128B_atom_32B_flip_8B"},
                                                      {"l2Promotion", "256B"},
                                                      {"oobFill", "nanRequestZeroFma"},
                                                      {"elementStrides", QJsonArray{1, 2}}};
    QTest::newRow("im2col") << QJsonObject{{"mode", "im2col"},
                                           {"globalDims", QJsonArray{16, 8, 8, 2}},
                                           {"globalStrides", QJsonArray{64, 512, 4096}},
                                           {"elementStrides", QJsonArray{1, 1, 1, 1}},
                                           {"lowerCorner", QJsonArray{-1, -1}},
                                           {"upperCorner", QJsonArray{1, 1}},
                                           {"channelsPerPixel", 16},
                                           {"pixelsPerColumn", 64}};
    QTest::newRow("interleave 32B") << QJsonObject{{"interleave", "32B"},
                                                   {"swizzle", "32B"},
                                                   {"globalDims", QJsonArray{8, 4, 4}},
                                                   {"globalStrides", QJsonArray{32, 128}},
                                                   {"boxDims", QJsonArray{8, 4, 4}}};
}

void TestTensorMapSpec::roundTrips() {
    QFETCH(QJsonObject, overrides);
    QString error;
    const auto arg = ArgumentSpec::fromJson(mapJson(overrides), &error);
    QVERIFY2(arg, qPrintable(error));
    const QJsonObject written = arg->toJson();
    const auto again = ArgumentSpec::fromJson(written, &error);
    QVERIFY2(again, qPrintable(error));
    QCOMPARE(again->toJson(), written);
    QVERIFY(again->tensorMap == arg->tensorMap);
    QVERIFY(sameArguments({*arg}, {*again}));
}

void TestTensorMapSpec::refusedWhenRead_data() {
    QTest::addColumn<QJsonObject>("overrides");
    QTest::addColumn<QString>("message");
    QTest::newRow("rank 6") << QJsonObject{{"globalDims", QJsonArray{1, 1, 1, 1, 1, 1}}}
                            << "tensorMap.globalDims: give 1 to 5 extents (the driver's rank "
                               "limit), got 6";
    QTest::newRow("strides count")
        << QJsonObject{{"globalStrides", QJsonArray{}}} << "tensorMap.globalStrides: give 1 values";
    QTest::newRow("box over 256") << QJsonObject{{"boxDims", QJsonArray{32, 300}}}
                                  << "tensorMap.boxDims[1]: 300 is outside 1 to 256 (the "
                                     "driver's limit on a box)";
    QTest::newRow("box zero") << QJsonObject{{"boxDims", QJsonArray{0, 8}}}
                              << "tensorMap.boxDims[0]: 0 is outside 1 to 256";
    QTest::newRow("box count") << QJsonObject{{"boxDims", QJsonArray{32}}}
                               << "tensorMap.boxDims: give 2 values (one per dimension), got 1";
    QTest::newRow("element stride 9")
        << QJsonObject{{"elementStrides", QJsonArray{1, 9}}}
        << "tensorMap.elementStrides[1]: 9 is outside 1 to 8 (the driver's rule)";
    QTest::newRow("interleave rank") << QJsonObject{{"interleave", "16B"}}
                                     << "tensorMap.interleave: 16B needs a rank of at least 3";
    QTest::newRow("interleave 32B swizzle")
        << QJsonObject{{"interleave", "32B"},
                       {"globalDims", QJsonArray{8, 4, 4}},
                       {"globalStrides", QJsonArray{32, 128}},
                       {"boxDims", QJsonArray{8, 4, 4}}}
        << "tensorMap.swizzle: interleave 32B needs swizzle 32B (the driver's rule), got none";
    QTest::newRow("im2col rank") << QJsonObject{{"mode", "im2col"}}
                                 << "tensorMap.mode: im2col needs a rank of 3 to 5";
    const QJsonObject im2col{{"mode", "im2col"},
                             {"globalDims", QJsonArray{16, 8, 8, 2}},
                             {"globalStrides", QJsonArray{64, 512, 4096}},
                             {"elementStrides", QJsonArray{1, 1, 1, 1}},
                             {"lowerCorner", QJsonArray{-1, -1}},
                             {"upperCorner", QJsonArray{1, 1}}};
    QJsonObject corner = im2col;
    corner.insert("lowerCorner", QJsonArray{-129, 0});
    QTest::newRow("im2col corner range")
        << corner
        << "tensorMap.lowerCorner[0]: -129 is outside [-128, 127], the driver's range "
           "for rank 4";
    QJsonObject corners = im2col;
    corners.insert("upperCorner", QJsonArray{1});
    QTest::newRow("im2col corner count") << corners << "tensorMap.upperCorner: give 2 values";
    QJsonObject channels = im2col;
    channels.insert("channelsPerPixel", 257);
    QTest::newRow("channels per pixel")
        << channels << "tensorMap.channelsPerPixel: 257 is outside 1 to 256";
    QJsonObject pixels = im2col;
    pixels.insert("pixelsPerColumn", 1025);
    QTest::newRow("pixels per column")
        << pixels << "tensorMap.pixelsPerColumn: 1025 is outside 1 to 1024";
    QTest::newRow("unknown swizzle")
        << QJsonObject{{"swizzle", "256B"}} << "tensorMap.swizzle: expected one of";
    QTest::newRow("no buffer") << QJsonObject{{"buffer", " "}} << "tensorMap.buffer: empty";
}

void TestTensorMapSpec::refusedWhenRead() {
    QFETCH(QJsonObject, overrides);
    QFETCH(QString, message);
    QString error;
    QVERIFY(!ArgumentSpec::fromJson(mapJson(overrides), &error));
    QVERIFY2(error.startsWith(message), qPrintable(error));
}

void TestTensorMapSpec::refusedWhenResolved_data() {
    QTest::addColumn<QJsonObject>("overrides");
    QTest::addColumn<int>("type");
    QTest::addColumn<QString>("message");
    const int f32 = int(ScalarType::Float32);
    QTest::newRow("no such buffer") << QJsonObject{{"buffer", "dst"}} << f32
                                    << "tensor map 'map': buffer: no argument named 'dst'";
    QTest::newRow("a scalar") << QJsonObject{{"buffer", "rows"}} << f32
                              << "tensor map 'map': buffer: 'rows' is not a buffer argument";
    QTest::newRow("int8 elements")
        << QJsonObject{{"boxDims", QJsonArray{32, 8}}} << int(ScalarType::Int8)
        << "tensor map 'map': buffer: a tensor map cannot hold int8 elements (TMA moves uint8, "
           "uint16, uint32, int32, uint64, int64, float16, float32, float64, bfloat16, "
           "float8_e4m3, float8_e5m2, float4_e2m1x2)";
    QTest::newRow("bool elements") << QJsonObject{} << int(ScalarType::Bool)
                                   << "tensor map 'map': buffer: a tensor map cannot hold bool";
    QTest::newRow("inner box not 16 bytes")
        << QJsonObject{{"boxDims", QJsonArray{6, 8}}} << f32
        << "tensor map 'map': boxDims[0]: the inner box, 6 × 4 bytes = 24 bytes, is not a "
           "multiple of 16 bytes (the driver's rule without interleave)";
    QTest::newRow("swizzle span")
        << QJsonObject{{"swizzle", "32B"}} << f32
        << "tensor map 'map': boxDims[0]: the inner box, 32 × 4 bytes = 128 bytes, exceeds the "
           "32-byte span of swizzle 32B (the driver's rule)";
    QTest::newRow("128B atom span")
        << QJsonObject{{"swizzle", "128B_atom_64B"}, {"boxDims", QJsonArray{64, 8}}} << f32
        << "tensor map 'map': boxDims[0]: the inner box, 64 × 4 bytes = 256 bytes, exceeds the "
           "128-byte span of swizzle 128B_atom_64B";
    QTest::newRow("nan fill on integers")
        << QJsonObject{{"oobFill", "nanRequestZeroFma"}} << int(ScalarType::Int32)
        << "tensor map 'map': oobFill: nanRequestZeroFma needs floating-point elements";
    QTest::newRow("stride not 16") << QJsonObject{{"globalStrides", QJsonArray{"cols*4+4"}}} << f32
                                   << "tensor map 'map': globalStrides[0]: 260 bytes is not a "
                                      "multiple of 16 (the driver's rule)";
    QTest::newRow("stride 2^40")
        << QJsonObject{{"globalStrides", QJsonArray{1099511627776.0}}} << f32
        << "tensor map 'map': globalStrides[0]: 1099511627776 bytes is not below 2^40";
    QTest::newRow("dim zero") << QJsonObject{{"globalDims", QJsonArray{0, "rows"}}} << f32
                              << "tensor map 'map': globalDims[0]: 0 is outside 1 to 2^32";
    QTest::newRow("dim over 2^32")
        << QJsonObject{{"globalDims", QJsonArray{4294967297.0, 1}}} << f32
        << "tensor map 'map': globalDims[0]: 4294967297 is outside 1 to 2^32 (the driver's rule)";
    QTest::newRow("unknown scalar") << QJsonObject{{"globalDims", QJsonArray{"width", "rows"}}}
                                    << f32 << "tensor map 'map': globalDims[0]: count 'width'";
    QTest::newRow("an extent times a stride past 2^64")
        << QJsonObject{{"globalDims", QJsonArray{"cols", 4294967296.0}},
                       {"globalStrides", QJsonArray{1099511627760.0}}}
        << f32 << "tensor map 'map': globalDims: the map reaches byte 2^64 but";
    QTest::newRow("beyond the buffer")
        << QJsonObject{{"globalDims", QJsonArray{"cols", "rows*2"}}} << f32
        << "tensor map 'map': globalDims: the map reaches byte 16384 but buffer 'src' holds "
           "8192 bytes";
}

void TestTensorMapSpec::refusedWhenResolved() {
    QFETCH(QJsonObject, overrides);
    QFETCH(int, type);
    QFETCH(QString, message);
    QString error;
    const auto arg = ArgumentSpec::fromJson(mapJson(overrides), &error);
    QVERIFY2(arg, qPrintable(error));
    const QVector<ArgumentSpec> args = argsWith(*arg, ScalarType(type));
    QVERIFY(!resolveTensorMap(*arg, args, &error));
    QVERIFY2(error.startsWith(message), qPrintable(error));
    // The argument table shows the same sentence.
    QCOMPARE(argumentProblem(args, 3, ArgumentPart::Value), error);
}

void TestTensorMapSpec::addressAlignment() {
    TensorMapSpec spec;
    spec.buffer = "src";
    QCOMPARE(tensorMapAddressProblem(spec, 0x7f0000000010), QString());
    QCOMPARE(tensorMapAddressProblem(spec, 0x7f0000000008),
             QStringLiteral("buffer: the address of 'src' (0x7f0000000008) is not 16-byte aligned "
                            "(the driver's rule)"));
    spec.interleave = TensorMapInterleave::B32;
    QVERIFY(tensorMapAddressProblem(spec, 0x7f0000000010).contains("32-byte aligned"));
}

void TestTensorMapSpec::everyElementTypeHasARow() {
    QCOMPARE(tensorMapDataType(ScalarType::Float16),
             std::optional<int>(CU_TENSOR_MAP_DATA_TYPE_FLOAT16));
    QCOMPARE(tensorMapDataType(ScalarType::UInt8),
             std::optional<int>(CU_TENSOR_MAP_DATA_TYPE_UINT8));
    QCOMPARE(tensorMapDataType(ScalarType::Int64),
             std::optional<int>(CU_TENSOR_MAP_DATA_TYPE_INT64));
    QCOMPARE(tensorMapDataType(ScalarType::Float64),
             std::optional<int>(CU_TENSOR_MAP_DATA_TYPE_FLOAT64));
    QVERIFY(!tensorMapDataType(ScalarType::Int16));
    QVERIFY(!tensorMapDataType(ScalarType::Complex64));
}

void TestTensorMapSpec::packsTheMapByValue() {
    const ArgumentSpec map = makeTensorMapArgument("map", "src");
    const QVector<ArgumentSpec> args{bufferArgument("src", ScalarType::Float32, "64"), map};
    QByteArray encoded(kTensorMapBytes, '\0');
    for (int i = 0; i < encoded.size(); ++i)
        encoded[i] = char(i);
    QString error;
    auto packed = PackedArgs::pack(args, {0xd000, 0}, &error, {QByteArray(), encoded});
    QVERIFY2(packed, qPrintable(error));
    QCOMPARE(packed->sizeOf(1), qint64(kTensorMapBytes));
    QCOMPARE(QByteArray(static_cast<const char*>(packed->bytesOf(1)), kTensorMapBytes), encoded);
    // Without its encoded bytes the map is not packed as anything else.
    QVERIFY(!PackedArgs::pack(args, {0xd000, 0}, &error));
    QCOMPARE(error, QStringLiteral("argument 'map': the tensor map was not encoded"));
}

void TestTensorMapSpec::checkedAgainstParams() {
    const QVector<ArgumentSpec> args{bufferArgument("src", ScalarType::Float32, "64"),
                                     makeTensorMapArgument("map", "src")};
    QVector<ParamLayout> params{{0, 8}, {64, 128}};
    QCOMPARE(checkAgainstParams(args, params, "copy"), QString());
    params[1].sizeBytes = 8; // the kernel takes a pointer where the table has a tensor map
    const QString message = checkAgainstParams(args, params, "copy");
    QVERIFY2(message.contains("argument 'map' (a tensor map, passed as a 128-byte `const "
                              "__grid_constant__ CUtensorMap`) does not match parameter 2"),
             qPrintable(message));
}

void TestTensorMapSpec::encodeRefusesABadMapBeforeTheDriver() {
    // No driver here: the rules refuse the map before cuTensorMapEncodeTiled would be called.
    QString error;
    auto arg = ArgumentSpec::fromJson(mapJson({{"globalStrides", QJsonArray{100}}}), &error);
    QVERIFY2(arg, qPrintable(error));
    const QVector<ArgumentSpec> args = argsWith(*arg);
    QVERIFY(!encodeTensorMaps(args, {0x10000, 0, 0, 0}, &error));
    QCOMPARE(error, QStringLiteral("tensor map 'map': globalStrides[0]: 100 bytes is not a "
                                   "multiple of 16 (the driver's rule)"));
    // Arguments without a map need no driver either.
    const auto none = encodeTensorMaps({args[0], args[1]}, {0x10000, 0}, &error);
    QVERIFY(none);
    QCOMPARE(none->size(), 2);
    QVERIFY(!hasTensorMaps({args[0], args[1]}));
    QVERIFY(hasTensorMaps(args));
}

void TestTensorMapSpec::projectRoundTrip() {
    Project p;
    p.name = "tma";
    p.source = "#include <cuda.h>\nextern \"C\" __global__ void k(float* src, int rows, int "
               "cols, const __grid_constant__ CUtensorMap map) {}";
    p.kernel = "k";
    QString error;
    const auto map = ArgumentSpec::fromJson(
        mapJson({{"swizzle", "128B"}, {"l2Promotion", "128B"}, {"oobFill", "nanRequestZeroFma"}}),
        &error);
    QVERIFY2(map, qPrintable(error));
    p.arguments = argsWith(*map);
    const auto back = Project::fromJson(p.toJson(), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->arguments.size(), 4);
    QCOMPARE(back->arguments[3].kind, ArgumentSpec::Kind::TensorMap);
    QVERIFY(back->arguments[3].tensorMap == map->tensorMap);
    QCOMPARE(back->arguments[3].tensorMap.swizzle, TensorMapSwizzle::B128);
    QCOMPARE(back->arguments[3].tensorMap.oobFill, TensorMapOobFill::NanRequestZeroFma);
    QVERIFY(sameArguments(back->arguments, p.arguments));
}

void TestTensorMapSpec::signatureMakesTensorMapRows() {
    const QString source =
        "#include <cuda.h>\n"
        "extern \"C\" __global__ void copy(const float* src, float* dst,\n"
        "    const __grid_constant__ CUtensorMap inMap, const CUtensorMap_st outMap, int n) {}\n";
    KernelInfo kernel;
    kernel.name = "copy";
    const QVector<ArgumentSpec> args = argumentsForKernel(kernel, source, {});
    QCOMPARE(args.size(), 5);
    QCOMPARE(args[2].kind, ArgumentSpec::Kind::TensorMap);
    QCOMPARE(args[2].name, QStringLiteral("inMap"));
    QCOMPARE(args[2].tensorMap.buffer, QStringLiteral("src"));
    QCOMPARE(args[3].kind, ArgumentSpec::Kind::TensorMap);
    QCOMPARE(args[4].kind, ArgumentSpec::Kind::Scalar);
    // A map the user set up survives the next compile's sync.
    QVector<ArgumentSpec> edited = args;
    edited[2].tensorMap.buffer = "dst";
    edited[2].tensorMap.swizzle = TensorMapSwizzle::B64;
    const QVector<ArgumentSpec> again = argumentsForKernel(kernel, source, edited);
    QCOMPARE(again[2].tensorMap.buffer, QStringLiteral("dst"));
    QCOMPARE(again[2].tensorMap.swizzle, TensorMapSwizzle::B64);
}

KERNELPAD_TEST_GUILESS_MAIN(TestTensorMapSpec)
} // namespace tst_tensormapspec
#include "tst_tensormapspec.moc"
