// bfloat16, float8 and packed float4 wherever a type appears on the host: verification with
// an ulp tolerance and the worst error in ulps, .npy files as NumPy saves ml_dtypes arrays,
// buffer initialisation, scalar arguments typed as text, verify specs in JSON and text.
#include "../support/TestMain.h"
#include "core/launch/ArgumentSpec.h"
#include "core/launch/ArgumentText.h"
#include "core/launch/BufferInit.h"
#include "core/launch/Npy.h"
#include "core/launch/Packing.h"
#include "core/launch/ScalarCodec.h"
#include "core/verify/Verify.h"

#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>

namespace tst_lowprecisiontypes {

using namespace kernelpad;

namespace {

QByteArray bf16Bytes(std::initializer_list<quint16> bits) {
    QByteArray out;
    for (const quint16 b : bits)
        out.append(reinterpret_cast<const char*>(&b), sizeof b);
    return out;
}

QByteArray floatBytes(std::initializer_list<float> values) {
    QByteArray out;
    for (const float v : values)
        out.append(reinterpret_cast<const char*>(&v), sizeof v);
    return out;
}

quint16 bf16At(const QByteArray& bytes, int i) {
    quint16 b;
    std::memcpy(&b, bytes.constData() + 2 * i, 2);
    return b;
}

} // namespace

class TestLowPrecisionTypes : public QObject {
    Q_OBJECT
private slots:
    void bf16UlpTolerance();
    void float32UlpError();
    void ulpOrAbsRelIsEnough();
    void fp4x2ComparesBothNibbles();
    void verifySpecJsonUlp();
    void verifySpecText();
    void npyVoidDescrTakesBufferType();
    void npyNamedAndF1Descrs();
    void initPatterns();
    void scalarArguments();
    void doublesToBytesRoundsOnce();
    void reportJsonCarriesUlps();
};

void TestLowPrecisionTypes::bf16UlpTolerance() {
    const ValueType bf16 = ValueType::of(ScalarType::BFloat16);
    // 1.0 and 2.0 expected; got one ulp above 1 (0x3F81) and exactly 2.
    const QByteArray expected = bf16Bytes({0x3F80, 0x4000});
    const QByteArray got = bf16Bytes({0x3F81, 0x4000});
    BufferVerification r = compareBuffers(bf16, got, expected, 2, 0, 0, 1);
    QVERIFY(r.passed);
    QCOMPARE(r.maxUlpError, 1.0);
    QCOMPARE(r.maxAbsError, 0x1p-7);
    r = compareBuffers(bf16, got, expected, 2, 0, 0, 0.5);
    QVERIFY(!r.passed);
    QCOMPARE(r.mismatches, qint64(1));
    QCOMPARE(r.firstMismatches.value(0).index, qint64(0));
    // Without any tolerance the one-ulp difference fails too, and still reports 1 ulp.
    r = compareBuffers(bf16, got, expected, 2, 0, 0);
    QVERIFY(!r.passed);
    QCOMPARE(r.maxUlpError, 1.0);
}

void TestLowPrecisionTypes::float32UlpError() {
    const float one = 1.0f;
    const float above = std::nextafter(one, 2.0f);
    const float twoAbove = std::nextafter(above, 2.0f);
    const ValueType f32 = ValueType::of(ScalarType::Float32);
    const BufferVerification r =
        compareBuffers(f32, floatBytes({twoAbove, 8.0f}), floatBytes({one, 8.0f}), 2, 0, 0, 2);
    QVERIFY(r.passed);
    QCOMPARE(r.maxUlpError, 2.0);
    QVERIFY(!compareBuffers(f32, floatBytes({twoAbove}), floatBytes({one}), 1, 0, 0, 1).passed);
    // float16's ulp at 1 is 2^-10: a float32 error of 2^-10 is one float16 ulp.
    QCOMPARE(detail::ulpOf(ScalarType::Float16, 1.0), 0x1p-10);
    QCOMPARE(detail::ulpOf(ScalarType::Float64, 1.0), 0x1p-52);
    QCOMPARE(detail::ulpOf(ScalarType::Float32, 0.0), 0x1p-149);
    QCOMPARE(detail::ulpOf(ScalarType::Int32, 5.0), 1.0);
}

void TestLowPrecisionTypes::ulpOrAbsRelIsEnough() {
    const ValueType bf16 = ValueType::of(ScalarType::BFloat16);
    // 4 ulps off at 1.0 (4 * 2^-7 = 0.03125): atol 0.05 passes it though ulp 1 does not.
    const QByteArray expected = bf16Bytes({0x3F80});
    const QByteArray got = bf16Bytes({0x3F84});
    QVERIFY(compareBuffers(bf16, got, expected, 1, 0.05, 0, 1).passed);
    QVERIFY(compareBuffers(bf16, got, expected, 1, 0, 0, 4).passed);
    QVERIFY(!compareBuffers(bf16, got, expected, 1, 0.01, 0, 3).passed);
    const BufferVerification bad = compareBuffers(bf16, got, expected, 1, 0, 0, -1);
    QVERIFY(!bad.passed);
    QVERIFY2(bad.error.contains(QLatin1String("ulp")), qPrintable(bad.error));
}

void TestLowPrecisionTypes::fp4x2ComparesBothNibbles() {
    const ValueType fp4 = ValueType::of(ScalarType::Float4E2M1x2);
    const QByteArray expected("\x21\x43", 2); // (0.5, 1), (1.5, 2)
    QByteArray got = expected;
    got[1] = char(0x53); // high nibble 5 (3) instead of 4 (2)
    BufferVerification r = compareBuffers(fp4, got, expected, 2, 0, 0);
    QCOMPARE(r.checked, qint64(4));
    QCOMPARE(r.mismatches, qint64(1));
    QCOMPARE(r.firstMismatches.value(0).index, qint64(1));
    QCOMPARE(r.firstMismatches.value(0).got, 3.0); // nibble 5
    QCOMPARE(r.firstMismatches.value(0).expected, 2.0);
    QCOMPARE(r.maxUlpError, 1.0); // 3 for 2, where fp4 values are 1 apart
    r = compareBuffers(fp4, got, expected, 2, 0, 0, 1);
    QVERIFY(r.passed);
}

void TestLowPrecisionTypes::verifySpecJsonUlp() {
    QString error;
    auto spec = VerifySpec::fromJson(
        QJsonObject{{"kind", "expression"}, {"expression", "x"}, {"ulp", 2}}, &error);
    QVERIFY2(spec, qPrintable(error));
    QCOMPARE(spec->ulp, 2.0);
    QCOMPARE(spec->atol, 0.0); // "ulp" alone: only the ulp bound
    QCOMPARE(spec->rtol, 0.0);
    QCOMPARE(spec->toJson().value("ulp").toDouble(), 2.0);
    const auto back = VerifySpec::fromJson(spec->toJson(), &error);
    QVERIFY(back && back->ulp == 2.0 && back->atol == 0.0);

    spec = VerifySpec::fromJson(
        QJsonObject{{"kind", "expression"}, {"expression", "x"}, {"ulp", 1}, {"atol", 0.5}},
        &error);
    QVERIFY(spec && spec->atol == 0.5 && spec->rtol == 0.0 && spec->ulp == 1.0);
    // No "ulp": defaults as before, and none is written.
    spec = VerifySpec::fromJson(QJsonObject{{"kind", "expression"}, {"expression", "x"}}, &error);
    QVERIFY(spec && spec->ulp == 0 && spec->atol == 1e-6);
    QVERIFY(!spec->toJson().contains("ulp"));

    QVERIFY(!VerifySpec::fromJson(
        QJsonObject{{"kind", "expression"}, {"expression", "x"}, {"ulp", -1}}, &error));
    QVERIFY2(error.contains(QLatin1String("ulp: must be >= 0")), qPrintable(error));
}

void TestLowPrecisionTypes::verifySpecText() {
    QString error;
    const auto spec =
        parseVerifySpec(QStringLiteral("expression a * x atol=0 rtol=0 ulp=2"), &error);
    QVERIFY2(spec, qPrintable(error));
    QCOMPARE(spec->expression, QStringLiteral("a * x"));
    QCOMPARE(spec->ulp, 2.0);
    QVERIFY(formatVerifySpec(*spec).endsWith(QLatin1String(" ulp=2")));
    QVERIFY(!parseVerifySpec(QStringLiteral("expression x ulp=two"), &error));
}

void TestLowPrecisionTypes::npyVoidDescrTakesBufferType() {
    QTemporaryDir dir;
    NpyArray array;
    array.type = ValueType::of(ScalarType::BFloat16);
    array.shape = {3};
    array.data = bf16Bytes({0x3F80, 0xC000, 0x7F80});
    const QByteArray bytes = serializeNpy(array);
    QVERIFY2(bytes.contains("'descr': '<V2'"), bytes.constData());
    QString error;
    const QString path = dir.filePath(QStringLiteral("x.npy"));
    QVERIFY2(writeNpy(path, array, &error), qPrintable(error));

    NpyExpectation bf16;
    bf16.type = ValueType::of(ScalarType::BFloat16);
    bf16.elementCount = 3;
    const auto read = readNpy(path, bf16, &error);
    QVERIFY2(read, qPrintable(error));
    QCOMPARE(read->type, ValueType::of(ScalarType::BFloat16));
    QCOMPARE(read->data, array.data);

    NpyExpectation fp8;
    fp8.type = ValueType::of(ScalarType::Float8E4M3);
    fp8.what = QStringLiteral("buffer 'q'");
    QVERIFY(!readNpy(path, fp8, &error));
    QVERIFY2(error.contains(QLatin1String("2-byte")) && error.contains(QLatin1String("'q'")) &&
                 error.contains(QLatin1String("float8_e4m3")),
             qPrintable(error));

    // A 2-byte void is not a float16: the file does not say it holds IEEE halves.
    NpyExpectation half;
    half.type = ValueType::of(ScalarType::Float16);
    QVERIFY(!readNpy(path, half, &error));

    array.type = ValueType::of(ScalarType::Float4E2M1x2);
    array.data = QByteArray("\x21\x43\x65", 3);
    QVERIFY(serializeNpy(array).contains("'descr': '<V1'"));
}

void TestLowPrecisionTypes::npyNamedAndF1Descrs() {
    const auto headerFor = [](const char* descr) {
        QByteArray header =
            QByteArray("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (2,), }";
        while ((10 + header.size() + 1) % 64 != 0)
            header += ' ';
        header += '\n';
        QByteArray out("\x93NUMPY\x01\x00", 8);
        out.append(char(header.size() & 0xFF));
        out.append(char(header.size() >> 8));
        return out + header;
    };
    QString error;
    auto a = parseNpy(headerFor("<f1") + QByteArray("\x3C\xBC", 2), &error);
    QVERIFY2(a, qPrintable(error));
    QCOMPARE(a->type, ValueType::of(ScalarType::Float8E5M2));
    a = parseNpy(headerFor("bfloat16") + bf16Bytes({0x3F80, 0x4000}), &error);
    QVERIFY2(a, qPrintable(error));
    QCOMPARE(a->type, ValueType::of(ScalarType::BFloat16));
    a = parseNpy(headerFor("float8_e4m3fn") + QByteArray("\x38\x7E", 2), &error);
    QVERIFY2(a, qPrintable(error));
    QCOMPARE(a->type, ValueType::of(ScalarType::Float8E4M3));
    QCOMPARE(detail::loadScalar(a->type.scalar, a->data.constData() + 1), 448.0);
}

void TestLowPrecisionTypes::initPatterns() {
    QString error;
    BufferSpec fp4;
    fp4.elementType = ValueType::of(ScalarType::Float4E2M1x2);
    fp4.init.kind = InitSpec::Kind::Iota;
    fp4.init.value = 0;
    fp4.init.step = 1;
    auto bytes = makeBufferContents(fp4, 3, QString(), &error);
    QVERIFY2(bytes, qPrintable(error));
    // Values 0..5 two per byte, low nibble first: (0,1) (2,3) (4,5->4 ties to even).
    QCOMPARE(*bytes, QByteArray("\x20\x54\x66", 3));
    fp4.init.kind = InitSpec::Kind::Ones;
    bytes = makeBufferContents(fp4, 2, QString(), &error);
    QVERIFY(bytes);
    QCOMPARE(*bytes, QByteArray("\x22\x22", 2));

    // Values the type would saturate are refused, naming the value and the largest.
    fp4.init.kind = InitSpec::Kind::Iota;
    QVERIFY(!makeBufferContents(fp4, 5, QString(), &error)); // values 0..9
    QVERIFY2(error.contains(QLatin1String("iota's last element 9 does not fit in float4_e2m1x2 "
                                          "(largest finite 6)")),
             qPrintable(error));
    BufferSpec e4m3;
    e4m3.elementType = ValueType::of(ScalarType::Float8E4M3);
    e4m3.init.kind = InitSpec::Kind::Constant;
    e4m3.init.value = 1000;
    QVERIFY(!makeBufferContents(e4m3, 2, QString(), &error));
    QVERIFY2(error.contains(QLatin1String("constant 1000 does not fit in float8_e4m3 (largest "
                                          "finite 448)")),
             qPrintable(error));

    BufferSpec bf16;
    bf16.elementType = ValueType::of(ScalarType::BFloat16);
    bf16.init.kind = InitSpec::Kind::Uniform;
    bf16.init.low = -1e39;
    bf16.init.high = 1;
    QVERIFY(!makeBufferContents(bf16, 2, QString(), &error));
    QVERIFY2(error.contains(QLatin1String("uniform low -1e+39 does not fit in bfloat16 (largest "
                                          "finite 3.38953e+38)")),
             qPrintable(error));
    bf16.init.kind = InitSpec::Kind::Constant;
    bf16.init.value = 0.1;
    bytes = makeBufferContents(bf16, 2, QString(), &error);
    QVERIFY(bytes);
    QCOMPARE(bf16At(*bytes, 1), quint16(0x3DCD));

    // Random draws are made in double and rounded once: every element is the rounding of
    // the same draw a float64 buffer gets.
    bf16.init.kind = InitSpec::Kind::Normal;
    bf16.init.seed = 7;
    BufferSpec f64 = bf16;
    f64.elementType = ValueType::of(ScalarType::Float64);
    const auto lowBytes = makeBufferContents(bf16, 64, QString(), &error);
    const auto wide = makeBufferContents(f64, 64, QString(), &error);
    QVERIFY(lowBytes && wide);
    for (int i = 0; i < 64; ++i) {
        double v;
        std::memcpy(&v, wide->constData() + 8 * i, 8);
        char expected[2];
        detail::storeScalar(ScalarType::BFloat16, v, 0, expected);
        QCOMPARE(bf16At(*lowBytes, i), bf16At(QByteArray(expected, 2), 0));
    }
}

void TestLowPrecisionTypes::scalarArguments() {
    QString error;
    auto bytes = packValue(ValueType::of(ScalarType::Float8E4M3), QStringLiteral("448"), &error);
    QVERIFY2(bytes, qPrintable(error));
    QCOMPARE(quint8(bytes->at(0)), quint8(0x7E));
    bytes = packValue(ValueType::of(ScalarType::Float8E4M3), QStringLiteral("500"), &error);
    QVERIFY(!bytes);
    QVERIFY2(error.contains(QLatin1String("does not fit in float8_e4m3")), qPrintable(error));
    QVERIFY(!packValue(ValueType::of(ScalarType::BFloat16), QStringLiteral("1e39"), &error));
    bytes = packValue(ValueType::of(ScalarType::BFloat16), QStringLiteral("-2.5"), &error);
    QVERIFY(bytes);
    QCOMPARE(bf16At(*bytes, 0), quint16(0xC020));
    bytes = packValue(ValueType::of(ScalarType::Float4E2M1x2), QStringLiteral("(1, -6)"), &error);
    QVERIFY2(bytes, qPrintable(error));
    QCOMPARE(quint8(bytes->at(0)), quint8(0xF2));
    QVERIFY(!packValue(ValueType::of(ScalarType::Float4E2M1x2), QStringLiteral("1, 2, 3"), &error));
    QVERIFY2(error.contains(QLatin1String("low, high")), qPrintable(error));
    // A struct with a bf16 and an fp8 field, bf16 aligned to 2.
    const StructType s{QStringLiteral("Q"),
                       {{QStringLiteral("tag"), ScalarType::UInt8, 1},
                        {QStringLiteral("w"), ScalarType::BFloat16, 1},
                        {QStringLiteral("e"), ScalarType::Float8E5M2, 1}}};
    bytes = packValue(ValueType::ofStruct(s), QStringLiteral("{7, 1, -2}"), &error);
    QVERIFY2(bytes, qPrintable(error));
    QCOMPARE(*bytes, QByteArray("\x07\x00\x80\x3F\xC0\x00", 6));
}

void TestLowPrecisionTypes::doublesToBytesRoundsOnce() {
    const QByteArray e4m3 =
        doublesToBytes(ValueType::of(ScalarType::Float8E4M3), {1.0, 464.0, -1e9, 0.0625});
    QCOMPARE(e4m3, QByteArray("\x38\x7E\xFE\x18", 4));
    const QByteArray fp4 = doublesToBytes(ValueType::of(ScalarType::Float4E2M1x2), {3.0});
    QCOMPARE(fp4, QByteArray("\x05", 1));
}

void TestLowPrecisionTypes::reportJsonCarriesUlps() {
    BufferVerification v;
    v.buffer = QStringLiteral("out");
    v.method = QStringLiteral("expression 2*x");
    v.maxUlpError = 3;
    QJsonObject json = v.toJson();
    QCOMPARE(json.value(QStringLiteral("maxUlpError")).toDouble(), 3.0);
    QString error;
    auto back = BufferVerification::fromJson(json, &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->maxUlpError, 3.0);
    // A report of an older KernelPad has no maxUlpError: it reads as 0.
    json.remove(QStringLiteral("maxUlpError"));
    back = BufferVerification::fromJson(json, &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->maxUlpError, 0.0);
}

KERNELPAD_TEST_GUILESS_MAIN(TestLowPrecisionTypes)
} // namespace tst_lowprecisiontypes
#include "tst_lowprecisiontypes.moc"
