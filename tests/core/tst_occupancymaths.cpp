// Occupancy arithmetic against answers worked out by hand for an H100 (sm_90); the GPU test
// (tests/gpu/tst_occupancy.cpp) compares the same arithmetic with the driver's.

#include "../support/TestMain.h"
#include "core/cuda/Occupancy.h"
#include "core/cuda/OccupancyCurves.h"

#include <QJsonArray>
#include <QTest>

namespace tst_occupancymaths {} // namespace tst_occupancymaths
Q_DECLARE_METATYPE(kernelpad::OccupancyLimiter)
namespace tst_occupancymaths {

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
    void archTables_data();
    void archTables();
    void kernelKnownAnswers_data();
    void kernelKnownAnswers();
    void deviceAttributesOverrideTables();
    void deviceInfoJsonRoundTrip();
    void curvesOnH100();
    void curvesFollowTheLaunch();
    void curvesWithoutLimitsAreEmpty();
    void explanations_data();
    void explanations();
    void toolkitHeaderAgreesWithTheRules_data();
    void toolkitHeaderAgreesWithTheRules();
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

void TestOccupancyMaths::archTables_data() {
    QTest::addColumn<QString>("arch");
    QTest::addColumn<int>("maxWarps");
    QTest::addColumn<int>("maxBlocks");
    QTest::addColumn<int>("sharedPerSm");
    QTest::addColumn<int>("sharedPerBlock");
    QTest::addColumn<int>("reserved");
    QTest::addColumn<int>("barriersPerSm");
    // H100: 2048 threads, 32 blocks, 228 KiB per SM, 227 KiB per block, 1 KiB reserved; two
    // barriers per block slot from cc 9.0 (cuda_occupancy.h).
    QTest::newRow("sm_90") << "sm_90" << 64 << 32 << 233472 << 232448 << 1024 << 64;
    QTest::newRow("sm_90a: the same limits")
        << "sm_90a" << 64 << 32 << 233472 << 232448 << 1024 << 64;
    // A100: 164 KiB per SM, 163 KiB per block.
    QTest::newRow("sm_80") << "sm_80" << 64 << 32 << 167936 << 166912 << 1024 << 0;
    // GA10x: 1536 threads (48 warps), 16 blocks, 100 KiB per SM, 99 KiB per block.
    QTest::newRow("sm_86") << "sm_86" << 48 << 16 << 102400 << 101376 << 1024 << 0;
    QTest::newRow("sm_89") << "sm_89" << 48 << 24 << 102400 << 101376 << 1024 << 0;
    // Turing: 1024 threads, 16 blocks, 64 KiB, no reserve.
    QTest::newRow("sm_75") << "sm_75" << 32 << 16 << 65536 << 65536 << 0 << 0;
    QTest::newRow("compute_100") << "compute_100" << 64 << 32 << 233472 << 232448 << 1024 << 64;
}

void TestOccupancyMaths::archTables() {
    QFETCH(QString, arch);
    QFETCH(int, maxWarps);
    QFETCH(int, maxBlocks);
    QFETCH(int, sharedPerSm);
    QFETCH(int, sharedPerBlock);
    QFETCH(int, reserved);
    QFETCH(int, barriersPerSm);
    const OccupancyLimits l = OccupancyLimits::forArch(arch);
    QVERIFY(l.isComplete());
    QCOMPARE(l.maxWarpsPerSm, maxWarps);
    QCOMPARE(l.maxBlocksPerSm, maxBlocks);
    QCOMPARE(l.sharedPerSmBytes, sharedPerSm);
    QCOMPARE(l.maxSharedPerBlockBytes, sharedPerBlock);
    QCOMPARE(l.reservedSharedPerBlockBytes, reserved);
    QCOMPARE(l.barriersPerSm, barriersPerSm);
    QCOMPARE(l.registersPerSm, 65536);
    QCOMPARE(l.registerAllocationUnit, 256);
    QCOMPARE(l.maxRegistersPerThread, 255);
    QVERIFY(!OccupancyLimits::forArch(QStringLiteral("sm_42")).isComplete());
    QVERIFY(!OccupancyLimits::forArch(QStringLiteral("banana")).isComplete());
}

void TestOccupancyMaths::kernelKnownAnswers_data() {
    QTest::addColumn<QString>("arch");
    QTest::addColumn<int>("registers");
    QTest::addColumn<int>("staticShared");
    QTest::addColumn<int>("barriers");
    QTest::addColumn<int>("kernelMaxThreads");
    QTest::addColumn<int>("blockThreads");
    QTest::addColumn<int>("dynamicShared");
    QTest::addColumn<int>("blocks");
    QTest::addColumn<int>("warps");
    QTest::addColumn<OccupancyLimiter>("limiter");

    // sm_90. 4 barriers (barrier 0 and a named one): 64 barriers per SM / 4 = 16 blocks,
    // below the 32-block limit; 16 one-warp blocks = 16 of 64 warps.
    QTest::newRow("sm_90: named barriers")
        << "sm_90" << 16 << 0 << 4 << 0 << 32 << 0 << 16 << 16 << OccupancyLimiter::Barriers;
    // One barrier: 64 per SM never binds before the 32-block limit.
    QTest::newRow("sm_90: one barrier")
        << "sm_90" << 16 << 0 << 1 << 0 << 32 << 0 << 32 << 32 << OccupancyLimiter::Blocks;
    // 227 KiB dynamic: 232448 + 1024 reserved = 233472 = the SM's whole shared memory: 1 block.
    QTest::newRow("sm_90: 227 KiB dynamic") << "sm_90" << 32 << 0 << 1 << 0 << 128 << 232448 << 1
                                            << 4 << OccupancyLimiter::SharedMemory;
    // 8000 B static + 224448 B dynamic = 232448: still one block; one byte more does not fit
    // the per-block limit (227 KiB + 1 KiB reserve).
    QTest::newRow("sm_90: static plus dynamic at the limit")
        << "sm_90" << 32 << 8000 << 1 << 0 << 128 << 224448 << 1 << 4
        << OccupancyLimiter::SharedMemory;
    QTest::newRow("sm_90: one byte over the per-block limit")
        << "sm_90" << 32 << 8000 << 1 << 0 << 128 << 224449 << 0 << 0
        << OccupancyLimiter::SharedMemory;
    // __launch_bounds__(256): a block of 512 does not launch.
    QTest::newRow("sm_90: past the kernel's launch bounds")
        << "sm_90" << 32 << 0 << 1 << 256 << 512 << 0 << 0 << 0 << OccupancyLimiter::BlockSize;
    QTest::newRow("sm_90: 256 registers are too many")
        << "sm_90" << 256 << 0 << 1 << 0 << 32 << 0 << 0 << 0 << OccupancyLimiter::Registers;

    // sm_80 (A100). 64 KiB dynamic + 1 KiB reserved = 66560 B (a multiple of 128);
    // 167936 / 66560 = 2.5 -> 2 blocks of 4 warps = 8 of 64 warps.
    QTest::newRow("sm_80: 64 KiB dynamic")
        << "sm_80" << 32 << 0 << 1 << 0 << 128 << 65536 << 2 << 8 << OccupancyLimiter::SharedMemory;
    // 163 KiB dynamic + 1 KiB = 164 KiB: exactly one block.
    QTest::newRow("sm_80: 163 KiB dynamic") << "sm_80" << 32 << 0 << 1 << 0 << 128 << 166912 << 1
                                            << 4 << OccupancyLimiter::SharedMemory;
    QTest::newRow("sm_80: past 163 KiB") << "sm_80" << 32 << 0 << 1 << 0 << 128 << 166913 << 0 << 0
                                         << OccupancyLimiter::SharedMemory;
    // 128 x 32 = 4096 registers per warp; 16384 per sub-partition hold 4 warps, x 4 = 16
    // warps = 2 blocks of 8 warps: 25 %.
    QTest::newRow("sm_80: 128 registers")
        << "sm_80" << 128 << 0 << 1 << 0 << 256 << 0 << 2 << 16 << OccupancyLimiter::Registers;
    // Barriers are not checked before cc 9.0, however many the kernel uses.
    QTest::newRow("sm_80: barriers do not limit")
        << "sm_80" << 16 << 0 << 16 << 0 << 32 << 0 << 32 << 32 << OccupancyLimiter::Blocks;

    // sm_86: 48 warps, 16 blocks, 100 KiB per SM. A block of 1024 threads is 32 warps: one
    // fits (48 / 32), registers would allow two: 32 of 48 warps.
    QTest::newRow("sm_86: 1024 threads")
        << "sm_86" << 32 << 0 << 1 << 0 << 1024 << 0 << 1 << 32 << OccupancyLimiter::Warps;
    // One-warp blocks: the 16-block limit, 16 of 48 warps.
    QTest::newRow("sm_86: 32 threads")
        << "sm_86" << 16 << 0 << 1 << 0 << 32 << 0 << 16 << 16 << OccupancyLimiter::Blocks;
    // 24 warps, 40 registers: 1280 per warp, 12 warps per sub-partition = 48 = 2 blocks; warps
    // also 2: a full SM, named after warps.
    QTest::newRow("sm_86: 768 threads, 40 registers")
        << "sm_86" << 40 << 0 << 1 << 0 << 768 << 0 << 2 << 48 << OccupancyLimiter::Warps;
    // 48 KiB dynamic + 1 KiB = 50176 B; 102400 / 50176 = 2 blocks of 8 warps: 16 of 48.
    QTest::newRow("sm_86: 48 KiB dynamic") << "sm_86" << 32 << 0 << 1 << 0 << 256 << 49152 << 2
                                           << 16 << OccupancyLimiter::SharedMemory;
    // 255 registers: 8192 per warp, 2 warps per sub-partition = 8 warps = 1 block of 8.
    QTest::newRow("sm_86: 255 registers")
        << "sm_86" << 255 << 0 << 1 << 0 << 256 << 0 << 1 << 8 << OccupancyLimiter::Registers;
}

void TestOccupancyMaths::kernelKnownAnswers() {
    QFETCH(QString, arch);
    QFETCH(int, registers);
    QFETCH(int, staticShared);
    QFETCH(int, barriers);
    QFETCH(int, kernelMaxThreads);
    QFETCH(int, blockThreads);
    QFETCH(int, dynamicShared);
    QFETCH(int, blocks);
    QFETCH(int, warps);
    QFETCH(OccupancyLimiter, limiter);
    const OccupancyLimits limits = OccupancyLimits::forArch(arch);
    const OccupancyKernel kernel{registers, staticShared, barriers, kernelMaxThreads};
    const Occupancy o = Occupancy::of(limits, kernel, blockThreads, dynamicShared);
    QCOMPARE(o.activeBlocksPerSm, blocks);
    QCOMPARE(o.activeWarpsPerSm, warps);
    QCOMPARE(o.occupancy, double(warps) / limits.maxWarpsPerSm);
    QCOMPARE(o.limiter, limiter);
}

void TestOccupancyMaths::deviceAttributesOverrideTables() {
    DeviceInfo d = OccupancyLimits::tableDevice(QStringLiteral("sm_90"));
    QCOMPARE(d.ccMajor, 9);
    // A driver that reports its own figures wins over the tables.
    d.maxBlocksPerSm = 24;
    d.reservedSharedPerBlockBytes = 0;
    const OccupancyLimits l = OccupancyLimits::forDevice(d);
    QCOMPARE(l.maxBlocksPerSm, 24);
    QCOMPARE(l.reservedSharedPerBlockBytes, 0);
    QCOMPARE(l.barriersPerSm, 48);
    // Without them (an older runner's JSON), the tables fill in.
    d.maxBlocksPerSm = 0;
    d.reservedSharedPerBlockBytes = -1;
    QCOMPARE(OccupancyLimits::forDevice(d).maxBlocksPerSm, 32);
    QCOMPARE(OccupancyLimits::forDevice(d).reservedSharedPerBlockBytes, 1024);
    QCOMPARE(OccupancyLimits::forDevice(d).arch, QStringLiteral("sm_90"));
}

void TestOccupancyMaths::deviceInfoJsonRoundTrip() {
    DeviceInfo d = OccupancyLimits::tableDevice(QStringLiteral("sm_86"));
    d.name = QStringLiteral("NVIDIA GeForce RTX 3080");
    QString error;
    const std::optional<DeviceInfo> back = DeviceInfo::fromJson(d.toJson(), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->maxBlocksPerSm, 16);
    QCOMPARE(back->reservedSharedPerBlockBytes, 1024);
    QCOMPARE(back->registersPerSm, 65536);
    QCOMPARE(back->sharedMemPerSmBytes, 102400);
    QCOMPARE(back->sharedMemPerBlockOptinBytes, 101376);
    QCOMPARE(back->maxThreadsPerSm, 1536);
    // 0 bytes reserved is an answer, not "unknown".
    d.reservedSharedPerBlockBytes = 0;
    const std::optional<DeviceInfo> zero = DeviceInfo::fromJson(d.toJson(), &error);
    QVERIFY2(zero, qPrintable(error));
    QCOMPARE(zero->reservedSharedPerBlockBytes, 0);
    // A JSON from before the fields existed reads as unknown.
    QJsonObject old = d.toJson();
    old.remove(QStringLiteral("reservedSharedPerBlockBytes"));
    old.remove(QStringLiteral("maxBlocksPerSm"));
    const std::optional<DeviceInfo> older = DeviceInfo::fromJson(old, &error);
    QVERIFY2(older, qPrintable(error));
    QCOMPARE(older->reservedSharedPerBlockBytes, -1);
    QCOMPARE(older->maxBlocksPerSm, 0);
}

void TestOccupancyMaths::curvesOnH100() {
    const OccupancyLimits limits = OccupancyLimits::forArch(QStringLiteral("sm_90"));
    const OccupancyKernel kernel{32, 0, 1, 0};
    const OccupancyCurves c = OccupancyCurves::compute(limits, kernel, 256, 0);
    QCOMPARE(c.byBlockSize.size(), 32); // 32, 64, ..., 1024
    QCOMPARE(c.byBlockSize.first().x, 32);
    QCOMPARE(c.byBlockSize.last().x, 1024);
    QCOMPARE(c.byRegisters.size(), 255);
    QCOMPARE(c.byRegisters.first().x, 1);
    QCOMPARE(c.byRegisters.last().x, 255);
    // 0 to 227 KiB in 128-byte steps.
    QCOMPARE(c.byDynamicShared.size(), 232448 / 128 + 1);
    QCOMPARE(c.byDynamicShared.last().x, 232448);
    QCOMPARE(c.byDynamicShared.last().occupancy.activeBlocksPerSm, 1);

    // The launch: 8 blocks of 8 warps, a full SM; the curves agree with it at its x.
    QCOMPARE(c.current.activeWarpsPerSm, 64);
    QCOMPARE(c.currentX(OccupancyAxis::BlockSize), 256);
    QCOMPARE(c.byBlockSize[256 / 32 - 1].occupancy.activeWarpsPerSm, 64);
    QCOMPARE(c.byRegisters[32 - 1].occupancy.activeWarpsPerSm, 64);
    QCOMPARE(c.byDynamicShared.first().occupancy.activeWarpsPerSm, 64);
    // One warp per block: the 32-block limit halves it; 3 warps: 21 blocks = 63 warps.
    QCOMPARE(c.byBlockSize[0].occupancy.activeWarpsPerSm, 32);
    QCOMPARE(c.byBlockSize[0].occupancy.limiter, OccupancyLimiter::Blocks);
    QCOMPARE(c.byBlockSize[2].occupancy.activeWarpsPerSm, 63);
    // 64 registers at 256 threads: 32 warps, 4 blocks; 65 -> 2304 per warp, 7 per
    // sub-partition = 28 warps = 3 blocks (24 warps).
    QCOMPARE(c.byRegisters[64 - 1].occupancy.activeWarpsPerSm, 32);
    QCOMPARE(c.byRegisters[65 - 1].occupancy.activeWarpsPerSm, 24);
    QCOMPARE(c.byRegisters[65 - 1].occupancy.limiter, OccupancyLimiter::Registers);
    // Dynamic shared memory only lowers occupancy as it grows.
    for (int i = 1; i < c.byDynamicShared.size(); ++i)
        QVERIFY(c.byDynamicShared[i].occupancy.activeWarpsPerSm <=
                c.byDynamicShared[i - 1].occupancy.activeWarpsPerSm);

    // Steps: where the value changes; the best is 100 % first reached at 64 threads.
    const QVector<OccupancyPoint> steps = occupancySteps(c.byRegisters);
    QCOMPARE(steps.first().x, 1);
    for (int i = 1; i < steps.size(); ++i)
        QVERIFY(steps[i].occupancy.activeWarpsPerSm != steps[i - 1].occupancy.activeWarpsPerSm);
    QCOMPARE(occupancyBest(c.byBlockSize).x, 64);
    QCOMPARE(occupancyBest(c.byBlockSize).occupancy.occupancy, 1.0);

    const QJsonObject all = c.toJson(true);
    QCOMPARE(all.value("byDynamicShared").toArray().size(), c.byDynamicShared.size());
    QCOMPARE(all.value("arch").toString(), QStringLiteral("sm_90"));
    QCOMPARE(all.value("current").toObject().value("warpsPerSm").toInt(), 64);
    const QJsonObject keys = c.toJson(false);
    QCOMPARE(keys.value("byRegisters").toArray().size(), steps.size());
    QVERIFY(keys.value("explanation").toString().startsWith("Limited by warps"));
}

void TestOccupancyMaths::curvesFollowTheLaunch() {
    const OccupancyLimits limits = OccupancyLimits::forArch(QStringLiteral("sm_86"));
    // 8000 B static, launch bounds 512: the block curve shows no block past 512 threads; the
    // shared curve stops where static plus dynamic reach 99 KiB.
    const OccupancyKernel kernel{40, 8000, 1, 512};
    const OccupancyCurves c = OccupancyCurves::compute(limits, kernel, 128, 4096);
    QCOMPARE(c.byBlockSize.size(), 32);
    QCOMPARE(c.byBlockSize[512 / 32 - 1].occupancy.limiter != OccupancyLimiter::BlockSize, true);
    QCOMPARE(c.byBlockSize[544 / 32 - 1].occupancy.activeBlocksPerSm, 0);
    QCOMPARE(c.byBlockSize[544 / 32 - 1].occupancy.limiter, OccupancyLimiter::BlockSize);
    QVERIFY(c.byDynamicShared.last().x <= 101376 - 8000);
    QVERIFY(c.byDynamicShared.last().x + 128 > 101376 - 8000);
    QCOMPARE(c.currentX(OccupancyAxis::DynamicShared), 4096);
    QCOMPARE(c.currentX(OccupancyAxis::Registers), 40);
    // 8000 + 4096 + 1024 = 13120 B, 13184 in 128-byte units; 102400 / 13184 = 7 blocks of 4 warps =
    // 28 of 48.
    QCOMPARE(c.current.activeBlocksPerSm, 7);
    QCOMPARE(c.current.limiter, OccupancyLimiter::SharedMemory);
}

void TestOccupancyMaths::curvesWithoutLimitsAreEmpty() {
    const OccupancyCurves c = OccupancyCurves::compute(OccupancyLimits{}, {32, 0, 1, 0}, 256, 0);
    QVERIFY(c.isEmpty());
    QVERIFY(c.byRegisters.isEmpty());
    QCOMPARE(c.current.limiter, OccupancyLimiter::None);
}

void TestOccupancyMaths::explanations_data() {
    QTest::addColumn<QString>("arch");
    QTest::addColumn<int>("registers");
    QTest::addColumn<int>("barriers");
    QTest::addColumn<int>("blockThreads");
    QTest::addColumn<int>("dynamicShared");
    QTest::addColumn<QString>("expected");
    QTest::newRow("registers") << "sm_90" << 64 << 1 << 1024 << 0
                               << "Limited by registers: 64 per thread, 2,048 per warp as "
                                  "allocated (in units of 256); the SM's 65,536 registers hold "
                                  "32 warps. 1 block of 1024 threads, 32 of 64 warps: 50.0 %.";
    QTest::newRow("warps") << "sm_86" << 32 << 1 << 1024 << 0
                           << "Limited by warps: blocks of 32 warps fill the SM's 48 warp slots. "
                              "1 block of 1024 threads, 32 of 48 warps: 66.7 %.";
    QTest::newRow("blocks per SM")
        << "sm_86" << 16 << 1 << 32 << 0
        << "Limited by blocks per SM: an SM holds at most 16 blocks, so larger blocks would "
           "fill more of its 48 warp slots. 16 blocks of 32 threads, 16 of 48 warps: 33.3 %.";
    QTest::newRow("shared memory")
        << "sm_80" << 32 << 1 << 128 << 65536
        << "Limited by shared memory: 66,560 B per block (0 static + 65,536 dynamic + 1,024 "
           "reserved, in units of 128 B); the SM's 167,936 B hold 2 blocks. 2 blocks of 128 "
           "threads, 8 of 64 warps: 12.5 %.";
    QTest::newRow("barriers") << "sm_90" << 16 << 4 << 32 << 0
                              << "Limited by barriers: the kernel uses 4 block barriers and an SM "
                                 "has 64. 16 blocks of 32 threads, 16 of 64 warps: 25.0 %.";
    QTest::newRow("no block: too large") << "sm_90" << 32 << 1 << 2048 << 0
                                         << "No block fits: 2,048 threads exceed the device's "
                                            "limit of 1,024 per block.";
}

void TestOccupancyMaths::explanations() {
    QFETCH(QString, arch);
    QFETCH(int, registers);
    QFETCH(int, barriers);
    QFETCH(int, blockThreads);
    QFETCH(int, dynamicShared);
    QFETCH(QString, expected);
    const OccupancyLimits limits = OccupancyLimits::forArch(arch);
    const OccupancyKernel kernel{registers, 0, barriers, 0};
    const Occupancy o = Occupancy::of(limits, kernel, blockThreads, dynamicShared);
    QCOMPARE(occupancyExplanation(o, limits, kernel, blockThreads, dynamicShared), expected);
}

void TestOccupancyMaths::toolkitHeaderAgreesWithTheRules_data() {
    QTest::addColumn<QString>("arch");
    for (const char* arch : {"sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"})
        QTest::newRow(arch) << QString::fromLatin1(arch);
}

// Every architecture the tables know is computed by cuda_occupancy.h (fromToolkitHeader), and
// at every point of a grid of block sizes, registers, shared memory and barriers it gives the
// blocks and the limiter of KernelPad's own statement of the rules (used for architectures the
// header does not know): the two cannot drift apart unnoticed.
void TestOccupancyMaths::toolkitHeaderAgreesWithTheRules() {
    QFETCH(QString, arch);
    const OccupancyLimits limits = OccupancyLimits::forArch(arch);
    QVERIFY(limits.isComplete());
    OccupancyLimits byHand = limits;
    byHand.arch = QStringLiteral("sm_990"); // not an architecture the header knows
    int points = 0;
    for (int block = 32; block <= 1024; block += 32)
        for (int registers : {0, 16, 32, 40, 64, 96, 128, 168, 255})
            for (int shared : {0, 1000, 8192, 49152, 102400, 160000})
                for (int barriers : {0, 1, 4}) {
                    OccupancyKernel kernel;
                    kernel.registersPerThread = registers;
                    kernel.staticSharedBytes = shared;
                    kernel.barriers = barriers;
                    const Occupancy header = Occupancy::of(limits, kernel, block, 0);
                    const Occupancy hand = Occupancy::of(byHand, kernel, block, 0);
                    QVERIFY(!hand.fromToolkitHeader);
                    const QString where = QStringLiteral("%1 threads, %2 registers, %3 B, %4 "
                                                         "barriers: header %5 (%6), rules %7 (%8)")
                                              .arg(block)
                                              .arg(registers)
                                              .arg(shared)
                                              .arg(barriers)
                                              .arg(header.activeBlocksPerSm)
                                              .arg(occupancyLimiterName(header.limiter))
                                              .arg(hand.activeBlocksPerSm)
                                              .arg(occupancyLimiterName(hand.limiter));
                    QVERIFY2(header.activeBlocksPerSm == hand.activeBlocksPerSm &&
                                 header.limiter == hand.limiter,
                             qPrintable(where));
                    if (header.fromToolkitHeader)
                        ++points;
                }
    // Blocks that cannot launch at all (too many registers or bytes) are the rules' to name.
    QVERIFY2(points > 1000, qPrintable(QString::number(points)));
}

KERNELPAD_TEST_GUILESS_MAIN(TestOccupancyMaths)
} // namespace tst_occupancymaths
#include "tst_occupancymaths.moc"
