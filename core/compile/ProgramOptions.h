#pragma once
// NVRTC options as a typed struct: only the fields that are set become flags (cuda.core's
// ProgramOptions).

#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <optional>

namespace kernelpad {

/// Compile options of a program; unset fields leave NVRTC's default in place.
struct ProgramOptions {
    /// "sm_90" (a CUBIN for that GPU) or "compute_90" (PTX only, compiled by the driver's JIT
    /// when the runner loads it). Unset: the current device's exact arch, or sm_90 without a
    /// driver.
    std::optional<QString> arch;
    std::optional<QString> cppStandard; ///< "c++17", "c++20"
    std::optional<bool> fastMath;       ///< --use_fast_math
    std::optional<bool> fmad;           ///< --fmad=true|false
    std::optional<bool> lineInfo;       ///< -lineinfo
    std::optional<bool> deviceDebug;    ///< -G
    std::optional<int> maxRegisters;    ///< --maxrregcount=N
    QStringList defines;                ///< "N=256" or "USE_FAST" (each becomes -D...)
    QStringList includeDirs;            ///< user directories, relative to the project or absolute
    /// Further NVRTC flags, only from the allow-list in NvrtcFlags.h (flags that read and write
    /// no files); anything else is refused by fromJson() and validate().
    QStringList extraFlags;

    /// --maxrregcount limits: ptxas rejects fewer than 16 registers, and 255 is the hardware
    /// maximum per thread (CUDA C++ Programming Guide, "Compute Capabilities").
    static constexpr int kMinRegisters = 16;
    static constexpr int kMaxRegisters = 255;

    /// The flags for NVRTC, with `resolvedArch` used for -arch and the toolkit's include
    /// directories (include/ and include/cccl) appended. Every flag passes checkNvrtcFlags():
    /// a field value or extra flag that does not is left out (validate() reports it).
    [[nodiscard]] QStringList toFlags(const QString& resolvedArch) const;
    /// Empty when valid, else a message naming the field ("maxRegisters must be ...",
    /// "extraFlags[0]: \"--time=t\" is refused: ...").
    [[nodiscard]] QString validate() const;
    /// What a project file may not carry even to be opened: extra flags off the allow-list and
    /// control characters in any field. Empty when none; validate() includes these.
    [[nodiscard]] QString unsafeContent() const;

    [[nodiscard]] QJsonObject toJson() const;
    /// Checks types, and refuses what unsafeContent() reports; other bad values are left for
    /// validate() so that the project still opens and the user can fix them.
    static std::optional<ProgramOptions> fromJson(const QJsonObject& json, QString* error);
    friend bool operator==(const ProgramOptions& a, const ProgramOptions& b);
};

/// True for "sm_90", "sm_90a", "compute_90", "compute_90a".
[[nodiscard]] bool isValidArch(const QString& arch);
/// True for a virtual arch ("compute_90"): NVRTC makes PTX only, no CUBIN.
[[nodiscard]] bool isVirtualArch(const QString& arch);
/// Empty when `arch` is valid, else the message ("arch must look like sm_90, ...").
[[nodiscard]] QString archProblem(const QString& arch);

/// The default arch when neither the user nor a device chooses one.
inline constexpr const char* kDefaultArch = "sm_90";

} // namespace kernelpad

// Values the window queues between threads and tests keep in data rows.
Q_DECLARE_METATYPE(kernelpad::ProgramOptions)
