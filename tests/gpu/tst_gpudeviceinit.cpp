// Seeded inputs generated on the GPU (core/run/DeviceInit) are the host generator's values
// bit for bit (BufferInit.h): "uniform", "normal" and "special" of every scalar type compared byte
// for byte with makeBufferContents() at sizes with tails (1, 7, 1000003) and two seeds, and through
// whole runs whose outputs copy the first elements of GPU-generated inputs (float, int, uint8,
// float16, normal) and are checked exactly (atol = rtol = 0) by muParser on the host, which reads
// the host's generation of the same inputs.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include "core/cuda/Context.h"
#include "core/cuda/Device.h"
#include "core/cuda/DeviceBuffer.h"
#include "core/cuda/Stream.h"
#include "core/launch/BufferInit.h"
#include "core/launch/ScalarCodec.h"
#include "core/run/DeviceInit.h"
#include "core/run/ExecutionSession.h"
#include "core/run/RunBuffers.h"

#include <QTest>

#include <memory>

namespace tst_gpudeviceinit {

using namespace kernelpad;

class TestGpuDeviceInit : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        KERNELPAD_REQUIRE_DRIVER();
        if (Device::count() == 0)
            QSKIP("needs a CUDA device");
    }

    void sameBitsAsHost() {
        const Device device(0);
        Context context(device);
        Stream stream;
        DeviceInit init;
        QString error;
        QVERIFY2(init.prepare(device.info().arch(), &error), qPrintable(error));
        struct Case {
            ScalarType type;
            quint64 seed;
            double low, high;
        };
        const Case cases[] = {
            {ScalarType::Float32, 1, -1, 1},          {ScalarType::Float32, 2, -1, 1},
            {ScalarType::Float32, 42, -2, 3},         {ScalarType::Float64, 7, 0, 1},
            {ScalarType::Float64, 99, -1e300, 1e300}, {ScalarType::Float32, 5, 3, 3},
            {ScalarType::Float64, 0, 1e-9, 2e-9},     {ScalarType::Float32, ~0ULL, -65504, 65504}};
        const qint64 count = (qint64(1) << 20) + 3;
        for (const Case& c : cases) {
            BufferSpec spec;
            spec.elementType = ValueType::of(c.type);
            spec.init.kind = InitSpec::Kind::Uniform;
            spec.init.seed = c.seed;
            spec.init.low = c.low;
            spec.init.high = c.high;
            QVERIFY(deviceCanGenerate(spec));
            const std::optional<QByteArray> host = makeBufferContents(spec, count, {}, &error);
            QVERIFY2(host, qPrintable(error));
            DeviceBuffer out(host->size(), "generated");
            init.generate(spec, count, out, stream);
            QByteArray gpu(host->size(), Qt::Uninitialized);
            out.downloadAsync(gpu.data(), gpu.size(), stream);
            stream.synchronize("device init test");
            QVERIFY2(gpu == *host, qPrintable(QStringLiteral("seed %1, [%2, %3) differs")
                                                  .arg(c.seed)
                                                  .arg(c.low)
                                                  .arg(c.high)));
        }
    }

    /// Every type x kind deviceCanGenerate() accepts: the GPU's bytes are the host's.
    void everyTypeAndKindSameBytes() {
        const Device device(0);
        Context context(device);
        Stream stream;
        DeviceInit init;
        QString error;
        QVERIFY2(init.prepare(device.info().arch(), &error), qPrintable(error));
        int compared = 0;
        for (const ScalarType type : allScalarTypes()) {
            const ScalarTypeInfo& info = scalarTypeInfo(type);
            // The widest uniform range a low-precision type accepts: its largest finite value
            // (bfloat16 takes float16's); fp8 and fp4 saturate normal's wide draws.
            const double widest = type == ScalarType::Float8E4M3     ? 448
                                  : type == ScalarType::Float8E5M2   ? 57344
                                  : type == ScalarType::Float4E2M1x2 ? 6
                                                                     : 65504;
            const bool integer = !info.isFloat && type != ScalarType::Bool;
            double lowest = 0, highest = 0;
            if (integer)
                detail::integerRange(type, &lowest, &highest);
            for (const InitSpec::Kind kind :
                 {InitSpec::Kind::Uniform, InitSpec::Kind::Normal, InitSpec::Kind::Special}) {
                if (kind == InitSpec::Kind::Special && type == ScalarType::Bool)
                    continue; // bool has no special values: the host refuses it
                for (int variant = 0; variant < 2; ++variant) {
                    BufferSpec spec;
                    spec.elementType = ValueType::of(type);
                    spec.init.kind = kind;
                    spec.init.seed = variant == 0 ? 1 : 0xC0FFEE123456789ULL;
                    // "special": uniform's ranges, 5% and then half of the values replaced.
                    spec.init.rate = variant == 0 ? 0.05 : 0.5;
                    const bool uniform = kind != InitSpec::Kind::Normal;
                    if (uniform && integer) {
                        // The type's whole range, then a narrow one with fractional bounds.
                        spec.init.low = variant == 0 ? lowest : (info.isSigned ? -3.5 : 0.5);
                        spec.init.high = variant == 0 ? highest + 1 : 17.25;
                    } else if (uniform) {
                        spec.init.low = variant == 0 ? -2 : -widest;
                        spec.init.high = variant == 0 ? 3 : widest;
                    } else {
                        // Integers saturate (uint8 below 0), float16 overflows to infinity.
                        spec.init.mean = variant == 0 ? 0.5 : -20;
                        spec.init.stddev = variant == 0 ? 2 : 30000;
                    }
                    QVERIFY2(deviceCanGenerate(spec),
                             qPrintable(QStringLiteral("%1 %2").arg(info.numpyName).arg(variant)));
                    for (const qint64 count : {qint64(1), qint64(7), qint64(1000003)}) {
                        const std::optional<QByteArray> host =
                            makeBufferContents(spec, count, {}, &error);
                        QVERIFY2(host, qPrintable(error));
                        DeviceBuffer out(host->size(), "generated");
                        init.generate(spec, count, out, stream);
                        QByteArray gpu(host->size(), Qt::Uninitialized);
                        out.downloadAsync(gpu.data(), gpu.size(), stream);
                        stream.synchronize("device init test");
                        if (gpu != *host) {
                            qint64 first = 0;
                            while (gpu.at(first) == host->at(first))
                                ++first;
                            const qint64 element = first / info.sizeBytes;
                            const qint64 at = element * info.sizeBytes;
                            QFAIL(qPrintable(
                                QStringLiteral("%1 %2, seed %3, %4 elements: element %5 differs: "
                                               "GPU %6 (bytes %8), host %7 (bytes %9)")
                                    .arg(spec.init.toJson().value("kind").toString(),
                                         QString::fromLatin1(info.numpyName))
                                    .arg(spec.init.seed)
                                    .arg(count)
                                    .arg(element)
                                    .arg(
                                        elementToString(spec.elementType, gpu.constData(), element),
                                        elementToString(spec.elementType, host->constData(),
                                                        element))
                                    .arg(QString::fromLatin1(gpu.mid(at, info.sizeBytes).toHex()),
                                         QString::fromLatin1(
                                             host->mid(at, info.sizeBytes).toHex()))));
                        }
                        ++compared;
                    }
                }
            }
        }
        // Three kinds of every type but "special" of bool, two seeds, three sizes.
        QCOMPARE(compared, (allScalarTypes().size() * 3 - 1) * 2 * 3);
        qInfo("%d type x kind x seed x size cases: GPU bytes equal the host's", compared);
    }

    /// The run path itself: prepareBuffers() leaves int, float16 and normal inputs to the GPU,
    /// uploadBuffers() uploads nothing for them, and the device holds the host's contents.
    void uploadPathGeneratesIntHalfNormal() {
        const Device device(0);
        Context context(device);
        Stream stream;
        DeviceInit init;
        QString error;
        QVERIFY2(init.prepare(device.info().arch(), &error), qPrintable(error));
        const qint64 count = kDeviceInitMinElements + 5;
        const auto input = [&](const char* name, ScalarType type, InitSpec::Kind kind) {
            ArgumentSpec a;
            a.name = QLatin1String(name);
            a.kind = ArgumentSpec::Kind::Buffer;
            a.buffer.elementType = ValueType::of(type);
            a.buffer.count = QString::number(count);
            a.buffer.init.kind = kind;
            a.buffer.init.low = -50;
            a.buffer.init.high = 50;
            a.buffer.init.mean = 3;
            a.buffer.init.stddev = 7;
            a.buffer.init.seed = 11;
            return a;
        };
        const QVector<ArgumentSpec> args{input("k", ScalarType::Int32, InitSpec::Kind::Uniform),
                                         input("h", ScalarType::Float16, InitSpec::Kind::Uniform),
                                         input("n", ScalarType::Float32, InitSpec::Kind::Normal),
                                         input("c", ScalarType::Complex128, InitSpec::Kind::Normal),
                                         input("b", ScalarType::Int8, InitSpec::Kind::Normal)};
        std::optional<std::vector<RunBuffer>> buffers =
            prepareBuffers(args, QString(), &error, nullptr, true);
        QVERIFY2(buffers, qPrintable(error));
        for (const RunBuffer& b : *buffers) {
            QVERIFY2(b.deviceGenerated, qPrintable(b.name));
            QVERIFY(b.initial.isEmpty());
        }
        const BufferUploadStats stats = uploadBuffers(*buffers, stream, QString(), &init);
        QCOMPARE(stats.bytesUploaded, qint64(0));
        for (const RunBuffer& b : *buffers) {
            QByteArray gpu(b.bytes, Qt::Uninitialized);
            b.device.downloadAsync(gpu.data(), gpu.size(), stream);
            stream.synchronize("device init test");
            QVERIFY2(gpu == b.hostContents(), qPrintable(b.name));
        }
    }

    /// int32, uint8, float16 and normal inputs made on the GPU, checked on the host.
    void runChecksGeneratedIntHalfNormalOnHost() {
        QString error;
        const std::optional<Project> project = Project::load(
            qEnvironmentVariable("KERNELPAD_TEST_DATA", QStringLiteral(KERNELPAD_TEST_DATA_DIR)) +
                QStringLiteral("/device_init_types.kpad"),
            &error);
        QVERIFY2(project, qPrintable(error));
        RunRequest request;
        request.project = *project;
        ExecutionSession session(nullptr);
        std::atomic_bool cancel{false};
        const RunResult r = session.run(request, cancel);
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
        QCOMPARE(r.verification.size(), 5);
        for (const BufferVerification& v : r.verification) {
            QVERIFY2(v.passed, qPrintable(v.buffer + ": " + v.method));
            QCOMPARE(v.checked, qint64(4096));
        }
    }

    void runChecksGpuInputsOnHost() {
        QString error;
        const std::optional<Project> project = Project::load(
            qEnvironmentVariable("KERNELPAD_TEST_DATA", QStringLiteral(KERNELPAD_TEST_DATA_DIR)) +
                QStringLiteral("/device_init_copy.kpad"),
            &error);
        QVERIFY2(project, qPrintable(error));
        RunRequest request;
        request.project = *project;
        ExecutionSession session(nullptr);
        std::atomic_bool cancel{false};
        const RunResult r = session.run(request, cancel);
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
        QCOMPARE(r.verification.size(), 2);
        for (const BufferVerification& v : r.verification) {
            QVERIFY2(v.passed, qPrintable(v.buffer + ": " + v.method));
            QCOMPARE(v.checked, qint64(4096));
        }
    }

    /// y = a*x + y in place on 2M elements, both inputs generated on the GPU: the expression
    /// reads y as it was before the launch, which the GPU generates again (the host generates
    /// nothing); a wrong regeneration fails the check.
    void inPlaceExpressionReadsRegeneratedInitialContents() {
        QString error;
        const std::optional<Project> project = Project::load(
            qEnvironmentVariable("KERNELPAD_TEST_DATA", QStringLiteral(KERNELPAD_TEST_DATA_DIR)) +
                QStringLiteral("/device_init_inplace.kpad"),
            &error);
        QVERIFY2(project, qPrintable(error));
        RunRequest request;
        request.project = *project;
        ExecutionSession session(nullptr);
        std::atomic_bool cancel{false};
        for (int run = 0; run < 2; ++run) { // the second keeps the expected values
            const RunResult r = session.run(request, cancel);
            QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
            QCOMPARE(r.verification.size(), 1);
            const BufferVerification& v = r.verification.first();
            QVERIFY2(v.passed, qPrintable(v.buffer + ": " + v.method));
            QCOMPARE(v.checked, qint64(2097152));
            QVERIFY2(v.method.contains(QLatin1String("GPU")) ||
                         v.method.contains(QLatin1String("kept")),
                     qPrintable(v.method));
        }
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestGpuDeviceInit)
} // namespace tst_gpudeviceinit
#include "tst_gpudeviceinit.moc"
