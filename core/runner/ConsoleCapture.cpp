#include "core/runner/ConsoleCapture.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace kernelpad {
namespace {

/// A pipe holds 64 KiB on Linux; reading in such chunks empties it in one call.
constexpr size_t kReadChunkBytes = 64 * 1024;

void closeFd(int& fd) {
    if (fd >= 0)
        ::close(fd);
    fd = -1;
}

} // namespace

std::unique_ptr<ConsoleCapture> ConsoleCapture::start(qint64 keepBytes, QString* error) {
    std::unique_ptr<ConsoleCapture> c(new ConsoleCapture);
    c->m_keepBytes = keepBytes;
    const auto fail = [&](const char* what) {
        *error = QStringLiteral("cannot capture the kernel's output (%1): %2")
                     .arg(QLatin1String(what), QString::fromLocal8Bit(std::strerror(errno)));
        return nullptr;
    };
    std::fflush(stdout);
    // Two copies of the original stdout: one for the protocol, one to restore fd 1 later.
    c->m_protocolFd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    c->m_savedStdout = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (c->m_protocolFd < 0 || c->m_savedStdout < 0)
        return fail("dup");
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        return fail("pipe");
    c->m_readFd = fds[0];
    // The reading end never blocks: the drain thread and take() both read until EAGAIN.
    ::fcntl(c->m_readFd, F_SETFL, O_NONBLOCK);
    if (::pipe2(c->m_stopPipe, O_CLOEXEC) != 0) {
        ::close(fds[1]);
        return fail("pipe");
    }
    if (::dup2(fds[1], STDOUT_FILENO) < 0) {
        ::close(fds[1]);
        return fail("dup2");
    }
    ::close(fds[1]);
    c->m_thread = std::thread([raw = c.get()] { raw->loop(); });
    return c;
}

ConsoleCapture::~ConsoleCapture() {
    std::fflush(stdout);
    if (m_savedStdout >= 0)
        ::dup2(m_savedStdout, STDOUT_FILENO);
    if (m_thread.joinable()) {
        const char stop = 0;
        (void)!::write(m_stopPipe[1], &stop, 1);
        m_thread.join();
    }
    closeFd(m_savedStdout);
    closeFd(m_protocolFd);
    closeFd(m_readFd);
    closeFd(m_stopPipe[0]);
    closeFd(m_stopPipe[1]);
}

void ConsoleCapture::drainLocked() {
    char buffer[kReadChunkBytes];
    for (;;) {
        const ssize_t n = ::read(m_readFd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return; // EAGAIN: empty for now (the write end stays open while we live)
        m_totalBytes += n;
        const qint64 room = m_keepBytes - m_kept.size();
        if (room > 0)
            m_kept.append(buffer, qsizetype(std::min<qint64>(room, n)));
    }
}

void ConsoleCapture::loop() {
    // Drains continuously so that a kernel printing more than a pipe holds never blocks the
    // driver's write (it happens inside a synchronisation on the run's own thread).
    pollfd fds[2] = {{m_readFd, POLLIN, 0}, {m_stopPipe[0], POLLIN, 0}};
    for (;;) {
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        if (fds[1].revents != 0)
            return;
        std::lock_guard lock(m_mutex);
        drainLocked();
    }
}

ConsoleOutput ConsoleCapture::take() {
    std::fflush(stdout);
    std::lock_guard lock(m_mutex);
    // Whatever was written before the flush is in the pipe now; reading it here, under the
    // lock the drain thread reads under, leaves nothing of this run for the next one.
    drainLocked();
    ConsoleOutput out;
    out.text = QString::fromUtf8(m_kept);
    out.totalBytes = m_totalBytes;
    m_kept.clear();
    m_totalBytes = 0;
    return out;
}

} // namespace kernelpad
