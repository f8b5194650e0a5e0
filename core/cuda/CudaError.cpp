#include "core/cuda/CudaError.h"

#include "core/cuda/DriverApi.h"

namespace kernelpad {

CudaError::CudaError(CUresult code, QString name, QString description, QString what)
    : std::runtime_error(
          QStringLiteral("%1 failed: %2 (%3)").arg(what, name, description).toStdString())
    , m_code(code)
    , m_name(std::move(name))
    , m_description(std::move(description))
    , m_what(std::move(what)) {}

QString CudaError::message() const {
    return QString::fromStdString(std::runtime_error::what());
}

bool CudaError::isStickyError(CUresult code) {
    switch (code) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_NVLINK_UNCORRECTABLE:
    case CUDA_ERROR_CONTAINED:
    case CUDA_ERROR_TENSOR_MEMORY_LEAK:
    case CUDA_ERROR_EXTERNAL_DEVICE:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
        return true;
    default:
        return false;
    }
}

void throwCudaError(CUresult result, const QString& what) {
    const char* name = nullptr;
    const char* description = nullptr;
    if (const DriverApi* api = DriverApi::load()) {
        api->cuGetErrorName(result, &name);
        api->cuGetErrorString(result, &description);
    }
    throw CudaError(
        result, name ? QString::fromUtf8(name) : QStringLiteral("CUresult %1").arg(int(result)),
        description ? QString::fromUtf8(description) : QStringLiteral("unknown error"), what);
}

QString formatBytes(qint64 bytes) {
    constexpr double kKiB = 1024.0;
    const double b = double(bytes);
    if (b >= kKiB * kKiB * kKiB)
        return QStringLiteral("%1 GiB").arg(b / (kKiB * kKiB * kKiB), 0, 'f', 2);
    if (b >= kKiB * kKiB)
        return QStringLiteral("%1 MiB").arg(b / (kKiB * kKiB), 0, 'f', 1);
    if (b >= kKiB)
        return QStringLiteral("%1 KiB").arg(b / kKiB, 0, 'f', 1);
    return QStringLiteral("%1 B").arg(bytes);
}

} // namespace kernelpad
