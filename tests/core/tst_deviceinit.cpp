// Which buffers the GPU generates (core/run/DeviceInit: uniform and normal of every scalar
// type), what the host still makes for them on demand (the same values as
// makeBufferContents), and the generator's CUDA compiling with NVRTC (no GPU needed).

#include "../support/TestMain.h"
#include "core/compile/Program.h"
#include "core/launch/BufferInit.h"
#include "core/run/DeviceInit.h"
#include "core/run/RunBuffers.h"

#include <QTest>

namespace tst_deviceinit {

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

} // namespace tst_deviceinit
Q_DECLARE_METATYPE(kernelpad::BufferSpec)
namespace tst_deviceinit {

class TestDeviceInit : public QObject {
    Q_OBJECT

private slots:
    void generatorCompiles() {
        const CompileResult compiled = deviceInitProgram().compile("sm_90");
        QVERIFY2(compiled.ok, qPrintable(compiled.log + compiled.error));
        for (const InitSpec::Kind kind : {InitSpec::Kind::Uniform, InitSpec::Kind::Normal}) {
            for (const ScalarType type : allScalarTypes()) {
                // Every type, bfloat16, fp8 and fp4 included (rounded as MiniFloat rounds).
                const QString name = deviceInitKernelName(kind, type);
                QVERIFY2(compiled.findKernel(name), qPrintable(name));
            }
        }
        QCOMPARE(deviceInitKernelName(InitSpec::Kind::Normal, ScalarType::Int8),
                 QStringLiteral("kpNormal_int8"));
        QVERIFY(deviceInitKernelName(InitSpec::Kind::Iota, ScalarType::Int32).isEmpty());
        QVERIFY(deviceInitKernelName(InitSpec::Kind::Zeros, ScalarType::Float32).isEmpty());
    }

    /// Every scalar type's uniform and normal; anything the host refuses stays with the host,
    /// which says why.
    void whatTheGpuGenerates_data() {
        QTest::addColumn<BufferSpec>("spec");
        QTest::addColumn<bool>("generated");
        for (const ScalarType type : allScalarTypes()) {
            const QString name = QLatin1String(scalarTypeInfo(type).numpyName);
            for (const InitSpec::Kind kind : {InitSpec::Kind::Uniform, InitSpec::Kind::Normal}) {
                BufferSpec s = buffer("x", type, kind, 1, Direction::In).buffer;
                s.init.low = 0; // [0, 100) fits every integer type; fp4's largest is 6
                s.init.high = type == ScalarType::Float4E2M1x2 ? 6 : 100;
                QTest::addRow("%s %s", kind == InitSpec::Kind::Uniform ? "uniform" : "normal",
                              qPrintable(name))
                    << s << true;
            }
        }
        const auto with = [](ScalarType type, InitSpec::Kind kind, double a, double b) {
            BufferSpec s = buffer("x", type, kind, 1, Direction::In).buffer;
            s.init.low = s.init.mean = a;
            s.init.high = s.init.stddev = b;
            return s;
        };
        QTest::newRow("iota") << with(ScalarType::Int32, InitSpec::Kind::Iota, 0, 1) << false;
        QTest::newRow("zeros") << with(ScalarType::Float32, InitSpec::Kind::Zeros, 0, 1) << false;
        QTest::newRow("int8 uniform beyond its range")
            << with(ScalarType::Int8, InitSpec::Kind::Uniform, 0, 1000) << false;
        QTest::newRow("int32 uniform holding no integer")
            << with(ScalarType::Int32, InitSpec::Kind::Uniform, 0.2, 0.7) << false;
        QTest::newRow("uniform low above high")
            << with(ScalarType::Float32, InitSpec::Kind::Uniform, 2, 1) << false;
        QTest::newRow("float64 uniform wider than the largest double (NaNs)")
            << with(ScalarType::Float64, InitSpec::Kind::Uniform, -1e308, 1e308) << false;
        QTest::newRow("uint64 uniform of its whole range")
            << with(ScalarType::UInt64, InitSpec::Kind::Uniform, 0, 0x1.0p64) << true;
        QTest::newRow("float8_e4m3 uniform past its largest finite value (448)")
            << with(ScalarType::Float8E4M3, InitSpec::Kind::Uniform, 0, 1000) << false;
        QTest::newRow("normal with a negative stddev")
            << with(ScalarType::Float32, InitSpec::Kind::Normal, 0, -1) << false;
        BufferSpec pair =
            buffer("x", ScalarType::Float32, InitSpec::Kind::Uniform, 1, Direction::In).buffer;
        pair.elementType = ValueType::ofStruct(StructType{"pair", {{"a", ScalarType::Float32, 1}}});
        QTest::newRow("struct elements") << pair << false;
    }
    void whatTheGpuGenerates() {
        QFETCH(BufferSpec, spec);
        QFETCH(bool, generated);
        QCOMPARE(deviceCanGenerate(spec), generated);
    }

    void largeGeneratedInputsOnly() {
        const qint64 big = kDeviceInitMinElements;
        const QVector<ArgumentSpec> args{
            buffer("x", ScalarType::Float32, InitSpec::Kind::Uniform, big, Direction::In),
            buffer("d", ScalarType::Float64, InitSpec::Kind::Uniform, big, Direction::In),
            buffer("small", ScalarType::Float32, InitSpec::Kind::Uniform, big - 1, Direction::In),
            buffer("io", ScalarType::Float32, InitSpec::Kind::Uniform, big, Direction::InOut),
            buffer("k", ScalarType::Int32, InitSpec::Kind::Uniform, big, Direction::In),
            buffer("nrm", ScalarType::Float32, InitSpec::Kind::Normal, big, Direction::In),
            buffer("iota", ScalarType::Float32, InitSpec::Kind::Iota, big, Direction::In),
        };
        QString error;
        const std::optional<std::vector<RunBuffer>> on =
            prepareBuffers(args, QString(), &error, nullptr, true);
        QVERIFY2(on, qPrintable(error));
        const QStringList expected{"x", "d", "k", "nrm"};
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

KERNELPAD_TEST_GUILESS_MAIN(TestDeviceInit)
} // namespace tst_deviceinit
#include "tst_deviceinit.moc"
