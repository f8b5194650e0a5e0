// TMA tensor maps on a GPU (sm_90): a kernel loads 2D tiles with
// cp.async.bulk.tensor through a map the runner encoded and passed by value, stores them back
// through a second map, and reads the shared-memory tile undoing the swizzle, for every
// swizzle mode; each output is checked against the source. A bad map is refused naming the
// rule. The project is built here and run through ExecutionSession, as the window runs one.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/cuda/Device.h"
#include "core/run/ExecutionSession.h"

#include <QJsonArray>
#include <QTest>

namespace tst_tensormap {

using namespace kernelpad;

namespace {

constexpr int kRows = 32;
constexpr int kCols = 64;
constexpr int kBoxRows = 8;

/// The kernel under test. `swizzleMask` is the swizzle's 16-byte-chunk mask (0 none, 1 32B,
/// 3 64B, 7 128B: Swizzle<B,4,3> on the byte offset, the tile starting on a 1024-byte
/// boundary); -1 skips the un-swizzled read (the 128B atom variants).
const char* const kSource = R"(
typedef struct alignas(64) CUtensorMap_st { unsigned long long opaque[16]; } CUtensorMap;

extern "C" __global__ void k(const float* src, float* dst, float* plain,
                             const __grid_constant__ CUtensorMap srcMap,
                             const __grid_constant__ CUtensorMap dstMap,
                             int rows, int cols, int boxCols, int boxRows, int swizzleMask)
{
    extern __shared__ unsigned char smem[];
    __shared__ alignas(8) unsigned long long bar;
    unsigned char* tile = (unsigned char*)(((size_t)smem + 1023) & ~size_t(1023));
    const unsigned tileAddr = (unsigned)__cvta_generic_to_shared(tile);
    const unsigned barAddr = (unsigned)__cvta_generic_to_shared(&bar);
    const int x = blockIdx.x * boxCols, y = blockIdx.y * boxRows;
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(barAddr) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                     :: "r"(barAddr), "r"(unsigned(boxCols * boxRows * 4)) : "memory");
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];"
                     :: "r"(tileAddr), "l"(&srcMap), "r"(x), "r"(y), "r"(barAddr) : "memory");
    }
    unsigned done = 0;
    while (!done)
        asm volatile("{ .reg .pred p;\n"
                     "  mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n"
                     "  selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(barAddr) : "memory");
    if (swizzleMask >= 0)
        for (int e = threadIdx.x; e < boxCols * boxRows; e += blockDim.x) {
            const int r = e / boxCols, c = e % boxCols;
            const unsigned offset = unsigned(r * boxCols + c) * 4;
            const unsigned swizzled = offset ^ (((offset >> 7) & unsigned(swizzleMask)) << 4);
            plain[(y + r) * cols + x + c] = *(const float*)(tile + swizzled);
        }
    if (threadIdx.x == 0) {
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                     :: "l"(&dstMap), "r"(x), "r"(y), "r"(tileAddr) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}
)";

ArgumentSpec scalar(const QString& name, int value) {
    ArgumentSpec a;
    a.name = name;
    a.type = ValueType::of(ScalarType::Int32);
    a.value = QString::number(value);
    return a;
}

ArgumentSpec matrix(const QString& name, Direction direction, bool verified) {
    ArgumentSpec a;
    a.name = name;
    a.kind = ArgumentSpec::Kind::Buffer;
    a.buffer.elementType = ValueType::of(ScalarType::Float32);
    a.buffer.count = QStringLiteral("rows*cols");
    a.buffer.direction = direction;
    if (direction == Direction::In) {
        a.buffer.init.kind = InitSpec::Kind::Iota;
    } else if (verified) {
        a.buffer.verify.kind = VerifySpec::Kind::Expression;
        a.buffer.verify.expression = QStringLiteral("src");
        a.buffer.verify.atol = 0;
        a.buffer.verify.rtol = 0;
    }
    return a;
}

ArgumentSpec map(const QString& name, const QString& buffer, const QString& swizzle, int boxCols,
                 const QString& stride = QStringLiteral("cols*4")) {
    const QJsonObject json{{"name", name},
                           {"kind", "tensorMap"},
                           {"tensorMap", QJsonObject{{"buffer", buffer},
                                                     {"globalDims", QJsonArray{"cols", "rows"}},
                                                     {"globalStrides", QJsonArray{stride}},
                                                     {"boxDims", QJsonArray{boxCols, kBoxRows}},
                                                     {"swizzle", swizzle}}}};
    QString error;
    const auto arg = ArgumentSpec::fromJson(json, &error);
    if (!arg)
        qFatal("bad tensor map in the test: %s", qPrintable(error));
    return *arg;
}

