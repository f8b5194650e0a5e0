// Quitting: Ctrl+C, SIGTERM and SIGHUP end KernelPad without a question and keep unsaved edits
// in the recovery file; a quit never waits for a compile still inside NVRTC.

#include "../support/TestMain.h"
#include "TestPaths.h"
#include "core/io/QuitSignals.h"
#include "ui/ProjectDocument.h"
#include "ui/SignalQuit.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <csignal>

namespace tst_quitsignals {

using namespace kernelpad;

namespace {

// Instantiates about 40,000 class templates: NVRTC needs tens of seconds for it, so a quit
// signalled a few seconds after the window opened finds the compile still running.
const char* const kSlowKernel =
    "template <int L, int H> struct R {\n"
    "    static constexpr long v = R<L, (L + H) / 2>::v + R<(L + H) / 2, H>::v;\n"
    "};\n"
    "template <int L> struct R<L, L + 1> { static constexpr long v = L; };\n"
    "__global__ void slow(long* x) { x[threadIdx.x] = R<0, 20000>::v; }\n";
// Time for the window to open its project and start compiling it.
constexpr int kCompileStartsMs = 3000;
// The quit must come well before NVRTC could finish: the old exit waited up to 10 s for it.
constexpr int kQuitWithinMs = 4000;
constexpr int kProcessStartMs = 10000;

} // namespace

class TestQuitSignals : public QObject {
    Q_OBJECT

private slots:
    void aSignalReachesTheEventLoop();
    void unsavedEditsAreKeptAndEveryLoopEnds();
    void quitMidCompileDoesNotWaitForNvrtc();
    void theRunnerTakesSigtermAgain();
};

void TestQuitSignals::aSignalReachesTheEventLoop() {
    QVector<int> received;
    blockQuitSignals();
    {
        const QuitSignals handlers([&received](int signal) { received.append(signal); });
        QVERIFY(::raise(SIGTERM) == 0);
        QTRY_COMPARE(received.size(), 1);
        QCOMPARE(received.first(), SIGTERM);
        QVERIFY(::raise(SIGHUP) == 0);
        QTRY_COMPARE(received.size(), 2);
        QCOMPARE(received.last(), SIGHUP);
    }
    // Both were read, none is left pending to end the process once unblocked.
    unblockQuitSignals();
    sigset_t mask;
    QVERIFY(pthread_sigmask(SIG_SETMASK, nullptr, &mask) == 0);
    QVERIFY(!sigismember(&mask, SIGTERM));
}

void TestQuitSignals::unsavedEditsAreKeptAndEveryLoopEnds() {
    ProjectDocument document;
    document.setSource(QStringLiteral("__global__ void typed_but_not_saved() {}\n"));
    QVERIFY(document.isDirty());
    QVERIFY(!document.hasRecoveryFile());
    // A dialog's loop inside the window's: both end.
    QEventLoop outer;
    int innerCode = -1;
    QTimer::singleShot(0, [&] {
        QEventLoop inner;
        QTimer::singleShot(0, [&] { quitKeepingEdits(&document, SIGINT); });
        innerCode = inner.exec();
    });
    QCOMPARE(outer.exec(), kSignalExitBase + SIGINT);
    QCOMPARE(innerCode, kSignalExitBase + SIGINT);
    QVERIFY(document.hasRecoveryFile());
    QString error;
    const std::optional<RecoveryEntry> kept =
        ProjectDocument::readRecovery(document.recoveryPath(), &error);
    QVERIFY2(kept, qPrintable(error));
    QVERIFY(kept->project.source.contains(QStringLiteral("typed_but_not_saved")));
    document.removeRecovery();
}

void TestQuitSignals::quitMidCompileDoesNotWaitForNvrtc() {
    if (QByteArray(KERNELPAD_GUI_PATH).isEmpty())
        QSKIP("built without the window (KERNELPAD_GUI=OFF)");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString source = dir.filePath(QStringLiteral("slow.cu"));
    QFile file(source);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(kSlowKernel);
    file.close();
    QProcess window;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOME"), dir.path());
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.filePath(QStringLiteral("config")));
    env.insert(QStringLiteral("XDG_DATA_HOME"), dir.filePath(QStringLiteral("data")));
    env.insert(QStringLiteral("XDG_CACHE_HOME"), dir.filePath(QStringLiteral("cache")));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("KERNELPAD_COMPILE_TIMEOUT_S"), QStringLiteral("600"));
    window.setProcessEnvironment(env);
    window.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    window.start(QStringLiteral(KERNELPAD_GUI_PATH), {source});
    QVERIFY2(window.waitForStarted(kProcessStartMs), qPrintable(window.errorString()));
    QTest::qWait(kCompileStartsMs);
    QCOMPARE(window.state(), QProcess::Running);
    QElapsedTimer sinceSignal;
    sinceSignal.start();
    QVERIFY(::kill(pid_t(window.processId()), SIGTERM) == 0);
    const bool ended = window.waitForFinished(kQuitWithinMs);
    const qint64 tookMs = sinceSignal.elapsed();
    if (!ended) {
        window.kill();
        window.waitForFinished();
    }
    QVERIFY2(ended, qPrintable(QStringLiteral("KernelPad still ran %1 ms after SIGTERM, waiting "
                                              "for NVRTC")
                                   .arg(tookMs)));
    qInfo("quit %lld ms after SIGTERM, with NVRTC compiling", tookMs);
    QCOMPARE(window.exitStatus(), QProcess::NormalExit);
    QCOMPARE(window.exitCode(), kSignalExitBase + SIGTERM);
}

void TestQuitSignals::theRunnerTakesSigtermAgain() {
    // The window's mask is inherited by what it starts; its runner must still stop on SIGTERM
    // as a batch system or a user's `kill` expects.
    blockQuitSignals();
    QProcess runner;
    runner.start(QStringLiteral(KERNELPAD_CLI_PATH), {QStringLiteral("serve")});
    const bool started = runner.waitForStarted(kProcessStartMs);
    unblockQuitSignals();
    QVERIFY2(started, qPrintable(runner.errorString()));
    // The runner greets first: by then its main() has run.
    QVERIFY(runner.waitForReadyRead(kProcessStartMs));
    runner.terminate();
    const bool ended = runner.waitForFinished(kQuitWithinMs);
    if (!ended) {
        runner.kill();
        runner.waitForFinished();
    }
    QVERIFY2(ended, "kernelpad-cli serve ignored SIGTERM: the window's blocked mask reached it");
    QCOMPARE(runner.exitStatus(), QProcess::CrashExit);
}

KERNELPAD_TEST_MAIN(TestQuitSignals)
} // namespace tst_quitsignals
#include "tst_quitsignals.moc"
