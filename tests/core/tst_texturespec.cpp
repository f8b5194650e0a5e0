// Texture and surface arguments without a GPU: the .kpad form and its round trip, every
// refused combination with the field it names, the device-limit messages, and the 8-byte
// handle as packed and checked against the kernel's parameters.
#include "../support/TestMain.h"
#include "core/compile/KernelSignature.h"
#include "core/launch/BufferInit.h"
#include "core/launch/Packing.h"
#include "core/launch/TextureArgument.h"
#include "core/project/Project.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

#include <cstring>
#include <limits>

namespace tst_texturespec {

using namespace kernelpad;

namespace {

QJsonObject parse(const char* text) {
    return QJsonDocument::fromJson(QByteArray(text)).object();
}

/// A texture argument's JSON with `texture` merged over a valid 2D float texture.
QJsonObject textureJson(const QJsonObject& overrides, const char* kind = "texture") {
    QJsonObject texture{{"dims", QJsonArray{64, 32}}, {"channelType", "float32"}, {"channels", 1}};
    for (auto it = overrides.begin(); it != overrides.end(); ++it)
        texture.insert(it.key(), it.value());
    return {{"name", "tex"}, {"kind", kind}, {"texture", texture}};
}

TextureLimits h100LikeLimits() {
    TextureLimits l;
    l.texture[size_t(ArrayShape::D1)] = {131072, 0, 0, 0};
    l.texture[size_t(ArrayShape::D2)] = {65536, 65536, 0, 0};
    l.texture[size_t(ArrayShape::D3)] = {16384, 16384, 16384, 0};
    l.texture[size_t(ArrayShape::D2Layered)] = {32768, 32768, 0, 2048};
    l.texture[size_t(ArrayShape::Cubemap)] = {32768, 32768, 0, 0};
    l.texture[size_t(ArrayShape::CubemapLayered)] = {32768, 32768, 0, 2046};
    l.surface[size_t(ArrayShape::D2)] = {32768, 65536, 0, 0};
    return l;
}

} // namespace

class TestTextureSpec : public QObject {
    Q_OBJECT

private slots:
    void readsTheKpadForm();
    void roundTrips_data();
    void roundTrips();
    void refused_data();
    void refused();
    void addressPerDimension();
    void contentsFollowTheArray_data();
    void contentsFollowTheArray();
    void limits_data();
    void limits();
    void countsSaturateInsteadOfWrapping();
    void packsTheHandle();
    void checkedAgainstParams();
    void scalarsIgnoreTextures();
    void projectRoundTrip();
    void signatureMakesTextureRows();
};

void TestTextureSpec::readsTheKpadForm() {
    QString error;
    const auto arg = ArgumentSpec::fromJson(parse(R"({
        "name": "tex", "kind": "texture",
        "texture": { "dims": [64, 64], "cubemap": true, "channelType": "float32", "channels": 1,
                     "filter": "linear", "address": "wrap", "normalizedCoords": true,
                     "readMode": "element", "init": { "kind": "iota", "start": 0, "step": 1 } } })"),
                                            &error);
    QVERIFY2(arg, qPrintable(error));
    QCOMPARE(arg->kind, ArgumentSpec::Kind::Texture);
    QVERIFY(arg->isImage() && !arg->isBuffer() && !arg->isScalar());
    QCOMPARE(arg->texture.shape(), ArrayShape::Cubemap);
    QCOMPARE(arg->texture.texelCount(), qint64(64 * 64 * 6));
    QCOMPARE(arg->texture.filter, TextureFilter::Linear);
    QCOMPARE(arg->texture.address[2], TextureAddress::Wrap);
    QVERIFY(arg->texture.normalizedCoords);
    QCOMPARE(arg->buffer.init.kind, InitSpec::Kind::Iota);
    QCOMPARE(arg->buffer.count, QStringLiteral("24576"));
    QCOMPARE(arg->buffer.elementType, ValueType::of(ScalarType::Float32));
    QCOMPARE(arg->buffer.direction, Direction::In);
    QVERIFY(textureArgumentProblem(*arg).isEmpty());
}

