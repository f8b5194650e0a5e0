// Buffer element counts and initial contents.
#include "../support/TestMain.h"
#include "core/launch/BufferInit.h"
#include "core/launch/Npy.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>

namespace tst_bufferinit {

using namespace kernelpad;

namespace {

ArgumentSpec scalarArg(const QString& name, ScalarType type, const QString& value) {
    ArgumentSpec a;
    a.name = name;
    a.type = ValueType::of(type);
    a.value = value;
    return a;
}

BufferSpec buffer(ScalarType type, InitSpec::Kind kind) {
    BufferSpec b;
    b.elementType = ValueType::of(type);
    b.init.kind = kind;
    return b;
}

template <typename T> T at(const QByteArray& bytes, qint64 index) {
    T value;
    std::memcpy(&value, bytes.constData() + index * qint64(sizeof(T)), sizeof(T));
    return value;
}

QByteArray make(const BufferSpec& spec, qint64 count) {
    QString error;
    const auto bytes = makeBufferContents(spec, count, QString(), &error);
    if (!bytes)
        qWarning("makeBufferContents failed: %s", qPrintable(error));
    return bytes.value_or(QByteArray());
}

StructType pairStruct() {
    return StructType{"pair", {{"id", ScalarType::Int32, 1}, {"w", ScalarType::Float64, 2}}};
}

} // namespace

class TestBufferInit : public QObject {
    Q_OBJECT
private slots:
    void resolveCount_data();
    void resolveCount();
    void simpleKinds();
    void everyTypeOnes_data();
    void everyTypeOnes();
    void integerChecks_data();
    void integerChecks();
    void uniform();
    void uniformKnownValues();
    void uniformIntegers();
    void normal();
    void complexRandom();
    void structElements();
    void fromFile();
    void fromFileLargerThanTheBuffer();
    void sizeLimit();
    void formatting_data();
    void formatting();
};

void TestBufferInit::resolveCount_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("expected"); // -1: an error containing `message`
    QTest::addColumn<QString>("message");
    QTest::newRow("literal") << "1024" << qint64(1024) << QString();
    QTest::newRow("literal with spaces") << " 16 " << qint64(16) << QString();
    QTest::newRow("zero") << "0" << qint64(0) << QString();
    QTest::newRow("hex literal") << "0x100" << qint64(256) << QString();
    QTest::newRow("exact 2^53") << "9007199254740992" << qint64(9007199254740992) << QString();
    QTest::newRow("variable") << "n" << qint64(1000) << QString();
    QTest::newRow("expression") << "n*2+1" << qint64(2001) << QString();
    QTest::newRow("two variables") << "rows*cols" << qint64(12) << QString();
    QTest::newRow("uint64 and int8 variables") << "big/2 + small" << qint64(12) << QString();
    QTest::newRow("empty") << "   " << qint64(-1) << "count is empty";
    QTest::newRow("negative literal") << "-5" << qint64(-1) << "is negative";
    QTest::newRow("negative expression") << "n-2000" << qint64(-1) << "-1000, which is negative";
    QTest::newRow("not an integer") << "n/3" << qint64(-1) << "not an integer";
    QTest::newRow("float argument")
        << "a*2" << qint64(-1) << "'a' is float32, not an integer scalar";
    QTest::newRow("buffer argument") << "x" << qint64(-1) << "'x' is a buffer";
    QTest::newRow("bool argument") << "flag" << qint64(-1) << "'flag' is bool";
    QTest::newRow("unknown variable") << "m*2" << qint64(-1) << "unknown variable 'm'";
    QTest::newRow("argument without a valid value")
        << "bad+1" << qint64(-1) << "'bad' has no valid value";
    QTest::newRow("syntax error") << "n*" << qint64(-1) << "count 'n*'";
    QTest::newRow("above 2^53") << "2^60" << qint64(-1) << "more than 2^53";
    QTest::newRow("literal of 2^53 + 1")
        << "9007199254740993" << qint64(-1) << "count '9007199254740993' is more than 2^53";
    QTest::newRow("int64 variable of 2^53 + 1")
        << "huge" << qint64(-1) << "'huge' is 9007199254740993, more than 2^53 - 1";
    QTest::newRow("expression reaching 2^53, where 2^53 + 1 rounds to")
        << "2^53" << qint64(-1) << "more than 2^53 - 1";
    QTest::newRow("literal beyond 64 bits")
        << "99999999999999999999" << qint64(-1) << "more than 2^53";
    QTest::newRow("division by zero") << "n/0" << qint64(-1) << "not a finite number";
}

