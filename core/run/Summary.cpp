#include "core/run/Summary.h"

#include "core/cuda/CudaError.h"
#include "core/io/JsonValues.h"
#include "core/run/TelemetryClockLock.h"

#include <QJsonObject>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace kernelpad {
namespace {

constexpr double kMsPerSecond = 1e3;
constexpr double kGiga = 1e9; // GB/s and GFLOP/s: decimal, as bandwidth is quoted
constexpr double kMega = 1e6;
/// formatBytes() takes a qint64; anything at or past 2^63 bytes is shown in GiB directly.
constexpr double kLargestExactBytes = 9.2e18;
constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;

constexpr std::array<std::pair<SummaryHint, const char*>, 14> kHintNames{{
    {SummaryHint::Duration, "duration"},
    {SummaryHint::ByteRate, "byte_rate"},
    {SummaryHint::Bytes, "bytes"},
    {SummaryHint::Percent, "percent"},
    {SummaryHint::Count, "count"},
    {SummaryHint::Ratio, "ratio"},
    {SummaryHint::FlopRate, "flop_rate"},
    {SummaryHint::Frequency, "frequency"},
    {SummaryHint::Power, "power"},
    {SummaryHint::Energy, "energy"},
    {SummaryHint::Temperature, "temperature"},
    {SummaryHint::ByteEnergy, "byte_energy"},
    {SummaryHint::FlopEnergy, "flop_energy"},
    {SummaryHint::Text, "text"},
}};

/// Appends summaries, one line each in summarize().
class Builder {
public:
    Summary& add(const char* key, const char* name, const char* description, SummaryHint hint,
                 double value) {
        Summary s;
        s.key = QString::fromLatin1(key);
        s.name = QString::fromLatin1(name);
        s.description = QString::fromLatin1(description);
        s.hint = hint;
        s.value = value;
        s.group = m_group;
        m_out.push_back(std::move(s));
        return m_out.back();
    }
    /// Puts the entries added from now on under `group` (empty: none).
    void setGroup(QString group) { m_group = std::move(group); }
    Summary& addText(const char* key, const char* name, const char* description,
                     const QString& text) {
        Summary& s = add(key, name, description, SummaryHint::Text, std::nan(""));
        s.text = text;
        return s;
    }
    QVector<Summary> take() { return std::move(m_out); }

private:
    QVector<Summary> m_out;
    QString m_group;
};

/// Groups the entries added while it lives.
class GroupScope {
public:
    GroupScope(Builder& builder, QString group)
        : m_builder(builder) {
        m_builder.setGroup(std::move(group));
    }
    ~GroupScope() { m_builder.setGroup({}); }
    GroupScope(const GroupScope&) = delete;
    GroupScope& operator=(const GroupScope&) = delete;

private:
    Builder& m_builder;
};

Summary& withDecimals(Summary& s, int decimals) {
    s.decimals = decimals;
    return s;
}

Summary& asColumn(Summary& s) {
    s.column = true;
    return s;
}

double seconds(double ms) {
    return ms / kMsPerSecond;
}

/// A figure that is 0 when unknown, as NaN ("-") instead.
double knownOrNaN(double value) {
    return value > 0 ? value : std::nan("");
}

QString fixed(double value, int decimals) {
    return QString::number(value, 'f', decimals);
}

QString yesNo(bool b) {
    return b ? QStringLiteral("yes") : QStringLiteral("no");
}

/// Joules with three significant digits in the unit that keeps them above 1: "12.3 µJ".
QString formatEnergy(double joules) {
    constexpr std::array<std::pair<double, const char*>, 4> units{
        {{1.0, "J"}, {1e-3, "mJ"}, {1e-6, "µJ"}, {1e-9, "nJ"}}};
    for (const auto& [scale, symbol] : units)
        if (std::abs(joules) >= scale || scale == units.back().first) {
            const double v = joules / scale;
            const int decimals = std::abs(v) < 10 ? 2 : std::abs(v) < 100 ? 1 : 0;
            return fixed(v, decimals) + QLatin1Char(' ') + QString::fromUtf8(symbol);
        }
    return {};
}

/// What the GPU did while the samples ran (NVML), and the energy of the launches.
void addTelemetry(Builder& b, const TimingStats& timing) {
    using H = SummaryHint;
    const Telemetry& t = timing.telemetry;
    if (!t.available) {
        b.addText("telemetry", "telemetry", "clocks, power and temperature (NVML)",
                  QStringLiteral("no NVML"));
        return;
    }
    const ClockLock lock = t.clockLock();
    b.addText("clock.locked", "clocks locked",
              "whether the GPU's clocks were held fixed (KernelPad's lock or the "
              "applications-clocks reason NVML gave with every chunk)",
              lock == ClockLock::Locked      ? QStringLiteral("yes")
              : lock == ClockLock::NotLocked ? QStringLiteral("no")
                                             : QStringLiteral("unknown"));
    if (lock != ClockLock::Locked && t.smClockDefaultMHz > 0)
        b.addText("clock.lockCommand", "lock with", "the command that locks the clocks by hand",
                  lockClocksCommand(t.smClockDefaultMHz, t.memClockMaxMHz));
    if (!t.lockError.isEmpty())
        b.addText("clock.lockError", "lock refused", "why Device > Lock Clocks did not lock them",
                  t.lockError);
    b.add("clock.smSpread", "SM clock spread",
          "how far the SM clock moved across the chunks of samples, over its median", H::Percent,
          t.smClockSpread());
    QVector<double> power, celsius;
    for (const ChunkTelemetry& c : t.chunks) {
        if (c.powerMw > 0)
            power << c.powerMw / 1000.0;
        if (c.temperatureC > 0)
            celsius << c.temperatureC;
    }
    if (!power.isEmpty())
        b.add("power.max", "power", "highest power NVML read with a chunk of samples", H::Power,
              *std::max_element(power.begin(), power.end()));
    if (!celsius.isEmpty())
        b.add("temperature.max", "temperature", "highest GPU temperature read with a chunk",
              H::Temperature, *std::max_element(celsius.begin(), celsius.end()));
    b.addText("clock.events", "clock events", "NVML's clock-event reasons seen in any chunk",
              clockEventNames(t.reasonsSeen()).join(QStringLiteral(", ")));
    if (const QString why = t.instability(); !why.isEmpty())
        b.addText("timing.unstable", "unstable",
                  "why these samples should not be compared at 1 %: the SM clock moved more "
                  "than 2 % or the GPU throttled",
                  why);
    if (!t.energyMeasured()) {
        b.addText("energy.note", "energy", "why the run has no energy figure", t.energyNote());
        return;
    }
    const double joules = t.energyPerLaunchJ();
    b.add("energy.perLaunch", "energy per launch",
          "NVML's energy counter over the timed launches, divided by their number", H::Energy,
          joules);
    b.add("energy.power", "average power", "that energy over the timed interval", H::Power,
          t.averagePowerW());
    if (timing.bytesMoved > 0)
        b.add("energy.bytesPerJoule", "GB/J", "bytes moved per joule", H::ByteEnergy,
              double(timing.bytesMoved) / joules);
    if (timing.flopsPerLaunch > 0)
        b.add("energy.flopsPerJoule", "GFLOP/J", "FLOPs per joule", H::FlopEnergy,
              timing.flopsPerLaunch / joules);
}

/// A pipeline's entries: each step's median, the sequence, the graph
/// replay and what the graph saved. Keys are numbered by step ("pipeline.step1.median") so a
/// script finds a step without knowing its kernel.
void addPipeline(Builder& b, const PipelineTiming& p) {
    GroupScope scope(b, QStringLiteral("Pipeline"));
    using H = SummaryHint;
    for (int i = 0; i < p.steps.size(); ++i) {
        const StepTiming& step = p.steps[i];
        Summary& s = b.add("", "", "", H::Duration, seconds(step.stats.medianMs));
        s.key = QStringLiteral("pipeline.step%1.median").arg(i + 1);
        s.name = QStringLiteral("step %1: %2 x%3").arg(i + 1).arg(step.kernel).arg(step.repeat);
        s.description = QStringLiteral("median time of step %1 (%2, all %3 repetitions) within "
                                       "the sequence, between events around it")
                            .arg(i + 1)
                            .arg(step.kernel)
                            .arg(step.repeat);
    }
    b.add("pipeline.launches", "launches per pass", "kernel launches in one pass over the sequence",
          H::Count, double(p.launches));
    b.add("pipeline.stream", "sequence on the stream",
          "median time of one pass, each launch queued on the stream", H::Duration,
          seconds(p.sequence.medianMs));
    if (!p.graph)
        return;
    b.add("pipeline.graph", "sequence as a graph",
          "median time of one pass replayed as a CUDA graph (one cuGraphLaunch)", H::Duration,
          seconds(p.graphReplay.medianMs));
    b.add("pipeline.graphSaved", "time saved by the graph",
          "median stream time minus median graph time (negative: the graph was slower)",
          H::Duration, seconds(p.savedMs()));
    withDecimals(b.add("pipeline.graphSavedShare", "share saved by the graph",
                       "time saved over the median stream time", H::Percent,
                       p.sequence.medianMs > 0 ? p.savedMs() / p.sequence.medianMs : std::nan("")),
                 1);
    b.add("pipeline.graphInstantiate", "graph capture",
          "host time of capturing and instantiating the graph, paid once", H::Duration,
          seconds(p.graphInstantiateMs));
}

} // namespace

