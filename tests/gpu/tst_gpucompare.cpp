// GpuComparer gives the report compareBuffers() gives on the host, field for field, on random
// data with injected mismatches, NaNs, infinities and poison; and it compares 256 million
// floats (bench/compare times it).

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/cuda/Context.h"
#include "core/cuda/CudaError.h"
#include "core/cuda/Device.h"
#include "core/cuda/DeviceBuffer.h"
#include "core/cuda/Stream.h"
#include "core/launch/ScalarCodec.h"
#include "core/verify/GpuCompare.h"
#include "core/verify/Verify.h"

#include <QTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>

namespace tst_gpucompare {

using namespace kernelpad;

namespace {

enum class Scenario {
    Noisy,      ///< errors around the tolerance, big errors, NaN/inf (floats), poison
    RandomBits, ///< 1% of the elements replaced by random bytes: every float class
    Sparse,     ///< a few big errors far apart: the first ones come from different blocks
    Unwritten,  ///< the kernel wrote nothing
    Equal,      ///< identical bytes (after a failing row: nothing may be left over)
};
const char* scenarioName(Scenario s) {
    switch (s) {
    case Scenario::Noisy:
        return "noisy";
    case Scenario::RandomBits:
        return "random bits";
    case Scenario::Sparse:
        return "sparse";
    case Scenario::Unwritten:
        return "unwritten";
    case Scenario::Equal:
        return "equal";
    }
    return "?";
}

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

bool same(double a, double b) {
    return a == b || (std::isnan(a) && std::isnan(b));
}

void setPoison(QByteArray& bytes, qint64 index, int elementBytes) {
    std::memset(bytes.data() + index * elementBytes, kPoisonByte, size_t(elementBytes));
}

/// got and expected for one row, as raw bytes of `type`.
struct Data {
    QByteArray got;
    QByteArray expected;
};

Data makeData(ScalarType type, qint64 count, Scenario scenario, quint64 seed) {
    const ValueType vt = ValueType::of(type);
    const ScalarTypeInfo& info = scalarTypeInfo(type);
    const int size = info.sizeBytes;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::uniform_int_distribution<int> byte(0, 255);
    const auto chance = [&](double p) { return unit(rng) < p; };

    if (scenario == Scenario::RandomBits) {
        Data d;
        d.expected.resize(qsizetype(count * size));
        for (char& c : d.expected)
            c = char(byte(rng));
        d.got = d.expected;
        for (qint64 i = 0; i < count; ++i) {
            if (chance(0.01) || (count < 100 && i == 0))
                for (int b = 0; b < size; ++b)
                    d.got[qsizetype(i * size + b)] = char(byte(rng));
            else if (chance(0.001))
                setPoison(d.got, i, size);
        }
        return d;
    }

    // Values an output of this type could hold (fp4's largest is 6).
    const bool low = isLowPrecision(type);
    QVector<double> expected(count);
    for (double& e : expected) {
        if (type == ScalarType::Float4E2M1x2)
            e = unit(rng) * 12 - 6;
        else if (info.isFloat)
            e = chance(0.01) ? 0.0 : unit(rng) * 200 - 100;
        else if (type == ScalarType::UInt8)
            e = double(byte(rng));
        else
            e = std::round(unit(rng) * 2e6 - 1e6);
    }
    QVector<double> got = expected;
    QVector<qint64> poisoned, bothPoisoned;
    if (scenario == Scenario::Noisy) {
        const double atol = 1e-6, rtol = 1e-5; // the rows' float tolerances
        for (qint64 i = 0; i < count; ++i) {
            double& g = got[i];
            double& e = expected[i];
            if (count < 100 && i == 0) {
                // Short rows fail too, in any type's range (fp8/fp4 saturate: e > 0 goes down).
                g = e > (low ? 0 : 100) ? e - 100 : e + 100;
            } else if (low) {
                // Whole ulps of the type around the rows' ulp tolerance (2), and the specials.
                if (chance(0.3))
                    g = e + detail::ulpOf(type, e) * std::round(unit(rng) * 8 - 4);
                else if (chance(0.001))
                    g = kNan;
                else if (chance(0.001))
                    g = kInf;
                else if (chance(0.001))
                    g = e = -kInf;
            } else if (info.isFloat) {
                if (chance(0.1)) // around the tolerance, on both sides of it
                    g = e + (atol + rtol * std::abs(e)) * (unit(rng) * 3 - 1.5);
                else if (chance(0.001))
                    g = e + 1000;
                else if (chance(0.0005))
                    g = kNan;
                else if (chance(0.0005))
                    g = e = kNan;
                else if (chance(0.0005))
                    e = kNan;
                else if (chance(0.0005))
                    g = kInf;
                else if (chance(0.0005))
                    g = e = -kInf;
                else if (chance(0.0005))
                    e = kInf;
            } else {
                if (chance(0.1))
                    g = e + std::round(unit(rng) * 6 - 3);
                else if (chance(0.001))
                    g = e + 1000;
            }
            if (chance(0.0005))
                poisoned.append(i);
            else if (chance(0.0002))
                bothPoisoned.append(i);
        }
    } else if (scenario == Scenario::Sparse) {
        for (int k = 0; k < 24 && count > 0; ++k) {
            const qint64 i = qint64(unit(rng) * double(count)) % count;
            got[i] = expected[i] + 100;
        }
    }
    Data d{doublesToBytes(vt, got), doublesToBytes(vt, expected)};
    for (qint64 i : poisoned)
        setPoison(d.got, i, size);
    for (qint64 i : bothPoisoned) { // poison that is the expected value is no unwritten element
        setPoison(d.got, i, size);
        setPoison(d.expected, i, size);
    }
    if (scenario == Scenario::Unwritten)
        d.got.fill(char(kPoisonByte));
    return d;
}

DeviceBuffer upload(const QByteArray& bytes, const Stream& stream, const char* label) {
    DeviceBuffer b(bytes.size(), QString::fromLatin1(label));
    b.uploadAsync(bytes.constData(), bytes.size(), stream);
    return b;
}

} // namespace

} // namespace tst_gpucompare
Q_DECLARE_METATYPE(tst_gpucompare::Scenario)
namespace tst_gpucompare {

class TestGpuCompare : public QObject {
    Q_OBJECT

private:
    // Declared in this order so that they are destroyed in the reverse one: the comparer's
    // module and memory belong to the context.
    std::unique_ptr<Context> m_context;
    std::unique_ptr<Stream> m_stream;
    std::unique_ptr<GpuComparer> m_comparer;
    QString m_arch;

