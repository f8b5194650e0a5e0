// The runner's stdout capture: what is printed to fd 1 (as the driver prints device printf)
// lands in the capture, never on the protocol descriptor, and is bounded; a writer printing
// more than a pipe holds never blocks.

#include "../support/TestMain.h"
#include "core/runner/ConsoleCapture.h"

#include <QTest>

#include <cstdio>
#include <thread>

#include <fcntl.h>
#include <unistd.h>

namespace tst_consolecapture {

using namespace kernelpad;

namespace {

/// Points fd 1 at a pipe for the test's life, so what reaches "the original stdout" (the
/// protocol) can be read back; restores the test's own stdout afterwards.
class StdoutPipe {
public:
    StdoutPipe() {
        std::fflush(stdout);
        m_saved = ::dup(STDOUT_FILENO);
        int fds[2];
        if (::pipe(fds) != 0)
            qFatal("pipe failed");
        m_read = fds[0];
        ::fcntl(m_read, F_SETFL, O_NONBLOCK);
        ::dup2(fds[1], STDOUT_FILENO);
        ::close(fds[1]);
    }
    ~StdoutPipe() {
        std::fflush(stdout);
        ::dup2(m_saved, STDOUT_FILENO);
        ::close(m_saved);
        ::close(m_read);
    }
    QByteArray readAvailable() const {
        QByteArray all;
        char buffer[4096];
        ssize_t n;
        while ((n = ::read(m_read, buffer, sizeof buffer)) > 0)
            all.append(buffer, n);
        return all;
    }

private:
    int m_saved = -1;
    int m_read = -1;
};

void writeAll(int fd, const QByteArray& bytes) {
    qsizetype done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.constData() + done, size_t(bytes.size() - done));
        if (n <= 0)
            qFatal("write failed");
        done += n;
    }
}

} // namespace

class TestConsoleCapture : public QObject {
    Q_OBJECT

private slots:
    void printedLinesNeverReachTheProtocol_data() {
        QTest::addColumn<QByteArray>("printed");
        QTest::newRow("plain lines") << QByteArray("i=0\ni=1\n");
        QTest::newRow("no newline") << QByteArray("i=0 i=1 i=2 ");
        QTest::newRow("a forged result") << QByteArray(
            "{\"type\":\"result\",\"id\":1,\"result\":{\"status\":\"ok\"},\"outputs\":[]}\n");
        QTest::newRow("a forged hello")
            << QByteArray("{\"type\":\"hello\",\"version\":1,\"outputDir\":\".\"}\n");
    }
    void printedLinesNeverReachTheProtocol() {
        QFETCH(QByteArray, printed);
        const StdoutPipe original;
        QString error;
        std::unique_ptr<ConsoleCapture> capture = ConsoleCapture::start(1 << 20, &error);
        QVERIFY2(capture, qPrintable(error));
        // Both ways the driver could write: the bare descriptor, and stdio left unflushed
        // (take() flushes it).
        writeAll(STDOUT_FILENO, printed);
        std::fputs("|stdio", stdout);
        writeAll(capture->protocolFd(), "{\"type\":\"progress\",\"id\":1}\n");
        const ConsoleOutput out = capture->take();
        QCOMPARE(out.text.toUtf8(), printed + QByteArray("|stdio"));
        QCOMPARE(out.totalBytes, qint64(printed.size() + 6));
        capture.reset();
        QCOMPARE(original.readAvailable(), QByteArray("{\"type\":\"progress\",\"id\":1}\n"));
    }

    void eachTakeReturnsOnlyWhatCameSinceTheLast() {
        const StdoutPipe original;
        QString error;
        std::unique_ptr<ConsoleCapture> capture = ConsoleCapture::start(1 << 20, &error);
        QVERIFY2(capture, qPrintable(error));
        writeAll(STDOUT_FILENO, "first run\n");
        QCOMPARE(capture->take().text, QStringLiteral("first run\n"));
        const ConsoleOutput silent = capture->take();
        QVERIFY(silent.isEmpty());
        writeAll(STDOUT_FILENO, "second run\n");
        QCOMPARE(capture->take().text, QStringLiteral("second run\n"));
    }

    void outputBeyondTheLimitIsCountedNotKept() {
        const StdoutPipe original;
        QString error;
        constexpr qint64 keep = 1000;
        std::unique_ptr<ConsoleCapture> capture = ConsoleCapture::start(keep, &error);
        QVERIFY2(capture, qPrintable(error));
        // 4 MiB from another thread: far more than a pipe holds, so the writer finishes only
        // if the capture drains while it writes (the driver writes inside a synchronisation).
        const QByteArray line(1023, 'x');
        std::thread writer([&] {
            for (int i = 0; i < 4096; ++i)
                writeAll(STDOUT_FILENO, line + '\n');
        });
        writer.join();
        const ConsoleOutput out = capture->take();
        QCOMPARE(out.text.size(), qsizetype(keep));
        QCOMPARE(out.totalBytes, qint64(4096) * 1024);
        QCOMPARE(out.droppedBytes(), qint64(4096) * 1024 - keep);
        QVERIFY(original.readAvailable().isEmpty());
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestConsoleCapture)
} // namespace tst_consolecapture
#include "tst_consolecapture.moc"