QString summaryHintName(SummaryHint hint) {
    for (const auto& [h, name] : kHintNames)
        if (h == hint)
            return QString::fromLatin1(name);
    return QStringLiteral("text");
}

DurationUnit durationUnitFor(double seconds) {
    // The thresholds on milliseconds, computed as formatDuration() computes its values, so
    // that the unit and the digits shown with it always agree.
    const double ms = seconds * kMsPerSecond;
    if (ms < 1e-3)
        return DurationUnit::Nanoseconds;
    if (ms < 1.0)
        return DurationUnit::Microseconds;
    if (ms < 1000.0)
        return DurationUnit::Milliseconds;
    return DurationUnit::Seconds;
}

QString durationUnitSymbol(DurationUnit unit) {
    switch (unit) {
    case DurationUnit::Nanoseconds:
        return QStringLiteral("ns");
    case DurationUnit::Microseconds:
        return QStringLiteral("µs");
    case DurationUnit::Milliseconds:
        return QStringLiteral("ms");
    case DurationUnit::Seconds:
        break;
    }
    return QStringLiteral("s");
}

double durationUnitSeconds(DurationUnit unit) {
    switch (unit) {
    case DurationUnit::Nanoseconds:
        return 1e-9;
    case DurationUnit::Microseconds:
        return 1e-6;
    case DurationUnit::Milliseconds:
        return 1e-3;
    case DurationUnit::Seconds:
        break;
    }
    return 1.0;
}

