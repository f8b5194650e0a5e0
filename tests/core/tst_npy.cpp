// NumPy .npy reading and writing.
#include "core/launch/Npy.h"

#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <sys/stat.h>

namespace tst_npy {

using namespace kernelpad;

namespace {

QString dataPath(const QString& name) {
    return QStringLiteral(KERNELPAD_TEST_DATA_DIR "/launch/") + name;
}

/// A .npy file made by hand: magic, version, header length, header text, data.
QByteArray handMade(const QByteArray& header, const QByteArray& data = QByteArray(),
                    int major = 1) {
    QByteArray out("\x93NUMPY", 6);
    out.append(char(major));
    out.append(char(0));
    const quint32 length = quint32(header.size());
    out.append(char(length & 0xFF));
    out.append(char((length >> 8) & 0xFF));
    if (major > 1) {
        out.append(char((length >> 16) & 0xFF));
        out.append(char((length >> 24) & 0xFF));
    }
    return out + header + data;
}

/// Bytes this process has read through read(2) and pread(2) so far (/proc/self/io's rchar):
/// how the tests see that a refused file's data was never read, without timing anything.
qint64 bytesReadSoFar() {
    QFile io(QStringLiteral("/proc/self/io"));
    if (!io.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : io.readAll().split('\n'))
        if (line.startsWith("rchar:"))
            return line.mid(6).trimmed().toLongLong();
    return -1;
}

/// A sparse file (no disk blocks): the header of `shape` float32 elements, then a hole of
/// `bytesAfterHeader` made by QFile::resize.
bool writeSparseNpy(const QString& path, const QVector<qint64>& shape, qint64 bytesAfterHeader) {
    NpyArray header;
    header.type = ValueType::of(ScalarType::Float32);
    header.shape = shape;
    const QByteArray bytes = serializeNpy(header); // the header alone: no data attached
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
           file.write(bytes) == bytes.size() && file.resize(bytes.size() + bytesAfterHeader);
}

constexpr qint64 kTwoGiB = qint64(2) << 30;

QByteArray patternBytes(int n) {
    QByteArray b(n, '\0');
    for (int i = 0; i < n; ++i)
        b[i] = char(i * 37 + 11);
    return b;
}

} // namespace

class TestNpy : public QObject {
    Q_OBJECT
private slots:
    void descr();
    void roundTrip_data();
    void roundTrip();
    void headerAsNumPyWritesIt();
    void fileRoundTrip();
    void numpyFiles_data();
    void numpyFiles();
    void rejected_data();
    void rejected();
    void neverCrashes();
    void refusedBeforeTheData_data();
    void refusedBeforeTheData();
    void trailingBytesAreNotRead();
};

void TestNpy::descr() {
    QCOMPARE(npyDescr(ScalarType::Float32), QString("<f4"));
    QCOMPARE(npyDescr(ScalarType::Bool), QString("|b1"));
    QCOMPARE(npyDescr(ScalarType::UInt8), QString("|u1"));
    QCOMPARE(npyDescr(ScalarType::Int8), QString("|i1"));
    QCOMPARE(npyDescr(ScalarType::Float16), QString("<f2"));
    QCOMPARE(npyDescr(ScalarType::UInt64), QString("<u8"));
    QCOMPARE(npyDescr(ScalarType::Complex64), QString("<c8"));
    QCOMPARE(npyDescr(ScalarType::Complex128), QString("<c16"));
}

void TestNpy::roundTrip_data() {
    QTest::addColumn<int>("type");
    QTest::addColumn<QVector<qint64>>("shape");
    const QVector<QPair<const char*, QVector<qint64>>> shapes{
        {"0-d", {}},     {"empty", {0}},     {"1-d", {5}},
        {"2-d", {2, 3}}, {"3-d", {2, 1, 4}}, {"zero inside", {3, 0, 2}}};
    for (const ScalarType t : allScalarTypes()) {
        for (const auto& [label, shape] : shapes)
            QTest::newRow(qPrintable(
                QStringLiteral("%1 %2").arg(scalarTypeInfo(t).numpyName, QLatin1String(label))))
                << int(t) << shape;
    }
}

void TestNpy::roundTrip() {
    QFETCH(int, type);
    QFETCH(QVector<qint64>, shape);
    NpyArray array;
    array.type = ValueType::of(ScalarType(type));
    array.shape = shape;
    qint64 count = 1;
    for (const qint64 d : shape)
        count *= d;
    QCOMPARE(array.elementCount(), count);
    array.data = patternBytes(int(count * array.type.sizeBytes()));

    const QByteArray bytes = serializeNpy(array);
    // The data starts on a 64-byte boundary and the header ends with a newline.
    QCOMPARE((bytes.size() - array.data.size()) % 64, 0);
    QCOMPARE(bytes.at(bytes.size() - array.data.size() - 1), '\n');
    QString error;
    const auto back = parseNpy(bytes, &error);
    QVERIFY2(back, qPrintable(error));
    // A low-precision type is saved as a void of its size ("<V1"), as np.save writes
    // ml_dtypes arrays: the file says the size, the buffer reading it the type.
    if (isLowPrecision(array.type.scalar))
        QCOMPARE(back->type.sizeBytes(), array.type.sizeBytes());
    else
        QCOMPARE(back->type, array.type);
    QCOMPARE(back->shape, array.shape);
    QCOMPARE(back->data, array.data);
}

void TestNpy::headerAsNumPyWritesIt() {
    NpyArray array;
    array.type = ValueType::of(ScalarType::Float32);
    array.shape = {16};
    array.data = QByteArray(64, '\0');
    const QByteArray bytes = serializeNpy(array);
    QVERIFY(bytes.startsWith(QByteArray("\x93NUMPY\x01\x00", 8)));
    const quint16 headerLength = quint16(quint8(bytes.at(8)) | (quint8(bytes.at(9)) << 8));
    QCOMPARE(10 + headerLength + 64, bytes.size());
    const QByteArray header = bytes.mid(10, headerLength);
    QVERIFY2(header.startsWith("{'descr': '<f4', 'fortran_order': False, 'shape': (16,), }"),
             header.constData());
    QCOMPARE(header.trimmed().size(), 58); // the rest is spaces and the final newline
    QVERIFY(header.endsWith(" \n"));

    array.shape = {2, 8};
    QVERIFY(serializeNpy(array).contains("'shape': (2, 8), }"));
    array.shape = {};
    array.data = QByteArray(4, '\0');
    QVERIFY(serializeNpy(array).contains("'shape': (), }"));
}

void TestNpy::fileRoundTrip() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    NpyArray array;
    array.type = ValueType::of(ScalarType::Complex64);
    array.shape = {3};
    array.data = patternBytes(24);
    QString error;
    QVERIFY2(writeNpy(dir.filePath("z.npy"), array, &error), qPrintable(error));
    const auto back = readNpy(dir.filePath("z.npy"), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->data, array.data);
    QCOMPARE(back->shape, array.shape);