void TestTextureSpec::countsSaturateInsteadOfWrapping() {
    TextureSpec spec;
    spec.dims = {2097152, 2097152, 4194304};
    spec.channels = 4;
    QString field;
    QVERIFY(!spec.checkedTexelCount(&field));
    QCOMPARE(field, QStringLiteral("dims"));
    QCOMPARE(spec.texelCount(), std::numeric_limits<qint64>::max());
    QCOMPARE(spec.elementCount(), std::numeric_limits<qint64>::max());
    spec.dims = {64, 64, 0};
    spec.layers = 3;
    QCOMPARE(spec.checkedTexelCount(), std::optional<qint64>(64 * 64 * 3));
    QCOMPARE(spec.elementCount(), qint64(64 * 64 * 3 * 4));
}

void TestTextureSpec::roundTrips_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::newRow("1D uint8 x4 normalized float, border")
        << QByteArray(R"({"name":"t","kind":"texture","texture":{"dims":[256],"channelType":"uint8",
            "channels":4,"filter":"linear","address":"border","normalizedCoords":false,
            "readMode":"normalizedFloat","borderColor":[1,0,0.5,1],"init":{"kind":"uniform",
            "low":0,"high":255,"seed":4}}})");
    QTest::newRow("3D half, clamp") << QByteArray(
        R"({"name":"t","kind":"texture","texture":{"dims":[16,8,4],"channelType":"float16",
            "channels":2,"filter":"point","address":"clamp","normalizedCoords":false,
            "readMode":"element","init":{"kind":"zeros"}}})");
    QTest::newRow("2D layered int16, mirror/wrap per dimension") << QByteArray(
        R"({"name":"t","kind":"texture","texture":{"dims":[32,16],"layers":3,"channelType":"int16",
            "channels":1,"filter":"point","address":["mirror","wrap"],"normalizedCoords":true,
            "readMode":"element","init":{"kind":"ones"}}})");
    QTest::newRow("layered cubemap") << QByteArray(
        R"({"name":"t","kind":"texture","texture":{"dims":[8,8],"layers":2,"cubemap":true,
            "channelType":"float32","channels":4,"filter":"linear","address":"clamp",
            "normalizedCoords":true,"readMode":"element","init":{"kind":"iota","start":0,"step":1}}})");
    QTest::newRow("surface out, verified") << QByteArray(
        R"({"name":"s","kind":"surface","texture":{"dims":[64,64],"channelType":"uint32",
            "channels":1,"init":{"kind":"zeros"},"direction":"out",
            "verify":{"kind":"expression","expression":"i*2","atol":0,"rtol":0}}})");
}

void TestTextureSpec::roundTrips() {
    QFETCH(QByteArray, json);
    QJsonParseError parseError;
    const QJsonObject input = QJsonDocument::fromJson(json, &parseError).object();
    QCOMPARE(parseError.error, QJsonParseError::NoError);
    QString error;
    const auto arg = ArgumentSpec::fromJson(input, &error);
    QVERIFY2(arg, qPrintable(error));
    const QJsonObject written = arg->toJson();
    const auto again = ArgumentSpec::fromJson(written, &error);
    QVERIFY2(again, qPrintable(error));
    QCOMPARE(again->kind, arg->kind);
    QVERIFY(again->texture == arg->texture);
    QCOMPARE(again->buffer.count, arg->buffer.count);
    QCOMPARE(again->buffer.direction, arg->buffer.direction);
    QCOMPARE(again->toJson(), written);
    // Every field of the input survives (the writer may add defaults, never drop one).
    const QJsonObject in = input.value("texture").toObject();
    const QJsonObject out = written.value("texture").toObject();
    for (auto it = in.begin(); it != in.end(); ++it)
        QVERIFY2(out.contains(it.key()), qPrintable(it.key()));
}

