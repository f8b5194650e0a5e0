#include "core/run/RunStage.h"

#include <array>

namespace kernelpad {
namespace {

constexpr std::array kAllRunStages{
    RunStage::Compiling,        RunStage::Loading,         RunStage::MeasuringCeiling,
    RunStage::PreparingBuffers, RunStage::VerifyingLaunch, RunStage::Verifying,
    RunStage::WarmingUp,        RunStage::Timing,          RunStage::TimingPipeline,
    RunStage::Profiling,        RunStage::ReadingProfile,
};

} // namespace

QString toString(RunStage stage) {
    switch (stage) {
    case RunStage::Compiling:
        return QStringLiteral("compiling");
    case RunStage::Loading:
        return QStringLiteral("loading");
    case RunStage::MeasuringCeiling:
        return QStringLiteral("measuring the device's copy ceiling");
    case RunStage::PreparingBuffers:
        return QStringLiteral("preparing buffers");
    case RunStage::VerifyingLaunch:
        return QStringLiteral("verifying launch");
    case RunStage::Verifying:
        return QStringLiteral("verifying");
    case RunStage::WarmingUp:
        return QStringLiteral("warming up");
    case RunStage::Timing:
        return QStringLiteral("timing");
    case RunStage::TimingPipeline:
        return QStringLiteral("timing the pipeline");
    case RunStage::Profiling:
        return QStringLiteral("profiling under ncu");
    case RunStage::ReadingProfile:
        return QStringLiteral("reading the profile");
    }
    return {};
}

std::optional<RunStage> runStageFromString(const QString& text) {
    for (const RunStage stage : kAllRunStages)
        if (toString(stage) == text)
            return stage;
    return std::nullopt;
}

bool isKernelStage(RunStage stage) {
    switch (stage) {
    case RunStage::VerifyingLaunch:
    case RunStage::WarmingUp:
    case RunStage::Timing:
    case RunStage::TimingPipeline:
        return true;
    case RunStage::Compiling:
    case RunStage::Loading:
    case RunStage::MeasuringCeiling:
    case RunStage::PreparingBuffers:
    case RunStage::Verifying:
    case RunStage::Profiling: // the profiled run reports its own launches' stages
    case RunStage::ReadingProfile:
        return false;
    }
    return false;
}

} // namespace kernelpad
