// Streamed buffers on a GPU (Protocol.h): SAXPY with its x from a .npy file sent as frames
// verifies, and its output equals the file-path run's byte for byte; an output comes back
// whole through a relay that passes the runner's output on line by line, as srun does; a
// 256 MiB output stays on the runner, is verified there, and a range fetched from it holds the
// right values. Prints the time of fetching that whole output (MB/s) for bench/RESULTS.md.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/launch/Npy.h"
#include "core/runner/RunnerClient.h"

#include <QElapsedTimer>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <cstring>

namespace tst_gpustreambuffers {

using namespace kernelpad;

namespace {

RunResult runWith(RunnerClient& client, quint64 id, const RunRequest& r) {
    QSignalSpy finished(&client, &RunnerClient::runFinished);
    client.run(id, r);
    if (!finished.wait(240000)) {
        RunResult none;
        none.error = QStringLiteral("no result within 240 s");
        return none;
    }
    return finished.first().at(1).value<RunResult>();
}

/// Fetches a range and waits; the bytes, or the error in `error`.
QByteArray fetchWith(RunnerClient& client, quint64 id, quint64 run, const QString& buffer,
                     qint64 offset, qint64 bytes, QString* error) {
    QSignalSpy fetched(&client, &RunnerClient::fetched);
    client.fetch(id, run, buffer, offset, bytes);
    if (!fetched.wait(240000)) {
        *error = QStringLiteral("no answer within 240 s");
        return {};
    }
    *error = fetched.first().at(2).toString();
    return fetched.first().at(1).toByteArray();
}

const OutputBuffer* findOutput(const RunResult& r, const QString& name) {
    for (const OutputBuffer& b : r.outputs)
        if (b.name == name)
            return &b;
    return nullptr;
}

/// SAXPY over n elements with x = iota and y = 1, so out[i] = 2 * float(i) + 1 (doubling is
/// exact in float, so the host computes the GPU's value).
Project saxpyOver(qint64 n) {
    Project p = test::loadExample(QStringLiteral("saxpy.kpad"));
    p.arguments[1].buffer.init = InitSpec{};
    p.arguments[1].buffer.init.kind = InitSpec::Kind::Iota;
    p.arguments[2].buffer.init = InitSpec{};
    p.arguments[2].buffer.init.kind = InitSpec::Kind::Ones;
    p.arguments[4].value = QString::number(n);
    p.launch.grid = {int((n + 255) / 256), 1, 1};
    p.timing.warmupLaunches = 1;
    p.timing.repetitions = 3;
    return p;
}

float expectedOut(qint64 i) {
    return 2.0f * float(i) + 1.0f;
}

} // namespace

class TestGpuStreamBuffers : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        KERNELPAD_REQUIRE_DRIVER();
        qRegisterMetaType<kernelpad::RunResult>();
    }

    void streamedSaxpyEqualsTheFileRun() {
        // x comes from a .npy file in the project folder: streamed, the runner reads the copy
        // it was sent; with files, it reads the client's path.
        QTemporaryDir project;
        const qint64 n = qint64(1) << 20;
        NpyArray x;
        x.type = ValueType::of(ScalarType::Float32);
        x.shape = {n};
        x.data.resize(n * 4);
        for (qint64 i = 0; i < n; ++i) {
            const float v = float(i % 1000) * 0.25f - 7.0f;
            std::memcpy(x.data.data() + i * 4, &v, 4);
        }
        QString error;
        QVERIFY(QDir(project.path()).mkpath(QStringLiteral("data")));
        QVERIFY2(writeNpy(project.filePath("data/x.npy"), x, &error), qPrintable(error));
        RunRequest r;
        r.project = test::loadExample(QStringLiteral("saxpy.kpad"));
        r.project.arguments[1].buffer.init = InitSpec{};
        r.project.arguments[1].buffer.init.kind = InitSpec::Kind::File;
        r.project.arguments[1].buffer.init.path = QStringLiteral("data/x.npy");
        r.project.arguments[2].buffer.init = InitSpec{};
        r.project.arguments[2].buffer.init.kind = InitSpec::Kind::Ones;
        r.project.arguments[4].value = QString::number(n);
        r.project.launch.grid = {int(n / 256), 1, 1};
        r.project.timing.repetitions = 5;
        r.projectDir = project.path();

        RunnerClient files;
        files.setStreamBuffers(false);
        const RunResult viaFiles = runWith(files, 1, r);
        QVERIFY2(viaFiles.status == RunStatus::Ok && viaFiles.verified(),
                 qPrintable(viaFiles.error));

        RunnerClient streamed;
        streamed.setStreamBuffers(true);
        const RunResult viaFrames = runWith(streamed, 2, r);
        QVERIFY2(viaFrames.status == RunStatus::Ok && viaFrames.verified(),
                 qPrintable(viaFrames.error));
        const OutputBuffer* a = findOutput(viaFiles, QStringLiteral("out"));
        const OutputBuffer* b = findOutput(viaFrames, QStringLiteral("out"));
        QVERIFY(a && b);
        QVERIFY(!b->isKept());
        QCOMPARE(b->data.size(), qsizetype(n * 4));
        QVERIFY(a->data == b->data);
        // The .npy contents were used: out[i] = 2 * x[i] + 1 (y is ones).
        for (qint64 i : {qint64(3), qint64(999), n - 1}) {
            float xi = 0, outi = 0;
            std::memcpy(&xi, x.data.constData() + i * 4, 4);
            std::memcpy(&outi, b->data.constData() + i * 4, 4);
            QCOMPARE(outi, 2.0f * xi + 1.0f);
        }
        qInfo("streamed SAXPY over %lld elements equals the file run byte for byte", n);
    }

    void anOutputComesBackThroughALineBufferingRelay() {
        // srun without -u holds a task's unfinished last line until its next '\n': a relay
        // with GNU sed -u does the same. The output's last frame ends in bytes after the
        // data's last '\n' (out[4095] = 8191.0f); it arrives because an empty line follows
        // the frames (Protocol.h).
        if (QStandardPaths::findExecutable(QStringLiteral("sed")).isEmpty())
            QSKIP("sed is not installed (Debian: apt-get install sed)");
        QTemporaryDir dir;
        QFile relay(dir.filePath(QStringLiteral("relay.sh")));
        QVERIFY(relay.open(QIODevice::WriteOnly));
        relay.write("\"$1\" serve | LC_ALL=C sed -u ''\n");
        relay.close();
        const QString cli = qEnvironmentVariableIsSet("KERNELPAD_CLI")
                                ? qEnvironmentVariable("KERNELPAD_CLI")
                                : QStringLiteral(KERNELPAD_CLI_PATH);
        QString error;
        const std::optional<RunnerSpec> spec =
            RunnerSpec::parse(QStringLiteral("cmd:sh %1 %2").arg(relay.fileName(), cli), &error);
        QVERIFY2(spec, qPrintable(error));
        RunnerClient client;
        QVERIFY2(client.setSpec(*spec, &error), qPrintable(error));
        client.setStreamBuffers(true);
        const qint64 n = 4096;
        RunRequest r;
        r.project = saxpyOver(n);
        QSignalSpy finished(&client, &RunnerClient::runFinished);
        client.run(21, r);
        QVERIFY2(finished.wait(30000), "no result within 30 s: the last frame's bytes were held");
        const RunResult result = finished.first().at(1).value<RunResult>();
        QVERIFY2(result.status == RunStatus::Ok && result.verified(), qPrintable(result.error));
        const OutputBuffer* out = findOutput(result, QStringLiteral("out"));
        QVERIFY(out);
        QCOMPARE(out->data.size(), qsizetype(n * 4));
        QVERIFY(!out->data.endsWith('\n'));
        for (qint64 i : {qint64(0), n / 2, n - 1}) {
            float v = 0;
            std::memcpy(&v, out->data.constData() + i * 4, 4);
            QCOMPARE(v, expectedOut(i));
        }
    }

    void largeOutputStaysOnTheRunner() {
        const qint64 n = qint64(64) << 20; // 256 MiB of float
        RunRequest r;
        r.project = saxpyOver(n);
        RunnerClient client;
        client.setStreamBuffers(true);
        client.setKeepBeyondBytes(qint64(64) << 20);
        const RunResult result = runWith(client, 11, r);
        QVERIFY2(result.status == RunStatus::Ok, qPrintable(result.error));
        QVERIFY2(result.verified(), "verification on the runner failed");
        const OutputBuffer* out = findOutput(result, QStringLiteral("out"));
        QVERIFY(out);
        QVERIFY(out->isKept());
        QCOMPARE(out->keptRun, quint64(11));
        QVERIFY(out->data.isEmpty());
        QCOMPARE(out->sizeBytes(), n * 4);

        // A range in the middle holds the values.
        QString error;
        const qint64 first = n / 2 + 12345, count = 4096;
        const QByteArray range =
            fetchWith(client, 100, 11, QStringLiteral("out"), first * 4, count * 4, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(range.size(), qsizetype(count * 4));
        for (qint64 k = 0; k < count; ++k) {
            float v = 0;
            std::memcpy(&v, range.constData() + k * 4, 4);
            QCOMPARE(v, expectedOut(first + k));
        }
        // Past the end is refused naming the field.
        (void)fetchWith(client, 101, 11, QStringLiteral("out"), n * 4 - 4, 8, &error);
        QVERIFY2(error.contains("offset"), qPrintable(error));

        // The whole output, timed.
        QElapsedTimer clock;
        clock.start();
        const QByteArray whole =
            fetchWith(client, 102, 11, QStringLiteral("out"), 0, n * 4, &error);
        const double seconds = double(clock.nsecsElapsed()) / 1e9;
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(whole.size(), qsizetype(n * 4));
        for (qint64 i : {qint64(0), qint64(1), n / 3, n - 1}) {
            float v = 0;
            std::memcpy(&v, whole.constData() + i * 4, 4);
            QCOMPARE(v, expectedOut(i));
        }
        qInfo("fetched the whole 256 MiB output in %.3f s: %.0f MB/s", seconds,
              double(n * 4) / 1e6 / seconds);

        // The next run replaces what was kept: the client says so without asking the runner.
        const RunResult next = runWith(client, 12, r);
        QVERIFY2(next.status == RunStatus::Ok, qPrintable(next.error));
        (void)fetchWith(client, 103, 11, QStringLiteral("out"), 0, 4, &error);
        QVERIFY2(error.contains("is gone: a later run replaced it") &&
                     error.endsWith("run again to see it"),
                 qPrintable(error));
        // The new run's output is there.
        const QByteArray head = fetchWith(client, 104, 12, QStringLiteral("out"), 0, 8, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(head.size(), qsizetype(8));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestGpuStreamBuffers)
} // namespace tst_gpustreambuffers
#include "tst_gpustreambuffers.moc"
