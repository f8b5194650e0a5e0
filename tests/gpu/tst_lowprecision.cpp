// The host codecs of core/launch/MiniFloat against the device's own conversions: a kernel
// compiled by NVRTC with cuda_bf16.h, cuda_fp8.h and cuda_fp4.h decodes every bit pattern
// (65536 bf16, 256 e4m3, 256 e5m2, 16 e2m1) and encodes, from float and from double, every
// midpoint between neighbours, the values next to it, every representable value, overflow,
// subnormals, ±0, ±inf and NaN; each device result must be the host's bits (NaN aside: any
// NaN for a NaN). Then a whole run of a bf16 kernel project verified with "ulp".

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include "core/compile/Program.h"
#include "core/cuda/Context.h"
#include "core/cuda/Device.h"
#include "core/cuda/DeviceBuffer.h"
#include "core/cuda/Module.h"
#include "core/cuda/Stream.h"
#include "core/launch/MiniFloat.h"
#include "core/launch/ScalarCodec.h"

#include <QTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

namespace tst_lowprecision {

using namespace kernelpad;
using detail::MiniFormat;

namespace {

// The headers are named outside the raw string below, where moc would read them as its own
// #include lines.
const char* const kConversionHeaders = "#include <cuda_bf16.h>\n"
                                       "#include <cuda_fp8.h>\n"
                                       "#include <cuda_fp4.h>\n";

const char* const kConversionSource = R"(
// Pattern i of each format, decoded to float (exact for all four formats).
extern "C" __global__ void decodeAll(float* bf16, float* e4m3, float* e5m2, float* e2m1)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 65536u) {
        __nv_bfloat16_raw raw;
        raw.x = (unsigned short)i;
        bf16[i] = __bfloat162float(__nv_bfloat16(raw));
    }
    if (i < 256u) {
        __nv_fp8_e4m3 a;
        a.__x = (__nv_fp8_storage_t)i;
        e4m3[i] = float(a);
        __nv_fp8_e5m2 b;
        b.__x = (__nv_fp8_storage_t)i;
        e5m2[i] = float(b);
    }
    if (i < 16u) {
        __nv_fp4_e2m1 c;
        c.__x = (__nv_fp4_storage_t)i;
        e2m1[i] = float(c);
    }
}

// The constructors from float, as a kernel writes `__nv_fp8_e4m3 q(x);`.
extern "C" __global__ void encodeFloat(const float* in, unsigned n, unsigned short* bf16,
                                       unsigned char* e4m3, unsigned char* e5m2,
                                       unsigned char* e2m1)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float x = in[i];
    bf16[i] = __bfloat16_as_ushort(__nv_bfloat16(x));
    e4m3[i] = __nv_fp8_e4m3(x).__x;
    e5m2[i] = __nv_fp8_e5m2(x).__x;
    e2m1[i] = __nv_fp4_e2m1(x).__x;
}

// The constructors from double.
extern "C" __global__ void encodeDouble(const double* in, unsigned n, unsigned short* bf16,
                                        unsigned char* e4m3, unsigned char* e5m2,
                                        unsigned char* e2m1)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const double x = in[i];
    bf16[i] = __bfloat16_as_ushort(__nv_bfloat16(x));
    e4m3[i] = __nv_fp8_e4m3(x).__x;
    e5m2[i] = __nv_fp8_e5m2(x).__x;
    e2m1[i] = __nv_fp4_e2m1(x).__x;
}

// Two fp4 values packed as __nv_fp4x2_e2m1 stores them.
extern "C" __global__ void packPairs(const float* in, unsigned pairs, unsigned char* out)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pairs)
        out[i] = __nv_fp4x2_e2m1(make_float2(in[2 * i], in[2 * i + 1])).__x;
}
)";

constexpr MiniFormat kFormats[] = {MiniFormat::BFloat16, MiniFormat::E4M3, MiniFormat::E5M2,
                                   MiniFormat::E2M1};

const char* formatName(MiniFormat f) {
    switch (f) {
    case MiniFormat::BFloat16:
        return "bfloat16";
    case MiniFormat::E4M3:
        return "float8_e4m3";
    case MiniFormat::E5M2:
        return "float8_e5m2";
    case MiniFormat::E2M1:
        return "float4_e2m1";
    }
    return "?";
}

