// Textures and surfaces on a GPU: both texture examples verify, every array shape and read
// mode returns the texels it should, surfaces are written, read back, verified and returned
// through the runner, and arrays past the device's limits are refused with the sentence.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/cuda/Context.h"
#include "core/cuda/CudaError.h"
#include "core/cuda/Device.h"
#include "core/cuda/TextureObject.h"
#include "core/engine/Engine.h"
#include "core/launch/TextureArgument.h"
#include "core/run/ExecutionSession.h"
#include "core/run/RunTextures.h"
#include "core/runner/RunnerClient.h"

#include <QJsonDocument>
#include <QProcess>
#include <QSignalSpy>
#include <QTest>

#include <cstring>

namespace tst_gputextures {

using namespace kernelpad;

namespace {

ArgumentSpec scalar(const QString& name, const QString& value) {
    ArgumentSpec a;
    a.name = name;
    a.type = ValueType::of(ScalarType::Int32);
    a.value = value;
    return a;
}

ArgumentSpec output(const QString& name, const QString& count, const QString& expression) {
    ArgumentSpec a;
    a.name = name;
    a.kind = ArgumentSpec::Kind::Buffer;
    a.buffer.elementType = ValueType::of(ScalarType::Float32);
    a.buffer.count = count;
    a.buffer.direction = Direction::Out;
    a.buffer.verify.kind = VerifySpec::Kind::Expression;
    a.buffer.verify.expression = expression;
    a.buffer.verify.atol = 1e-6;
    a.buffer.verify.rtol = 0;
    return a;
}

ArgumentSpec texture(const char* json) {
    QString error;
    const auto arg = ArgumentSpec::fromJson(
        QJsonDocument::fromJson(QByteArray("{\"name\":\"tex\",\"kind\":\"texture\",\"texture\":") +
                                json + "}")
            .object(),
        &error);
    if (!arg)
        qFatal("bad texture in the test: %s", qPrintable(error));
    return *arg;
}

/// A one-kernel project over `n` threads in blocks of 64.
Project project(const QString& source, const QVector<ArgumentSpec>& args, int n) {
    Project p;
    p.name = QStringLiteral("texture test");
    p.source = source;
    p.kernel = QStringLiteral("k");
    p.arguments = args;
    p.launch.grid = {(n + 63) / 64, 1, 1};
    p.launch.block = {64, 1, 1};
    p.timing.repetitions = 3;
    p.timing.adaptive = false;
    p.timing.warmupLaunches = 1;
    return p;
}

} // namespace

class TestGpuTextures : public QObject {
    Q_OBJECT

private:
    CompileCache m_cache;
    std::unique_ptr<ExecutionSession> m_session;
    std::atomic_bool m_cancel{false};

    RunResult run(const Project& p) {
        RunRequest r;
        r.project = p;
        r.projectDir = test::examplesDir();
        return m_session->run(r, m_cancel);
    }

private slots:
    void initTestCase() {
        KERNELPAD_REQUIRE_DRIVER();
        m_session = std::make_unique<ExecutionSession>(&m_cache);
    }

    void examplesVerify_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<qint64>("checked");
        QTest::addColumn<double>("maxError");
        QTest::newRow("simpleCubemapTexture's transformKernel: -i on every face")
            << "cubemap_texture.kpad" << qint64(64 * 64 * 6) << 1e-3;
        QTest::newRow("bilinear filtering vs float interpolation")
            << "bilinear_texture.kpad" << qint64(1000 * 600) << 0.01;
    }
    void examplesVerify() {
        QFETCH(QString, file);
        QFETCH(qint64, checked);
        QFETCH(double, maxError);
        const RunResult r = run(test::loadExample(file));
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
        QCOMPARE(r.verification.size(), 1);
        const BufferVerification& v = r.verification.first();
        QVERIFY2(v.passed, qPrintable(v.error));
        QCOMPARE(v.checked, checked);
        QCOMPARE(v.unwritten, qint64(0));
        QVERIFY(v.maxAbsError <= maxError);
        qInfo("%s: max abs error %.3g, median %.4f ms", qPrintable(file), v.maxAbsError,
              r.timing.medianMs);
    }

