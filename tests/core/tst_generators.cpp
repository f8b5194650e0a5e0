// The host's definitions of seeded contents that the GPU reproduces bit for bit
// (BufferInit.h, core/run/DeviceInit.cu): normal's inverse CDF and its statistics, integer
// uniform's inclusive and exclusive edges, float16 rounding of edge values, and element i
// depending on (seed, i) alone, whatever the buffer's size.

#include "../support/TestMain.h"
#include "core/launch/BufferInit.h"
#include "core/launch/ScalarCodec.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace tst_generators {

using namespace kernelpad;

namespace {

BufferSpec spec(ScalarType type, InitSpec::Kind kind, quint64 seed) {
    BufferSpec b;
    b.elementType = ValueType::of(type);
    b.init.kind = kind;
    b.init.seed = seed;
    return b;
}

QByteArray make(const BufferSpec& s, qint64 count) {
    QString error;
    const auto bytes = makeBufferContents(s, count, QString(), &error);
    if (!bytes)
        qWarning("makeBufferContents failed: %s", qPrintable(error));
    return bytes.value_or(QByteArray());
}

template <typename T> T at(const QByteArray& bytes, qint64 index) {
    T value;
    std::memcpy(&value, bytes.constData() + index * qint64(sizeof(T)), sizeof(T));
    return value;
}

/// The standard normal CDF, from the C library: only the tests use it, to judge accuracy.
double phi(double z) {
    return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

} // namespace

class TestGenerators : public QObject {
    Q_OBJECT

private slots:
    /// Values computed independently (Python floats, the same operations): a changed constant
    /// or a reordered operation changes the bits.
    void normalKnownValues_data() {
        QTest::addColumn<quint64>("bits");
        QTest::addColumn<double>("expected");
        QTest::newRow("seed 1, element 0")
            << quint64(0x90287996c3e2222aULL) << 0x1.4561f4d56adb9p-3;
        QTest::newRow("seed 7, element 1")
            << quint64(0xa791e1e11c1c97cfULL) << 0x1.973b66efe3ea3p-2;
        QTest::newRow("central, p near 0.2")
            << quint64(0x3333333333333400ULL) << -0x1.aee8fa73a1332p-1;
        QTest::newRow("near tail, p near 0.01")
            << quint64(0x28f5c28f5c28f60ULL) << -0x1.29c5c4630ff16p+1;
        QTest::newRow("near tail, p near 0.95")
            << quint64(0xf333333333333000ULL) << 0x1.a515209676abfp+0;
        QTest::newRow("far tail") << quint64(0x1000) << -0x1.02734508d1f1cp+3;
        QTest::newRow("lowest p = 2^-53") << quint64(0) << -0x1.06b48528cea51p+3;
        QTest::newRow("highest p = 1 - 2^-53") << ~quint64(0) << 0x1.06b48528cea51p+3;
    }
    void normalKnownValues() {
        QFETCH(quint64, bits);
        QFETCH(double, expected);
        const double z = normalFromBits(bits);
        QVERIFY2(
            z == expected,
            qPrintable(
                QStringLiteral("%1, expected %2").arg(z, 0, 'a', 13).arg(expected, 0, 'a', 13)));
    }

    void normalIsSymmetric() {
        // p and 1 - p come from complementary top bits: the draws are exact negatives.
        for (const quint64 bits : {quint64(0), quint64(0x1234567890abcdefULL),
                                   quint64(0x3333333333333400ULL), quint64(1) << 62}) {
            const quint64 mirrored = ~bits & ~quint64(0xFFF); // top 52 bits complemented
            QCOMPARE(normalFromBits(mirrored), -normalFromBits(bits));
        }
    }

    /// The inverse CDF is accurate far into the tails: Phi(z(p)) is p to 1e-12 relative.
    void normalInvertsTheCdf() {
        for (int e = 1; e <= 53; e += 2) {
            for (const double f : {1.0, 1.37, 1.9}) {
                const double p = std::ldexp(f, -e);
                if (p >= 1.0)
                    continue;
                const quint64 k = quint64(std::ldexp(p, 53) - 1) / 2; // p = (2k + 1) / 2^53
                const quint64 bits = k << 12;
                const double exactP = std::ldexp(double(2 * k + 1), -53);
                const double z = normalFromBits(bits);
                QVERIFY2(std::abs(phi(z) - exactP) <= 1e-12 * exactP,
                         qPrintable(QStringLiteral("p = %1: z = %2, Phi(z) = %3")
                                        .arg(exactP, 0, 'g', 17)
                                        .arg(z, 0, 'g', 17)
                                        .arg(phi(z), 0, 'g', 17)));
            }
        }
    }