void TestTextureSpec::refused_data() {
    QTest::addColumn<QJsonObject>("json");
    QTest::addColumn<QString>("message");
    QTest::newRow("linear filter on int32 read as elements")
        << textureJson({{"channelType", "int32"}, {"filter", "linear"}})
        << "texture.filter: linear filtering needs floating-point texels, but int32";
    QTest::newRow("normalizedFloat on float32")
        << textureJson({{"readMode", "normalizedFloat"}})
        << "texture.readMode: normalizedFloat converts 8- and 16-bit";
    QTest::newRow("normalizedFloat on int32")
        << textureJson({{"channelType", "int32"}, {"readMode", "normalizedFloat"}})
        << "texture.readMode: normalizedFloat";
    QTest::newRow("cubemap not square")
        << textureJson({{"cubemap", true}, {"dims", QJsonArray{64, 32}}})
        << "texture.cubemap: the 6 faces must be square; give two equal dims (got 64 x 32";
    QTest::newRow("cubemap of one dim")
        << textureJson({{"cubemap", true}, {"dims", QJsonArray{64}}}) << "texture.cubemap:";
    QTest::newRow("layered 3D") << textureJson({{"layers", 4}, {"dims", QJsonArray{8, 8, 8}}})
                                << "texture.layers: a 3D array cannot be layered";
    QTest::newRow("3 channels") << textureJson({{"channels", 3}})
                                << "texture.channels: 3 (a CUDA array holds 1, 2 or 4";
    QTest::newRow("float64 channel") << textureJson({{"channelType", "float64"}})
                                     << "texture.channelType: expected one of float32";
    QTest::newRow("wrap without normalized coordinates")
        << textureJson({{"address", "wrap"}}) << "texture.address: wrap needs normalizedCoords";
    QTest::newRow("unknown filter")
        << textureJson({{"filter", "cubic"}}) << "texture.filter: expected one of point, linear";
    QTest::newRow("zero width") << textureJson({{"dims", QJsonArray{0, 4}}}) << "texture.dims[0]";
    QTest::newRow("four dims") << textureJson({{"dims", QJsonArray{1, 2, 3, 4}}})
                               << "texture.dims: expected an array of 1 to 3";
    QTest::newRow("larger than a buffer may be")
        << textureJson({{"dims", QJsonArray{65536, 65536, 8}}, {"channels", 4}})
        << "texture.dims: 65536 x 65536 x 8 texels of 16 bytes exceed the 16 GiB KernelPad "
           "allows for one buffer";
    // 2^21 x 2^21 x 2^22 = 2^64 texels wrapped to 0 and passed the bound above.
    QTest::newRow("extents overflow 64 bits")
        << textureJson({{"dims", QJsonArray{2097152, 2097152, 4194304}}})
        << "texture.dims: 2097152 x 2097152 x 4194304 texels overflow a 64-bit count";
    QTest::newRow("cubemap faces overflow 64 bits")
        << textureJson({{"dims", QJsonArray{2147483647, 2147483647}}, {"cubemap", true}})
        << "texture.dims: 2147483647 x 2147483647 x 6 faces texels overflow a 64-bit count";
    QTest::newRow("layers overflow 64 bits")
        << textureJson({{"dims", QJsonArray{2147483647, 2147483647}}, {"layers", 2147483647}})
        << "texture.layers: 2147483647 x 2147483647 x 2147483647 layers texels overflow";
    QTest::newRow("texture written by the kernel")
        << textureJson({{"direction", "out"}}) << "texture.direction: a texture is read-only";
    QTest::newRow("texture verified")
        << textureJson({{"verify", QJsonObject{{"kind", "expression"}, {"expression", "i"}}}})
        << "texture.verify: a texture is read-only";
    QTest::newRow("surface against a reference kernel")
        << textureJson({{"verify", QJsonObject{{"kind", "reference"}, {"referenceKernel", "r"}}}},
                       "surface")
        << "texture.verify: a surface is checked against an expression or a .npy";
    QTest::newRow("no texture object")
        << QJsonObject{{"name", "t"}, {"kind", "texture"}} << "texture: missing";
    QTest::newRow("bad init")
        << textureJson({{"init", QJsonObject{{"kind", "uniform"}, {"low", 2}, {"high", 1}}}})
        << "texture.init.low: 2 is above high (1)";
    // Every field is read through core/io/JsonFields: a wrong type names the field's path and
    // says what was expected and what came, as every other loader says it.
    QTest::newRow("dims a string") << textureJson({{"dims", "wide"}})
                                   << "texture.dims: expected an array of 1 to 3 whole numbers, "
                                      "got a string";
    QTest::newRow("dims of an object") << textureJson({{"dims", QJsonArray{4, QJsonObject{}}}})
                                       << "texture.dims[1]: expected a whole number, got an object";
    QTest::newRow("fractional dims") << textureJson({{"dims", QJsonArray{4.5}}})
                                     << "texture.dims[0]: expected a whole number, got 4.5";
    QTest::newRow("dims beyond int") << textureJson({{"dims", QJsonArray{4294967296.0}}})
                                     << "texture.dims[0]: must be at most 2147483647";
    QTest::newRow("negative layers")
        << textureJson({{"layers", -1}}) << "texture.layers: must be >= 0 (got -1)";
    QTest::newRow("layers a string") << textureJson({{"layers", "4"}})
                                     << "texture.layers: expected a whole number, got a string";
    QTest::newRow("cubemap a string")
        << textureJson({{"cubemap", "yes"}}) << "texture.cubemap: expected a boolean, got a string";
    QTest::newRow("channelType a number") << textureJson({{"channelType", 4}})
                                          << "texture.channelType: expected a string, got a number";
    QTest::newRow("zero channels")
        << textureJson({{"channels", 0}}) << "texture.channels: must be >= 1 (got 0)";
    QTest::newRow("filter a number")
        << textureJson({{"filter", 1}})
        << "texture.filter: expected one of point, linear, got a number";
    QTest::newRow("normalizedCoords a number")
        << textureJson({{"normalizedCoords", 1}})
        << "texture.normalizedCoords: expected a boolean, got a number";
    QTest::newRow("unknown readMode")
        << textureJson({{"readMode", "raw"}})
        << "texture.readMode: expected one of element, normalizedFloat, got 'raw'";
    QTest::newRow("address a number")
        << textureJson({{"address", 2}})
        << "texture.address: expected a mode (wrap, clamp, mirror, border) or an array of them, "
           "got a number";
    QTest::newRow("unknown address of the second dimension")
        << textureJson({{"address", QJsonArray{"clamp", "spiral"}}, {"normalizedCoords", true}})
        << "texture.address[1]: expected one of wrap, clamp, mirror, border, got 'spiral'";
    QTest::newRow("borderColor a string")
        << textureJson({{"address", "border"}, {"borderColor", "red"}})
        << "texture.borderColor: expected an array, got a string";
    QTest::newRow("borderColor of three")
        << textureJson({{"address", "border"}, {"borderColor", QJsonArray{0, 0, 0}}})
        << "texture.borderColor: expected 4 numbers (r, g, b, a), got 3";
    QTest::newRow("borderColor with a string")
        << textureJson({{"address", "border"}, {"borderColor", QJsonArray{0, 0, "1", 1}}})
        << "texture.borderColor[2]: expected a number, got a string";
    QTest::newRow("texture a string")
        << QJsonObject{{"name", "t"}, {"kind", "texture"}, {"texture", "x"}}
        << "texture: expected an object, got a string";
    QTest::newRow("init a string")
        << textureJson({{"init", "zeros"}}) << "texture.init: expected an object, got a string";
    QTest::newRow("surface direction a number")
        << textureJson({{"direction", 1}}, "surface")
        << "texture.direction: expected a string, got a number";
    QTest::newRow("verify an array") << textureJson({{"verify", QJsonArray{}}}, "surface")
                                     << "texture.verify: expected an object, got an array";
}