void TestBufferInit::resolveCount() {
    QFETCH(QString, text);
    QFETCH(qint64, expected);
    QFETCH(QString, message);
    ArgumentSpec x;
    x.name = "x";
    x.kind = ArgumentSpec::Kind::Buffer;
    const QVector<ArgumentSpec> args{
        scalarArg("n", ScalarType::Int32, "1000"),
        scalarArg("rows", ScalarType::UInt16, "3"),
        scalarArg("cols", ScalarType::Int64, "4"),
        scalarArg("big", ScalarType::UInt64, "0x10"),
        scalarArg("small", ScalarType::Int8, "4"),
        scalarArg("a", ScalarType::Float32, "2"),
        scalarArg("flag", ScalarType::Bool, "true"),
        scalarArg("bad", ScalarType::Int32, "abc"),
        scalarArg("huge", ScalarType::Int64, "9007199254740993"),
        x,
    };
    QString error;
    const auto count = kernelpad::resolveCount(text, args, &error);
    if (expected >= 0) {
        QVERIFY2(count, qPrintable(error));
        QCOMPARE(*count, expected);
    } else {
        QVERIFY(!count);
        QVERIFY2(error.contains(message), qPrintable(error));
    }
}

void TestBufferInit::simpleKinds() {
    const QByteArray zeros = make(buffer(ScalarType::Float32, InitSpec::Kind::Zeros), 5);
    QCOMPARE(zeros, QByteArray(20, '\0'));
    const QByteArray ones = make(buffer(ScalarType::Float32, InitSpec::Kind::Ones), 5);
    QCOMPARE(ones.size(), 20);
    for (int i = 0; i < 5; ++i)
        QCOMPARE(at<float>(ones, i), 1.0f);

    BufferSpec constant = buffer(ScalarType::Float64, InitSpec::Kind::Constant);
    constant.init.value = -2.5;
    const QByteArray c = make(constant, 3);
    for (int i = 0; i < 3; ++i)
        QCOMPARE(at<double>(c, i), -2.5);

    BufferSpec iota = buffer(ScalarType::Int32, InitSpec::Kind::Iota);
    iota.init.value = 10;
    iota.init.step = -3;
    const QByteArray io = make(iota, 4);
    QCOMPARE(io.size(), 16);
    for (int i = 0; i < 4; ++i)
        QCOMPARE(at<qint32>(io, i), 10 - 3 * i);

    iota.elementType = ValueType::of(ScalarType::Float32);
    iota.init.value = 0.5;
    iota.init.step = 0.25;
    const QByteArray fio = make(iota, 3);
    QCOMPARE(at<float>(fio, 2), 1.0f);

    QVERIFY(make(buffer(ScalarType::Float32, InitSpec::Kind::Ones), 0).isEmpty());
}

void TestBufferInit::everyTypeOnes_data() {
    QTest::addColumn<int>("type");
    for (const ScalarType t : allScalarTypes())
        QTest::newRow(scalarTypeInfo(t).numpyName) << int(t);
}

