#pragma once
// NVRTC options as a typed struct: only the fields that are set become flags (cuda.core's
// ProgramOptions).

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace kernelpad {

/// Compile options of a program; unset fields leave NVRTC's default in place.
struct ProgramOptions {
    /// "sm_90". Unset: the current device's exact arch, or sm_90 without a driver.
    std::optional<QString> arch;
    std::optional<QString> cppStandard; ///< "c++17", "c++20"
    std::optional<bool> fastMath;       ///< --use_fast_math
    std::optional<bool> fmad;           ///< --fmad=true|false
    std::optional<bool> lineInfo;       ///< -lineinfo
    std::optional<bool> deviceDebug;    ///< -G
    std::optional<int> maxRegisters;    ///< --maxrregcount=N
    QStringList defines;                ///< "N=256" or "USE_FAST" (each becomes -D...)
    QStringList includeDirs;            ///< user directories, relative to the project or absolute
    QStringList extraFlags;             ///< passed through verbatim

    /// The flags for NVRTC, with `resolvedArch` used for -arch and the toolkit's include
    /// directories (include/ and include/cccl) appended.
    [[nodiscard]] QStringList toFlags(const QString& resolvedArch) const;
    /// Empty when valid, else a message naming the field ("maxRegisters must be ...").
    [[nodiscard]] QString validate() const;

    [[nodiscard]] QJsonObject toJson() const;
    static std::optional<ProgramOptions> fromJson(const QJsonObject& json, QString* error);
    friend bool operator==(const ProgramOptions& a, const ProgramOptions& b);
};

/// The default arch when neither the user nor a device chooses one.
inline constexpr const char* kDefaultArch = "sm_90";

} // namespace kernelpad