/// Every input the encoders must round as the host does: each format's values, midpoints
/// and their neighbours (in double; the float list rounds them to float), both signs.
std::vector<double> boundaryInputs() {
    std::vector<double> out;
    const double inf = std::numeric_limits<double>::infinity();
    for (const MiniFormat f : kFormats) {
        const int positives = 1 << (detail::miniBitWidth(f) - 1);
        for (int k = 0; k + 1 < positives; ++k) {
            const double a = detail::miniBitsToDouble(f, quint16(k));
            const double b = detail::miniBitsToDouble(f, quint16(k + 1));
            if (!std::isfinite(b) || !(b > a))
                break;
            const double mid = (a + b) / 2;
            for (const double s : {1.0, -1.0}) {
                out.push_back(s * a);
                out.push_back(s * mid);
                out.push_back(s * std::nextafter(mid, 0.0));
                out.push_back(s * std::nextafter(mid, inf));
                out.push_back(s * std::nextafter(double(float(mid)), 0.0));
                out.push_back(s * std::nextafter(double(float(mid)), inf));
            }
        }
    }
    for (const double v : {0.0, -0.0, inf, -inf, std::numeric_limits<double>::quiet_NaN(), 1e30,
                           -1e30, 464.0, 480.0, 57344.0, 61440.0, 65536.0, 5.0, 7.0, 1e300, -1e300,
                           1e-300, double(std::numeric_limits<float>::max()),
                           double(std::numeric_limits<float>::denorm_min())})
        out.push_back(v);
    return out;
}

/// True when the device's bits `got` are what the host gives for `input` (any NaN for NaN).
bool sameBits(MiniFormat f, double input, quint16 got) {
    const quint16 host = detail::doubleToMiniBits(f, input);
    if (std::isnan(detail::miniBitsToDouble(f, host)))
        return std::isnan(detail::miniBitsToDouble(f, got));
    return got == host;
}

QString hexBits(quint16 bits) {
    return QStringLiteral("0x%1").arg(bits, 0, 16);
}

template <typename T> std::vector<T> download(const DeviceBuffer& b, size_t n, const Stream& s) {
    std::vector<T> out(n);
    b.downloadAsync(out.data(), qint64(n * sizeof(T)), s);
    s.synchronize(QStringLiteral("low-precision test download"));
    return out;
}

} // namespace

class TestLowPrecision : public QObject {
    Q_OBJECT

    std::unique_ptr<Device> m_device;
    std::unique_ptr<Context> m_context;
    std::unique_ptr<Stream> m_stream;
    std::optional<Module> m_module;

    void launch(const char* name, unsigned threads, void** params) {
        const Kernel k = m_module->kernel(QLatin1String(name), QLatin1String(name));
        LaunchDims dims;
        dims.block = {256, 1, 1};
        dims.grid = {int((threads + 255) / 256), 1, 1};
        k.launch(dims, *m_stream, params);
    }

    /// Encodes `inputs` (as float or double) on the device and compares every format's bits
    /// with the host codec; prints the first 20 mismatches.
    template <typename T> void compareEncoding(const std::vector<double>& inputs) {
        std::vector<T> in;
        for (const double v : inputs)
            in.push_back(T(v));
        const unsigned n = unsigned(in.size());
        DeviceBuffer dIn(qint64(n * sizeof(T)), QStringLiteral("inputs"));
        DeviceBuffer dBf16(qint64(n * 2), QStringLiteral("bf16"));
        DeviceBuffer dE4m3(n, QStringLiteral("e4m3"));
        DeviceBuffer dE5m2(n, QStringLiteral("e5m2"));
        DeviceBuffer dE2m1(n, QStringLiteral("e2m1"));
        dIn.uploadAsync(in.data(), qint64(n * sizeof(T)), *m_stream);
        CUdeviceptr pIn = dIn.address(), pB = dBf16.address(), p4 = dE4m3.address(),
                    p5 = dE5m2.address(), p1 = dE2m1.address();
        unsigned count = n;
        void* params[] = {&pIn, &count, &pB, &p4, &p5, &p1};
        launch(sizeof(T) == 4 ? "encodeFloat" : "encodeDouble", n, params);
        const auto bf16 = download<quint16>(dBf16, n, *m_stream);
        const auto e4m3 = download<quint8>(dE4m3, n, *m_stream);
        const auto e5m2 = download<quint8>(dE5m2, n, *m_stream);
        const auto e2m1 = download<quint8>(dE2m1, n, *m_stream);
        QStringList bad;
        int mismatches = 0;
        for (unsigned i = 0; i < n; ++i) {
            const double x = double(in[i]);
            const quint16 device[] = {bf16[i], e4m3[i], e5m2[i], e2m1[i]};
            for (int f = 0; f < 4; ++f) {
                if (sameBits(kFormats[f], x, device[f]))
                    continue;
                if (++mismatches <= 20)
                    bad << QStringLiteral("%1(%2 = %3): device %4, host %5")
                               .arg(QLatin1String(formatName(kFormats[f])))
                               .arg(QLatin1String(sizeof(T) == 4 ? "float" : "double"))
                               .arg(x, 0, 'g', 17)
                               .arg(hexBits(device[f]),
                                    hexBits(detail::doubleToMiniBits(kFormats[f], x)));
            }
        }
        QVERIFY2(mismatches == 0, qPrintable(QStringLiteral("%1 of %2 inputs differ:\n%3")
                                                 .arg(mismatches)
                                                 .arg(n)
                                                 .arg(bad.join('\n'))));
    }

private slots:
    void initTestCase() {
        KERNELPAD_REQUIRE_DRIVER();
        if (Device::count() == 0)
            QSKIP("needs a CUDA device");
        m_device = std::make_unique<Device>(0);
        m_context = std::make_unique<Context>(*m_device);
        m_stream = std::make_unique<Stream>();
        ProgramOptions options;
        const CompileResult compiled =
            Program(QLatin1String(kConversionHeaders) + QLatin1String(kConversionSource),
                    QStringLiteral("lowprecision.cu"), options)
                .compile(m_device->info().arch());
        QVERIFY2(compiled.ok, qPrintable(compiled.error + compiled.log));
        m_module.emplace(compiled.cubin);
    }