    void shapesAndReadModes_data() {
        QTest::addColumn<QString>("read");
        QTest::addColumn<QByteArray>("textureJson");
        QTest::addColumn<int>("n");
        QTest::addColumn<QString>("expected");
        // Each thread i reads texel i (point filtering, unnormalized coordinates at texel
        // centres) of a texture filled with 0, 1, 2, ...: out[i] = i.
        QTest::newRow("1D") << "tex1D<float>(tex, i + 0.5f)"
                            << QByteArray(R"({"dims":[300],"init":{"kind":"iota"}})") << 300 << "i";
        QTest::newRow("2D") << "tex2D<float>(tex, i % 40 + 0.5f, i / 40 + 0.5f)"
                            << QByteArray(R"({"dims":[40,30],"init":{"kind":"iota"}})") << 1200
                            << "i";
        QTest::newRow("3D") << "tex3D<float>(tex, i % 8 + 0.5f, i / 8 % 6 + 0.5f, i / 48 + 0.5f)"
                            << QByteArray(R"({"dims":[8,6,5],"init":{"kind":"iota"}})") << 240
                            << "i";
        QTest::newRow("1D layered")
            << "tex1DLayered<float>(tex, i % 50 + 0.5f, i / 50)"
            << QByteArray(R"({"dims":[50],"layers":4,"init":{"kind":"iota"}})") << 200 << "i";
        QTest::newRow("2D layered")
            << "tex2DLayered<float>(tex, i % 16 + 0.5f, i / 16 % 8 + 0.5f, i / 128)"
            << QByteArray(R"({"dims":[16,8],"layers":3,"init":{"kind":"iota"}})") << 384 << "i";
        QTest::newRow("int32 read as elements (READ_AS_INTEGER)")
            << "(float)tex1D<int>(tex, i + 0.5f)"
            << QByteArray(
                   R"({"dims":[64],"channelType":"int32","init":{"kind":"constant","value":-7}})")
            << 64 << "-7";
        QTest::newRow("uchar4 read as normalized floats")
            << "tex1D<float4>(tex, i / 4 + 0.5f).y"
            << QByteArray(R"({"dims":[32],"channelType":"uint8","channels":4,
                            "readMode":"normalizedFloat","init":{"kind":"constant","value":51}})")
            << 128 << "0.2";
        QTest::newRow("border colour outside, unnormalized")
            << "tex1D<float>(tex, -3.0f + i)"
            << QByteArray(R"({"dims":[16],"address":"border","borderColor":[0.5,0,0,0],
                            "init":{"kind":"constant","value":1}})")
            << 2 << "0.5";
        QTest::newRow("wrap with normalized coordinates")
            << "tex1D<float>(tex, 1.0f + (i + 0.5f) / 64.0f)"
            << QByteArray(R"({"dims":[64],"address":"wrap","normalizedCoords":true,
                            "init":{"kind":"iota"}})")
            << 64 << "i";
    }
    void shapesAndReadModes() {
        QFETCH(QString, read);
        QFETCH(QByteArray, textureJson);
        QFETCH(int, n);
        QFETCH(QString, expected);
        const QString source =
            QStringLiteral("extern \"C\" __global__ void k(float* out, int n, "
                           "cudaTextureObject_t tex) {\n"
                           "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                           "    if (i < n) out[i] = %1;\n}\n")
                .arg(read);
        const RunResult r =
            run(project(source,
                        {output("out", "n", expected), scalar("n", QString::number(n)),
                         texture(textureJson.constData())},
                        n));
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
        QCOMPARE(r.verification.size(), 1);
        QVERIFY2(r.verification.first().passed,
                 qPrintable(QJsonDocument(r.verification.first().toJson()).toJson()));
    }

    void surfacesAreWrittenReadBackAndVerified() {
        // s (inout, 0, 1, 2, ...) is doubled in place; o (out, uint32) gets its index.
        const QString source = QStringLiteral(
            "extern \"C\" __global__ void k(cudaSurfaceObject_t s, cudaSurfaceObject_t o, int w,"
            " int h) {\n"
            "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    if (i >= w * h) return;\n"
            "    const int x = i % w, y = i / w;\n"
            "    float v;\n"
            "    surf2Dread(&v, s, x * 4, y);\n"
            "    surf2Dwrite(v * 2.0f, s, x * 4, y);\n"
            "    surf2Dwrite((unsigned int)i, o, x * 4, y);\n}\n");
        ArgumentSpec s = makeTextureArgument(QStringLiteral("s"), true);
        s.texture.dims = {48, 20, 0};
        s.buffer.direction = Direction::InOut;
        s.buffer.init.kind = InitSpec::Kind::Iota;
        s.buffer.verify.kind = VerifySpec::Kind::Expression;
        s.buffer.verify.expression = QStringLiteral("s*2");
        syncTextureContents(s);
        ArgumentSpec o = makeTextureArgument(QStringLiteral("o"), true);
        o.texture.dims = {48, 20, 0};
        o.texture.channelType = ScalarType::UInt32;
        o.buffer.verify.kind = VerifySpec::Kind::Expression;
        o.buffer.verify.expression = QStringLiteral("i");
        o.buffer.verify.atol = 0;
        syncTextureContents(o);
        const Project p = project(source, {s, o, scalar("w", "48"), scalar("h", "20")}, 48 * 20);

        const RunResult r = run(p);
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
        QCOMPARE(r.verification.size(), 2);
        for (const BufferVerification& v : r.verification) {
            QVERIFY2(v.passed, qPrintable(v.buffer + ": " + v.error));
            QCOMPARE(v.checked, qint64(48 * 20));
            QCOMPARE(v.unwritten, qint64(0));
        }

        // Through the runner process, outputs and all.
        Engine engine;
        QSignalSpy finished(&engine, &Engine::runFinished);
        RunRequest request;
        request.project = p;
        request.projectDir = test::examplesDir();
        request.keepOutputs = true;
        engine.run(request);
        QVERIFY(finished.wait(60000));
        const RunResult viaRunner = finished.first().at(1).value<RunResult>();
        QVERIFY2(viaRunner.status == RunStatus::Ok, qPrintable(viaRunner.error));
        const auto out = std::find_if(viaRunner.outputs.cbegin(), viaRunner.outputs.cend(),
                                      [](const OutputBuffer& b) { return b.name == "o"; });
        QVERIFY(out != viaRunner.outputs.cend());
        QCOMPARE(out->count, qint64(48 * 20));
        QCOMPARE(out->type, ValueType::of(ScalarType::UInt32));
        QCOMPARE(out->data.size(), qsizetype(48 * 20 * 4));
        QCOMPARE(std::count_if(viaRunner.outputs.cbegin(), viaRunner.outputs.cend(),
                               [](const OutputBuffer& b) { return b.name == "o"; }),
                 1);
        quint32 last = 0;
        std::memcpy(&last, out->data.constData() + (48 * 20 - 1) * 4, 4);
        QCOMPARE(last, quint32(48 * 20 - 1));
    }

    void unwrittenSurfaceIsCaught() {
        const QString source =
            QStringLiteral("extern \"C\" __global__ void k(cudaSurfaceObject_t o) {\n"
                           "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                           "    if (i < 10) surf1Dwrite(1.0f, o, i * 4);\n}\n");
        ArgumentSpec o = makeTextureArgument(QStringLiteral("o"), true);
        o.texture.dims = {64, 0, 0};
        o.buffer.verify.kind = VerifySpec::Kind::Expression;
        o.buffer.verify.expression = QStringLiteral("1");
        syncTextureContents(o);
        const RunResult r = run(project(source, {o}, 64));
        QCOMPARE(r.status, RunStatus::VerificationFailed);
        QCOMPARE(r.verification.first().unwritten, qint64(54));
    }

    void tooLargeForTheDevice() {
        const TextureLimits limits = readTextureLimits(Device(0));
        const qint64 width = limits.texture[size_t(ArrayShape::D2)].width;
        QVERIFY(width >= 65536);
        ArgumentSpec tex = makeTextureArgument(QStringLiteral("tex"), false);
        tex.texture.dims = {width + 1, 2, 0};
        syncTextureContents(tex);
        const QString source = QStringLiteral(
            "extern \"C\" __global__ void k(float* out, int n, cudaTextureObject_t tex) {}\n");
        const RunResult r =
            run(project(source, {output("out", "n", "0"), scalar("n", "1"), tex}, 1));
        QCOMPARE(r.status, RunStatus::BadInput);
        QCOMPARE(r.error, QStringLiteral("texture 'tex': width %1 exceeds the device's 2D texture "
                                         "limit of %2")
                              .arg(width + 1)
                              .arg(width));
    }

    void formatRefusedByTheDriverIsNamed() {
        // Past validation on purpose: the driver's own refusal becomes the sentence.
        ArgumentSpec tex = makeTextureArgument(QStringLiteral("tex"), false);
        const TextureLimits limits = readTextureLimits(Device(0));
        tex.texture.dims = {limits.texture[size_t(ArrayShape::D2)].width * 4, 2, 0};
        tex.texture.channelType = ScalarType::Float16;
        tex.texture.channels = 2;
        Context context{Device(0)};
        context.makeCurrent();
        try {
            const TextureObject t =
                TextureObject::texture(arrayDescFor(tex), samplerDescFor(tex.texture));
            QFAIL("the driver made an array past its own limit");
        } catch (const CudaError& e) {
            const QString message = describeRefusal(tex, e);
            QVERIFY2(message.startsWith("texture 'tex': the device does not support 2 × float16 "
                                        "texels in a 2D array"),
                     qPrintable(message));
            QVERIFY2(message.contains("cuArray3DCreate returned CUDA_ERROR_"), qPrintable(message));
        }
    }

    void cliRunsTheCubemapExample() {
        QProcess cli;
        cli.start(RunnerClient::findRunner(),
                  {QStringLiteral("run"), test::examplesDir() + "/cubemap_texture.kpad",
                   QStringLiteral("--json"), QStringLiteral("--reps"), QStringLiteral("3")});
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitCode(), 0);
        const QJsonObject json = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
        QCOMPARE(json.value("status").toString(), QStringLiteral("ok"));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestGpuTextures)
} // namespace tst_gputextures
#include "tst_gputextures.moc"