    array.data.chop(1); // shape and data disagree
    QVERIFY(!writeNpy(dir.filePath("bad.npy"), array, &error));
    QVERIFY2(error.contains("needs 24 bytes but the data has 23"), qPrintable(error));
    QVERIFY(!QFile::exists(dir.filePath("bad.npy")));
    QVERIFY(!readNpy(dataPath("numpy_big_endian_i4.npy"), &error));
    QVERIFY2(error.contains("'>i4' is big-endian"), qPrintable(error));
    QVERIFY(!readNpy(dir.filePath("absent.npy"), &error));
    QVERIFY2(error.contains("absent.npy"), qPrintable(error));
}

void TestNpy::numpyFiles_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("type");
    QTest::addColumn<QVector<qint64>>("shape");
    QTest::addColumn<QByteArray>("data");
    const auto raw = [](auto... values) {
        QByteArray b;
        (b.append(reinterpret_cast<const char*>(&values), sizeof(values)), ...);
        return b;
    };
    QTest::newRow("float32 arange, growth padding")
        << "numpy_f4_arange4.npy" << int(ScalarType::Float32) << QVector<qint64>{4}
        << raw(0.0f, 1.0f, 2.0f, 3.0f);
    QTest::newRow("int16 2x3, format 2.0")
        << "numpy_i2_2x3_v2.npy" << int(ScalarType::Int16) << QVector<qint64>{2, 3}
        << raw(qint16(1), qint16(-2), qint16(3), qint16(-4), qint16(5), qint16(-6));
    QTest::newRow("0-d bool, format 3.0") << "numpy_b1_scalar_v3.npy" << int(ScalarType::Bool)
                                          << QVector<qint64>{} << QByteArray("\x01", 1);
    QTest::newRow("complex128") << "numpy_c16_2.npy" << int(ScalarType::Complex128)
                                << QVector<qint64>{2} << raw(1.0, 2.0, 0.0, -0.5);
    QTest::newRow("uint8 0x5") << "numpy_u1_0x5.npy" << int(ScalarType::UInt8)
                               << QVector<qint64>{0, 5} << QByteArray();
}

void TestNpy::numpyFiles() {
    QFETCH(QString, file);
    QFETCH(int, type);
    QFETCH(QVector<qint64>, shape);
    QFETCH(QByteArray, data);
    QString error;
    const auto array = readNpy(dataPath(file), &error);
    QVERIFY2(array, qPrintable(error));
    QCOMPARE(array->type, ValueType::of(ScalarType(type)));
    QCOMPARE(array->shape, shape);
    QCOMPARE(array->data, data);
}