    void verifySameReport(const BufferVerification& gpu, const BufferVerification& host) {
        QCOMPARE(gpu.error, host.error);
        QCOMPARE(gpu.passed, host.passed);
        QCOMPARE(gpu.checked, host.checked);
        QCOMPARE(gpu.mismatches, host.mismatches);
        QCOMPARE(gpu.nanCount, host.nanCount);
        QCOMPARE(gpu.unwritten, host.unwritten);
        // Bit for bit, not QCOMPARE's fuzzy double comparison.
        QVERIFY2(same(gpu.maxAbsError, host.maxAbsError),
                 qPrintable(QStringLiteral("maxAbsError %1 on the GPU, %2 on the host")
                                .arg(gpu.maxAbsError, 0, 'g', 17)
                                .arg(host.maxAbsError, 0, 'g', 17)));
        QVERIFY2(same(gpu.maxRelError, host.maxRelError),
                 qPrintable(QStringLiteral("maxRelError %1 on the GPU, %2 on the host")
                                .arg(gpu.maxRelError, 0, 'g', 17)
                                .arg(host.maxRelError, 0, 'g', 17)));
        QVERIFY2(same(gpu.maxUlpError, host.maxUlpError),
                 qPrintable(QStringLiteral("maxUlpError %1 on the GPU, %2 on the host")
                                .arg(gpu.maxUlpError, 0, 'g', 17)
                                .arg(host.maxUlpError, 0, 'g', 17)));
        QCOMPARE(gpu.firstMismatches.size(), host.firstMismatches.size());
        for (int k = 0; k < host.firstMismatches.size(); ++k) {
            const Mismatch& g = gpu.firstMismatches[k];
            const Mismatch& h = host.firstMismatches[k];
            QCOMPARE(g.index, h.index);
            QVERIFY2(
                same(g.got, h.got) && same(g.expected, h.expected),
                qPrintable(QStringLiteral("mismatch %1 (index %2): GPU %3 vs %4, host %5 vs %6")
                               .arg(k)
                               .arg(h.index)
                               .arg(g.got)
                               .arg(g.expected)
                               .arg(h.got)
                               .arg(h.expected)));
        }
    }