QString formatDuration(double seconds) {
    if (!std::isfinite(seconds))
        return QStringLiteral("-");
    if (seconds < 0) // a saving that was a loss
        return QStringLiteral("-") + formatDuration(-seconds);
    const double ms = seconds * kMsPerSecond;
    const DurationUnit unit = durationUnitFor(seconds);
    const QString symbol = durationUnitSymbol(unit);
    switch (unit) {
    case DurationUnit::Nanoseconds:
        return QStringLiteral("%1 %2").arg(ms * 1e6, 0, 'f', 0).arg(symbol);
    case DurationUnit::Microseconds:
        return QStringLiteral("%1 %2").arg(ms * 1e3, 0, 'f', ms < 0.01 ? 2 : 1).arg(symbol);
    case DurationUnit::Milliseconds:
        return QStringLiteral("%1 %2").arg(ms, 0, 'f', ms < 10 ? 3 : 1).arg(symbol);
    case DurationUnit::Seconds:
        break;
    }
    return QStringLiteral("%1 %2").arg(ms / 1000.0, 0, 'f', 2).arg(symbol);
}

QString formatDurationMs(double ms) {
    return formatDuration(ms / kMsPerSecond);
}

QString formatSummaryValue(const Summary& s) {
    if (s.hint == SummaryHint::Text)
        return s.text;
    const double v = s.value + 0.0; // -0 prints as 0
    if (!std::isfinite(v))
        return QStringLiteral("-");
    const auto decimals = [&](int byDefault) { return s.decimals >= 0 ? s.decimals : byDefault; };
    switch (s.hint) {
    case SummaryHint::Duration:
        return formatDuration(v);
    case SummaryHint::ByteRate:
        return fixed(v / kGiga, decimals(1)) + QStringLiteral(" GB/s");
    case SummaryHint::Bytes:
        if (std::abs(v) < kLargestExactBytes)
            return formatBytes(qint64(v));
        return fixed(v / kBytesPerGiB, 2) + QStringLiteral(" GiB");
    case SummaryHint::Percent:
        return fixed(v * 100.0, decimals(1)) + QStringLiteral(" %");
    case SummaryHint::Count:
        return fixed(v, 0);
    case SummaryHint::Ratio:
        return fixed(v, decimals(3));
    case SummaryHint::FlopRate:
        return fixed(v / kGiga, decimals(1)) + QStringLiteral(" GFLOP/s");
    case SummaryHint::Frequency:
        return fixed(v / kMega, decimals(0)) + QStringLiteral(" MHz");
    case SummaryHint::Power:
        return fixed(v, decimals(1)) + QStringLiteral(" W");
    case SummaryHint::Energy:
        return formatEnergy(v);
    case SummaryHint::Temperature:
        return fixed(v, decimals(0)) + QStringLiteral(" °C");
    case SummaryHint::ByteEnergy:
        return fixed(v / kGiga, decimals(2)) + QStringLiteral(" GB/J");
    case SummaryHint::FlopEnergy:
        return fixed(v / kGiga, decimals(2)) + QStringLiteral(" GFLOP/J");
    case SummaryHint::Text:
        break;
    }
    return s.text;
}