void TestNpy::rejected_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("message");
    const QByteArray f4 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n";
    const QByteArray eight(8, '\0');
    QTest::newRow("empty") << QByteArray() << "bad magic";
    QTest::newRow("bad magic") << QByteArray("\x93NUMPX\x01\x00\x10\x00", 10) + f4 << "bad magic";
    QTest::newRow("a text file") << QByteArray("hello, world\n") << "bad magic";
    QTest::newRow("magic only") << QByteArray("\x93NUMPY", 6) << "bad magic";
    QTest::newRow("no header length")
        << QByteArray("\x93NUMPY\x01\x00\x10", 9) << "no header length";
    QTest::newRow("version 4.0") << handMade(f4, eight, 4) << "unsupported .npy version 4.0";
    QTest::newRow("header longer than the file") << handMade(f4).left(30) << "only 20 bytes follow";
    QTest::newRow("header length 4 GiB")
        << QByteArray("\x93NUMPY\x02\x00\xff\xff\xff\xff", 12) + f4 << "truncated";
    QTest::newRow("not a dict") << handMade("['descr', '<f4']\n", eight) << "expected a dict";
    QTest::newRow("missing shape")
        << handMade("{'descr': '<f4', 'fortran_order': False}\n", eight) << "missing 'shape'";
    QTest::newRow("unknown key")
        << handMade("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}\n", eight)
        << "unexpected or repeated key 'x'";
    QTest::newRow("repeated key")
        << handMade("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}\n")
        << "repeated key 'descr'";
    QTest::newRow("big-endian") << handMade("{'descr': '>f4', 'fortran_order': False, "
                                            "'shape': (2,), }\n",
                                            eight)
                                << "big-endian";
    QTest::newRow("fortran order 2-d")
        << handMade("{'descr': '<f4', 'fortran_order': True, 'shape': (1, 2), }\n", eight)
        << "Fortran-order";
    QTest::newRow("unicode dtype")
        << handMade("{'descr': '<U4', 'fortran_order': False, 'shape': (1,), }\n", patternBytes(16))
        << "unsupported dtype '<U4'";
    QTest::newRow("object dtype") << handMade("{'descr': '|O', 'fortran_order': False, "
                                              "'shape': (1,), }\n",
                                              eight)
                                  << "unsupported dtype '|O'";
    QTest::newRow("structured dtype")
        << handMade("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }\n", eight)
        << "structured";
    QTest::newRow("data truncated") << handMade(f4, QByteArray(7, '\0')) << "truncated .npy data";
    QTest::newRow("shape product overflows")
        << handMade("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, "
                    "4611686018427387904), }\n",
                    eight)
        << "truncated .npy data";
    QTest::newRow("dimension beyond 64 bits")
        << handMade("{'descr': '<f8', 'fortran_order': False, 'shape': "
                    "(99999999999999999999999,), }\n",
                    eight)
        << "cannot read the value of 'shape'";
    QTest::newRow("negative dimension")
        << handMade("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }\n", eight)
        << "cannot read the value of 'shape'";
    QTest::newRow("fortran_order not a bool")
        << handMade("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }\n", eight)
        << "cannot read the value of 'fortran_order'";
    QTest::newRow("text after the dict")
        << handMade("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } junk\n", eight)
        << "text after the dict";
    QTest::newRow("unterminated string")
        << handMade("{'descr': '<f4, 'fortran_order': False}\n", eight) << "bad .npy header";
}

void TestNpy::rejected() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, message);
    QString error;
    QVERIFY(!parseNpy(bytes, &error));
    QVERIFY2(error.contains(message), qPrintable(error));
}

void TestNpy::neverCrashes() {
    // Every prefix and many random corruptions of valid files: either a clean error or an
    // array whose data matches its shape. (A real fuzzer gets pointed at parseNpy later.)
    QVector<QByteArray> seeds;
    for (const char* name : {"numpy_f4_arange4.npy", "numpy_i2_2x3_v2.npy",
                             "numpy_b1_scalar_v3.npy", "numpy_big_endian_i4.npy"}) {
        QFile file(dataPath(QLatin1String(name)));
        QVERIFY(file.open(QIODevice::ReadOnly));
        seeds.append(file.readAll());
    }
    QRandomGenerator random(12345);
    int parsed = 0;
    const auto check = [&](const QByteArray& bytes) {
        QString error;
        const auto array = parseNpy(bytes, &error);
        if (array) {
            ++parsed;
            QCOMPARE(qint64(array->data.size()), array->elementCount() * array->type.sizeBytes());
        } else {
            QVERIFY(!error.isEmpty());
        }
    };
    for (const QByteArray& seed : seeds) {
        for (int n = 0; n <= seed.size(); ++n)
            check(seed.left(n));
        for (int round = 0; round < 3000; ++round) {
            QByteArray mutated = seed;
            const int edits = 1 + int(random.bounded(4));
            for (int e = 0; e < edits; ++e) {
                const int pos = int(random.bounded(mutated.size()));
                const char interesting[] = {'(', ')', ',', '\'', '{', '}', '9', '0', '\0', ' '};
                mutated[pos] =
                    random.bounded(2) ? char(random.bounded(256)) : interesting[random.bounded(10)];
            }
            check(mutated);
        }
    }
    QVERIFY(parsed > 0); // some mutations (e.g. in the padding) still parse
}

