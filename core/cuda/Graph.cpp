#include "core/cuda/Graph.h"

#include "core/cuda/CudaError.h"
#include "core/cuda/DriverApi.h"

#include <QDebug>

#include <utility>

namespace kernelpad {

Graph::~Graph() {
    if (!m_graph)
        return;
    if (const DriverApi* api = DriverApi::load())
        if (CUresult r = api->cuGraphDestroy(m_graph); r != CUDA_SUCCESS)
            qWarning("cuGraphDestroy failed: %d", int(r));
}

Graph::Graph(Graph&& other) noexcept
    : m_graph(std::exchange(other.m_graph, nullptr)) {}

Graph& Graph::operator=(Graph&& other) noexcept {
    std::swap(m_graph, other.m_graph);
    return *this;
}

GraphExec::GraphExec(const Graph& graph) {
    check(DriverApi::get().cuGraphInstantiateWithFlags(&m_exec, graph.handle(), 0),
          "cuGraphInstantiateWithFlags");
}

GraphExec::~GraphExec() {
    if (!m_exec)
        return;
    if (const DriverApi* api = DriverApi::load())
        if (CUresult r = api->cuGraphExecDestroy(m_exec); r != CUDA_SUCCESS)
            qWarning("cuGraphExecDestroy failed: %d", int(r));
}

GraphExec::GraphExec(GraphExec&& other) noexcept
    : m_exec(std::exchange(other.m_exec, nullptr)) {}

GraphExec& GraphExec::operator=(GraphExec&& other) noexcept {
    std::swap(m_exec, other.m_exec);
    return *this;
}

void GraphExec::launch(const Stream& stream) const {
    check(DriverApi::get().cuGraphLaunch(m_exec, stream.handle()), "cuGraphLaunch");
}

StreamCapture::StreamCapture(const Stream& stream)
    : m_stream(stream.handle()) {
    check(DriverApi::get().cuStreamBeginCapture(m_stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
          "cuStreamBeginCapture");
    m_capturing = true;
}

StreamCapture::~StreamCapture() {
    if (!m_capturing)
        return;
    const DriverApi* api = DriverApi::load();
    if (!api)
        return;
    CUgraph dropped = nullptr;
    if (CUresult r = api->cuStreamEndCapture(m_stream, &dropped); r != CUDA_SUCCESS)
        qWarning("cuStreamEndCapture failed: %d", int(r));
    if (dropped)
        (void)api->cuGraphDestroy(dropped);
}

Graph StreamCapture::end() {
    m_capturing = false;
    CUgraph graph = nullptr;
    check(DriverApi::get().cuStreamEndCapture(m_stream, &graph), "cuStreamEndCapture");
    return Graph(graph);
}

} // namespace kernelpad