    BufferVerification compareOnGpu(const QByteArray& got, const QByteArray& expected,
                                    const ValueType& type, qint64 count, double atol, double rtol,
                                    double ulp = 0) {
        const DeviceBuffer g = upload(got, *m_stream, "got");
        const DeviceBuffer e = upload(expected, *m_stream, "expected");
        return m_comparer->compare(g, e, type, count, atol, rtol, ulp, *m_stream, m_arch);
    }

private slots:
    void initTestCase() {
        KERNELPAD_REQUIRE_DRIVER();
        if (Device::count() == 0)
            QSKIP("needs a CUDA device");
        const Device device(0);
        m_context = std::make_unique<Context>(device);
        m_stream = std::make_unique<Stream>();
        m_comparer = std::make_unique<GpuComparer>();
        m_arch = device.info().arch();
    }

    void cleanupTestCase() {
        m_comparer.reset();
        m_stream.reset();
        m_context.reset();
    }

    void matchesHost_data() {
        QTest::addColumn<ScalarType>("type");
        QTest::addColumn<qint64>("count");
        QTest::addColumn<Scenario>("scenario");
        QTest::addColumn<double>("atol");
        QTest::addColumn<double>("rtol");
        QTest::addColumn<double>("ulp");
        const ScalarType types[] = {
            ScalarType::Float32,    ScalarType::Float64,    ScalarType::Int32,
            ScalarType::Float16,    ScalarType::UInt8,      ScalarType::BFloat16,
            ScalarType::Float8E4M3, ScalarType::Float8E5M2, ScalarType::Float4E2M1x2};
        const qint64 counts[] = {1, 1000, 10'000'000};
        const Scenario scenarios[] = {Scenario::Noisy, Scenario::RandomBits, Scenario::Sparse,
                                      Scenario::Unwritten, Scenario::Equal};
        for (ScalarType t : types) {
            const bool low = isLowPrecision(t);
            const bool isFloat = scalarTypeInfo(t).isFloat && !low;
            for (qint64 n : counts) {
                for (Scenario s : scenarios) {
                    // Floats with the default tolerances; low-precision types within 2 ulps;
                    // integers exactly.
                    const double atol = isFloat ? 1e-6 : 0.0;
                    const double rtol = isFloat ? 1e-5 : 0.0;
                    QTest::addRow("%s, %lld, %s", scalarTypeInfo(t).numpyName, n, scenarioName(s))
                        << t << n << s << atol << rtol << (low ? 2.0 : 0.0);
                }
            }
            if (!isFloat && !low) // integers within a tolerance are compared as doubles
                QTest::addRow("%s, 1000000, noisy within atol 2", scalarTypeInfo(t).numpyName)
                    << t << qint64(1'000'000) << Scenario::Noisy << 2.0 << 0.0 << 0.0;
        }
        QTest::addRow("float32, 1000000, noisy, rtol only")
            << ScalarType::Float32 << qint64(1'000'000) << Scenario::Noisy << 0.0 << 1e-5 << 0.0;
        // Either bound passes an element: atol or 4 float32 ulps; ulps of an integer are 1.
        QTest::addRow("float32, 1000000, noisy, atol or 4 ulps")
            << ScalarType::Float32 << qint64(1'000'000) << Scenario::Noisy << 1e-6 << 0.0 << 4.0;
        QTest::addRow("int32, 1000000, noisy within 2 ulps")
            << ScalarType::Int32 << qint64(1'000'000) << Scenario::Noisy << 0.0 << 0.0 << 2.0;
        QTest::addRow("bfloat16, 1000000, noisy, rtol 1e-2 or 1 ulp")
            << ScalarType::BFloat16 << qint64(1'000'000) << Scenario::Noisy << 0.0 << 1e-2 << 1.0;
    }
    void matchesHost() {
        QFETCH(ScalarType, type);
        QFETCH(qint64, count);
        QFETCH(Scenario, scenario);
        QFETCH(double, atol);
        QFETCH(double, rtol);
        QFETCH(double, ulp);
        const ValueType vt = ValueType::of(type);
        const Data d = makeData(type, count, scenario, quint64(count) * 31 + quint64(scenario));
        const BufferVerification host =
            compareBuffers(vt, d.got, d.expected, count, atol, rtol, ulp);
        const BufferVerification gpu = compareOnGpu(d.got, d.expected, vt, count, atol, rtol, ulp);
        verifySameReport(gpu, host);
        // The row tests what it says it tests.
        if (scenario == Scenario::Equal)
            QVERIFY(host.passed);
        if (scenario == Scenario::Unwritten) {
            // Expected elements that are the poison pattern themselves (uint8 165) match it.
            const int size = vt.sizeBytes();
            const QByteArray poison(size, char(kPoisonByte));
            qint64 poisonExpected = 0;
            for (qint64 i = 0; i < count; ++i)
                poisonExpected += d.expected.mid(qsizetype(i * size), size) == poison;
            QCOMPARE(host.unwritten, count - poisonExpected);
            QCOMPARE(host.mismatches, host.unwritten);
        }
        if (scenario == Scenario::Noisy)
            QVERIFY(host.mismatches > (count >= 1'000'000 ? kMaxReportedMismatches : 0));
    }

