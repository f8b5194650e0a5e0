#pragma once
// What the driver reports about a loaded kernel: registers, memory, occupancy.

#include <QJsonObject>
#include <QMetaType>
#include <QString>

#include <optional>

namespace kernelpad {

/// Resources of the compiled kernel as the driver reports them.
struct KernelResources {
    int registers = 0;
    int staticSharedBytes = 0;
    int localBytes = 0;
    int constBytes = 0;
    int maxThreadsPerBlock = 0;
    int ptxVersion = 0;
    int binaryVersion = 0;
    int occupancyBlocksPerSm = 0; ///< at the launch's block size and shared memory
    double occupancy = 0;         ///< active warps / max warps per SM, 0..1

    [[nodiscard]] QJsonObject toJson() const;
    /// Reads the JSON form; nullopt, with a message naming the field under `path`, when a
    /// field is missing or malformed.
    static std::optional<KernelResources> fromJson(const QJsonObject& json, QString* error,
                                                   const QString& path = {});
};

} // namespace kernelpad

Q_DECLARE_METATYPE(kernelpad::KernelResources)
