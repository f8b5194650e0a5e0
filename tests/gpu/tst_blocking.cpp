// The blocking kernel on a real GPU: it holds a stream until the host releases it, gives up
// after its timeout when nobody does, and the timing stage queues every chunk of samples
// behind it (hot and cold) without it ever timing out.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/compile/CompileCache.h"
#include "core/cuda/Context.h"
#include "core/cuda/Device.h"
#include "core/run/BlockingKernel.h"
#include "core/run/ExecutionSession.h"

#include <QElapsedTimer>
#include <QTest>
#include <QThread>

#include <memory>

namespace tst_blocking {

using namespace kernelpad;

namespace {

/// A kernel far shorter than the host's enqueue time: the case the blocking kernel is for.
Project oneElementProject() {
    Project p;
    p.name = QStringLiteral("one element");
    p.source = QStringLiteral(R"(extern "C" __global__ void one(float* out) { out[0] = 1.0f; })");
    p.kernel = QStringLiteral("one");
    ArgumentSpec out;
    out.name = QStringLiteral("out");
    out.kind = ArgumentSpec::Kind::Buffer;
    out.buffer.elementType = ValueType::of(ScalarType::Float32);
    out.buffer.count = QStringLiteral("1");
    out.buffer.direction = Direction::Out;
    p.arguments = {out};
    p.timing.adaptive = false;
    return p;
}

} // namespace

class TestBlocking : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<Context> m_context;
    std::unique_ptr<Stream> m_stream;
    std::unique_ptr<BlockingKernel> m_blocker;
    CompileCache m_cache;
    std::unique_ptr<ExecutionSession> m_session;
    std::atomic_bool m_cancel{false};

    [[nodiscard]] bool streamIdle() const {
        const CUresult r = DriverApi::get().cuStreamQuery(m_stream->handle());
        if (r != CUDA_SUCCESS && r != CUDA_ERROR_NOT_READY)
            qFatal("cuStreamQuery failed: %d", int(r));
        return r == CUDA_SUCCESS;
    }

    RunResult run(const Project& p, int reps) {
        RunRequest r;
        r.project = p;
        r.repetitions = reps;
        return m_session->run(r, m_cancel);
    }

private slots:
    void initTestCase() {
        KERNELPAD_REQUIRE_DRIVER();
        const Device device(0);
        m_context = std::make_unique<Context>(device);
        m_stream = std::make_unique<Stream>();
        m_blocker = std::make_unique<BlockingKernel>();
        QString error;
        QVERIFY2(m_blocker->prepare(device.info().arch(), &error), qPrintable(error));
    }

    void holdsTheStreamUntilReleased() {
        m_blocker->block(*m_stream);
        Event after;
        after.record(*m_stream);
        QThread::msleep(100);
        QVERIFY2(!streamIdle(), "the stream ran past the blocking kernel before release()");
        QElapsedTimer clock;
        clock.start();
        m_blocker->release();
        after.synchronize();
        qInfo("released: the stream drained %.3f ms later", double(clock.nsecsElapsed()) / 1e6);
        QVERIFY(streamIdle());
        QVERIFY(!m_blocker->timedOut());
    }

    void givesUpAfterItsTimeout() {
        constexpr qint64 kTimeoutNs = 200'000'000;
        QElapsedTimer clock;
        clock.start();
        m_blocker->block(*m_stream, kTimeoutNs);
        m_stream->synchronize(); // nobody releases it
        const double waitedMs = double(clock.nsecsElapsed()) / 1e6;
        qInfo("unreleased: the stream went on after %.1f ms", waitedMs);
        QVERIFY(m_blocker->timedOut());
        // It waited out its timeout (a loaded host can only make that longer), then let the
        // stream go on by itself: synchronize() returned with nobody releasing it.
        QVERIFY2(waitedMs >= 190, qPrintable(QString::number(waitedMs)));
        m_blocker->release(); // late: harmless

        // The next block starts clean.
        m_blocker->block(*m_stream);
        m_blocker->release();
        m_stream->synchronize();
        QVERIFY(!m_blocker->timedOut());
    }

    void timedSamplesAreQueuedBehindIt_data() {
        QTest::addColumn<bool>("cold");
        QTest::newRow("hot") << false;
        QTest::newRow("cold") << true;
    }
    void timedSamplesAreQueuedBehindIt() {
        QFETCH(bool, cold);
        if (!m_session)
            m_session = std::make_unique<ExecutionSession>(&m_cache);
        Project p = oneElementProject();
        p.timing.mode = cold ? TimingSpec::Mode::Cold : TimingSpec::Mode::Hot;
        // Many chunks of kMaxBlockedChunk: a launch queue that filled up behind the
        // blocking kernel would show as timeouts.
        constexpr int kReps = 3000;
        const RunResult blocked = run(p, kReps);
        QVERIFY2(blocked.status == RunStatus::Ok, qPrintable(blocked.error));
        QVERIFY(blocked.timing.blockingKernel);
        QCOMPARE(blocked.timing.blockingTimeouts, 0);
        QCOMPARE(blocked.timing.reps(), kReps);

        p.timing.blockingKernel = false;
        const RunResult free = run(p, kReps);
        QVERIFY2(free.status == RunStatus::Ok, qPrintable(free.error));
        QVERIFY(!free.timing.blockingKernel);
        QCOMPARE(free.timing.reps(), kReps);
        qInfo("1-element kernel, %s, %d samples: behind the blocking kernel median %.2f us "
              "(min %.2f, noise %.1f %%); launched as issued median %.2f us (min %.2f, noise %.1f "
              "%%)",
              cold ? "cold" : "hot", kReps, blocked.timing.medianMs * 1e3,
              blocked.timing.minMs * 1e3, blocked.timing.relNoise * 100, free.timing.medianMs * 1e3,
              free.timing.minMs * 1e3, free.timing.relNoise * 100);
    }

    void cleanupTestCase() {
        m_session.reset();
        m_blocker.reset();
        m_stream.reset();
        m_context.reset();
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestBlocking)
} // namespace tst_blocking
#include "tst_blocking.moc"
