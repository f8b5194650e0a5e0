// A compile that does not return is abandoned after the limit with a message, and an Engine
// with such a compile in flight is destroyed (the window quits) without waiting for it. A hook
// that blocks before nvrtcCompileProgram stands in for a hung NVRTC.

#include "../support/TestMain.h"
#include "TestPaths.h"
#include "core/compile/CompileWatchdog.h"
#include "core/compile/Program.h"
#include "core/engine/Engine.h"
#include "core/project/Project.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <QProcess>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

namespace tst_compilewatchdog {

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

/// Starts a compile stand-in (work that waits at `gate`) under the watchdog on a thread of its
/// own, as a compile thread would, and returns once the work is running.
void startGatedCompile(const std::shared_ptr<Gate>& gate) {
    std::thread([gate] {
        QString why;
        (void)runWithinCompileLimit([gate] { gate->wait(); }, &why);
    }).detach();
    while (gate->entered.load() == 0)
        std::this_thread::yield();
}

/// The child process of exitEndsTheProcessWhenACompileHangs: exits with 5 while a compile hangs.
int exitWhileACompileHangs() {
    qputenv("KERNELPAD_COMPILE_TIMEOUT_S", "600");
    startGatedCompile(std::make_shared<Gate>()); // never opened
    std::printf("a compile hangs; exiting\n");   // buffered (a pipe): the exit must flush it
    // std::_Exit(5) inside; returning at all, with any code, is the failure.
    return exitCodeAfterCompiles(5, std::chrono::milliseconds(300)) == 5 ? 6 : 7;
}

} // namespace

class TestCompileWatchdog : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { qputenv("KERNELPAD_CACHE_DIR", "off"); }
    void cleanup();
    void limitComesFromTheEnvironment();
    void hungCompileIsAbandoned();
    void engineQuitsWithAHungCompile();
    void exitWaitsForACompileToFinish();
    void exitEndsTheProcessWhenACompileHangs();

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

void TestCompileWatchdog::exitWaitsForACompileToFinish() {
    auto gate = std::make_shared<Gate>();
    startGatedCompile(gate);
    std::thread opener([gate] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        gate->release();
    });
    // Returns the code once the compile has finished: far sooner than the grace.
    QCOMPARE(exitCodeAfterCompiles(3, std::chrono::minutes(2)), 3);
    opener.join();
    // Nothing is running now: no wait at all.
    QCOMPARE(exitCodeAfterCompiles(4, std::chrono::milliseconds(0)), 4);
}

void TestCompileWatchdog::exitEndsTheProcessWhenACompileHangs() {
    QProcess child;
    child.start(QCoreApplication::applicationFilePath(),
                {kptest::currentTestName(), QStringLiteral("exit-while-a-compile-hangs")});
    QVERIFY2(child.waitForFinished(60'000), qPrintable(child.errorString()));
    QCOMPARE(child.exitStatus(), QProcess::NormalExit);
    QCOMPARE(child.exitCode(), 5);
    QCOMPARE(child.readAllStandardOutput(), QByteArray("a compile hangs; exiting\n"));
}

static int runTest(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "exit-while-a-compile-hangs") == 0)
        return exitWhileACompileHangs();
    QCoreApplication app(argc, argv);
    TestCompileWatchdog test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

KERNELPAD_TEST_CUSTOM_MAIN(runTest)
} // namespace tst_compilewatchdog
#include "tst_compilewatchdog.moc"