void TestTextureSpec::refused() {
    QFETCH(QJsonObject, json);
    QFETCH(QString, message);
    QString error;
    QVERIFY(!ArgumentSpec::fromJson(json, &error));
    QVERIFY2(error.startsWith(message), qPrintable(error));
}

void TestTextureSpec::addressPerDimension() {
    QString error;
    const auto arg = ArgumentSpec::fromJson(
        textureJson({{"address", QJsonArray{"border", "clamp"}}, {"normalizedCoords", true}}),
        &error);
    QVERIFY2(arg, qPrintable(error));
    QCOMPARE(arg->texture.address[0], TextureAddress::Border);
    QCOMPARE(arg->texture.address[1], TextureAddress::Clamp);
    QCOMPARE(arg->texture.address[2], TextureAddress::Clamp); // the last given repeats
    const QJsonObject written = arg->toJson().value("texture").toObject();
    QCOMPARE(written.value("address").toArray(), (QJsonArray{"border", "clamp"}));
    QVERIFY(written.contains("borderColor"));
}

void TestTextureSpec::contentsFollowTheArray_data() {
    QTest::addColumn<QJsonObject>("json");
    QTest::addColumn<qint64>("elements");
    QTest::addColumn<int>("texelBytes");
    QTest::addColumn<QString>("extent");
    QTest::newRow("1D float") << textureJson({{"dims", QJsonArray{100}}}) << qint64(100) << 4
                              << "100";
    QTest::newRow("2D uchar4") << textureJson({{"channelType", "uint8"}, {"channels", 4}})
                               << qint64(64 * 32 * 4) << 4 << "64 x 32";
    QTest::newRow("3D half2") << textureJson({{"dims", QJsonArray{4, 5, 6}},
                                              {"channelType", "float16"},
                                              {"channels", 2}})
                              << qint64(4 * 5 * 6 * 2) << 4 << "4 x 5 x 6";
    QTest::newRow("1D layered") << textureJson({{"dims", QJsonArray{10}}, {"layers", 3}})
                                << qint64(30) << 4 << "10 x 3 layers";
    QTest::newRow("layered cubemap of int16x2")
        << textureJson({{"dims", QJsonArray{4, 4}},
                        {"layers", 2},
                        {"cubemap", true},
                        {"channelType", "int16"},
                        {"channels", 2}})
        << qint64(4 * 4 * 6 * 2 * 2) << 4 << "4 x 4 x 6 faces x 2 layers";
}

