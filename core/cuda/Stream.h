#pragma once
// A non-blocking stream and the events that time work on it.

#include <cuda.h>

#include <QString>

namespace kernelpad {

/// A non-blocking stream (CU_STREAM_NON_BLOCKING): never synchronises with stream 0.
class Stream {
public:
    Stream();
    ~Stream();
    Stream(Stream&& other) noexcept;
    Stream& operator=(Stream&& other) noexcept;
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;

    void synchronize(const QString& what = QStringLiteral("cuStreamSynchronize")) const;
    [[nodiscard]] CUstream handle() const { return m_stream; }

private:
    CUstream m_stream = nullptr;
};

/// A CUDA event with timing enabled.
class Event {
public:
    Event();
    ~Event();
    Event(Event&& other) noexcept;
    Event& operator=(Event&& other) noexcept;
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;

    void record(const Stream& stream);
    void synchronize() const;
    /// Milliseconds between `start` and this event (both recorded and complete).
    [[nodiscard]] float elapsedMsSince(const Event& start) const;
    [[nodiscard]] CUevent handle() const { return m_event; }

private:
    CUevent m_event = nullptr;
};

} // namespace kernelpad
