#pragma once
// NVML (libnvidia-ml.so.1), loaded at run time, for what the GPU did while kernels were timed:
// clocks, power, temperature, the clock-event (throttle) reasons and the energy counter, and
// for locking the clocks. No NVML header ships with the toolkit: the few entry points used are
// declared in Nvml.cpp from NVML's documented C API.

#include <QString>

#include <optional>

namespace kernelpad {

/// One device's telemetry; every call answers nothing where NVML is missing or refuses.
class Nvml {
public:
    /// The loaded library, or nullptr (no driver, no NVML): telemetry is then simply unknown.
    static const Nvml* instance();

    struct Clocks {
        int smMHz = 0;
        int memMHz = 0;
    };
    /// Current clocks of the device at `pciBusId` ("0000:00:06.0", from DeviceInfo).
    [[nodiscard]] std::optional<Clocks> currentClocks(const QString& pciBusId) const;
    /// The SM clock the device runs at by default (application clock; else the max clock).
    [[nodiscard]] int defaultSmClockMHz(const QString& pciBusId) const;

    /// What the device reports now; a field NVML refuses stays 0 (reasons: nullopt).
    struct Reading {
        int smMHz = 0;
        int memMHz = 0;
        int powerMw = 0;
        int temperatureC = 0;
        std::optional<quint64> clockEventReasons; ///< NVML's bitmask (Telemetry.h names it)
    };
    [[nodiscard]] std::optional<Reading> read(const QString& pciBusId) const;
    /// The energy the device used since the driver loaded, in mJ (Volta and later).
    [[nodiscard]] std::optional<quint64> totalEnergyMj(const QString& pciBusId) const;

    /// The device's fixed figures; 0 where NVML gives none.
    struct Limits {
        int smMaxMHz = 0;
        int memMaxMHz = 0;
        int smDefaultMHz = 0; ///< default application clock: the base clock Lock Clocks uses
        int memDefaultMHz = 0;
        int powerLimitMw = 0; ///< the enforced power limit
    };
    [[nodiscard]] Limits limits(const QString& pciBusId) const;

    /// Locks the SM and memory clocks to these frequencies (min = max); an empty string on
    /// success, else NVML's reason (permission: "needs root").
    [[nodiscard]] QString lockClocks(const QString& pciBusId, int smMHz, int memMHz) const;
    /// Undoes lockClocks(); an empty string on success, else NVML's reason.
    [[nodiscard]] QString resetClocks(const QString& pciBusId) const;

    struct Api;

private:
    explicit Nvml(const Api* api)
        : m_api(api) {}
    const Api* m_api;
};

} // namespace kernelpad