void TestTextureSpec::contentsFollowTheArray() {
    QFETCH(QJsonObject, json);
    QFETCH(qint64, elements);
    QFETCH(int, texelBytes);
    QFETCH(QString, extent);
    QString error;
    const auto arg = ArgumentSpec::fromJson(json, &error);
    QVERIFY2(arg, qPrintable(error));
    QCOMPARE(arg->texture.elementCount(), elements);
    QCOMPARE(arg->buffer.count, QString::number(elements));
    QCOMPARE(arg->buffer.elementType, arg->texture.elementType());
    QCOMPARE(arg->texture.texelBytes(), texelBytes);
    QCOMPARE(arg->texture.extentText(), extent);
}

void TestTextureSpec::limits_data() {
    QTest::addColumn<QJsonObject>("json");
    QTest::addColumn<QString>("message");
    QTest::newRow("fits") << textureJson({{"dims", QJsonArray{65536, 16}}}) << QString();
    QTest::newRow("2D width") << textureJson({{"dims", QJsonArray{70000, 16}}})
                              << "texture 'tex': width 70000 exceeds the device's 2D texture "
                                 "limit of 65536";
    QTest::newRow("3D depth")
        << textureJson({{"dims", QJsonArray{16, 16, 20000}}})
        << "texture 'tex': depth 20000 exceeds the device's 3D texture limit of 16384";
    QTest::newRow("layers") << textureJson({{"dims", QJsonArray{16, 16}}, {"layers", 3000}})
                            << "texture 'tex': layers 3000 exceeds the device's 2D layered "
                               "texture limit of 2048 layers";
    QTest::newRow("cubemap layers count faces")
        << textureJson({{"dims", QJsonArray{4, 4}}, {"cubemap", true}, {"layers", 342}})
        << "texture 'tex': 342 layers (2052 faces) exceed the device's cubemap layered "
           "texture limit of 2046 faces";
    QTest::newRow("surface width has its own limit")
        << textureJson({{"dims", QJsonArray{40000, 16}}, {"direction", "out"}}, "surface")
        << "surface 'tex': width 40000 exceeds the device's 2D surface limit of 32768";
    QTest::newRow("unknown limits check nothing")
        << textureJson({{"dims", QJsonArray{100000}}, {"layers", 5}}) << QString();
}

void TestTextureSpec::limits() {
    QFETCH(QJsonObject, json);
    QFETCH(QString, message);
    QString error;
    const auto arg = ArgumentSpec::fromJson(json, &error);
    QVERIFY2(arg, qPrintable(error));
    QCOMPARE(checkTextureLimits(imageLabel(*arg), arg->texture,
                                arg->kind == ArgumentSpec::Kind::Surface, h100LikeLimits()),
             message);
}

void TestTextureSpec::packsTheHandle() {
    ArgumentSpec width;
    width.name = "width";
    width.type = ValueType::of(ScalarType::Int32);
    width.value = "64";
    ArgumentSpec out;
    out.name = "out";
    out.kind = ArgumentSpec::Kind::Buffer;
    const QVector<ArgumentSpec> args{out, width, makeTextureArgument("tex", false),
                                     makeTextureArgument("surf", true)};
    const quint64 handle = 0x1234'5678'9abc'def0ULL;
    QString error;
    std::optional<PackedArgs> packed = PackedArgs::pack(args, {0xd000, 0, handle, 7}, &error);
    QVERIFY2(packed, qPrintable(error));
    QCOMPARE(packed->count(), 4);
    QCOMPARE(packed->sizeOf(2), qint64(8));
    QCOMPARE(packed->sizeOf(3), qint64(8));
    quint64 got = 0;
    std::memcpy(&got, packed->bytesOf(2), sizeof(got));
    QCOMPARE(got, handle);
    std::memcpy(&got, packed->bytesOf(3), sizeof(got));
    QCOMPARE(got, quint64(7));
    // No handle for it: refused with the name, never packed as 0 by accident of the index.
    QVERIFY(!PackedArgs::pack(args, {0xd000, 0, handle}, &error));
    QVERIFY2(error.contains("'surf'"), qPrintable(error));
}

