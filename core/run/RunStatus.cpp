#include "core/run/RunStatus.h"

#include <array>
#include <utility>

namespace kernelpad {
namespace {

constexpr std::array<std::pair<RunStatus, const char*>, 8> kStatusNames{{
    {RunStatus::Ok, "ok"},
    {RunStatus::CompileError, "compile-error"},
    {RunStatus::VerificationFailed, "verification-failed"},
    {RunStatus::CudaError, "cuda-error"},
    {RunStatus::DriverUnavailable, "driver-unavailable"},
    {RunStatus::BadInput, "bad-input"},
    {RunStatus::Cancelled, "cancelled"},
    {RunStatus::Timeout, "timeout"},
}};

} // namespace

QString runStatusName(RunStatus s) {
    for (const auto& [status, name] : kStatusNames)
        if (status == s)
            return QString::fromLatin1(name);
    return QStringLiteral("unknown");
}

std::optional<RunStatus> runStatusFromName(const QString& name) {
    for (const auto& [status, text] : kStatusNames)
        if (name == QLatin1String(text))
            return status;
    return std::nullopt;
}

QStringList runStatusNames() {
    QStringList names;
    for (const auto& [status, name] : kStatusNames)
        names << QString::fromLatin1(name);
    return names;
}

} // namespace kernelpad
