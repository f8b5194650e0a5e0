#pragma once
// When a measurement has taken enough samples: a small interface, as nvbench's
// stopping_criterion (nvbench/stopping_criterion.cuh), with KernelPad's one rule behind it.
// The measurement (Measure.h) feeds it each kernel time after a chunk of samples has finished
// and asks it between chunks; a fixed count, Cancel and the run's time limit are the
// measurement's own limits, checked before it.

#include "core/project/TimingSpec.h"

#include <QString>

#include <functional>

namespace kernelpad {

/// Decides when a measurement has enough samples.
class StoppingCriterion {
public:
    virtual ~StoppingCriterion() = default;

    /// Forgets every sample: a new measurement starts now.
    virtual void reset() = 0;
    /// One kernel time, in seconds.
    virtual void addSample(double seconds) = 0;
    /// True once the samples so far are enough.
    [[nodiscard]] virtual bool isFinished() = 0;
    /// Why it finished ("noise target reached"); empty before.
    [[nodiscard]] virtual QString reason() const = 0;
    /// About how many samples it will want for kernels of `secondsPerSample` (progress bars).
    [[nodiscard]] virtual int expectedSamples(double secondsPerSample) const = 0;
};

/// nvbench's relative-noise rule (its "stdrel" criterion) with a time budget: after
/// `minSamples` samples and `minGpuSeconds` of kernel time, stop once the relative standard
/// deviation of all samples is at most `targetNoise`; stop anyway once `maxSeconds` have passed
/// since reset() with at least one sample. The measurement caps the count (kMaxAdaptiveSamples).
class NoiseCriterion final : public StoppingCriterion {
public:
    /// Seconds on a monotonic clock; tests pass their own.
    using Clock = std::function<double()>;

    struct Settings {
        int minSamples = 1;
        double minGpuSeconds = 0;
        double targetNoise = 0;
        double maxSeconds = 0;
    };
    /// The rule of an adaptive TimingSpec: `repetitions`, `minTimeMs`, `targetNoise`, `maxTimeMs`.
    [[nodiscard]] static Settings settingsOf(const TimingSpec& spec);

    explicit NoiseCriterion(const Settings& settings, Clock clock = {});

    void reset() override;
    void addSample(double seconds) override;
    [[nodiscard]] bool isFinished() override;
    [[nodiscard]] QString reason() const override { return m_reason; }
    [[nodiscard]] int expectedSamples(double secondsPerSample) const override;

    /// Relative standard deviation (n-1) of the samples so far; 1 before two samples.
    [[nodiscard]] double relativeNoise() const;

private:
    Settings m_settings;
    Clock m_clock;
    double m_startSeconds = 0;
    // Running sums: the rule looks at all samples after every chunk.
    double m_count = 0;
    double m_sum = 0;
    double m_sumSquares = 0;
    QString m_reason;
};

} // namespace kernelpad
