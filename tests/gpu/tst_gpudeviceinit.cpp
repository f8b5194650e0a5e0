// "uniform" inputs generated on the GPU (core/run/DeviceInit) are the host generator's
// values bit for bit (BufferInit.h): compared element by element for float32 and float64 over
// several seeds and ranges, and through a whole run whose outputs copy the first elements of
// GPU-generated inputs and are checked exactly (atol = rtol = 0) by muParser on the host, which
// reads the host's generation of the same inputs.

#include "GpuTestSupport.h"

#include "core/cuda/Context.h"
#include "core/cuda/Device.h"
#include "core/cuda/DeviceBuffer.h"
#include "core/cuda/Stream.h"
#include "core/launch/BufferInit.h"
#include "core/run/DeviceInit.h"
#include "core/run/ExecutionSession.h"

#include <QTest>

#include <memory>

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

QTEST_GUILESS_MAIN(TestGpuDeviceInit)
#include "tst_gpudeviceinit.moc"
