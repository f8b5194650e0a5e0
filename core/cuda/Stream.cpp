#include "core/cuda/Stream.h"

#include "core/cuda/CudaError.h"
#include "core/cuda/DriverApi.h"

#include <QDebug>

#include <utility>

namespace kernelpad {

Stream::Stream() {
    check(DriverApi::get().cuStreamCreate(&m_stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
}

Stream::~Stream() {
    if (!m_stream)
        return;
    if (const DriverApi* api = DriverApi::load())
        if (CUresult r = api->cuStreamDestroy(m_stream); r != CUDA_SUCCESS)
            qWarning("cuStreamDestroy failed: %d", int(r));
}

Stream::Stream(Stream&& other) noexcept
    : m_stream(std::exchange(other.m_stream, nullptr)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
    std::swap(m_stream, other.m_stream);
    return *this;
}

void Stream::synchronize(const QString& what) const {
    check(DriverApi::get().cuStreamSynchronize(m_stream), what);
}

Event::Event() {
    check(DriverApi::get().cuEventCreate(&m_event, CU_EVENT_DEFAULT), "cuEventCreate");
}

Event::~Event() {
    if (!m_event)
        return;
    if (const DriverApi* api = DriverApi::load())
        if (CUresult r = api->cuEventDestroy(m_event); r != CUDA_SUCCESS)
            qWarning("cuEventDestroy failed: %d", int(r));
}

Event::Event(Event&& other) noexcept
    : m_event(std::exchange(other.m_event, nullptr)) {}

Event& Event::operator=(Event&& other) noexcept {
    std::swap(m_event, other.m_event);
    return *this;
}

void Event::record(const Stream& stream) {
    check(DriverApi::get().cuEventRecord(m_event, stream.handle()), "cuEventRecord");
}

void Event::synchronize() const {
    check(DriverApi::get().cuEventSynchronize(m_event), "cuEventSynchronize");
}

float Event::elapsedMsSince(const Event& start) const {
    float ms = 0.f;
    check(DriverApi::get().cuEventElapsedTime(&ms, start.m_event, m_event), "cuEventElapsedTime");
    return ms;
}

} // namespace kernelpad
