// Closing KernelPad while its runner holds a CUDA context (quitting took about 2 s
// after the window closed, waiting for the driver to tear the runner's context down).

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/engine/Engine.h"

#include <QElapsedTimer>
#include <QTest>

#include <memory>

namespace tst_gpuquit {

using namespace kernelpad;

namespace {
/// Closing returns at once: the runner is told to exit and nobody waits for its teardown.
constexpr qint64 kCloseWithoutWaitingMs = 500;
} // namespace

class TestGpuQuit : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { KERNELPAD_REQUIRE_DRIVER(); }

    void closingAfterARunDoesNotWaitForTheContext() {
        auto engine = std::make_unique<Engine>(nullptr, Engine::Isolation::Process);
        const RunResult first = test::runAndWait(*engine, test::loadExample("saxpy.kpad"));
        QVERIFY2(first.status == RunStatus::Ok, qPrintable(first.error));

        QElapsedTimer clock;
        clock.start();
        engine.reset(); // as the application closes: the GPU thread and its runner go
        const qint64 tookMs = clock.elapsed();
        qInfo("closing the engine took %lld ms", tookMs);
        QVERIFY2(tookMs < kCloseWithoutWaitingMs,
                 qPrintable(QStringLiteral("closing took %1 ms").arg(tookMs)));

        // A new runner works at once, while the old one's context may still be going away.
        Engine again(nullptr, Engine::Isolation::Process);
        const RunResult second = test::runAndWait(again, test::loadExample("saxpy.kpad"));
        QVERIFY2(second.status == RunStatus::Ok, qPrintable(second.error));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestGpuQuit)
} // namespace tst_gpuquit
#include "tst_gpuquit.moc"
