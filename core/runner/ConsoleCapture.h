#pragma once
// The runner's stdout, taken away from the protocol: device printf is flushed by the driver to
// fd 1 at each synchronisation, so fd 1 becomes a pipe drained into a bounded buffer, and the
// protocol keeps a private copy of the original descriptor (a kernel printing
// protocol-shaped lines could otherwise forge a passing result).

#include "core/run/RunTypes.h"

#include <QString>

#include <memory>
#include <mutex>
#include <thread>

namespace kernelpad {

/// Owns the redirection of fd 1 for the life of the object; one per process.
class ConsoleCapture {
public:
    /// Redirects fd 1. Nothing (and `*error`) when a descriptor or the thread cannot be made.
    static std::unique_ptr<ConsoleCapture> start(qint64 keepBytes, QString* error);
    ConsoleCapture(const ConsoleCapture&) = delete;
    ConsoleCapture& operator=(const ConsoleCapture&) = delete;
    /// Puts the original stdout back on fd 1 and stops the drain thread.
    ~ConsoleCapture();

    /// The original stdout, now private to the protocol (close-on-exec).
    [[nodiscard]] int protocolFd() const { return m_protocolFd; }
    /// Everything printed since the last take(): stdio is flushed and the pipe drained first,
    /// so output written before this call is included.
    [[nodiscard]] ConsoleOutput take();

private:
    ConsoleCapture() = default;
    void drainLocked();
    void loop();

    int m_protocolFd = -1;
    int m_savedStdout = -1; ///< restored on destruction
    int m_readFd = -1;
    int m_stopPipe[2] = {-1, -1};
    qint64 m_keepBytes = 0;
    std::mutex m_mutex; // guards m_kept, m_totalBytes and reads of m_readFd
    QByteArray m_kept;
    qint64 m_totalBytes = 0;
    std::thread m_thread;
};

} // namespace kernelpad