void TestBufferInit::everyTypeOnes() {
    QFETCH(int, type);
    const ValueType vt = ValueType::of(ScalarType(type));
    const QByteArray bytes = make(buffer(ScalarType(type), InitSpec::Kind::Ones), 3);
    QCOMPARE(bytes.size(), 3 * vt.sizeBytes());
    for (int i = 0; i < 3; ++i) {
        QCOMPARE(elementAsDouble(vt, bytes.constData(), i), 1.0);
        // Complex ones are 1 + 0i.
        const QString text = elementToString(vt, bytes.constData(), i);
        // Packed float4 ones are two ones.
        QCOMPARE(text, scalarTypeInfo(ScalarType(type)).isComplex     ? QString("(1, 0)")
                       : ScalarType(type) == ScalarType::Float4E2M1x2 ? QString("(1, 1)")
                       : ScalarType(type) == ScalarType::Bool         ? QString("true")
                                                                      : QString("1"));
    }
    if (ScalarType(type) == ScalarType::Float16)
        QCOMPARE(at<quint16>(bytes, 1), quint16(0x3C00));
}

void TestBufferInit::integerChecks_data() {
    QTest::addColumn<int>("type");
    QTest::addColumn<int>("kind");
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("message");
    QTest::newRow("constant 2.5 on int32")
        << int(ScalarType::Int32) << int(InitSpec::Kind::Constant) << 2.5
        << "constant 2.5 is not an integer";
    QTest::newRow("constant 300 on uint8")
        << int(ScalarType::UInt8) << int(InitSpec::Kind::Constant) << 300.0
        << "does not fit in uint8";
    QTest::newRow("iota past int8") << int(ScalarType::Int8) << int(InitSpec::Kind::Iota) << 100.0
                                    << "iota's last element 199 does not fit in int8";
}

void TestBufferInit::integerChecks() {
    QFETCH(int, type);
    QFETCH(int, kind);
    QFETCH(double, value);
    QFETCH(QString, message);
    BufferSpec spec = buffer(ScalarType(type), InitSpec::Kind(kind));
    spec.init.value = value;
    QString error;
    QVERIFY(!makeBufferContents(spec, 100, QString(), &error));
    QVERIFY2(error.contains(message), qPrintable(error));
}

void TestBufferInit::uniform() {
    BufferSpec spec = buffer(ScalarType::Float32, InitSpec::Kind::Uniform);
    spec.init.low = -2;
    spec.init.high = 3;
    spec.init.seed = 42;
    const qint64 n = 20000;
    const QByteArray a = make(spec, n);
    QCOMPARE(a.size(), n * 4);
    QCOMPARE(make(spec, n), a); // same seed, same contents
    spec.init.seed = 43;
    const QByteArray b = make(spec, n);
    QVERIFY(a != b);
    double sum = 0, lowest = 1e9, highest = -1e9;
    for (qint64 i = 0; i < n; ++i) {
        const float v = at<float>(a, i);
        QVERIFY2(v >= -2.0f && v < 3.0f, qPrintable(QString::number(v)));
        sum += v;
        lowest = std::min(lowest, double(v));
        highest = std::max(highest, double(v));
    }
    QVERIFY(std::abs(sum / n - 0.5) < 0.05); // mean of U(-2, 3); stderr 0.01
    QVERIFY(lowest < -1.99 && highest > 2.99);
}

