#include "core/run/KernelResources.h"

#include "core/io/JsonFields.h"
#include "core/io/JsonValues.h"

#include <utility>

namespace kernelpad {

QJsonObject KernelResources::toJson() const {
    return QJsonObject{{QStringLiteral("registers"), registers},
                       {QStringLiteral("staticSharedBytes"), staticSharedBytes},
                       {QStringLiteral("localBytes"), localBytes},
                       {QStringLiteral("constBytes"), constBytes},
                       {QStringLiteral("maxThreadsPerBlock"), maxThreadsPerBlock},
                       {QStringLiteral("ptxVersion"), ptxVersion},
                       {QStringLiteral("binaryVersion"), binaryVersion},
                       {QStringLiteral("occupancyBlocksPerSm"), occupancyBlocksPerSm},
                       {QStringLiteral("occupancy"), json::fromDouble(occupancy)}};
}

std::optional<KernelResources> KernelResources::fromJson(const QJsonObject& json, QString* error,
                                                         const QString& path) {
    const json::FieldReader fields(json, error, path);
    constexpr auto required = json::Presence::Required;
    KernelResources r;
    // The driver's attributes are ints; any int is taken as it reported it.
    for (const auto& [key, target] :
         {std::pair{QStringLiteral("registers"), &r.registers},
          std::pair{QStringLiteral("staticSharedBytes"), &r.staticSharedBytes},
          std::pair{QStringLiteral("localBytes"), &r.localBytes},
          std::pair{QStringLiteral("constBytes"), &r.constBytes},
          std::pair{QStringLiteral("maxThreadsPerBlock"), &r.maxThreadsPerBlock},
          std::pair{QStringLiteral("ptxVersion"), &r.ptxVersion},
          std::pair{QStringLiteral("binaryVersion"), &r.binaryVersion},
          std::pair{QStringLiteral("occupancyBlocksPerSm"), &r.occupancyBlocksPerSm}})
        if (!fields.readInt(key, target, required))
            return std::nullopt;
    // Null: not computable (JsonValues.h writes NaN as null).
    if (!fields.readNumber(QStringLiteral("occupancy"), &r.occupancy, required,
                           json::NullNumber::IsNaN))
        return std::nullopt;
    return r;
}

} // namespace kernelpad
