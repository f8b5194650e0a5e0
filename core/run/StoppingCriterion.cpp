#include "core/run/StoppingCriterion.h"

#include <QElapsedTimer>

#include <algorithm>
#include <cmath>

namespace kernelpad {
namespace {

constexpr double kCriterionMsPerSecond = 1000.0;

double monotonicSeconds() {
    // QElapsedTimer's reference clock is monotonic; whole milliseconds, as the budget is set.
    static QElapsedTimer reference = [] {
        QElapsedTimer t;
        t.start();
        return t;
    }();
    return double(reference.elapsed()) / kCriterionMsPerSecond;
}

} // namespace

NoiseCriterion::Settings NoiseCriterion::settingsOf(const TimingSpec& spec) {
    Settings s;
    s.minSamples = spec.repetitions;
    s.minGpuSeconds = spec.minTimeMs / kCriterionMsPerSecond;
    s.targetNoise = spec.targetNoise;
    s.maxSeconds = spec.maxTimeMs / kCriterionMsPerSecond;
    return s;
}

NoiseCriterion::NoiseCriterion(const Settings& settings, Clock clock)
    : m_settings(settings)
    , m_clock(clock ? std::move(clock) : Clock(monotonicSeconds)) {
    reset();
}

void NoiseCriterion::reset() {
    m_startSeconds = m_clock();
    m_count = m_sum = m_sumSquares = 0;
    m_reason.clear();
}

void NoiseCriterion::addSample(double seconds) {
    m_count += 1;
    m_sum += seconds;
    m_sumSquares += seconds * seconds;
}

double NoiseCriterion::relativeNoise() const {
    if (m_count < 2 || m_sum <= 0)
        return 1.0;
    const double mean = m_sum / m_count;
    const double variance = std::max(0.0, (m_sumSquares - m_count * mean * mean) / (m_count - 1));
    return std::sqrt(variance) / mean;
}

bool NoiseCriterion::isFinished() {
    if (m_count >= m_settings.minSamples && m_sum >= m_settings.minGpuSeconds &&
        relativeNoise() <= m_settings.targetNoise) {
        m_reason = QStringLiteral("noise target reached");
        return true;
    }
    if (m_count >= 1 && m_clock() - m_startSeconds >= m_settings.maxSeconds) {
        m_reason = QStringLiteral("time budget");
        return true;
    }
    return false;
}

int NoiseCriterion::expectedSamples(double secondsPerSample) const {
    // The time budget's worth of samples, at least the minimum and at most the cap.
    constexpr double kShortestSampleSeconds = 1e-6; // a launch is never quicker
    const double perSample = std::max(secondsPerSample, kShortestSampleSeconds);
    return std::clamp(int(std::min(m_settings.maxSeconds / perSample, double(kMaxAdaptiveSamples))),
                      m_settings.minSamples, std::max(m_settings.minSamples, kMaxAdaptiveSamples));
}

} // namespace kernelpad