    void portableLogMatchesLibm() {
        for (double x = 0x1.0p-60; x < 4.0; x *= 1.0173) {
            const double expected = std::log(x);
            QVERIFY2(std::abs(portableLog(x) - expected) <=
                         5e-16 * std::max(1.0, std::abs(expected)),
                     qPrintable(QString::number(x, 'g', 17)));
        }
        QCOMPARE(portableLog(1.0), 0.0);
        QCOMPARE(portableLog(0.5), -0x1.62e42fefa39efp-1);
    }

    /// 1,000,000 draws of float64 normal(0, 1): mean, standard deviation, the tails beyond 2,
    /// 3 and 4 sigma and the extremes, each within about five standard errors.
    void normalStatistics() {
        const qint64 n = 1000000;
        const QByteArray a = make(spec(ScalarType::Float64, InitSpec::Kind::Normal, 2024), n);
        QCOMPARE(a.size(), n * 8);
        double sum = 0, sumSq = 0, lowest = 0, highest = 0;
        qint64 beyond2 = 0, beyond3 = 0, beyond4 = 0, above3 = 0;
        for (qint64 i = 0; i < n; ++i) {
            const double v = at<double>(a, i);
            sum += v;
            sumSq += v * v;
            lowest = std::min(lowest, v);
            highest = std::max(highest, v);
            beyond2 += std::abs(v) > 2;
            beyond3 += std::abs(v) > 3;
            beyond4 += std::abs(v) > 4;
            above3 += v > 3;
        }
        const double mean = sum / n;
        const double stddev = std::sqrt(sumSq / n - mean * mean);
        QVERIFY2(std::abs(mean) < 0.005, qPrintable(QString::number(mean)));          // SE 0.001
        QVERIFY2(std::abs(stddev - 1) < 0.0035, qPrintable(QString::number(stddev))); // SE 0.0007
        // Expected counts: 45,500 (SE 204), 2,700 (SE 52), 63 (SE 8); one side of 3: 1,350.
        QVERIFY2(std::abs(beyond2 - 45500) < 1000, qPrintable(QString::number(beyond2)));
        QVERIFY2(std::abs(beyond3 - 2700) < 260, qPrintable(QString::number(beyond3)));
        QVERIFY2(beyond4 >= 25 && beyond4 <= 105, qPrintable(QString::number(beyond4)));
        QVERIFY2(std::abs(above3 - 1350) < 185, qPrintable(QString::number(above3)));
        // A million draws reach about 4.9 sigma; none can pass 8.21.
        QVERIFY2(lowest < -4.0 && lowest > -8.21, qPrintable(QString::number(lowest)));
        QVERIFY2(highest > 4.0 && highest < 8.21, qPrintable(QString::number(highest)));
    }

    void normalScaledAndRounded() {
        BufferSpec s = spec(ScalarType::Int32, InitSpec::Kind::Normal, 5);
        s.init.mean = 100;
        s.init.stddev = 10;
        const QByteArray ints = make(s, 1000);
        s.elementType = ValueType::of(ScalarType::Float64);
        const QByteArray reals = make(s, 1000);
        for (int i = 0; i < 1000; ++i) // the integer is the nearest to the real draw
            QCOMPARE(at<qint32>(ints, i), qint32(std::nearbyint(at<double>(reals, i))));
        // Saturated to the type's range: int8 draws around 1000 are all 127.
        s.elementType = ValueType::of(ScalarType::Int8);
        s.init.mean = 1000;
        const QByteArray bytes = make(s, 64);
        for (int i = 0; i < 64; ++i)
            QCOMPARE(at<qint8>(bytes, i), qint8(127));
        // Complex elements: draws 2i and 2i + 1, as re and im.
        s.elementType = ValueType::of(ScalarType::Complex128);
        s.init.mean = 0;
        s.init.stddev = 1;
        const QByteArray c = make(s, 3);
        const quint64 key = randomKey(5);
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(at<double>(c, 2 * i), normalFromBits(randomBits(key, 2 * i)));
            QCOMPARE(at<double>(c, 2 * i + 1), normalFromBits(randomBits(key, 2 * i + 1)));
        }
    }