void TestNpy::refusedBeforeTheData_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<qint64>("bufferCount");
    QTest::addColumn<QStringList>("messages");
    // The attacker's files: each used to be read whole (or waited on) before being refused.
    QTest::newRow("sparse 2 GiB file for a 16-element buffer")
        << "sparse" << qint64(16)
        << QStringList{"big.npy", "shape (536870912,) of <f4 has 536870912 elements",
                       "buffer 'x' has 16", "2147483648 bytes (2.0 GiB)", "64 bytes"};
    QTest::newRow("header promising 2 GiB in a 1 KiB file")
        << "short" << qint64(536870912)
        << QStringList{"short.npy", "truncated .npy data", "2147483648 bytes (2.0 GiB)"};
    QTest::newRow("/dev/zero") << "dev-zero" << qint64(16)
                               << QStringList{"/dev/zero", "not a regular file"};
    QTest::newRow("symbolic link to /dev/zero")
        << "link-to-dev-zero" << qint64(16) << QStringList{"zero.npy", "not a regular file"};
    QTest::newRow("FIFO with no writer")
        << "fifo" << qint64(16) << QStringList{"pipe.npy", "not a regular file"};
    QTest::newRow("folder") << "folder" << qint64(16)
                            << QStringList{"folder.npy", "not a regular file"};
}

void TestNpy::refusedBeforeTheData() {
    QFETCH(QString, kind);
    QFETCH(qint64, bufferCount);
    QFETCH(QStringList, messages);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString path;
    if (kind == "sparse") {
        path = dir.filePath("big.npy");
        QVERIFY(writeSparseNpy(path, {kTwoGiB / 4}, kTwoGiB));
    } else if (kind == "short") {
        path = dir.filePath("short.npy");
        QVERIFY(writeSparseNpy(path, {kTwoGiB / 4}, 1024));
    } else if (kind == "dev-zero") {
        path = QStringLiteral("/dev/zero");
    } else if (kind == "link-to-dev-zero") {
        path = dir.filePath("zero.npy");
        QVERIFY(QFile::link(QStringLiteral("/dev/zero"), path));
    } else if (kind == "fifo") {
        path = dir.filePath("pipe.npy");
        QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
    } else if (kind == "folder") {
        path = dir.filePath("folder.npy");
        QVERIFY(QDir().mkpath(path));
    }
    NpyExpectation expected;
    expected.elementCount = bufferCount;
    expected.type = ValueType::of(ScalarType::Float32);
    expected.what = QStringLiteral("buffer 'x'");
    const qint64 readBefore = bytesReadSoFar();
    QString error;
    const std::optional<NpyArray> array = readNpy(path, expected, &error); // a FIFO hung here
    const qint64 readBytes = bytesReadSoFar() - readBefore;
    QVERIFY(!array);
    for (const QString& message : messages)
        QVERIFY2(error.contains(message), qPrintable(error));
    // Only the header (and /proc/self/io itself) may have been read, never the data.
    QVERIFY2(readBytes >= 0 && readBytes < 64 * 1024,
             qPrintable(QStringLiteral("%1 bytes read").arg(readBytes)));
}

void TestNpy::trailingBytesAreNotRead() {
    // A valid 16-element file followed by a 2 GiB hole: accepted, as numpy.load accepts
    // trailing bytes, but the hole is never read.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("padded.npy");
    QVERIFY(writeSparseNpy(path, {16}, kTwoGiB));
    NpyExpectation expected;
    expected.elementCount = 16;
    const qint64 readBefore = bytesReadSoFar();
    QString error;
    const std::optional<NpyArray> array = readNpy(path, expected, &error);
    const qint64 readBytes = bytesReadSoFar() - readBefore;
    QVERIFY2(array, qPrintable(error));
    QCOMPARE(array->data, QByteArray(64, '\0'));
    QVERIFY2(readBytes >= 0 && readBytes < 64 * 1024,
             qPrintable(QStringLiteral("%1 bytes read").arg(readBytes)));
}

KERNELPAD_TEST_GUILESS_MAIN(TestNpy)
} // namespace tst_npy
#include "tst_npy.moc"
