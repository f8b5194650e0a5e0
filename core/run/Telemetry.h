#pragma once
// What the GPU did while a run's samples were timed (NVML): clocks, power, temperature and
// the clock-event (throttle) reasons read with every chunk of samples, whether the clocks
// were locked, and the energy counter around the timed launches. Absent NVML leaves it empty
// (`available` false): the figures are then unknown, never zero.

#include <QJsonObject>
#include <QStringList>
#include <QVector>

#include <optional>

namespace kernelpad {

/// NVML's clock-event reason bits (nvml.h, nvmlClocksEventReason*).
namespace clockEvent {
constexpr quint64 GpuIdle = 0x1;
constexpr quint64 ApplicationsClocksSetting = 0x2;
constexpr quint64 SwPowerCap = 0x4;
constexpr quint64 HwSlowdown = 0x8;
constexpr quint64 SyncBoost = 0x10;
constexpr quint64 SwThermalSlowdown = 0x20;
constexpr quint64 HwThermalSlowdown = 0x40;
constexpr quint64 HwPowerBrakeSlowdown = 0x80;
constexpr quint64 DisplayClockSetting = 0x100;
/// The reasons that mean the GPU slowed itself down (power, heat, an external signal); idle,
/// the application-clock setting, sync boost and the display clock are not throttling.
constexpr quint64 Throttling =
    SwPowerCap | HwSlowdown | SwThermalSlowdown | HwThermalSlowdown | HwPowerBrakeSlowdown;
} // namespace clockEvent

/// The names of the bits set in `reasons` ("sw power cap", "hw thermal", ...), lowest bit
/// first; an unknown bit is named "0x…".
[[nodiscard]] QStringList clockEventNames(quint64 reasons);

/// NVML's readings taken while one chunk of samples ran.
struct ChunkTelemetry {
    int samples = 0; ///< how many samples the chunk holds (they follow the previous chunk's)
    int smClockMHz = 0;
    int memClockMHz = 0;
    int powerMw = 0;      ///< 0: NVML gave none
    int temperatureC = 0; ///< 0: NVML gave none
    std::optional<quint64> clockEventReasons;

    friend bool operator==(const ChunkTelemetry& a, const ChunkTelemetry& b) {
        return a.samples == b.samples && a.smClockMHz == b.smClockMHz &&
               a.memClockMHz == b.memClockMHz && a.powerMw == b.powerMw &&
               a.temperatureC == b.temperatureC && a.clockEventReasons == b.clockEventReasons;
    }
};

/// Whether the GPU's clocks were held fixed while the samples ran.
enum class ClockLock { Unknown, Locked, NotLocked };

/// The telemetry of one measurement.
struct Telemetry {
    bool available = false; ///< false: no NVML (or it knew nothing of the device)
    QVector<ChunkTelemetry> chunks;
    int smClockMaxMHz = 0;
    int smClockDefaultMHz = 0;
    int memClockMaxMHz = 0;
    int memClockDefaultMHz = 0;
    int powerLimitMw = 0;
    /// KernelPad locked the clocks itself (Device > Lock Clocks) before these samples.
    bool lockedByKernelPad = false;
    /// Why the lock the run asked for (RunRequest::lockClocks) was refused; empty otherwise.
    QString lockError;
    /// The energy counter around the timed launches; absent when NVML has none (pre-Volta).
    std::optional<double> energyMj;
    double energyIntervalMs = 0; ///< host time between the two counter readings
    /// When the first reading was taken (ms since the epoch), so that another tool's samples
    /// of the same interval can be picked out (bench/energy_check); 0: unknown.
    double energyStartedAtMs = 0;
    int energyLaunches = 0;

    /// (max - min) / median of the chunks' SM clocks; 0 with fewer than two readings.
    [[nodiscard]] double smClockSpread() const;
    /// Every reason bit seen in any chunk.
    [[nodiscard]] quint64 reasonsSeen() const;
    /// The throttling reasons seen (clockEvent::Throttling).
    [[nodiscard]] quint64 throttleReasons() const { return reasonsSeen() & clockEvent::Throttling; }
    /// Locked when KernelPad locked them or every chunk reported the application-clock
    /// setting as a reason (NVML sets it while clocks are held by -ac or -lgc); NotLocked when
    /// the reasons were read and lacked it; Unknown without reasons.
    [[nodiscard]] ClockLock clockLock() const;
    /// Why these samples should not be compared at 1 %: the SM clock moved more than
    /// kMaxClockSpread across the chunks, or the GPU throttled (naming the reasons); empty
    /// when neither.
    [[nodiscard]] QString instability() const;

    /// Whether the energy counter covers enough time to be trusted (kMinEnergyIntervalMs, and
    /// a counter that moved); energyNote() says why not.
    [[nodiscard]] bool energyMeasured() const;
    /// "" when energyMeasured(); else "too short to measure energy (…)" or "no energy counter".
    [[nodiscard]] QString energyNote() const;
    [[nodiscard]] double energyPerLaunchJ() const; ///< NaN unless energyMeasured()
    [[nodiscard]] double averagePowerW() const;    ///< NaN unless energyMeasured()

    [[nodiscard]] QJsonObject toJson() const;
    /// Reads the JSON form; nullopt, with a message naming the field under `path`.
    static std::optional<Telemetry> fromJson(const QJsonObject& json, QString* error,
                                             const QString& path = {});

    /// The SM clock may move this much (as a share of its median) across chunks before the
    /// run is marked: above it, a 1-3 % difference between runs may be the clock's.
    static constexpr double kMaxClockSpread = 0.02;
    /// The shortest timed interval energy is reported for. NVML updates the counter on its
    /// own period (undocumented), so each reading may lag by up to one period and a short
    /// window mostly measures where the updates fell. 250 ms is the adaptive timing's default
    /// minimum, so a default run gets a figure; bench/energy_check holds it to 5 % against
    /// nvidia-smi's power samples over the same interval.
    static constexpr double kMinEnergyIntervalMs = 250.0;
};

} // namespace kernelpad
