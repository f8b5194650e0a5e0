#pragma once
// nvbench's blocking kernel: a one-thread kernel that spins on a host-mapped flag, so the
// samples queued behind it run back to back on the GPU once the host releases it.
//
// Without it, a kernel shorter than the host's enqueue time (a launch and two event
// records, 3-4 µs) starves: the GPU reaches each start event before the host has queued the
// launch after it, and the sample measures the host's enqueue rate as much as the kernel.

#include "core/compile/Program.h"
#include "core/cuda/Module.h"
#include "core/cuda/Stream.h"
#include "core/run/BlockingKernelSource.h"

#include <QString>

#include <memory>
#include <optional>

namespace kernelpad {

class CompileCache;

/// The program the blocking kernel is compiled from (the same for every arch; exposed so
/// that tests compile it without a GPU).
[[nodiscard]] Program blockingKernelProgram();

/// Blocks one stream at a time. Belongs to the CUDA context current when prepare() first
/// succeeds: destroy it before that context. Not thread-safe. Move-only.
class BlockingKernel {
public:
    /// After this long without release() the kernel gives up and lets the stream go on: a
    /// host that blocks while queueing (a full launch queue) cannot deadlock the stream.
    static constexpr qint64 kDefaultTimeoutNs = 1'000'000'000;

    explicit BlockingKernel(CompileCache* cache = nullptr);
    ~BlockingKernel();
    BlockingKernel(BlockingKernel&&) noexcept;
    BlockingKernel& operator=(BlockingKernel&&) noexcept;
    BlockingKernel(const BlockingKernel&) = delete;
    BlockingKernel& operator=(const BlockingKernel&) = delete;

    /// Compiles (through the cache) and loads the kernel for `arch` and allocates the flag
    /// once; false with the reason in `error` when the kernel does not compile. Driver
    /// failures throw CudaError.
    bool prepare(const QString& arch, QString* error);
    /// The kernel compiled for `arch` through `cache` (null: not kept), without loading it: a
    /// warm runner compiles it ahead so that its first run only loads it.
    [[nodiscard]] static CompileResult compileFor(CompileCache* cache, const QString& arch);

    /// Queues the kernel on `stream`; what is queued after it waits until release() or the
    /// timeout. Requires a successful prepare() and no block() still waiting.
    void block(const Stream& stream, qint64 timeoutNs = kDefaultTimeoutNs);
    /// Lets the blocked stream run. Harmless when nothing is blocked.
    void release();
    /// After the stream has passed the kernel: whether it gave up waiting (timed out).
    [[nodiscard]] bool timedOut() const;

private:
    CompileCache* m_cache = nullptr; ///< borrowed; may be null
    QString m_arch;
    std::unique_ptr<Module> m_module;
    std::optional<Kernel> m_kernel;
    volatile int* m_host = nullptr; ///< pinned, mapped: [0] the flag, [1] timed out
    CUdeviceptr m_device = 0;       ///< the same two ints as the device sees them
    bool m_blocked = false;
};

/// Releases a BlockingKernel when the scope ends, also when a launch in between throws.
class BlockingScope {
public:
    BlockingScope(BlockingKernel* blocker, const Stream& stream)
        : m_blocker(blocker) {
        if (m_blocker)
            m_blocker->block(stream);
    }
    ~BlockingScope() {
        if (m_blocker)
            m_blocker->release();
    }
    BlockingScope(const BlockingScope&) = delete;
    BlockingScope& operator=(const BlockingScope&) = delete;

private:
    BlockingKernel* m_blocker;
};

} // namespace kernelpad
