// A compile that does not return is abandoned after the limit with a message, and an Engine
// with such a compile in flight is destroyed (the window quits) without waiting for it. A hook
// that blocks before nvrtcCompileProgram stands in for a hung NVRTC.

#include "../support/TestMain.h"
#include "core/compile/CompileWatchdog.h"
#include "core/compile/Program.h"
#include "core/engine/Engine.h"
#include "core/project/Project.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>

using namespace kernelpad;

namespace {

/// Far past what destroying an Engine takes, far below "for ever" (the hook never returns by
/// itself and the watchdog's limit is set to 600 s below).
constexpr qint64 kPromptQuitMs = 20'000;

/// A gate the hook waits at until the test opens it; shared, since the abandoned NVRTC thread
/// may still hold it after the test's function has returned.
struct Gate {
    std::mutex mutex;
    std::condition_variable opened;
    bool open = false;
    std::atomic_int entered{0};

    void wait() {
        ++entered;
        std::unique_lock lock(mutex);
        opened.wait(lock, [this] { return open; });
    }
    void release() {
        const std::lock_guard lock(mutex);
        open = true;
        opened.notify_all();
    }
};

} // namespace

class TestCompileWatchdog : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { qputenv("KERNELPAD_CACHE_DIR", "off"); }
    void cleanup();
    void limitComesFromTheEnvironment();
    void hungCompileIsAbandoned();
    void engineQuitsWithAHungCompile();

private:
    std::shared_ptr<Gate> m_gate;

    void blockCompiles() {
        m_gate = std::make_shared<Gate>();
        setBeforeNvrtcCompileHook([gate = m_gate] { gate->wait(); });
    }
};

void TestCompileWatchdog::cleanup() {
    setBeforeNvrtcCompileHook({});
    if (m_gate)
        m_gate->release(); // the abandoned thread finishes its compile and ends
    m_gate.reset();
    qunsetenv("KERNELPAD_COMPILE_TIMEOUT_S");
}

void TestCompileWatchdog::limitComesFromTheEnvironment() {
    QCOMPARE(compileTimeLimit(), kDefaultCompileTimeLimit);
    qputenv("KERNELPAD_COMPILE_TIMEOUT_S", "7");
    QCOMPARE(compileTimeLimit(), std::chrono::seconds(7));
    qputenv("KERNELPAD_COMPILE_TIMEOUT_S", "-3");
    QCOMPARE(compileTimeLimit(), kDefaultCompileTimeLimit);
}

void TestCompileWatchdog::hungCompileIsAbandoned() {
    qputenv("KERNELPAD_COMPILE_TIMEOUT_S", "1");
    blockCompiles();
    const CompileResult result =
        Program(QStringLiteral("__global__ void k(float* x) { x[0] = 1; }\n"),
                QStringLiteral("hang.cu"), ProgramOptions{})
            .compile(QStringLiteral("sm_90"));
    QTRY_COMPARE_WITH_TIMEOUT(m_gate->entered.load(), 1, 60'000);
    QVERIFY(!result.ok);
    QVERIFY2(result.error.contains(QLatin1String("NVRTC did not finish within 1 s")),
             qPrintable(result.error));
    QCOMPARE(result.errorCount(), 1);
}

void TestCompileWatchdog::engineQuitsWithAHungCompile() {
    qputenv("KERNELPAD_COMPILE_TIMEOUT_S", "600");
    blockCompiles();
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Project project;
    project.source = QStringLiteral("__global__ void k(float* x) { x[0] = 1; }\n");
    project.sourceName = QStringLiteral("hang.cu");
    auto engine = std::make_unique<Engine>(nullptr, Engine::Isolation::InProcess);
    engine->compile(project, dir.path(), -1);
    QTRY_COMPARE_WITH_TIMEOUT(m_gate->entered.load(), 1, 60'000); // NVRTC is "hung" now
    QElapsedTimer timer;
    timer.start();
    engine.reset(); // the window quitting
    qInfo("the Engine was destroyed in %lld ms with the compile still hung", timer.elapsed());
    QVERIFY(timer.elapsed() < kPromptQuitMs);
}

KERNELPAD_TEST_GUILESS_MAIN(TestCompileWatchdog)
#include "tst_compilewatchdog.moc"
