// Expression checks on the GPU (core/verify/ExpressionKernel) give the host's verdicts: for a
// corpus of expressions and data, the expected values computed by the translated kernel and by
// muParser lead compareBuffers() to the same verdict, mismatch count and first mismatches; for
// arithmetic alone the expected values are identical bit for bit. A whole run of SAXPY over
// 16M elements computes them on the GPU and passes; a wrong kernel fails with the same first
// mismatches as the host path reports.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/cuda/Context.h"
#include "core/cuda/Device.h"
#include "core/cuda/DeviceBuffer.h"
#include "core/cuda/Stream.h"
#include "core/launch/BufferInit.h"
#include "core/run/ExecutionSession.h"
#include "core/verify/ExpressionKernel.h"
#include "core/verify/Verify.h"

#include <QTest>

#include <cstring>
#include <memory>
#include <random>

namespace tst_gpuexpression {

using namespace kernelpad;

namespace {

QByteArray randomBytes(ScalarType type, qint64 count, quint64 seed, double low, double high) {
    BufferSpec spec;
    spec.elementType = ValueType::of(type);
    spec.init.kind = InitSpec::Kind::Uniform;
    spec.init.low = low;
    spec.init.high = high;
    spec.init.seed = seed;
    QString error;
    const std::optional<QByteArray> bytes = makeBufferContents(spec, count, QString(), &error);
    if (!bytes)
        qFatal("%s", qPrintable(error));
    return *bytes;
}

} // namespace

class TestGpuExpression : public QObject {
    Q_OBJECT

private:
    // Destroyed in reverse order: the evaluator's modules belong to the context.
    std::unique_ptr<Context> m_context;
    std::unique_ptr<Stream> m_stream;
    std::unique_ptr<GpuExpressionEvaluator> m_evaluator;
    QString m_arch;

private slots:
    void initTestCase() {
        KERNELPAD_REQUIRE_DRIVER();
        if (Device::count() == 0)
            QSKIP("needs a CUDA device");
        const Device device(0);
        m_context = std::make_unique<Context>(device);
        m_stream = std::make_unique<Stream>();
        m_evaluator = std::make_unique<GpuExpressionEvaluator>();
        m_arch = device.info().arch();
    }

    void cleanupTestCase() {
        m_evaluator.reset();
        m_stream.reset();
        m_context.reset();
    }