    void nanComparisonMatchesHost_data() {
        QTest::addColumn<ScalarType>("type");
        QTest::addColumn<bool>("differ");
        for (const ScalarType t :
             {ScalarType::Float32, ScalarType::Float64, ScalarType::Float16, ScalarType::BFloat16,
              ScalarType::Float8E4M3, ScalarType::Float8E5M2})
            for (const bool differ : {false, true})
                QTest::addRow("%s, nan %s", scalarTypeInfo(t).numpyName,
                              differ ? "differ" : "equal")
                    << t << differ;
    }
    void nanComparisonMatchesHost() {
        // NaN where the reference has NaN at every 7th element, NaN where it has a number at
        // element 500, +Inf where +Inf is expected at every 11th (not for e4m3, which has none).
        QFETCH(ScalarType, type);
        QFETCH(bool, differ);
        const ValueType vt = ValueType::of(type);
        const qint64 count = 1000;
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const double inf = type == ScalarType::Float8E4M3 ? 1.0 : HUGE_VAL;
        QVector<double> expected, got;
        for (qint64 i = 0; i < count; ++i) {
            const double v = i % 7 == 0 ? nan : i % 11 == 0 ? inf : 0.25 * double(i % 5);
            expected << v;
            got << (i == 500 ? nan : v);
        }
        const QByteArray e = doublesToBytes(vt, expected);
        const QByteArray g = doublesToBytes(vt, got);
        const NanComparison mode = differ ? NanComparison::Differ : NanComparison::Equal;
        const BufferVerification host = compareBuffers(vt, g, e, count, 0, 0, 0, mode);
        const DeviceBuffer gd = upload(g, *m_stream, "got");
        const DeviceBuffer ed = upload(e, *m_stream, "expected");
        const BufferVerification gpu =
            m_comparer->compare(gd, ed, vt, count, 0, 0, 0, *m_stream, m_arch, mode);
        verifySameReport(gpu, host);
        QCOMPARE(gpu.failure, host.failure);
        // 143 expected NaNs (0, 7, ..., 994) fail under "differ"; element 500 under both.
        QCOMPARE(host.mismatches, differ ? 144 : 1);
        QCOMPARE(host.nanCount, 1);
    }