namespace {

/// Sebastiano Vigna's splitmix64, written as the sequential generator it is published as: the
/// reference the counter-based form in BufferInit.h must agree with.
struct ReferenceSplitMix64 {
    quint64 state;
    quint64 next() {
        quint64 z = (state += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
};

} // namespace

void TestBufferInit::uniformKnownValues() {
    // splitmix64 seeded with 0 starts 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4 (published values).
    ReferenceSplitMix64 zero{0};
    QCOMPARE(zero.next(), quint64(0xE220A8397B1DCDAFULL));
    QCOMPARE(zero.next(), quint64(0x6E789E6AA1B965F4ULL));
    QCOMPARE(randomBits(0, 0), quint64(0xE220A8397B1DCDAFULL));
    QCOMPARE(randomBits(0, 1), quint64(0x6E789E6AA1B965F4ULL));

    // Element i of a buffer is draw i of the sequential generator seeded with the buffer's key.
    ReferenceSplitMix64 keyOf{42 ^ 0x6A09E667F3BCC909ULL};
    keyOf.state -= 0x9E3779B97F4A7C15ULL; // next() adds it first: finalise(seed ^ constant)
    const quint64 key = keyOf.next();
    QCOMPARE(randomKey(42), key);
    BufferSpec f32 = buffer(ScalarType::Float32, InitSpec::Kind::Uniform);
    f32.init.low = -2;
    f32.init.high = 3;
    f32.init.seed = 42;
    BufferSpec f64 = f32;
    f64.elementType = ValueType::of(ScalarType::Float64);
    BufferSpec i32 = f32;
    i32.elementType = ValueType::of(ScalarType::Int32);
    const qint64 n = (qint64(1) << 21) + 3; // several threads fill it
    const QByteArray a = make(f32, n), d = make(f64, n), k = make(i32, n);
    ReferenceSplitMix64 draws{key};
    for (qint64 i = 0; i < n; ++i) {
        const double unit = double(draws.next() >> 11) / 9007199254740992.0; // 2^53
        const double value = -2.0 + unit * 5.0;
        if (i < 1000 || i % 4099 == 0 || i >= n - 1000) {
            QCOMPARE(at<double>(d, i), value);
            QCOMPARE(at<float>(a, i), float(value));
            QCOMPARE(at<qint32>(k, i), qint32(std::max(std::floor(value), -2.0)));
        }
    }
}

void TestBufferInit::uniformIntegers() {
    BufferSpec spec = buffer(ScalarType::Int32, InitSpec::Kind::Uniform);
    spec.init.low = 0;
    spec.init.high = 10;
    spec.init.seed = 7;
    const QByteArray a = make(spec, 5000);
    QVector<int> histogram(10, 0);
    for (int i = 0; i < 5000; ++i) {
        const qint32 v = at<qint32>(a, i);
        QVERIFY2(v >= 0 && v < 10, qPrintable(QString::number(v)));
        ++histogram[v];
    }
    for (const int h : histogram)
        QVERIFY(h > 350 && h < 650); // 500 expected each

    spec.init.low = 0.2;
    spec.init.high = 0.7;
    QString error;
    QVERIFY(!makeBufferContents(spec, 4, QString(), &error));
    QVERIFY2(error.contains("holds no integer"), qPrintable(error));
}

void TestBufferInit::normal() {
    BufferSpec spec = buffer(ScalarType::Float64, InitSpec::Kind::Normal);
    spec.init.mean = 5;
    spec.init.stddev = 2;
    spec.init.seed = 1;
    const qint64 n = 100000;
    const QByteArray a = make(spec, n);
    QCOMPARE(make(spec, n), a);
    double sum = 0, sumSq = 0;
    for (qint64 i = 0; i < n; ++i) {
        const double v = at<double>(a, i);
        sum += v;
        sumSq += v * v;
    }
    const double mean = sum / n;
    const double stddev = std::sqrt(sumSq / n - mean * mean);
    QVERIFY2(std::abs(mean - 5) < 0.03, qPrintable(QString::number(mean)));
    QVERIFY2(std::abs(stddev - 2) < 0.03, qPrintable(QString::number(stddev)));
    spec.init.seed = 2;
    QVERIFY(make(spec, n) != a);
}

void TestBufferInit::complexRandom() {
    BufferSpec spec = buffer(ScalarType::Complex64, InitSpec::Kind::Uniform);
    spec.init.low = 1;
    spec.init.high = 2;
    const QByteArray a = make(spec, 100);
    QCOMPARE(a.size(), 800);
    int differing = 0;
    for (int i = 0; i < 100; ++i) {
        const float re = at<float>(a, 2 * i), im = at<float>(a, 2 * i + 1);
        QVERIFY(re >= 1 && re < 2 && im >= 1 && im < 2);
        differing += re != im;
    }
    QVERIFY(differing > 90); // both components are drawn

    BufferSpec constant = buffer(ScalarType::Complex128, InitSpec::Kind::Constant);
    constant.init.value = 3;
    const QByteArray c = make(constant, 2);
    QCOMPARE(at<double>(c, 2), 3.0);
    QCOMPARE(at<double>(c, 3), 0.0);
}

void TestBufferInit::structElements() {
    BufferSpec spec;
    spec.elementType = ValueType::ofStruct(pairStruct()); // {int id; double w[2];}: 24 bytes
    spec.init.kind = InitSpec::Kind::Zeros;
    QCOMPARE(make(spec, 3), QByteArray(72, '\0'));
    spec.init.kind = InitSpec::Kind::Ones;
    const QByteArray ones = make(spec, 3);
    QCOMPARE(ones.size(), 72);
    QCOMPARE(at<qint32>(ones, 6), 1);       // element 1, id at offset 0
    QCOMPARE(at<qint32>(ones, 7), 0);       // padding stays zero
    QCOMPARE(at<double>(ones, 3 + 1), 1.0); // element 1, w[0] at offset 8
    QCOMPARE(at<double>(ones, 3 + 2), 1.0); // element 1, w[1]
    QCOMPARE(elementToString(spec.elementType, ones.constData(), 2), QString("{1, [1, 1]}"));
    QCOMPARE(elementAsDouble(spec.elementType, ones.constData(), 2), 1.0);

    for (const auto kind : {InitSpec::Kind::Uniform, InitSpec::Kind::Iota, InitSpec::Kind::File}) {
        spec.init.kind = kind;
        QString error;
        QVERIFY(!makeBufferContents(spec, 3, QString(), &error));
        QVERIFY2(error.contains("struct 'pair' can only start as zeros or ones"),
                 qPrintable(error));
    }
}

void TestBufferInit::fromFile() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    NpyArray array;
    array.type = ValueType::of(ScalarType::Int16);
    array.shape = {2, 3};
    for (qint16 v : {1, -2, 3, -4, 5, -6})
        array.data.append(reinterpret_cast<const char*>(&v), 2);
    QString error;
    QVERIFY2(writeNpy(dir.filePath("in.npy"), array, &error), qPrintable(error));

