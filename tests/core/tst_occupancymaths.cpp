// Occupancy arithmetic against answers worked out by hand for an H100 (sm_90); the GPU test
// (tests/gpu/tst_occupancy.cpp) compares the same arithmetic with the driver's.

#include "core/cuda/Occupancy.h"

#include <QTest>

Q_DECLARE_METATYPE(kernelpad::OccupancyLimiter)

using namespace kernelpad;

namespace {

/// H100 SXM (sm_90) as the driver reports it: 2048 threads (64 warps) and 32 blocks per SM,
/// 64 Ki registers per SM and per block, 228 KiB of shared memory per SM; the allocation units
/// of cuda_occupancy.h for cc 9.0.
OccupancyLimits h100() {
    OccupancyLimits l;
    l.warpSize = 32;
    l.maxThreadsPerBlock = 1024;
    l.maxWarpsPerSm = 64;
    l.maxBlocksPerSm = 32;
    l.registersPerSm = 65536;
    l.registersPerBlock = 65536;
    l.registerAllocationUnit = 256;
    l.registerSubPartitions = 4;
    l.sharedPerSmBytes = 233472;
    l.sharedAllocationUnitBytes = 128;
    l.reservedSharedPerBlockBytes = 1024;
    return l;
}

} // namespace

class TestOccupancyMaths : public QObject {
    Q_OBJECT
private slots:
    void h100KnownAnswers_data();
    void h100KnownAnswers();
    void limitsFromDeviceInfo();
    void unknownLimitsComputeNothing();
};

void TestOccupancyMaths::h100KnownAnswers_data() {
    QTest::addColumn<int>("registers");
    QTest::addColumn<int>("sharedBytes");
    QTest::addColumn<int>("blockThreads");
    QTest::addColumn<int>("blocks");
    QTest::addColumn<int>("warps");
    QTest::addColumn<OccupancyLimiter>("limiter");

    // 8 warps per block. Warps: 64 / 8 = 8 blocks. Registers: 32 x 32 = 1024 per warp (a
    // multiple of 256); 16384 per sub-partition / 1024 = 16 warps, x 4 = 64 warps = 8 blocks.
    // Shared: 0 + 1024 reserved = 1024 -> 228 blocks. Warps and registers tie at 8: a full SM
    // is reported as limited by warps. 64 / 64 warps = 100 %.
    QTest::newRow("32 regs, 256 threads: full SM")
        << 32 << 0 << 256 << 8 << 64 << OccupancyLimiter::Warps;
    // 32 warps. Registers: 64 x 32 = 2048 per warp; 16384 / 2048 = 8 warps per sub-partition,
    // x 4 = 32 warps = 1 block (warps would allow 2). 32 / 64 = 50 %.
    QTest::newRow("64 regs, 1024 threads: registers halve it")
        << 64 << 0 << 1024 << 1 << 32 << OccupancyLimiter::Registers;
    // 3 warps. Registers: 40 x 32 = 1280 per warp; 16384 / 1280 = 12.8 -> 12 warps per
    // sub-partition, x 4 = 48 warps -> 16 blocks. (Without sub-partitions 65536 / 1280 = 51
    // warps would give 17.) Warps: 64 / 3 = 21. 16 x 3 = 48 warps = 75 %.
    QTest::newRow("40 regs, 96 threads: register sub-partitions")
        << 40 << 0 << 96 << 16 << 48 << OccupancyLimiter::Registers;
    // 255 x 32 = 8160 -> rounded to 8192 per warp; 16384 / 8192 = 2 warps per sub-partition,
    // x 4 = 8 warps = 1 block of 8 warps. 8 / 64 = 12.5 %.
    QTest::newRow("255 regs, 256 threads: one block")
        << 255 << 0 << 256 << 1 << 8 << OccupancyLimiter::Registers;
    // 9 warps x 8192 = 73728 registers > 65536 a block may have: no block fits.
    QTest::newRow("255 regs, 288 threads: block needs too many registers")
        << 255 << 0 << 288 << 0 << 0 << OccupancyLimiter::Registers;
    // 4 warps. Shared: 49152 + 1024 = 50176 (a multiple of 128); 233472 / 50176 = 4.65 -> 4
    // blocks. Warps 16, registers 16. 4 x 4 = 16 warps = 25 %.
    QTest::newRow("48 KiB shared, 128 threads: shared memory")
        << 32 << 49152 << 128 << 4 << 16 << OccupancyLimiter::SharedMemory;
    // 2 warps. Shared: 10000 + 1024 = 11024 -> rounded to 11136; 233472 / 11136 = 20.97 -> 20
    // blocks (without the rounding 21). Warps 32, registers 64 / 2 = 32. 40 warps = 62.5 %.
    QTest::newRow("10000 B shared, 64 threads: allocation unit rounds up")
        << 32 << 10000 << 64 << 20 << 40 << OccupancyLimiter::SharedMemory;
    // 1 warp. Warps would allow 64 blocks, registers 16 x 32 = 512 per warp -> 32 warps per
    // sub-partition = 128; the SM's 32-block limit wins. 32 warps = 50 %.
    QTest::newRow("16 regs, 32 threads: blocks per SM")
        << 16 << 0 << 32 << 32 << 32 << OccupancyLimiter::Blocks;
    // 48 threads take 2 warps: warps 64 / 2 = 32 blocks, the block limit 32 too (warps come
    // first). 32 x 2 = 64 warps: 100 % though a quarter of the lanes idle.
    QTest::newRow("48 threads: a partial warp counts whole")
        << 32 << 0 << 48 << 32 << 64 << OccupancyLimiter::Warps;
    QTest::newRow("1025 threads: too large a block")
        << 32 << 0 << 1025 << 0 << 0 << OccupancyLimiter::BlockSize;
    QTest::newRow("0 threads: no block") << 32 << 0 << 0 << 0 << 0 << OccupancyLimiter::BlockSize;
}

