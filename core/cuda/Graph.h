#pragma once
// CUDA graphs made by stream capture (CUDA Programming Guide, "CUDA Graphs", "Creating a
// Graph Using Stream Capture"): the work queued on a stream between begin and end becomes a
// graph, instantiated once and launched as one unit.

#include "core/cuda/Stream.h"

#include <cuda.h>

namespace kernelpad {

/// A captured graph (CUgraph); move-only, destroyed in the destructor.
class Graph {
public:
    Graph() = default;
    ~Graph();
    Graph(Graph&& other) noexcept;
    Graph& operator=(Graph&& other) noexcept;
    Graph(const Graph&) = delete;
    Graph& operator=(const Graph&) = delete;

    [[nodiscard]] CUgraph handle() const { return m_graph; }

private:
    friend class StreamCapture;
    explicit Graph(CUgraph graph)
        : m_graph(graph) {}
    CUgraph m_graph = nullptr;
};

/// An instantiated graph (CUgraphExec), launched on a stream; move-only.
class GraphExec {
public:
    /// cuGraphInstantiateWithFlags with no flags; throws CudaError.
    explicit GraphExec(const Graph& graph);
    ~GraphExec();
    GraphExec(GraphExec&& other) noexcept;
    GraphExec& operator=(GraphExec&& other) noexcept;
    GraphExec(const GraphExec&) = delete;
    GraphExec& operator=(const GraphExec&) = delete;

    /// Queues the whole graph on `stream` (cuGraphLaunch).
    void launch(const Stream& stream) const;
    [[nodiscard]] CUgraphExec handle() const { return m_exec; }

private:
    CUgraphExec m_exec = nullptr;
};

/// Captures the work queued on `stream` from construction to end(). Thread-local mode: this
/// thread may not make unsafe calls (a synchronize, an allocation) while it captures, other
/// threads are not affected. A capture left without end() (an exception while queuing) is
/// ended and its graph dropped, so the stream can be used again.
class StreamCapture {
public:
    explicit StreamCapture(const Stream& stream);
    ~StreamCapture();
    StreamCapture(const StreamCapture&) = delete;
    StreamCapture& operator=(const StreamCapture&) = delete;

    /// Ends the capture and returns what was queued; throws CudaError (a launch that failed
    /// while captured invalidates the capture: CUDA_ERROR_STREAM_CAPTURE_INVALIDATED).
    [[nodiscard]] Graph end();

private:
    CUstream m_stream = nullptr;
    bool m_capturing = false;
};

} // namespace kernelpad