    void integerUniformEdges_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<double>("low");
        QTest::addColumn<double>("high");
        QTest::addColumn<double>("first"); // the smallest and largest values drawn
        QTest::addColumn<double>("last");
        QTest::newRow("int32 [0, 10): 0..9") << int(ScalarType::Int32) << 0.0 << 10.0 << 0.0 << 9.0;
        QTest::newRow("uint8 whole range [0, 256)")
            << int(ScalarType::UInt8) << 0.0 << 256.0 << 0.0 << 255.0;
        QTest::newRow("int8 whole range [-128, 128)")
            << int(ScalarType::Int8) << -128.0 << 128.0 << -128.0 << 127.0;
        QTest::newRow("int16 fractional bounds [-2.5, 3.5): -2..3")
            << int(ScalarType::Int16) << -2.5 << 3.5 << -2.0 << 3.0;
        QTest::newRow("uint16 [7, 8): only 7")
            << int(ScalarType::UInt16) << 7.0 << 8.0 << 7.0 << 7.0;
        QTest::newRow("int64 [-3, 3)") << int(ScalarType::Int64) << -3.0 << 3.0 << -3.0 << 2.0;
        QTest::newRow("uint32 [4294967290, 4294967296)")
            << int(ScalarType::UInt32) << 4294967290.0 << 4294967296.0 << 4294967290.0
            << 4294967295.0;
        QTest::newRow("uint64 [0, 4)") << int(ScalarType::UInt64) << 0.0 << 4.0 << 0.0 << 3.0;
        QTest::newRow("int32 low == high") << int(ScalarType::Int32) << 5.0 << 5.0 << 5.0 << 5.0;
    }
    void integerUniformEdges() {
        QFETCH(int, type);
        QFETCH(double, low);
        QFETCH(double, high);
        QFETCH(double, first);
        QFETCH(double, last);
        const ScalarType t = ScalarType(type);
        BufferSpec s = spec(t, InitSpec::Kind::Uniform, 77);
        s.init.low = low;
        s.init.high = high;
        const qint64 n = 20000;
        const QByteArray a = make(s, n);
        QCOMPARE(a.size(), n * scalarTypeInfo(t).sizeBytes);
        double smallest = INFINITY, largest = -INFINITY;
        for (qint64 i = 0; i < n; ++i) {
            const double v = detail::loadScalar(t, a.constData() + i * scalarTypeInfo(t).sizeBytes);
            smallest = std::min(smallest, v);
            largest = std::max(largest, v);
        }
        // Both edges are reached (inclusive low, exclusive high), nothing beyond them.
        QCOMPARE(smallest, first);
        QCOMPARE(largest, last);
    }

    void integerUniformRefusals_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<double>("low");
        QTest::addColumn<double>("high");
        QTest::addColumn<QString>("message");
        QTest::newRow("uint8 high beyond 256")
            << int(ScalarType::UInt8) << 0.0 << 257.0 << "uniform high - 1 256 does not fit";
        QTest::newRow("int8 low below -128")
            << int(ScalarType::Int8) << -129.0 << 0.0 << "uniform low -129 does not fit";
        QTest::newRow("no integer inside")
            << int(ScalarType::Int32) << 0.2 << 0.7 << "holds no integer";
    }
    void integerUniformRefusals() {
        QFETCH(int, type);
        QFETCH(double, low);
        QFETCH(double, high);
        QFETCH(QString, message);
        BufferSpec s = spec(ScalarType(type), InitSpec::Kind::Uniform, 1);
        s.init.low = low;
        s.init.high = high;
        QString error;
        QVERIFY(!makeBufferContents(s, 4, QString(), &error));
        QVERIFY2(error.contains(message), qPrintable(error));
        QCOMPARE(initProblemForType(s.init, ScalarType(type), 4), error);
    }

    void halfEdgeValues_data() {
        QTest::addColumn<double>("value");
        QTest::addColumn<int>("bits");
        QTest::newRow("largest finite") << 65504.0 << 0x7BFF;
        QTest::newRow("halfway to 65536 rounds to infinity") << 65520.0 << 0x7C00;
        QTest::newRow("just below that halfway") << std::nextafter(65520.0, 0.0) << 0x7BFF;
        QTest::newRow("tie 1 + 2^-11 to even 1") << 1.0 + 0x1.0p-11 << 0x3C00;
        QTest::newRow("tie 1 + 3 * 2^-11 to even") << 1.0 + 3 * 0x1.0p-11 << 0x3C02;
        QTest::newRow("above the tie rounds up") << 1.0 + 0x1.0p-11 + 0x1.0p-40 << 0x3C01;
        QTest::newRow("smallest subnormal") << 0x1.0p-24 << 0x0001;
        QTest::newRow("half the smallest subnormal: tie to 0") << 0x1.0p-25 << 0x0000;
        QTest::newRow("above half the smallest subnormal") << 0x1.0000000000001p-25 << 0x0001;
        QTest::newRow("largest subnormal") << 0x1.ff8p-15 << 0x03FF;
        QTest::newRow("halfway above it ties to the smallest normal") << 0x1.ffcp-15 << 0x0400;
        QTest::newRow("negative zero") << -0.0 << 0x8000;
        QTest::newRow("negative -2.5") << -2.5 << 0xC100;
        QTest::newRow("-infinity") << -std::numeric_limits<double>::infinity() << 0xFC00;
    }
    void halfEdgeValues() {
        QFETCH(double, value);
        QFETCH(int, bits);
        QCOMPARE(int(detail::doubleToHalfBits(value)), bits);
    }

    /// Element i of a float16 buffer is the rounded double draw (one rounding, double to half).
    void halfContentsAreTheRoundedDraws() {
        BufferSpec s = spec(ScalarType::Float16, InitSpec::Kind::Normal, 3);
        s.init.stddev = 1000;
        const QByteArray halves = make(s, 4096);
        s.elementType = ValueType::of(ScalarType::Float64);
        const QByteArray doubles = make(s, 4096);
        for (int i = 0; i < 4096; ++i)
            QCOMPARE(at<quint16>(halves, i), detail::doubleToHalfBits(at<double>(doubles, i)));
    }

    /// Element i depends on (seed, i) alone: the first ten elements of a 10,000,000-element
    /// buffer (filled on several threads) are those of a ten-element one, and its last is the
    /// definition applied to its index.
    void sameElementWhateverTheSize_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("kind");
        QTest::newRow("normal float32") << int(ScalarType::Float32) << int(InitSpec::Kind::Normal);
        QTest::newRow("uniform int16") << int(ScalarType::Int16) << int(InitSpec::Kind::Uniform);
        QTest::newRow("normal complex64")
            << int(ScalarType::Complex64) << int(InitSpec::Kind::Normal);
    }
    void sameElementWhateverTheSize() {
        QFETCH(int, type);
        QFETCH(int, kind);
        BufferSpec s = spec(ScalarType(type), InitSpec::Kind(kind), 31);
        s.init.low = -1000;
        s.init.high = 1000;
        const qint64 big = 10000000;
        const int size = scalarTypeInfo(ScalarType(type)).sizeBytes;
        const QByteArray large = make(s, big);
        const QByteArray small = make(s, 10);
        QCOMPARE(large.size(), big * size);
        QCOMPARE(large.left(10 * size), small);
        const QByteArray last = large.mid((big - 1) * size);
        const quint64 key = randomKey(31);
        char expected[16] = {};
        const quint64 i = quint64(big - 1);
        if (ScalarType(type) == ScalarType::Float32)
            detail::storeScalar(ScalarType::Float32, normalFromBits(randomBits(key, i)), 0,
                                expected);
        else if (ScalarType(type) == ScalarType::Complex64)
            detail::storeScalar(ScalarType::Complex64, normalFromBits(randomBits(key, 2 * i)),
                                normalFromBits(randomBits(key, 2 * i + 1)), expected);
        else
            detail::storeScalar(ScalarType::Int16,
                                std::floor(-1000 + unitFromBits(randomBits(key, i)) * 2000), 0,
                                expected);
        QCOMPARE(last, QByteArray(expected, size));
        // Another seed, other contents.
        s.init.seed = 32;
        QVERIFY(make(s, 10) != small);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestGenerators)
} // namespace tst_generators
#include "tst_generators.moc"