    BufferSpec spec = buffer(ScalarType::Int16, InitSpec::Kind::File);
    spec.init.path = "in.npy";
    const auto bytes = makeBufferContents(spec, 6, dir.path(), &error);
    QVERIFY2(bytes, qPrintable(error));
    QCOMPARE(*bytes, array.data);

    QVERIFY(!makeBufferContents(spec, 8, dir.path(), &error));
    QVERIFY2(error.contains("has 6 elements but the buffer has 8"), qPrintable(error));
    spec.elementType = ValueType::of(ScalarType::Float32);
    QVERIFY(!makeBufferContents(spec, 6, dir.path(), &error));
    QVERIFY2(error.contains("holds int16 (<i2) but the buffer's elements are float32"),
             qPrintable(error));
    spec.init.path = "missing.npy";
    QVERIFY(!makeBufferContents(spec, 6, dir.path(), &error));
    QVERIFY2(error.contains("missing.npy"), qPrintable(error));
}

void TestBufferInit::fromFileLargerThanTheBuffer() {
    // A sparse 2 GiB .npy for a 16-element buffer: refused from its header, with both sizes.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    NpyArray header;
    header.type = ValueType::of(ScalarType::Float32);
    header.shape = {qint64(1) << 29};
    const QByteArray bytes = serializeNpy(header); // the header alone
    QFile file(dir.filePath("big.npy"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    QCOMPARE(file.write(bytes), bytes.size());
    QVERIFY(file.resize(bytes.size() + (qint64(2) << 30)));
    file.close();
    BufferSpec spec = buffer(ScalarType::Float32, InitSpec::Kind::File);
    spec.init.path = "big.npy";
    QString error;
    QVERIFY(!makeBufferContents(spec, 16, dir.path(), &error));
    for (const char* part : {"big.npy", "has 536870912 elements but the buffer has 16",
                             "2147483648 bytes (2.0 GiB)", "needs 64 bytes"})
        QVERIFY2(error.contains(QLatin1String(part)), qPrintable(error));
}

void TestBufferInit::sizeLimit() {
    QString error;
    // 2^40 float64 elements is 8 TiB: refused before any allocation.
    QVERIFY(!makeBufferContents(buffer(ScalarType::Float64, InitSpec::Kind::Zeros), qint64(1) << 40,
                                QString(), &error));
    QVERIFY2(error.contains("limit of 16 GiB"), qPrintable(error));
    QVERIFY(!makeBufferContents(buffer(ScalarType::Float64, InitSpec::Kind::Zeros),
                                std::numeric_limits<qint64>::max(), QString(), &error));
    QVERIFY(!makeBufferContents(buffer(ScalarType::Float64, InitSpec::Kind::Zeros), -1, QString(),
                                &error));
    QVERIFY2(error.contains("negative"), qPrintable(error));
}

void TestBufferInit::formatting_data() {
    QTest::addColumn<int>("type");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("text");
    QTest::addColumn<double>("value");
    const auto raw = [](auto v) {
        return QByteArray(reinterpret_cast<const char*>(&v), sizeof(v));
    };
    QTest::newRow("float32 0.1 shortest")
        << int(ScalarType::Float32) << raw(0.1f) << "0.1" << double(0.1f);
    QTest::newRow("float64") << int(ScalarType::Float64) << raw(-1.5) << "-1.5" << -1.5;
    QTest::newRow("float16 0x2E66 is 0.1")
        << int(ScalarType::Float16) << raw(quint16(0x2E66)) << "0.1" << 0.0999755859375;
    QTest::newRow("float16 65504")
        << int(ScalarType::Float16) << raw(quint16(0x7BFF)) << "65504" << 65504.0;
    QTest::newRow("float16 subnormal")
        << int(ScalarType::Float16) << raw(quint16(0x0001)) << "6e-08" << std::ldexp(1.0, -24);
    QTest::newRow("float16 -inf") << int(ScalarType::Float16) << raw(quint16(0xFC00)) << "-inf"
                                  << -double(INFINITY);
    QTest::newRow("int64 min") << int(ScalarType::Int64) << raw(qint64(-9223372036854775807 - 1))
                               << "-9223372036854775808" << -9223372036854775808.0;
    QTest::newRow("uint8") << int(ScalarType::UInt8) << raw(quint8(200)) << "200" << 200.0;
    QTest::newRow("bool") << int(ScalarType::Bool) << raw(true) << "true" << 1.0;
    struct C {
        float re, im;
    };
    QTest::newRow("complex64") << int(ScalarType::Complex64) << raw(C{1, -2}) << "(1, -2)" << 1.0;
}

void TestBufferInit::formatting() {
    QFETCH(int, type);
    QFETCH(QByteArray, bytes);
    QFETCH(QString, text);
    QFETCH(double, value);
    // Element 1 of a two-element buffer, to exercise the index.
    const QByteArray twoElements = QByteArray(bytes.size(), '\x55') + bytes;
    const ValueType vt = ValueType::of(ScalarType(type));
    QCOMPARE(elementToString(vt, twoElements.constData(), 1), text);
    QCOMPARE(elementAsDouble(vt, twoElements.constData(), 1), value);
}

KERNELPAD_TEST_GUILESS_MAIN(TestBufferInit)
} // namespace tst_bufferinit
#include "tst_bufferinit.moc"
