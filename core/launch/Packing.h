#pragma once
// Packing kernel arguments into the `void**` cuLaunchKernel takes (seed, "Preparing kernel
// arguments"): each entry points at the argument's bytes, all kept alive by PackedArgs.

#include "core/cuda/LaunchDims.h"
#include "core/launch/ArgumentSpec.h"

#include <QByteArray>
#include <QString>
#include <QVector>

#include <optional>
#include <vector>

namespace kernelpad {

/// The bytes of a scalar or struct value as the kernel sees it, from the text the user typed.
[[nodiscard]] std::optional<QByteArray> packValue(const ValueType& type, const QString& text,
                                                  QString* error);

/// Argument storage plus the array of pointers to it; move-only so the pointers stay valid.
class PackedArgs {
public:
    PackedArgs() = default;
    PackedArgs(PackedArgs&&) = default;
    PackedArgs& operator=(PackedArgs&&) = default;
    PackedArgs(const PackedArgs&) = delete;
    PackedArgs& operator=(const PackedArgs&) = delete;

    [[nodiscard]] void** kernelParams() { return m_pointers.empty() ? nullptr : m_pointers.data(); }
    [[nodiscard]] int count() const { return int(m_pointers.size()); }
    [[nodiscard]] qint64 sizeOf(int index) const { return m_sizes.at(size_t(index)); }
    [[nodiscard]] const void* bytesOf(int index) const { return m_pointers.at(size_t(index)); }

    /// Packs every argument; buffers take their device address from `bufferAddresses`
    /// (same index as `args`, ignored for scalars), textures and surfaces their object handle,
    /// tensor maps their encoded 128 bytes from `tensorMaps` (same index). The error names
    /// the argument.
    static std::optional<PackedArgs> pack(const QVector<ArgumentSpec>& args,
                                          const QVector<quint64>& bufferAddresses, QString* error,
                                          const QVector<QByteArray>& tensorMaps = {});

private:
    std::vector<std::vector<unsigned char>> m_storage; ///< one block per argument
    std::vector<void*> m_pointers;
    std::vector<qint64> m_sizes;
};

/// Empty when the argument list matches the kernel's parameters in count and size, else a
/// message naming the first argument that does not ("argument 'n' (float32, 4 bytes) ...").
[[nodiscard]] QString checkAgainstParams(const QVector<ArgumentSpec>& args,
                                         const QVector<ParamLayout>& params,
                                         const QString& kernelName);

} // namespace kernelpad