const Summary* findSummary(const QVector<Summary>& summaries, const QString& key) {
    for (const Summary& s : summaries)
        if (s.key == key)
            return &s;
    return nullptr;
}

std::optional<Summary> peakBandwidthShare(const QVector<Summary>& summaries,
                                          double peakBytesPerSecond) {
    const Summary* bandwidth = findSummary(summaries, QStringLiteral("bandwidth"));
    if (!bandwidth || !std::isfinite(bandwidth->value) || !(peakBytesPerSecond > 0) ||
        !std::isfinite(peakBytesPerSecond))
        return std::nullopt;
    Summary peak;
    peak.hint = SummaryHint::ByteRate;
    peak.value = peakBytesPerSecond;
    peak.decimals = 0;
    Summary s;
    s.key = QStringLiteral("bandwidth.peakShare");
    s.name = QStringLiteral("share of peak");
    s.description = QStringLiteral("bandwidth over the device's theoretical DRAM bandwidth (%1)")
                        .arg(formatSummaryValue(peak));
    s.hint = SummaryHint::Percent;
    s.value = bandwidth->value / peakBytesPerSecond;
    s.decimals = 1;
    return s;
}

QJsonArray summariesToJson(const QVector<Summary>& summaries) {
    QJsonArray array;
    for (const Summary& s : summaries) {
        QJsonObject entry{{QStringLiteral("key"), s.key},
                          {QStringLiteral("name"), s.name},
                          {QStringLiteral("description"), s.description},
                          {QStringLiteral("hint"), summaryHintName(s.hint)},
                          {QStringLiteral("value"), s.hint == SummaryHint::Text
                                                        ? QJsonValue(s.text)
                                                        : json::fromDouble(s.value)}};
        if (!s.group.isEmpty())
            entry.insert(QStringLiteral("group"), s.group);
        array.append(entry);
    }
    return array;
}