    void decodeEveryPattern() {
        DeviceBuffer out[4] = {DeviceBuffer(65536 * 4, QStringLiteral("bf16")),
                               DeviceBuffer(256 * 4, QStringLiteral("e4m3")),
                               DeviceBuffer(256 * 4, QStringLiteral("e5m2")),
                               DeviceBuffer(16 * 4, QStringLiteral("e2m1"))};
        CUdeviceptr p[4] = {out[0].address(), out[1].address(), out[2].address(), out[3].address()};
        void* params[] = {&p[0], &p[1], &p[2], &p[3]};
        launch("decodeAll", 65536, params);
        QStringList bad;
        int mismatches = 0;
        for (int f = 0; f < 4; ++f) {
            const int patterns = 1 << detail::miniBitWidth(kFormats[f]);
            const auto values = download<float>(out[f], size_t(patterns), *m_stream);
            for (int bits = 0; bits < patterns; ++bits) {
                const double host = detail::miniBitsToDouble(kFormats[f], quint16(bits));
                const double device = values[size_t(bits)];
                const bool same =
                    std::isnan(host) ? std::isnan(device)
                                     : device == host && std::signbit(device) == std::signbit(host);
                if (same)
                    continue;
                if (++mismatches <= 20)
                    bad << QStringLiteral("%1 %2: device %3, host %4")
                               .arg(QLatin1String(formatName(kFormats[f])), hexBits(quint16(bits)))
                               .arg(device, 0, 'g', 17)
                               .arg(host, 0, 'g', 17);
            }
        }
        QVERIFY2(
            mismatches == 0,
            qPrintable(
                QStringLiteral("%1 patterns differ:\n%2").arg(mismatches).arg(bad.join('\n'))));
    }

    void encodeFromFloat() { compareEncoding<float>(boundaryInputs()); }
    void encodeFromDouble() { compareEncoding<double>(boundaryInputs()); }

    void fp4PairsLowNibbleFirst() {
        const std::vector<float> in{1.0f, -6.0f, 0.5f, 3.0f, 5.0f, -0.25f};
        DeviceBuffer dIn(qint64(in.size() * 4), QStringLiteral("pairs"));
        DeviceBuffer dOut(3, QStringLiteral("packed"));
        dIn.uploadAsync(in.data(), qint64(in.size() * 4), *m_stream);
        CUdeviceptr pIn = dIn.address(), pOut = dOut.address();
        unsigned pairs = 3;
        void* params[] = {&pIn, &pairs, &pOut};
        launch("packPairs", pairs, params);
        const auto got = download<quint8>(dOut, 3, *m_stream);
        for (unsigned i = 0; i < pairs; ++i) {
            const quint8 host = detail::packFp4x2(in[2 * i], in[2 * i + 1]);
            QVERIFY2(got[i] == host, qPrintable(QStringLiteral("pair %1: device %2, host %3")
                                                    .arg(i)
                                                    .arg(hexBits(got[i]), hexBits(host))));
        }
    }

    /// bf16 in, float out: out = 2 * x in float from the bf16 inputs, verified exactly in
    /// ulps (the product of a bf16 and 2 is exact in float); then a wrong kernel fails.
    void bf16ProjectRun() {
        // tests/data/bf16_twice.kpad: a JSON raw string here would confuse moc.
        const QString path =
            qEnvironmentVariable("KERNELPAD_TEST_DATA", QStringLiteral(KERNELPAD_TEST_DATA_DIR)) +
            QStringLiteral("/bf16_twice.kpad");
        QString error;
        std::optional<Project> p = Project::load(path, &error);
        QVERIFY2(p, qPrintable(error));
        Engine engine;
        RunResult r = test::runAndWait(engine, *p);
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
        QCOMPARE(r.verification.size(), 1);
        QVERIFY(r.verification.first().passed);
        QCOMPARE(r.verification.first().maxUlpError, 0.0);

        // Off by a bf16 rounding of the product: far more than one float ulp.
        p->source.replace(QStringLiteral("2.0f * __bfloat162float(x[i])"),
                          QStringLiteral("__bfloat162float(__float2bfloat16(2.01f * "
                                         "__bfloat162float(x[i])))"));
        r = test::runAndWait(engine, *p);
        QCOMPARE(r.status, RunStatus::VerificationFailed);
        QVERIFY2(r.verification.first().maxUlpError > 1,
                 qPrintable(QString::number(r.verification.first().maxUlpError)));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestLowPrecision)
} // namespace tst_lowprecision
#include "tst_lowprecision.moc"