    void sameVerdictsAsHost_data() {
        QTest::addColumn<QString>("expression");
        QTest::addColumn<int>("outType");
        QTest::addColumn<bool>("exact"); // +-*/ and comparisons only: identical bits
        const int f32 = int(ScalarType::Float32), f64 = int(ScalarType::Float64);
        const QStringList arithmetic{"a*x+y",
                                     "x*y - k/3",
                                     "-a^2 + x^2",
                                     "(x < y) + (k >= 0)",
                                     "x > 0 && y > 0 || k == 5",
                                     "x < 0 ? -x : y",
                                     "min(x, y, a) + max(x, k) + sum(x, y) + avg(x, y, u)",
                                     "abs(x) + sign(y) + rint(x * 10)",
                                     "i * 1e-7 + n",
                                     "flag ? x : y",
                                     "2^3^2 + 1e3*x + .5"};
        const QStringList functions{"sin(x) + cos(y) + tan(x/2)",
                                    "exp(x) * log(1 + abs(y)) + ln(2) + log2(1 + u) + log10(3)",
                                    "sqrt(abs(x)) + asin(x) + acos(y) + atan(k)",
                                    "sinh(x) + cosh(y) + tanh(x)",
                                    "_pi * x + _e",
                                    "x^1.5 + y^a"};
        for (int out : {f32, f64}) {
            for (const QString& e : arithmetic)
                QTest::addRow("%s -> %s", qPrintable(e), out == f32 ? "float32" : "float64")
                    << e << out << true;
            for (const QString& e : functions)
                QTest::addRow("%s -> %s", qPrintable(e), out == f32 ? "float32" : "float64")
                    << e << out << false;
        }
    }
    void sameVerdictsAsHost() {
        QFETCH(QString, expression);
        QFETCH(int, outType);
        QFETCH(bool, exact);
        const ScalarType out = ScalarType(outType);
        const qint64 count = 1'000'003; // not a multiple of any block
        const QByteArray x = randomBytes(ScalarType::Float32, count, 1, -1, 1);
        const QByteArray y = randomBytes(ScalarType::Float64, count, 2, -1, 1);
        const QByteArray k = randomBytes(ScalarType::Int32, count, 3, -10, 10);
        const QByteArray u = randomBytes(ScalarType::UInt64, count, 4, 0, 1000);
        const QByteArray flag = randomBytes(ScalarType::Bool, count, 5, 0, 1);
        const QHash<QString, double> scalars{{"a", 2.5}, {"n", double(count)}};
        QHash<QString, ExpressionInput> inputs;
        inputs.insert("x", ExpressionInput{ValueType::of(ScalarType::Float32), &x, count});
        inputs.insert("y", ExpressionInput{ValueType::of(ScalarType::Float64), &y, count});
        inputs.insert("k", ExpressionInput{ValueType::of(ScalarType::Int32), &k, count});
        inputs.insert("u", ExpressionInput{ValueType::of(ScalarType::UInt64), &u, count});
        inputs.insert("flag", ExpressionInput{ValueType::of(ScalarType::Bool), &flag, count});

        QString error;
        const std::optional<QVector<double>> values =
            evaluateExpression(expression, count, scalars, inputs, &error);
        QVERIFY2(values, qPrintable(error));
        const QByteArray host = doublesToBytes(ValueType::of(out), *values);

        QHash<QString, ScalarType> types;
        for (auto it = inputs.cbegin(); it != inputs.cend(); ++it)
            types.insert(it.key(), it.value().type.scalar);
        const std::optional<ExpressionKernelSource> kernel =
            translateExpression(expression, out, types, scalars.keys(), true, &error);
        QVERIFY2(kernel, qPrintable(error));
        std::vector<DeviceBuffer> device;
        QVector<CUdeviceptr> pointers;
        for (const QString& name : kernel->buffers) {
            const QByteArray& bytes = *inputs.value(name).data;
            device.emplace_back(bytes.size(), name);
            device.back().uploadAsync(bytes.constData(), bytes.size(), *m_stream);
            pointers << device.back().address();
        }
        QVector<double> scalarValues;
        for (const QString& name : kernel->scalars)
            scalarValues << scalars.value(name);
        DeviceBuffer expectedDevice(host.size(), "expected");
        QVERIFY2(m_evaluator->evaluate(*kernel, out, expectedDevice, count, pointers, scalarValues,
                                       *m_stream, m_arch, &error),
                 qPrintable(error));
        QByteArray gpu(host.size(), Qt::Uninitialized);
        expectedDevice.downloadAsync(gpu.data(), gpu.size(), *m_stream);
        m_stream->synchronize("expression test");
        if (exact)
            QVERIFY2(gpu == host, "arithmetic must give the host's bits");

        // The kernel under test: right, then wrong at a few places, then wrong everywhere.
        const int size = scalarTypeInfo(out).sizeBytes;
        std::mt19937 rng(7);
        for (int scenario = 0; scenario < 3; ++scenario) {
            QByteArray got = host;
            if (scenario == 1)
                for (int m = 0; m < 40; ++m) {
                    const qint64 at = qint64(rng() % quint32(count));
                    const double v = elementAsDouble(ValueType::of(out), host.constData(), at);
                    const QByteArray bad = doublesToBytes(ValueType::of(out), {v + 0.5});
                    std::memcpy(got.data() + at * size, bad.constData(), size_t(size));
                }
            if (scenario == 2)
                got = doublesToBytes(ValueType::of(out), QVector<double>(count, 12345.0));
            const BufferVerification h =
                compareBuffers(ValueType::of(out), got, host, count, 1e-6, 1e-5);
            const BufferVerification g =
                compareBuffers(ValueType::of(out), got, gpu, count, 1e-6, 1e-5);
            QCOMPARE(g.passed, h.passed);
            QCOMPARE(g.mismatches, h.mismatches);
            QCOMPARE(g.nanCount, h.nanCount);
            QCOMPARE(g.firstMismatches.size(), h.firstMismatches.size());
            for (int m = 0; m < h.firstMismatches.size(); ++m)
                QCOMPARE(g.firstMismatches[m].index, h.firstMismatches[m].index);
        }
    }

    void saxpyRunComputesOnGpu() {
        Project p = test::loadExample("saxpy.kpad");
        for (ArgumentSpec& a : p.arguments)
            if (a.name == QLatin1String("n"))
                a.value = QStringLiteral("16777216");
        p.launch.grid = {65536, 1, 1};
        p.launch.block = {256, 1, 1};
        p.timing.adaptive = false;
        p.timing.repetitions = 3;
        p.timing.warmupLaunches = 1;
        RunRequest request;
        request.project = p;
        request.projectDir = test::examplesDir();
        ExecutionSession session(nullptr);
        std::atomic_bool cancel{false};
        RunResult r = session.run(request, cancel);
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
        QCOMPARE(r.verification.size(), 1);
        QVERIFY2(r.verification.first().method.contains("computed on the GPU"),
                 qPrintable(r.verification.first().method));
        QVERIFY(r.verification.first().passed);
        QCOMPARE(r.verification.first().checked, qint64(16777216));

        // A kernel off by 1e-3 from element 1000 on: the GPU's report equals the host's, whose
        // expected values for the same inputs are computed here with muParser.
        request.project.source.replace(
            QStringLiteral("a * x[tid] + y[tid]"),
            QStringLiteral("a * x[tid] + y[tid] + (tid >= 1000 ? 1e-3f : 0.0f)"));
        QVERIFY(request.project.source.contains("1e-3f"));
        r = session.run(request, cancel);
        QCOMPARE(r.status, RunStatus::VerificationFailed);
        const BufferVerification& v = r.verification.first();
        QCOMPARE(v.mismatches, qint64(16777216 - 1000));
        QCOMPARE(v.firstMismatches.first().index, qint64(1000));
        QVERIFY2(v.method.contains("on the GPU"), qPrintable(v.method));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestGpuExpression)
} // namespace tst_gpuexpression
#include "tst_gpuexpression.moc"
