// DeviceCeiling's host side: the copy size rule, GB/s counting read + write, and the
// on-disk cache of measured ceilings (keyed by device and driver).

#include "../support/TestMain.h"
#include "TestPaths.h"
#include "core/run/DeviceCeiling.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

namespace tst_deviceceiling {

using namespace kernelpad;

class TestDeviceCeiling : public QObject {
    Q_OBJECT

private slots:
    void copyBytes_data() {
        QTest::addColumn<qint64>("freeBytes");
        QTest::addColumn<qint64>("expected");
        const qint64 MiB = qint64(1) << 20, GiB = qint64(1) << 30;
        QTest::newRow("80 GiB free: 1 GiB") << 80 * GiB << GiB;
        QTest::newRow("2 GiB free: a quarter") << 2 * GiB << 512 * MiB;
        QTest::newRow("odd size rounds down to 2 MiB") << (401 * MiB) << 100 * MiB;
        QTest::newRow("too little: none") << 40 * MiB << qint64(0);
    }

    void copyBytes() {
        QFETCH(qint64, freeBytes);
        QFETCH(qint64, expected);
        QCOMPARE(ceilingCopyBytes(freeBytes), expected);
    }

    void gbsCountsReadAndWrite() {
        // The H100's 3025 GB/s: 1 GiB each way in 0.71 ms.
        QVERIFY(qAbs(copyGBs(qint64(1) << 30, 0.71) - 3024.5) < 1.0);
        QCOMPARE(copyGBs(1000, 0), 0.0);
    }

    void cacheRoundTripKeepsOtherDevices() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("sub/device-ceilings.json"));
        DeviceInfo h100;
        h100.name = QStringLiteral("NVIDIA H100 80GB HBM3");
        h100.pciBusId = QStringLiteral("0000:01:00.0");
        h100.driverVersion = 13000;
        DeviceInfo other = h100;
        other.pciBusId = QStringLiteral("0000:02:00.0");
        QVERIFY(!readCachedCeiling(path, ceilingKey(h100)));

        CopyCeiling c;
        c.deviceName = h100.name;
        c.bytes = qint64(1) << 30;
        c.copies = 10;
        c.bestMs = 0.71;
        c.gbs = copyGBs(c.bytes, c.bestMs);
        QVERIFY(writeCachedCeiling(path, ceilingKey(h100), c));
        CopyCeiling d = c;
        d.gbs = 1000;
        QVERIFY(writeCachedCeiling(path, ceilingKey(other), d));

        const std::optional<CopyCeiling> back = readCachedCeiling(path, ceilingKey(h100));
        QVERIFY(back);
        QCOMPARE(back->gbs, c.gbs);
        QCOMPARE(back->bytes, c.bytes);
        QCOMPARE(readCachedCeiling(path, ceilingKey(other))->gbs, 1000.0);
        // A new driver is a new key: measured again, not trusted.
        DeviceInfo upgraded = h100;
        upgraded.driverVersion = 13010;
        QVERIFY(!readCachedCeiling(path, ceilingKey(upgraded)));
    }

    void corruptCacheIsIgnored_data() {
        QTest::addColumn<QByteArray>("contents");
        QTest::newRow("garbage") << QByteArray("not json");
        QTest::newRow("array") << QByteArray("[1,2]");
        QTest::newRow("zero ceiling") << QByteArray(R"({"k":{"gbs":0,"bytes":100}})");
    }

    void corruptCacheIsIgnored() {
        QFETCH(QByteArray, contents);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("device-ceilings.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(contents);
        f.close();
        QVERIFY(!readCachedCeiling(path, QStringLiteral("k")));
        CopyCeiling c;
        c.bytes = 1 << 30;
        c.gbs = 2000;
        QVERIFY(writeCachedCeiling(path, QStringLiteral("k"), c)); // and replaced when written
        QCOMPARE(readCachedCeiling(path, QStringLiteral("k"))->gbs, 2000.0);
    }

    void defaultPathFollowsTheCacheDirectory() {
        qputenv("KERNELPAD_CACHE_DIR", "/tmp/kp-ceiling-test");
        QCOMPARE(defaultCeilingPath(), QStringLiteral("/tmp/kp-ceiling-test/device-ceilings.json"));
        qputenv("KERNELPAD_CACHE_DIR", "off");
        QVERIFY(defaultCeilingPath().isEmpty());
        qunsetenv("KERNELPAD_CACHE_DIR");
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestDeviceCeiling)
} // namespace tst_deviceceiling
#include "tst_deviceceiling.moc"
