// Stopping a disassembly from another thread: SassJobs' tags (a newer request replaces the
// older), disassembleCubin() killing both nvdisasm processes when its flag is set (during the
// listing and during the life ranges), a cancelled report kept out of SassCache, and the Engine
// answering a replaced request as cancelled. nvdisasm is tests/support/StandInNvdisasm.h's.

#include "../support/StandInNvdisasm.h"
#include "../support/TestMain.h"
#include "../support/TestProjects.h"
#include "core/compile/SassCache.h"
#include "core/compile/SassJob.h"
#include "core/compile/SassReport.h"
#include "core/engine/Engine.h"

#include <QDateTime>
#include <QSignalSpy>
#include <QtTest>

#include <atomic>
#include <thread>

namespace tst_sassjob {

using namespace kernelpad;

namespace {

constexpr int kAnswerTimeoutMs = 60000;
using Slow = test::StandInNvdisasm::Process;

} // namespace

class TestSassJob : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void newerTagCancelsTheOlder();
    void cancelKillsBothProcesses_data();
    void cancelKillsBothProcesses();
    void cancelledReportIsNotCached();
    void engineAnswersAReplacedRequestAsCancelled();

private:
    [[nodiscard]] QVector<qint64> started() const { return m_nvdisasm.started(); }
    [[nodiscard]] QVector<qint64> ended() const { return m_nvdisasm.ended(); }
    static bool alive(qint64 pid) { return test::StandInNvdisasm::alive(pid); }
    void setSlow(Slow which, bool on) const { QVERIFY(m_nvdisasm.setSlow(which, on)); }

    test::StandInNvdisasm m_nvdisasm;
};

void TestSassJob::initTestCase() {
    QVERIFY(m_nvdisasm.install());
}

void TestSassJob::init() {
    m_nvdisasm.reset();
    SassCache::instance().clear();
}

void TestSassJob::newerTagCancelsTheOlder() {
    SassJobs jobs;
    jobs.add(1, QStringLiteral("sass"));
    jobs.add(2, QStringLiteral("other"));
    jobs.add(3, QString()); // untagged: only cancelAll() reaches it
    const SassJobs::Flag first = jobs.flag(1);
    QVERIFY(!first->load());
    jobs.add(4, QStringLiteral("sass"));
    QVERIFY(first->load());
    QVERIFY(!jobs.flag(2)->load());
    QVERIFY(!jobs.flag(3)->load());
    QVERIFY(!jobs.flag(4)->load());
    QCOMPARE(jobs.size(), 4); // the cancelled one is still answered, then finished
    QVERIFY(!jobs.cancel(QString()));
    QVERIFY(jobs.cancel(QStringLiteral("sass")));
    QVERIFY(jobs.flag(4)->load());
    QVERIFY(!jobs.cancel(QStringLiteral("sass"))); // nothing of that tag is left
    jobs.finish(1);
    jobs.finish(4);
    QCOMPARE(jobs.size(), 2);
    QVERIFY(!jobs.flag(99)->load()); // an unknown id still gets a flag
    jobs.cancelAll();
    QVERIFY(jobs.flag(2)->load());
    QVERIFY(jobs.flag(3)->load());
}

void TestSassJob::cancelKillsBothProcesses_data() {
    QTest::addColumn<bool>("duringListing");
    QTest::newRow("while the listing runs") << true;
    QTest::newRow("after the listing, while the life ranges run") << false;
}

