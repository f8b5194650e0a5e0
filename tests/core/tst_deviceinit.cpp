// Which buffers the GPU generates (core/run/DeviceInit), what the host still makes for them
// on demand (the same values as makeBufferContents), and the generator's CUDA compiling with
// NVRTC (no GPU needed).

#include "core/compile/Program.h"
#include "core/launch/BufferInit.h"
#include "core/run/DeviceInit.h"
#include "core/run/RunBuffers.h"

#include <QTest>

using namespace kernelpad;

namespace {

ArgumentSpec buffer(const QString& name, ScalarType type, InitSpec::Kind kind, qint64 count,
                    Direction direction) {
    ArgumentSpec a;
    a.name = name;
    a.kind = ArgumentSpec::Kind::Buffer;
    a.buffer.elementType = ValueType::of(type);
    a.buffer.count = QString::number(count);
    a.buffer.init.kind = kind;
    a.buffer.init.low = -1;
    a.buffer.init.high = 1;
    a.buffer.init.seed = 9;
    a.buffer.direction = direction;
    return a;
}

} // namespace

class TestDeviceInit : public QObject {
    Q_OBJECT

private slots:
    void generatorCompiles() {
        const CompileResult compiled = deviceInitProgram().compile("sm_90");
        QVERIFY2(compiled.ok, qPrintable(compiled.log + compiled.error));
        QVERIFY(compiled.findKernel(deviceInitKernelName(ScalarType::Float32)));
        QVERIFY(compiled.findKernel(deviceInitKernelName(ScalarType::Float64)));
        QVERIFY(deviceInitKernelName(ScalarType::Int32).isEmpty());
    }

    void largeUniformInputsOnly() {
        const qint64 big = kDeviceInitMinElements;
        const QVector<ArgumentSpec> args{
            buffer("x", ScalarType::Float32, InitSpec::Kind::Uniform, big, Direction::In),
            buffer("d", ScalarType::Float64, InitSpec::Kind::Uniform, big, Direction::In),
            buffer("small", ScalarType::Float32, InitSpec::Kind::Uniform, big - 1, Direction::In),
            buffer("io", ScalarType::Float32, InitSpec::Kind::Uniform, big, Direction::InOut),
            buffer("k", ScalarType::Int32, InitSpec::Kind::Uniform, big, Direction::In),
            buffer("nrm", ScalarType::Float32, InitSpec::Kind::Normal, big, Direction::In),
        };
        QString error;
        const std::optional<std::vector<RunBuffer>> on =
            prepareBuffers(args, QString(), &error, nullptr, true);
        QVERIFY2(on, qPrintable(error));
        const QStringList expected{"x", "d"};
        for (const RunBuffer& b : *on) {
            QCOMPARE(b.deviceGenerated.has_value(), expected.contains(b.name));
            QVERIFY(b.hasInitialContents());
            QCOMPARE(b.initial.isEmpty(), expected.contains(b.name)); // nothing made yet
        }
        // Asked for, the host makes the very contents it would have made anyway.
        const std::optional<std::vector<RunBuffer>> off =
            prepareBuffers(args, QString(), &error, nullptr, false);
        QVERIFY2(off, qPrintable(error));
        for (size_t k = 0; k < on->size(); ++k) {
            QVERIFY(!(*off)[k].deviceGenerated);
            QCOMPARE((*on)[k].hostContents(), (*off)[k].initial);
        }
    }
};

QTEST_GUILESS_MAIN(TestDeviceInit)
#include "tst_deviceinit.moc"