void TestOccupancyMaths::h100KnownAnswers() {
    QFETCH(int, registers);
    QFETCH(int, sharedBytes);
    QFETCH(int, blockThreads);
    QFETCH(int, blocks);
    QFETCH(int, warps);
    QFETCH(OccupancyLimiter, limiter);
    const Occupancy o = Occupancy::of(h100(), registers, sharedBytes, blockThreads);
    QCOMPARE(o.activeBlocksPerSm, blocks);
    QCOMPARE(o.activeWarpsPerSm, warps);
    QCOMPARE(o.occupancy, warps / 64.0);
    QCOMPARE(o.limiter, limiter);
}

void TestOccupancyMaths::limitsFromDeviceInfo() {
    DeviceInfo d;
    d.ccMajor = 9;
    d.ccMinor = 0;
    d.warpSize = 32;
    d.maxThreadsPerBlock = 1024;
    d.maxThreadsPerSm = 2048;
    d.registersPerSm = 65536;
    d.registersPerBlock = 65536;
    d.sharedMemPerSmBytes = 233472;
    const OccupancyLimits l = OccupancyLimits::forDevice(d);
    const OccupancyLimits expected = h100();
    QCOMPARE(l.maxWarpsPerSm, expected.maxWarpsPerSm);
    QCOMPARE(l.maxBlocksPerSm, expected.maxBlocksPerSm);
    QCOMPARE(l.registerAllocationUnit, expected.registerAllocationUnit);
    QCOMPARE(l.registerSubPartitions, expected.registerSubPartitions);
    QCOMPARE(l.sharedAllocationUnitBytes, expected.sharedAllocationUnitBytes);
    QCOMPARE(l.reservedSharedPerBlockBytes, expected.reservedSharedPerBlockBytes);
    // An RTX 4090 (sm_89) holds 24 blocks per SM.
    d.ccMajor = 8;
    d.ccMinor = 9;
    QCOMPARE(OccupancyLimits::forDevice(d).maxBlocksPerSm, 24);
}

void TestOccupancyMaths::unknownLimitsComputeNothing() {
    const Occupancy o = Occupancy::of(OccupancyLimits{}, 32, 0, 256);
    QCOMPARE(o.activeBlocksPerSm, 0);
    QCOMPARE(o.limiter, OccupancyLimiter::None);
}

QTEST_GUILESS_MAIN(TestOccupancyMaths)
#include "tst_occupancymaths.moc"
