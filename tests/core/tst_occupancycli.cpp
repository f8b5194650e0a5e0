// `kernelpad-cli compile FILE.kpad --occupancy [--json]` end to end: the occupancy at the
// project's launch, the limiter in words and the curves' key points, from the compiled
// architecture's limits (no GPU needed).

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

namespace tst_occupancycli {

namespace {

struct CliResult {
    int exitCode = -1;
    QString out;
    QString err;
};

CliResult runCli(const QStringList& args) {
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("KERNELPAD_CACHE_DIR"), QStringLiteral("off"));
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(KERNELPAD_CLI_PATH), args);
    if (!process.waitForFinished(120'000))
        qFatal("kernelpad-cli did not finish");
    return {process.exitCode(), QString::fromUtf8(process.readAllStandardOutput()),
            QString::fromUtf8(process.readAllStandardError())};
}

const QString kExamples = QStringLiteral(KERNELPAD_EXAMPLES_DIR "/");

} // namespace

class TestOccupancyCli : public QObject {
    Q_OBJECT
private slots:
    void printsKeyPointsAndLimiter();
    void jsonHasTheCurves();
    void unknownKernelIsRefused();
};

void TestOccupancyCli::printsKeyPointsAndLimiter() {
    // reduction.kpad: block_sum with __launch_bounds__(256), 1 KiB of static shared memory,
    // launched in blocks of 256.
    const CliResult r =
        runCli({QStringLiteral("compile"), kExamples + "reduction.kpad", QStringLiteral("--arch"),
                QStringLiteral("sm_86"), QStringLiteral("--occupancy")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains(QStringLiteral("Occupancy of block_sum, from sm_86's limits, no "
                                           "device")),
             qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("1,024 B static shared memory")), qPrintable(r.out));
    // sm_86: 48 warps and 16 blocks per SM; blocks of 8 warps: 6 blocks fill the SM.
    QVERIFY2(r.out.contains(QStringLiteral("at the launch: 100.0 % (6 blocks, 48 of 48 warps "
                                           "per SM)")),
             qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("Limited by warps")), qPrintable(r.out));
    QVERIFY(r.out.contains(QStringLiteral("vs block size (threads) (launch at 256")));
    QVERIFY(r.out.contains(QStringLiteral("vs registers per thread")));
    QVERIFY(r.out.contains(QStringLiteral("vs dynamic shared memory (bytes)")));
    // Past the kernel's launch bounds no block launches: the step says so.
    QVERIFY2(r.out.contains(QStringLiteral("limited by block size")), qPrintable(r.out));
}

void TestOccupancyCli::jsonHasTheCurves() {
    const CliResult r =
        runCli({QStringLiteral("compile"), kExamples + "saxpy.kpad", QStringLiteral("--arch"),
                QStringLiteral("sm_90"), QStringLiteral("--occupancy"), QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(r.out.toUtf8(), &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    const QJsonObject o = doc.object().value(QStringLiteral("occupancy")).toObject();
    QCOMPARE(o.value(QStringLiteral("arch")).toString(), QStringLiteral("sm_90"));
    QCOMPARE(o.value(QStringLiteral("fromDevice")).toBool(), false);
    QCOMPARE(o.value(QStringLiteral("limits")).toObject().value("maxWarpsPerSm").toInt(), 64);
    QVERIFY(o.value(QStringLiteral("kernel")).toObject().value("registersPerThread").toInt() > 0);
    QVERIFY(!o.value(QStringLiteral("explanation")).toString().isEmpty());
    for (const char* curve : {"byBlockSize", "byRegisters", "byDynamicShared"}) {
        const QJsonArray points = o.value(QLatin1String(curve)).toArray();
        QVERIFY2(!points.isEmpty(), curve);
        // Key points only: each differs from the one before.
        for (int i = 1; i < points.size(); ++i)
            QVERIFY(points[i].toObject().value("warpsPerSm").toInt() !=
                    points[i - 1].toObject().value("warpsPerSm").toInt());
    }
    QCOMPARE(o.value(QStringLiteral("byBlockSize")).toArray().first().toObject().value("x").toInt(),
             32);
}

void TestOccupancyCli::unknownKernelIsRefused() {
    const CliResult r =
        runCli({QStringLiteral("compile"), kExamples + "saxpy.kpad", QStringLiteral("--kernel"),
                QStringLiteral("nosuch"), QStringLiteral("--occupancy")});
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains(QStringLiteral("nosuch")) || r.out.contains(QStringLiteral("nosuch")),
             qPrintable(r.out + r.err));
}

KERNELPAD_TEST_GUILESS_MAIN(TestOccupancyCli)
} // namespace tst_occupancycli
#include "tst_occupancycli.moc"
