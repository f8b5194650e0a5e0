#pragma once
// The one error funnel: every CUresult goes through check().

#include <cuda.h>

#include <QString>

#include <stdexcept>

namespace kernelpad {

/// A failed driver call: the code, its name and description, and what was being done.
class CudaError : public std::runtime_error {
public:
    CudaError(CUresult code, QString name, QString description, QString what);

    [[nodiscard]] CUresult code() const { return m_code; }
    [[nodiscard]] const QString& name() const { return m_name; }
    [[nodiscard]] const QString& description() const { return m_description; }
    [[nodiscard]] const QString& context() const { return m_what; }
    /// "cuMemAlloc of 4 GiB for buffer 'x' failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"
    [[nodiscard]] QString message() const;
    /// Errors after which the CUDA context is unusable and the process must be replaced
    /// (CUDA Programming Guide, "Error checking": sticky errors; cuda.h marks each with "the
    /// process must be terminated and relaunched").
    [[nodiscard]] bool isSticky() const { return isStickyError(m_code); }
    [[nodiscard]] static bool isStickyError(CUresult code);

private:
    CUresult m_code;
    QString m_name;
    QString m_description;
    QString m_what;
};

/// There is no usable driver (no libcuda, or cuInit failed); KernelPad can only compile.
class DriverUnavailable : public std::runtime_error {
public:
    explicit DriverUnavailable(const QString& why)
        : std::runtime_error(why.toStdString()) {}
};

/// Throws the CudaError for a failed `result`; `what` says what was being done.
[[noreturn]] void throwCudaError(CUresult result, const QString& what);

/// Throws CudaError unless `result` is CUDA_SUCCESS. Inline and allocation-free on success:
/// it sits between the timing events of every launch, where host time becomes kernel time.
inline void check(CUresult result, const QString& what) {
    if (result != CUDA_SUCCESS)
        throwCudaError(result, what);
}
inline void check(CUresult result, const char* what) {
    if (result != CUDA_SUCCESS)
        throwCudaError(result, QString::fromUtf8(what));
}

/// "4.00 GiB", "12.5 MiB", "512 B": for messages.
[[nodiscard]] QString formatBytes(qint64 bytes);

} // namespace kernelpad