    void comparesOnlyTheFirstCount() {
        // Elements past `count` differ; they must not be looked at.
        const ValueType vt = ValueType::of(ScalarType::Float32);
        Data d = makeData(ScalarType::Float32, 1500, Scenario::Equal, 7);
        std::memset(d.got.data() + 1000 * 4, 0x7f, 500 * 4);
        const BufferVerification gpu = compareOnGpu(d.got, d.expected, vt, 1000, 0, 0);
        QVERIFY2(gpu.passed, qPrintable(gpu.error));
        QCOMPARE(gpu.checked, qint64(1000));
        QCOMPARE(gpu.mismatches, qint64(0));
    }

    void badInputsGiveTheHostsErrors_data() {
        QTest::addColumn<qint64>("count");
        QTest::addColumn<double>("atol");
        QTest::addColumn<double>("rtol");
        QTest::addColumn<int>("gotElements");
        QTest::newRow("negative count") << qint64(-1) << 0.0 << 0.0 << 10;
        QTest::newRow("negative atol") << qint64(10) << -1.0 << 0.0 << 10;
        QTest::newRow("NaN rtol") << qint64(10) << 0.0 << kNan << 10;
        QTest::newRow("output too small") << qint64(10) << 0.0 << 0.0 << 9;
        QTest::newRow("nothing to compare") << qint64(0) << 0.0 << 0.0 << 10;
    }
    void badInputsGiveTheHostsErrors() {
        QFETCH(qint64, count);
        QFETCH(double, atol);
        QFETCH(double, rtol);
        QFETCH(int, gotElements);
        const ValueType vt = ValueType::of(ScalarType::Int32);
        const QByteArray got(gotElements * 4, '\0');
        const QByteArray expected(10 * 4, '\0');
        const BufferVerification host = compareBuffers(vt, got, expected, count, atol, rtol);
        const BufferVerification gpu = compareOnGpu(got, expected, vt, count, atol, rtol);
        verifySameReport(gpu, host);
    }

    void complexIsLeftToTheHost() {
        const ValueType vt = ValueType::of(ScalarType::Complex64);
        QVERIFY(!GpuComparer::supports(vt));
        const QByteArray bytes(80, '\0');
        const BufferVerification gpu = compareOnGpu(bytes, bytes, vt, 10, 0, 0);
        QVERIFY(!gpu.passed);
        QVERIFY2(gpu.error.contains(QLatin1String("complex64")), qPrintable(gpu.error));
    }

    void quarterBillionFloatsFindEveryWrongElement() {
        constexpr qint64 kCount = qint64(256) << 20; // 1 GiB per buffer
        constexpr qint64 kBytes = kCount * 4;
        const Stream& stream = *m_stream;
        DeviceBuffer expected(kBytes, QStringLiteral("expected"));
        DeviceBuffer got(kBytes, QStringLiteral("got"));
        expected.fillBytesAsync(0x3f, stream); // 0x3f3f3f3f: 0.747 in every element
        got.copyFromAsync(expected, stream);
        // Three wrong elements, the last one in the last tile of the last block.
        const qint64 wrong[] = {12'345, kCount / 2 + 7, kCount - 1};
        const float bad = 2.0f;
        for (qint64 i : wrong)
            check(DriverApi::get().cuMemcpyHtoDAsync(got.address() + CUdeviceptr(i * 4), &bad, 4,
                                                     stream.handle()),
                  "planting a wrong element");
        stream.synchronize();

        // Its time is bench/compare's ("verification of 268,435,456 floats", bench/README.md).
        GpuComparer comparer;
        const BufferVerification v =
            comparer.compare(got, expected, ValueType::of(ScalarType::Float32), kCount, 1e-6, 1e-5,
                             0, stream, m_arch);
        QVERIFY2(v.error.isEmpty(), qPrintable(v.error));
        QCOMPARE(v.checked, kCount);
        QCOMPARE(v.mismatches, qint64(3));
        QCOMPARE(v.firstMismatches.size(), 3);
        for (int k = 0; k < 3; ++k) {
            QCOMPARE(v.firstMismatches[k].index, wrong[k]);
            QCOMPARE(v.firstMismatches[k].got, 2.0);
        }
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestGpuCompare)
} // namespace tst_gpucompare
#include "tst_gpucompare.moc"
