// Launch configurations checked against device and kernel limits.
#include "../support/TestMain.h"
#include "core/launch/LaunchValidation.h"

#include <QtTest>

namespace tst_launchvalidation {

using namespace kernelpad;

namespace {

LaunchConfig config(std::array<int, 3> grid, std::array<int, 3> block, int shared = 0) {
    LaunchConfig c;
    c.grid = grid;
    c.block = block;
    c.sharedMemBytes = shared;
    return c;
}

/// An H100 as the driver reports it, with a kernel whose registers allow 768 threads.
LaunchLimits h100Limits() {
    LaunchLimits limits = genericLaunchLimits();
    limits.maxSharedPerBlockOptinBytes = 227 * 1024;
    limits.kernelMaxThreadsPerBlock = 768;
    limits.kernelStaticSharedBytes = 4096;
    limits.kernelName = "k";
    return limits;
}

} // namespace

} // namespace tst_launchvalidation
Q_DECLARE_METATYPE(kernelpad::LaunchLimits)
namespace tst_launchvalidation {

class TestLaunchValidation : public QObject {
    Q_OBJECT
private slots:
    void genericLimits();
    void limitsForDevice();
    void validate_data();
    void validate();
    void unknownLimitsSkipChecks();
    void gridToCover_data();
    void gridToCover();
};

void TestLaunchValidation::genericLimits() {
    const LaunchLimits limits = genericLaunchLimits();
    QCOMPARE(limits.maxThreadsPerBlock, 1024);
    QCOMPARE(limits.maxBlockDim, (std::array<int, 3>{1024, 1024, 64}));
    QCOMPARE(limits.maxGridDim, (std::array<int, 3>{2147483647, 65535, 65535}));
    QCOMPARE(limits.maxSharedPerBlockBytes, 48 * 1024);
    QCOMPARE(limits.kernelMaxThreadsPerBlock, 0);
}

void TestLaunchValidation::limitsForDevice() {
    DeviceInfo d;
    d.maxThreadsPerBlock = 1024;
    d.maxBlockDim = {1024, 1024, 64};
    d.maxGridDim = {2147483647, 65535, 65535};
    d.sharedMemPerBlockBytes = 48 * 1024;
    d.sharedMemPerBlockOptinBytes = 227 * 1024;
    const LaunchLimits limits = LaunchLimits::forDevice(d);
    QCOMPARE(limits.maxThreadsPerBlock, 1024);
    QCOMPARE(limits.maxBlockDim, d.maxBlockDim);
    QCOMPARE(limits.maxGridDim, d.maxGridDim);
    QCOMPARE(limits.maxSharedPerBlockBytes, 48 * 1024);
    QCOMPARE(limits.maxSharedPerBlockOptinBytes, 227 * 1024);
    // The kernel's limits are not the device's to say.
    QCOMPARE(limits.kernelMaxThreadsPerBlock, 0);
    QVERIFY(limits.kernelName.isEmpty());
    // Opt-in shared memory is what lets a 100 KiB block through on this device.
    const LaunchConfig big = config({1, 1, 1}, {32, 1, 1}, 100 * 1024);
    QVERIFY(validateLaunch(big, genericLaunchLimits()).contains(QLatin1String("shared")));
    QCOMPARE(validateLaunch(big, limits), QString());
}

void TestLaunchValidation::validate_data() {
    QTest::addColumn<LaunchConfig>("config");
    QTest::addColumn<LaunchLimits>("limits");
    QTest::addColumn<QStringList>("expected"); // empty: valid; else fragments of the message
    const LaunchLimits generic = genericLaunchLimits();
    const LaunchLimits h100 = h100Limits();

    QTest::newRow("saxpy 4096 x 256")
        << config({4096, 1, 1}, {256, 1, 1}) << generic << QStringList();
    QTest::newRow("block of 1024 threads is allowed")
        << config({1, 1, 1}, {32, 32, 1}) << generic << QStringList();
    QTest::newRow("block of 2048 threads is refused")
        << config({1, 1, 1}, {32, 64, 1}) << generic
        << QStringList{"block: 2048 threads per block (32 x 64 x 1) exceed the device's limit "
                       "of 1024"};
    QTest::newRow("block.z above 64")
        << config({1, 1, 1}, {1, 1, 128}) << generic << QStringList{"block.z = 128", "limit of 64"};
    QTest::newRow("block.x above 1024") << config({1, 1, 1}, {2048, 1, 1}) << generic
                                        << QStringList{"block.x = 2048", "limit of 1024"};
    QTest::newRow("zero block dimension")
        << config({1, 1, 1}, {0, 1, 1}) << generic << QStringList{"block.x must be >= 1 (got 0)"};
    QTest::newRow("negative grid dimension")
        << config({1, -4, 1}, {32, 1, 1}) << generic << QStringList{"grid.y must be >= 1 (got -4)"};
    QTest::newRow("negative shared memory") << config({1, 1, 1}, {32, 1, 1}, -1) << generic
                                            << QStringList{"sharedMemBytes must be >= 0"};
    QTest::newRow("largest grid.x")
        << config({2147483647, 1, 1}, {1, 1, 1}) << generic << QStringList();
    QTest::newRow("grid.y above 65535") << config({1, 65536, 1}, {32, 1, 1}) << generic
                                        << QStringList{"grid.y = 65536", "limit of 65535"};
    QTest::newRow("grid.z above 65535")
        << config({1, 1, 70000}, {32, 1, 1}) << generic << QStringList{"grid.z = 70000"};
    QTest::newRow("kernel register limit")
        << config({1, 1, 1}, {1024, 1, 1}) << h100
        << QStringList{"1024 threads per block",
                       "the kernel 'k' allows at most 768 threads per block (its register use)"};
    QTest::newRow("768 threads fit the kernel")
        << config({1, 1, 1}, {768, 1, 1}) << h100 << QStringList();
    LaunchLimits bounded = generic;
    bounded.kernelName = "reduce";
    bounded.kernelMaxntid = {256, 1, 1};
    QTest::newRow("__launch_bounds__(256): 512 threads refused")
        << config({1, 1, 1}, {512, 1, 1}) << bounded
        << QStringList{"512 threads per block", "the kernel 'reduce' declares at most 256",
                       ".maxntid"};
    QTest::newRow("__launch_bounds__(256): 16 x 16 fits")
        << config({1, 1, 1}, {16, 16, 1}) << bounded << QStringList();
    LaunchLimits required = generic;
    required.kernelName = "tile";
    required.kernelReqntid = {32, 8, 1};
    QTest::newRow(".reqntid 32, 8: 256 x 1 refused")
        << config({1, 1, 1}, {256, 1, 1}) << required
        << QStringList{"the kernel 'tile' requires a block of exactly 32 x 8 x 1", ".reqntid"};
    QTest::newRow(".reqntid 32, 8: 32 x 8 fits")
        << config({1, 1, 1}, {32, 8, 1}) << required << QStringList();
    QTest::newRow("48 KiB fits the default")
        << config({1, 1, 1}, {32, 1, 1}, 48 * 1024) << generic << QStringList();
    QTest::newRow("above 48 KiB without a known opt-in limit")
        << config({1, 1, 1}, {32, 1, 1}, 48 * 1024 + 1) << generic
        << QStringList{"shared memory: 49153 bytes", "default limit of 48 KiB", "opt-in"};
    QTest::newRow("100 KiB with static fits H100 opt-in")
        << config({1, 1, 1}, {32, 1, 1}, 100 * 1024) << h100 << QStringList();
    QTest::newRow("dynamic plus static above opt-in")
        << config({1, 1, 1}, {32, 1, 1}, 227 * 1024) << h100
        << QStringList{"236544 bytes per block (232448 dynamic + 4096 static)",
                       "limit of 227 KiB per block, even with opt-in"};
}

void TestLaunchValidation::validate() {
    QFETCH(LaunchConfig, config);
    QFETCH(LaunchLimits, limits);
    QFETCH(QStringList, expected);
    const QString message = validateLaunch(config, limits);
    if (expected.isEmpty()) {
        QVERIFY2(message.isEmpty(), qPrintable(message));
        return;
    }
    for (const QString& fragment : expected)
        QVERIFY2(message.contains(fragment), qPrintable(message));
}

void TestLaunchValidation::unknownLimitsSkipChecks() {
    // All-zero limits (a device not queried yet) check only what is always wrong.
    const LaunchLimits unknown;
    QVERIFY(
        validateLaunch(config({1 << 30, 1 << 20, 1 << 20}, {4096, 4096, 4096}, 1 << 30), unknown)
            .isEmpty());
    QVERIFY(!validateLaunch(config({1, 1, 1}, {1, 0, 1}), unknown).isEmpty());
}

void TestLaunchValidation::gridToCover_data() {
    QTest::addColumn<qint64>("elements");
    QTest::addColumn<int>("blockX");
    QTest::addColumn<qint64>("grid");
    QTest::newRow("exact multiple") << qint64(1024) << 256 << qint64(4);
    QTest::newRow("one more") << qint64(1025) << 256 << qint64(5);
    QTest::newRow("fewer than a block") << qint64(3) << 256 << qint64(1);
    QTest::newRow("nothing to cover") << qint64(0) << 256 << qint64(0);
    QTest::newRow("near the qint64 limit")
        << std::numeric_limits<qint64>::max() << 2 << std::numeric_limits<qint64>::max() / 2 + 1;
    QTest::newRow("bad block") << qint64(100) << 0 << qint64(0);
}

void TestLaunchValidation::gridToCover() {
    QFETCH(qint64, elements);
    QFETCH(int, blockX);
    QFETCH(qint64, grid);
    QCOMPARE(kernelpad::gridToCover(elements, blockX), grid);
}

KERNELPAD_TEST_GUILESS_MAIN(TestLaunchValidation)
} // namespace tst_launchvalidation
#include "tst_launchvalidation.moc"
