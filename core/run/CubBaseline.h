#pragma once
// A CUB baseline (CubPlan) run on the run's own context and stream through the plugin
// (core/run/CubPlugin.h): the plugin's CUDA runtime takes the context current on the thread,
// the runner's primary context, so the call sees the kernel's buffers. Its temporary storage is
// allocated once here with the driver API, outside every timed call, and it writes copies of
// the kernel's outputs made with the same initial contents, never the kernel's own. Internal to
// core/run.

#include "core/cuda/DeviceBuffer.h"
#include "core/cuda/Stream.h"
#include "core/run/CubPlan.h"
#include "core/run/CubPlugin.h"
#include "core/run/RunBuffers.h"

#include <QByteArray>
#include <QString>

#include <memory>
#include <vector>

namespace kernelpad {

/// One CUB call ready to queue: its operands' addresses, temporary storage and output copies.
class CubBaseline {
public:
    /// The call ready on `stream`, or nullptr with the reason in `error`: the plugin not found
    /// (every place looked in), a size query the plugin refused.
    static std::unique_ptr<CubBaseline> create(const CubPlan& plan,
                                               const std::vector<RunBuffer>& buffers,
                                               const Stream& stream, QString* error);
    CubBaseline(const CubBaseline&) = delete;
    CubBaseline& operator=(const CubBaseline&) = delete;

    /// Queues one call; a failing status is kept (failure()) and later calls do nothing.
    void enqueue();
    /// Why a call failed ("cub::DeviceReduce (reduce sum of ...): ..."), empty while none.
    [[nodiscard]] const QString& failure() const { return m_failure; }
    /// The kernel's outputs against CUB's copies (waits for the stream).
    [[nodiscard]] BufferVerification check(const QVector<ArgumentSpec>& arguments) const;
    [[nodiscard]] const CubPlan& plan() const { return m_plan; }

private:
    CubBaseline(const CubPlan& plan, const Stream& stream, const CubPlugin* plugin);
    /// Calls the plugin: a size query when `temp` is 0.
    int call(CUdeviceptr temp, size_t* tempBytes) const;
    QByteArray download(const DeviceBuffer& buffer, qint64 bytes) const;

    CubPlan m_plan;
    const Stream& m_stream;
    const CubPlugin* m_plugin;
    CUdeviceptr m_in = 0, m_valuesIn = 0;
    const RunBuffer* m_kernelOut = nullptr;
    const RunBuffer* m_kernelValuesOut = nullptr;
    DeviceBuffer m_out, m_valuesOut; ///< CUB's outputs: copies of the kernel's
    DeviceBuffer m_temp;
    size_t m_tempBytes = 0;
    QString m_failure;
};

} // namespace kernelpad