namespace {

/// The loaded kernel's resources and occupancy.
void addResourceSummary(Builder& b, const KernelResources& k) {
    using H = SummaryHint;
    b.add("resources.registers", "registers", "registers per thread", H::Count, k.registers);
    b.add("resources.staticShared", "static shared", "static shared memory per block", H::Bytes,
          k.staticSharedBytes);
    b.add("resources.local", "local", "local memory per thread (spills, stack)", H::Bytes,
          k.localBytes);
    b.add("resources.const", "constant", "constant memory the kernel uses", H::Bytes, k.constBytes);
    b.add("occupancy.blocksPerSm", "blocks per SM",
          "resident blocks per SM at the launch's block size and shared memory", H::Count,
          k.occupancyBlocksPerSm);
    withDecimals(b.add("occupancy", "occupancy", "active warps over the SM's maximum", H::Percent,
                       k.occupancy),
                 0);
}

/// The outputs' checks, summed over the buffers.
void addVerificationSummary(Builder& b, const QVector<BufferVerification>& verification) {
    using H = SummaryHint;
    double passed = 0, mismatches = 0, nans = 0, unwritten = 0, checked = 0;
    for (const BufferVerification& v : verification) {
        passed += v.passed ? 1 : 0;
        mismatches += double(v.mismatches);
        nans += double(v.nanCount);
        unwritten += double(v.unwritten);
        checked += double(v.checked);
    }
    b.add("verify.buffers", "buffers verified", "output buffers checked", H::Count,
          verification.size());
    b.add("verify.passed", "buffers passed", "output buffers that matched", H::Count, passed);
    b.add("verify.checked", "elements checked", "elements compared, all buffers", H::Count,
          checked);
    b.add("verify.mismatches", "mismatches", "elements outside the tolerance, all buffers",
          H::Count, mismatches);
    b.add("verify.nan", "NaN", "NaN where a number was expected, all buffers", H::Count, nans);
    b.add("verify.unwritten", "unwritten", "elements still holding the poison pattern, all buffers",
          H::Count, unwritten);
}

/// The library baseline's entries: its call, its median, the ratio (library time over the
/// kernel's, so above 1 the kernel is faster) and the check of the kernel's output against it.
void addBaseline(Builder& b, const RunResult& r) {
    const BaselineResult& base = r.baseline;
    GroupScope scope(b, QStringLiteral("Baseline"));
    using H = SummaryHint;
    b.addText("baseline.call", "call", "the library call the kernel is measured against",
              QStringLiteral("%1 %2").arg(base.library, base.call));
    if (!base.error.isEmpty()) {
        b.addText("baseline.error", "not measured", "why the library call did not run", base.error);
        return;
    }
    if (base.timing.reps() > 0) {
        Summary& median =
            b.add("baseline.median", "median", "", H::Duration, seconds(base.timing.medianMs));
        median.name = QStringLiteral("%1 median").arg(base.library);
        median.description =
            QStringLiteral("median time of the %1 call, timed as the kernel is").arg(base.library);
        const double ratio = base.ratio(r.timing.medianMs);
        Summary& share = withDecimals(
            b.add("baseline.ratio", "", "", H::Ratio, ratio > 0 ? ratio : std::nan("")), 2);
        share.name = QStringLiteral("× %1").arg(base.library);
        share.description = QStringLiteral("the %1 median over the kernel's median: above 1 the "
                                           "kernel is faster")
                                .arg(base.library);
        if (base.timing.gflops > 0)
            b.add("baseline.flops", "library GFLOP/s", "the call's FLOPs over its median time",
                  H::FlopRate, base.timing.gflops * kGiga);
    }
    if (base.check.checked > 0) {
        b.addText("baseline.check", "kernel vs library",
                  "the kernel's output against the library's, with the output's tolerance",
                  base.check.passed ? QStringLiteral("passed") : QStringLiteral("FAILED"));
        // A plain number would print 1e-05 as 0.000.
        b.addText("baseline.maxAbsError", "max abs err",
                  "largest absolute difference of the kernel's output from the library's",
                  QString::number(base.check.maxAbsError, 'g', 3));
    }
}

} // namespace

