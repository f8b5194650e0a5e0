// Compiled programs handed from one runner process to another (core/runner/Protocol.h,
// "program"; RunnerPool::handOver): real `kernelpad-cli serve` runners with the disk compile
// cache off, compiling for an arch named in the project, so no GPU is needed. A program taken
// from another runner is used without compiling; one for another arch, or damaged, is refused
// and the source compiled; a taken program never reaches the disk cache; a runner that holds
// none says so; and a runner answers a program request at once while it compiles something else.

#include "../support/TestMain.h"
#include "TestPaths.h"
#include "core/compile/DiskCompileCache.h"
#include "core/run/ExecutionSession.h"
#include "core/run/RunRequest.h"
#include "core/runner/RunnerClient.h"
#include "core/runner/RunnerPool.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <utility>

namespace tst_programhandover {

using namespace kernelpad;

namespace {

constexpr int kWaitMs = 120000;

/// A compile of a small kernel (marked with `mark`, so each case compiles its own) for `arch`.
RunRequest compileOf(const QString& mark, const QString& arch = QStringLiteral("sm_90")) {
    RunRequest r;
    r.project.sourceName = QStringLiteral("handover.cu");
    r.project.source = QStringLiteral("// %1\n__global__ void scale(float* x, float a, int n) {\n"
                                      "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                      "    if (i < n) x[i] *= a;\n}\n")
                           .arg(mark);
    r.project.kernel = QStringLiteral("scale");
    r.project.options.arch = arch;
    r.projectDir = QDir::tempPath();
    return r;
}

/// A runner process of this build, its compile cache in memory alone.
void useRealRunner(RunnerClient& client) {
    client.setCommand(QStringLiteral(KERNELPAD_CLI_PATH), {QStringLiteral("serve")});
}

/// The answer to compile request `id`.
CompileResult compiled(RunnerClient& client, quint64 id, const RunRequest& request,
                       const QByteArray& program = {}) {
    QSignalSpy spy(&client, &RunnerClient::compiled);
    client.requestCompile(id, request, program);
    while (spy.isEmpty() || spy.last().at(0).toULongLong() != id)
        if (!spy.wait(kWaitMs)) {
            CompileResult none;
            none.log = QStringLiteral("no answer");
            return none;
        }
    return spy.last().at(1).value<CompileResult>();
}

/// The answer to program request `id`: the bytes, or the runner's reason in `why`.
QByteArray programOf(RunnerClient& client, quint64 id, const RunRequest& request,
                     const QString& arch, QString* why) {
    QSignalSpy spy(&client, &RunnerClient::programReady);
    client.requestProgram(id, request, arch);
    if (!spy.wait(kWaitMs)) {
        *why = QStringLiteral("no answer");
        return {};
    }
    *why = spy.first().at(2).toString();
    return spy.first().at(1).toByteArray();
}

} // namespace

class TestProgramHandover : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        // Memory alone: a program the second runner did not compile can only come from the
        // first one, never from the disk.
        qputenv("KERNELPAD_CACHE_DIR", "off");
        qRegisterMetaType<kernelpad::CompileResult>();
    }

    void aProgramHandedOverIsTakenWithoutCompiling() {
        RunnerClient a, b;
        useRealRunner(a);
        useRealRunner(b);
        const RunRequest request = compileOf(QStringLiteral("taken"));
        const CompileResult first = compiled(a, 1, request);
        QVERIFY2(first.ok, qPrintable(first.log));
        QVERIFY(!first.cacheHit);
        QString why;
        const QByteArray program = programOf(a, 2, request, QStringLiteral("sm_90"), &why);
        QVERIFY2(!program.isEmpty(), qPrintable(why));
        QVERIFY(why.isEmpty());
        const CompileResult second = compiled(b, 3, request, program);
        QVERIFY2(second.ok, qPrintable(second.log));
        QVERIFY(second.cacheHit); // taken, not compiled
        QCOMPARE(second.kernels.size(), first.kernels.size());
        QCOMPARE(second.kernels.first().name, first.kernels.first().name);
        QCOMPARE(second.ptx, first.ptx);
        // Without the program the same runner would have compiled it: a fresh key misses.
        const CompileResult own = compiled(b, 4, compileOf(QStringLiteral("not handed")));
        QVERIFY2(own.ok && !own.cacheHit, qPrintable(own.log));
    }

    void aTakenProgramNeverReachesTheDiskCache() {
        // The disk cache holds what this computer's compiler made: a program taken from another
        // runner stays in the taker's memory, while its own compiles go to disk as ever.
        RunnerClient a;
        useRealRunner(a);
        const RunRequest request = compileOf(QStringLiteral("memory only"));
        QVERIFY(compiled(a, 1, request).ok); // a starts with the disk cache off
        QString why;
        const QByteArray program = programOf(a, 2, request, QStringLiteral("sm_90"), &why);
        QVERIFY2(!program.isEmpty(), qPrintable(why));
        QTemporaryDir disk;
        qputenv("KERNELPAD_CACHE_DIR", disk.path().toUtf8());
        RunnerClient b;
        useRealRunner(b);
        const CompileResult taken = compiled(b, 3, request, program); // b starts with it on
        qputenv("KERNELPAD_CACHE_DIR", "off");
        QVERIFY2(taken.ok && taken.cacheHit, qPrintable(taken.log));
        const DiskCompileCache folder(disk.path());
        const auto onDisk = [&folder](const RunRequest& r) {
            return QFile::exists(folder.entryPath(
                compileCacheKey(r.project, r.projectDir, QStringLiteral("sm_90"))));
        };
        QVERIFY(!onDisk(request));
        const RunRequest own = compileOf(QStringLiteral("b's own"));
        QVERIFY(compiled(b, 4, own).ok);
        QVERIFY(onDisk(own));
    }

    void aProgramOfAnotherCompileIsRefused_data() {
        QTest::addColumn<QString>("arch"); // the receiving runner's compile
        QTest::addColumn<bool>("damaged"); // a byte of the program flipped
        QTest::newRow("another arch") << QStringLiteral("sm_80") << false;
        QTest::newRow("damaged") << QStringLiteral("sm_90") << true;
    }
    void aProgramOfAnotherCompileIsRefused() {
        QFETCH(QString, arch);
        QFETCH(bool, damaged);
        RunnerClient a, b;
        useRealRunner(a);
        useRealRunner(b);
        const QString mark = QStringLiteral("refused %1 %2").arg(arch).arg(damaged);
        QVERIFY(compiled(a, 1, compileOf(mark)).ok);
        QString why;
        QByteArray program = programOf(a, 2, compileOf(mark), QStringLiteral("sm_90"), &why);
        QVERIFY2(!program.isEmpty(), qPrintable(why));
        if (damaged)
            program[program.size() - 1] = char(program.at(program.size() - 1) ^ 0x5a);
        const CompileResult result = compiled(b, 3, compileOf(mark, arch), program);
        QVERIFY2(result.ok, qPrintable(result.log)); // compiled there instead
        QVERIFY(!result.cacheHit);
    }

    void aRunnerWithoutTheProgramSaysSo() {
        RunnerClient a;
        useRealRunner(a);
        QVERIFY(compiled(a, 1, compileOf(QStringLiteral("held"))).ok);
        QString why;
        // Never compiled there, and held for sm_90 only.
        QVERIFY(programOf(a, 2, compileOf(QStringLiteral("never")), QStringLiteral("sm_90"), &why)
                    .isEmpty());
        QVERIFY2(
            why.contains(QStringLiteral("holds no compiled program of 'handover.cu' for sm_90")),
            qPrintable(why));
        QVERIFY(programOf(a, 3, compileOf(QStringLiteral("held")), QStringLiteral("sm_80"), &why)
                    .isEmpty());
        QVERIFY2(why.contains(QStringLiteral("for sm_80")), qPrintable(why));
    }

    void aProgramIsAnsweredWhileTheRunnerCompiles() {
        // The runner compiles requests one at a time; a program request does not wait for them.
        RunnerClient a;
        useRealRunner(a);
        const RunRequest held = compileOf(QStringLiteral("answered at once"));
        QVERIFY(compiled(a, 1, held).ok);
        RunRequest slow = compileOf(QStringLiteral("slow"));
        slow.project.source =
            QStringLiteral("#include <cub/block/block_reduce.cuh>\n") + slow.project.source;
        QStringList order;
        connect(&a, &RunnerClient::compiled, this,
                [&order](quint64 id) { order << QStringLiteral("compiled %1").arg(id); });
        connect(&a, &RunnerClient::programReady, this,
                [&order](quint64 id) { order << QStringLiteral("program %1").arg(id); });
        a.requestCompile(2, slow);
        a.requestProgram(3, held, QStringLiteral("sm_90"));
        QTRY_COMPARE_WITH_TIMEOUT(order.size(), 2, kWaitMs);
        QCOMPARE(order, (QStringList{"program 3", "compiled 2"}));
    }

    void aPoolHandsAProgramOver() {
        // RunnerPool::handOver: from a runner that holds it, taken; from one that does not (or
        // from none), compiled there.
        RunnerPool pool(QVector<int>{0, 0});
        pool.setCommand(QStringLiteral(KERNELPAD_CLI_PATH), {QStringLiteral("serve")});
        pool.warmUp();
        QSignalSpy handed(&pool, &RunnerPool::handedOver);
        const RunRequest request = compileOf(QStringLiteral("pool"));
        const auto wait = [&](quint64 id) -> std::pair<int, bool> {
            for (;;) {
                for (const QList<QVariant>& args : handed)
                    if (args.at(0).toULongLong() == id)
                        return {args.at(1).toInt(), args.at(2).toBool()};
                if (!handed.wait(kWaitMs))
                    return {-1, false};
            }
        };
        // No donor: runner 0 compiles it.
        QCOMPARE(wait(pool.handOver(-1, 0, request, QStringLiteral("sm_90"))),
                 (std::pair<int, bool>{0, false}));
        QCOMPARE(wait(pool.handOver(0, 1, request, QStringLiteral("sm_90"))),
                 (std::pair<int, bool>{1, true}));
        // Runner 1 holds it now, runner 0 holds no "other": compiled on 0.
        QCOMPARE(
            wait(pool.handOver(1, 0, compileOf(QStringLiteral("other")), QStringLiteral("sm_90"))),
            (std::pair<int, bool>{0, false}));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestProgramHandover)
} // namespace tst_programhandover
#include "tst_programhandover.moc"