void TestSassJob::cancelKillsBothProcesses() {
    QFETCH(bool, duringListing);
    setSlow(Slow::LifeRanges, true);
    if (duringListing)
        setSlow(Slow::Listing, true);
    std::atomic_bool cancel{false};
    SassOptions options;
    options.liveRanges = true;
    options.cancel = &cancel;
    int listedCount = 0;
    // After the listing: cancelled as soon as the text was handed out.
    options.listed = [&](const SassResult&) {
        ++listedCount;
        if (!duringListing)
            cancel = true;
    };
    // During the listing: cancelled from another thread once both processes have started.
    std::thread canceller([&] {
        if (!duringListing)
            return;
        for (int i = 0; i < kAnswerTimeoutMs / 10 && started().size() < 2; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        cancel = true;
    });
    const SassResult result = disassembleCubin(QByteArray("\x7f"
                                                          "ELF stand-in"),
                                               options);
    canceller.join();
    const QVector<qint64> pids = started();
    QCOMPARE(pids.size(), 2);
    QVERIFY2(result.cancelled, qPrintable(result.error));
    QVERIFY(!result.ok);
    QCOMPARE(result.error, sassCancelledMessage());
    QCOMPARE(listedCount, duringListing ? 0 : 1);
    // Killed, not waited for: the slow ones never reached their end.
    for (const qint64 pid : pids)
        QTRY_VERIFY2(!alive(pid), qPrintable(QStringLiteral("nvdisasm %1 still runs").arg(pid)));
    const QVector<qint64> done = ended();
    QCOMPARE(done.size(), duringListing ? 0 : 1);
}

void TestSassJob::cancelledReportIsNotCached() {
    CompileResult compile;
    compile.ok = true;
    compile.cubin = QByteArray("\x7f"
                               "ELF stand-in");
    compile.ptx = QStringLiteral("// no .loc\n");
    SassCache cache;
    std::atomic_bool cancel{true};
    const SassReport stopped =
        makeSassReport(compile, QStringLiteral("kernel.cu"), {}, &cache, &cancel);
    QVERIFY(stopped.sass.cancelled);
    QCOMPARE(stopped.sass.error, sassCancelledMessage());
    QCOMPARE(cache.size(), 0);
    QVERIFY(started().isEmpty()); // cancelled before it started: no process at all
    cancel = false;
    const SassReport done =
        makeSassReport(compile, QStringLiteral("kernel.cu"), {}, &cache, &cancel);
    QVERIFY2(done.sass.ok, qPrintable(done.sass.error));
    QVERIFY(!done.sass.cancelled);
    QCOMPARE(cache.size(), 1);
}

void TestSassJob::engineAnswersAReplacedRequestAsCancelled() {
    Engine engine(nullptr, Engine::Isolation::InProcess);
    QSignalSpy ready(&engine, &Engine::sassReady);
    Project project = test::fillProject(QStringLiteral(
        "extern \"C\" __global__ void saxpy(int n, float a, const float* x, float* y) {\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n) y[i] = a * x[i] + y[i];\n"
        "}\n"));
    project.kernel = QStringLiteral("saxpy");
    project.source +=
        QStringLiteral("__device__ int replaced%1;\n").arg(QDateTime::currentMSecsSinceEpoch());
    setSlow(Slow::Listing, true);
    setSlow(Slow::LifeRanges, true);
    const quint64 first =
        engine.disassemble(project, QString(), QStringLiteral("sm_90"), QStringLiteral("view"));
    QTRY_VERIFY_WITH_TIMEOUT(started().size() == 2, kAnswerTimeoutMs);
    const QVector<qint64> slow = started();
    setSlow(Slow::Listing, false);
    setSlow(Slow::LifeRanges, false);
    const quint64 second =
        engine.disassemble(project, QString(), QStringLiteral("sm_90"), QStringLiteral("view"));
    QTRY_VERIFY_WITH_TIMEOUT(ready.size() == 2, kAnswerTimeoutMs);
    QCOMPARE(ready.at(0).at(0).toULongLong(), first);
    const SassReport cancelled = ready.at(0).at(1).value<SassReport>();
    QVERIFY(cancelled.sass.cancelled);
    QCOMPARE(cancelled.sass.error, sassCancelledMessage());
    QCOMPARE(ready.at(1).at(0).toULongLong(), second);
    const SassReport report = ready.at(1).at(1).value<SassReport>();
    QVERIFY2(report.ok(), qPrintable(report.sass.error));
    for (const qint64 pid : slow) {
        QVERIFY(!ended().contains(pid));
        QTRY_VERIFY(!alive(pid));
    }
    // Both were answered: nothing of the tag is left to cancel.
    QVERIFY(!engine.cancelDisassembly(QStringLiteral("view")));
}

KERNELPAD_TEST_GUILESS_MAIN(TestSassJob)
} // namespace tst_sassjob
#include "tst_sassjob.moc"
