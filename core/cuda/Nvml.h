#pragma once
// NVML (libnvidia-ml.so.1), loaded at run time, for the SM and memory clocks while kernels are
// timed. No NVML header ships with the toolkit: the few entry points used are declared here
// from NVML's documented C API.

#include <QString>

#include <optional>

namespace kernelpad {

/// Clocks of one device; every call answers nothing where NVML is missing or refuses.
class Nvml {
public:
    /// The loaded library, or nullptr (no driver, no NVML): clocks are then simply unknown.
    static const Nvml* instance();

    struct Clocks {
        int smMHz = 0;
        int memMHz = 0;
    };
    /// Current clocks of the device at `pciBusId` ("0000:00:06.0", from DeviceInfo).
    [[nodiscard]] std::optional<Clocks> currentClocks(const QString& pciBusId) const;
    /// The SM clock the device runs at by default (application clock; else the max clock).
    [[nodiscard]] int defaultSmClockMHz(const QString& pciBusId) const;

    struct Api;

private:
    explicit Nvml(const Api* api)
        : m_api(api) {}
    const Api* m_api;
};

} // namespace kernelpad