void TestTextureSpec::checkedAgainstParams() {
    // transformKernel(float* g_odata, int width, cudaTextureObject_t tex): 8, 4, 8 bytes.
    ArgumentSpec out;
    out.name = "g_odata";
    out.kind = ArgumentSpec::Kind::Buffer;
    ArgumentSpec width;
    width.name = "width";
    width.type = ValueType::of(ScalarType::Int32);
    const QVector<ArgumentSpec> args{out, width, makeTextureArgument("tex", false)};
    QVector<ParamLayout> params{{0, 8}, {8, 4}, {16, 8}};
    QCOMPARE(checkAgainstParams(args, params, "transformKernel"), QString());
    params[2].sizeBytes = 4; // the kernel takes an int where the table has a texture
    const QString message = checkAgainstParams(args, params, "transformKernel");
    QVERIFY2(message.contains("argument 'tex' (a texture object, passed as an 8-byte handle) "
                              "does not match parameter 3 of kernel 'transformKernel', which "
                              "takes 4 bytes"),
             qPrintable(message));
}

void TestTextureSpec::scalarsIgnoreTextures() {
    ArgumentSpec n;
    n.name = "n";
    n.type = ValueType::of(ScalarType::Int32);
    n.value = "5";
    const QVector<ArgumentSpec> args{makeTextureArgument("tex", false), n};
    QCOMPARE(elementsToCover(args), qint64(5));
    QString error;
    QVERIFY(!resolveCount("tex*2", args, &error));
    QVERIFY2(error.contains("'tex' is a texture, not an integer scalar"), qPrintable(error));
}

void TestTextureSpec::projectRoundTrip() {
    Project p;
    p.name = "textures";
    p.source = "extern \"C\" __global__ void k(cudaTextureObject_t t, cudaSurfaceObject_t s) {}";
    p.kernel = "k";
    ArgumentSpec tex = makeTextureArgument("t", false);
    tex.texture.filter = TextureFilter::Linear;
    tex.texture.normalizedCoords = true;
    tex.texture.address.fill(TextureAddress::Mirror);
    ArgumentSpec surf = makeTextureArgument("s", true);
    surf.texture.channelType = ScalarType::UInt8;
    surf.texture.channels = 4;
    syncTextureContents(surf);
    surf.buffer.verify.kind = VerifySpec::Kind::Expression;
    surf.buffer.verify.expression = "255";
    p.arguments = {tex, surf};
    QString error;
    const auto back = Project::fromJson(p.toJson(), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->arguments.size(), 2);
    QVERIFY(back->arguments[0].texture == tex.texture);
    QCOMPARE(back->arguments[1].kind, ArgumentSpec::Kind::Surface);
    QVERIFY(back->arguments[1].texture == surf.texture);
    QCOMPARE(back->arguments[1].buffer.count, QString::number(64 * 64 * 4));
    QCOMPARE(back->arguments[1].buffer.verify.expression, QStringLiteral("255"));
}

void TestTextureSpec::signatureMakesTextureRows() {
    // The seed's transformKernel, as File > Open of a .cu (or kernelpad-cli init) reads it.
    const QString source = "extern \"C\" __global__ void transformKernel(float* g_odata, int "
                           "width, cudaTextureObject_t tex, cudaSurfaceObject_t surf) {}";
    KernelInfo kernel;
    kernel.name = "transformKernel";
    const QVector<ArgumentSpec> args = argumentsForKernel(kernel, source, {});
    QCOMPARE(args.size(), 4);
    QCOMPARE(args[2].kind, ArgumentSpec::Kind::Texture);
    QCOMPARE(args[3].kind, ArgumentSpec::Kind::Surface);
    QVERIFY(textureArgumentProblem(args[2]).isEmpty());
    // A texture the user set up survives the next compile's sync.
    QVector<ArgumentSpec> edited = args;
    edited[2].texture.cubemap = true;
    const QVector<ArgumentSpec> again = argumentsForKernel(kernel, source, edited);
    QCOMPARE(again[2].kind, ArgumentSpec::Kind::Texture);
    QVERIFY(again[2].texture.cubemap);
}

KERNELPAD_TEST_GUILESS_MAIN(TestTextureSpec)
} // namespace tst_texturespec
#include "tst_texturespec.moc"