QVector<Summary> summarize(const RunResult& r) {
    using H = SummaryHint;
    Builder b;
    const TimingStats& t = r.timing;
    if (t.reps() > 0) {
        // The main table, in its order.
        asColumn(b.add("time.min", "min", "shortest kernel time of the timed samples", H::Duration,
                       seconds(t.minMs)));
        asColumn(b.add("time.median", "median",
                       "median kernel time of the timed samples (the figure bandwidth uses)",
                       H::Duration, seconds(t.medianMs)));
        asColumn(b.add("time.mean", "mean", "mean kernel time of the timed samples", H::Duration,
                       seconds(t.meanMs)));
        asColumn(b.add("time.max", "max", "longest kernel time of the timed samples", H::Duration,
                       seconds(t.maxMs)));
        asColumn(b.add("time.stddev", "stddev", "sample standard deviation of the kernel times",
                       H::Duration, seconds(t.stddevMs)));
        asColumn(withDecimals(b.add("time.noise", "noise",
                                    "standard deviation over the mean of the kernel times",
                                    H::Percent, t.relNoise),
                              2));
        asColumn(b.add("bandwidth", "bandwidth",
                       "bytes moved per launch over the median time (read + write)", H::ByteRate,
                       knownOrNaN(t.bandwidthGBs) * kGiga));
        // How the samples were taken.
        b.add("samples", "samples", "timed launches the statistics cover", H::Count, t.reps());
        b.add("bytes.perLaunch", "bytes moved",
              "bytes one launch reads and writes (the estimate or the project's figure)", H::Bytes,
              double(t.bytesMoved));
        if (t.ceilingGBs > 0) {
            withDecimals(b.add("ceiling", "copy ceiling",
                               "the device's measured device-to-device copy rate (read + write)",
                               H::ByteRate, t.ceilingGBs * kGiga),
                         0);
            withDecimals(b.add("ceiling.share", "share of the ceiling",
                               "bandwidth over the device's copy ceiling", H::Percent,
                               t.ceilingShare()),
                         0);
        }
        if (t.gflops > 0)
            b.add("flops", "GFLOP/s", "the project's FLOP count per launch over the median time",
                  H::FlopRate, t.gflops * kGiga);
        b.addText("timing.mode", "mode",
                  "hot: back-to-back launches; cold: the L2 cache flushed before each",
                  t.mode.isEmpty() ? QStringLiteral("hot") : t.mode);
        b.addText("timing.blockingKernel", "blocking kernel",
                  "whether the samples were queued behind the blocking kernel",
                  yesNo(t.blockingKernel));
        if (!t.stopReason.isEmpty())
            b.addText("timing.stopReason", "stopped", "what ended the timed samples", t.stopReason);
        if (t.smClockMHz > 0) {
            b.add("clock.sm", "SM clock", "median SM clock while the samples ran (NVML)",
                  H::Frequency, t.smClockMHz * kMega);
            b.add("clock.smDefault", "default SM clock", "the SM clock the device defaults to",
                  H::Frequency, t.smClockDefaultMHz * kMega);
        }
        if (t.memClockMHz > 0)
            b.add("clock.memory", "memory clock", "memory clock while the samples ran (NVML)",
                  H::Frequency, t.memClockMHz * kMega);
        b.add("samples.throttled", "throttled samples",
              "samples taken while the SM clock was under 75 % of its default", H::Count,
              t.throttledSamples);
        b.add("blocking.timeouts", "blocking timeouts",
              "chunks whose blocking kernel gave up waiting (their samples may include host "
              "time)",
              H::Count, t.blockingTimeouts);
        addTelemetry(b, t);
        // Around the timed launches: what the edit -> result loop paid and saved.
        b.add("verify.time", "verified in", "wall time of checking the outputs", H::Duration,
              seconds(t.verifyMs));
        b.add("buffers.reused", "buffers reused",
              "device buffers kept from the previous run of the same session", H::Count,
              t.buffersReused);
        b.add("uploads.skipped", "uploads skipped", "unchanged input buffers not uploaded again",
              H::Count, t.uploadsSkipped);
        b.add("uploads.skippedBytes", "upload bytes skipped",
              "host-to-device bytes those buffers saved", H::Bytes, double(t.uploadBytesSkipped));
    }
    if (!r.pipeline.isEmpty())
        addPipeline(b, r.pipeline);
    if (!r.baseline.isEmpty())
        addBaseline(b, r);
    if (!r.kernelLowered.isEmpty() || t.reps() > 0) // a loaded kernel
        addResourceSummary(b, r.resources);
    if (!r.verification.isEmpty())
        addVerificationSummary(b, r.verification);
    if (r.sanitizerTool != SanitizerTool::None)
        b.add("sanitizer.errors", "sanitizer errors",
              "errors compute-sanitizer reported (merged reports or its own total)", H::Count,
              r.sanitizerErrorCount());
    if (r.compile.ok || !r.compile.arch.isEmpty())
        b.add("compile.time", "compiled in", "NVRTC's time, or the cache lookup's on a hit",
              H::Duration, seconds(r.compile.compileMs));
    b.add("run.time", "run time", "wall time of the whole request", H::Duration,
          seconds(r.totalMs));
    return b.take();
}

} // namespace kernelpad