Project tileCopy(const QString& swizzle, int boxCols, int mask, const QString& stride) {
    Project p;
    p.name = QStringLiteral("tensor map tile copy, swizzle %1").arg(swizzle);
    p.source = QString::fromUtf8(kSource);
    p.kernel = QStringLiteral("k");
    p.options.arch = QStringLiteral("sm_90");
    p.arguments = {matrix("src", Direction::In, false),
                   matrix("dst", Direction::Out, true),
                   matrix("plain", Direction::Out, mask >= 0),
                   map("srcMap", "src", swizzle, boxCols, stride),
                   map("dstMap", "dst", swizzle, boxCols),
                   scalar("rows", kRows),
                   scalar("cols", kCols),
                   scalar("boxCols", boxCols),
                   scalar("boxRows", kBoxRows),
                   scalar("swizzleMask", mask)};
    p.launch.grid = {kCols / boxCols, kRows / kBoxRows, 1};
    p.launch.block = {128, 1, 1};
    p.launch.sharedMemBytes = boxCols * kBoxRows * 4 + 1024; // + the slack to align to 1024
    p.timing.repetitions = 3;
    p.timing.adaptive = false;
    p.timing.warmupLaunches = 1;
    return p;
}

} // namespace

class TestTensorMap : public QObject {
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
        const QVector<DeviceInfo> devices = Device::all();
        if (devices.isEmpty() || devices.first().ccMajor < 9)
            QSKIP("TMA needs compute capability 9.0 (an H100 or newer)");
        m_session = std::make_unique<ExecutionSession>(&m_cache);
    }

    void copiesTheTileForEverySwizzle_data() {
        QTest::addColumn<QString>("swizzle");
        QTest::addColumn<int>("boxCols"); // the inner box fills the swizzle's span
        QTest::addColumn<int>("mask");
        QTest::newRow("none") << "none" << 32 << 0;
        QTest::newRow("32B") << "32B" << 8 << 1;
        QTest::newRow("64B") << "64B" << 16 << 3;
        QTest::newRow("128B") << "128B" << 32 << 7;
        QTest::newRow("128B_atom_32B") << "128B_atom_32B" << 32 << -1;
        QTest::newRow("128B_atom_32B_flip_8B") << "128B_atom_32B_flip_8B" << 32 << -1;
        QTest::newRow("128B_atom_64B") << "128B_atom_64B" << 32 << -1;
    }
    void copiesTheTileForEverySwizzle() {
        QFETCH(QString, swizzle);
        QFETCH(int, boxCols);
        QFETCH(int, mask);
        const RunResult r = run(tileCopy(swizzle, boxCols, mask, QStringLiteral("cols*4")));
        if (mask < 0 && r.status != RunStatus::Ok &&
            r.error.contains(QLatin1String("cuTensorMapEncodeTiled returned")))
            QSKIP(qPrintable(
                QStringLiteral("this GPU's driver refuses the atom swizzle: %1").arg(r.error)));
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
        QCOMPARE(r.verification.size(), mask >= 0 ? 2 : 1);
        bool allPassed = true;
        for (const BufferVerification& v : r.verification) {
            if (!v.passed) {
                allPassed = false;
                qWarning("swizzle %s, %s: %s", qPrintable(swizzle), qPrintable(v.buffer),
                         qPrintable(v.error));
                // The first mismatches as (row, col, got, want) of the 32 x 64 matrix.
                for (const Mismatch& m : v.firstMismatches)
                    qWarning("  (%lld, %lld) got %g want %g", m.index / kCols, m.index % kCols,
                             m.got, m.expected);
            }
            QCOMPARE(v.checked, qint64(kRows * kCols));
        }
        QVERIFY2(allPassed,
                 qPrintable(QStringLiteral("swizzle %1: see the mismatches above").arg(swizzle)));
    }

    void exampleVerifiesAgainstPlainLoads() {
        Project p = test::loadExample(QStringLiteral("tma_tile_copy.kpad"));
        const RunResult tma = run(p);
        QVERIFY2(tma.status == RunStatus::Ok, qPrintable(tma.error));
        QCOMPARE(tma.verification.size(), 1);
        QVERIFY2(tma.verification.first().passed, qPrintable(tma.verification.first().error));
        QCOMPARE(tma.verification.first().checked, qint64(4096) * 4096);
        p.kernel = QStringLiteral("plainTileCopy");
        const RunResult plain = run(p);
        QVERIFY2(plain.status == RunStatus::Ok, qPrintable(plain.error));
        qInfo("tma_tile_copy: TMA %.4f ms (%.0f GB/s), plain loads %.4f ms (%.0f GB/s)",
              tma.timing.medianMs, tma.timing.bandwidthGBs, plain.timing.medianMs,
              plain.timing.bandwidthGBs);
    }

    void refusesABadMapNamingTheRule() {
        const RunResult r = run(tileCopy("none", 32, 0, QStringLiteral("cols*4+8")));
        QVERIFY(r.status != RunStatus::Ok);
        QVERIFY2(r.error.contains(QLatin1String("tensor map 'srcMap': globalStrides[0]: 264 bytes "
                                                "is not a multiple of 16 (the driver's rule)")),
                 qPrintable(r.error));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestTensorMap)
} // namespace tst_tensormap
#include "tst_tensormap.moc"
