#include "core/run/ErrorText.h"

namespace kernelpad {

QString explainCudaError(const CudaError& e, const QString& kernelName) {
    const QString k = kernelName.isEmpty() ? QStringLiteral("the kernel")
                                           : QStringLiteral("the kernel '%1'").arg(kernelName);
    const QString code = e.name();
    const QString restart = QStringLiteral(
        " The GPU context cannot be used again in this process; the runner must be restarted. "
        "Your source is unchanged. Run with memory checking (compute-sanitizer) to find the line.");
    QString cause;
    switch (e.code()) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
        cause = QStringLiteral("%1 wrote to or read from an address outside any buffer").arg(k);
        break;
    case CUDA_ERROR_MISALIGNED_ADDRESS:
        cause = QStringLiteral("%1 accessed memory at an address not aligned to the access size")
                    .arg(k);
        break;
    case CUDA_ERROR_ASSERT:
        cause = QStringLiteral("a device-side assert() failed in %1").arg(k);
        break;
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
        cause = QStringLiteral("%1 executed an illegal instruction or __trap()").arg(k);
        break;
    case CUDA_ERROR_LAUNCH_TIMEOUT:
        cause = QStringLiteral("%1 ran longer than the display watchdog allows").arg(k);
        break;
    case CUDA_ERROR_LAUNCH_FAILED:
        cause = QStringLiteral("%1 failed while running").arg(k);
        break;
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
        return QStringLiteral(
                   "%1 could not be launched: it needs more registers or shared memory per "
                   "block than a multiprocessor has (%2). Use fewer threads per block, less "
                   "shared memory, or a lower max register count.")
            .arg(k, code);
    case CUDA_ERROR_OUT_OF_MEMORY:
        return QStringLiteral("The GPU ran out of memory while %1 (%2). Reduce the buffer sizes.")
            .arg(e.context(), code);
    case CUDA_ERROR_INVALID_VALUE:
        return QStringLiteral("The driver rejected a value while %1 (%2: %3). Check the launch "
                              "configuration and the argument table.")
            .arg(e.context(), code, e.description());
    default:
        if (!e.isSticky())
            return QStringLiteral("%1 failed: %2 (%3).").arg(e.context(), code, e.description());
        cause = QStringLiteral("%1 failed while running").arg(k);
        break;
    }
    return QStringLiteral("%1 (%2: %3).%4").arg(cause, code, e.description(), restart);
}

} // namespace kernelpad
