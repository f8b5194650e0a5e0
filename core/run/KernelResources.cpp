#include "core/run/KernelResources.h"

#include "core/io/JsonValues.h"

namespace kernelpad {
namespace {

int readInt(const QJsonObject& json, const QString& key) {
    return json.value(key).toInt();
}

} // namespace

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

KernelResources KernelResources::fromJson(const QJsonObject& json) {
    KernelResources r;
    r.registers = readInt(json, QStringLiteral("registers"));
    r.staticSharedBytes = readInt(json, QStringLiteral("staticSharedBytes"));
    r.localBytes = readInt(json, QStringLiteral("localBytes"));
    r.constBytes = readInt(json, QStringLiteral("constBytes"));
    r.maxThreadsPerBlock = readInt(json, QStringLiteral("maxThreadsPerBlock"));
    r.ptxVersion = readInt(json, QStringLiteral("ptxVersion"));
    r.binaryVersion = readInt(json, QStringLiteral("binaryVersion"));
    r.occupancyBlocksPerSm = readInt(json, QStringLiteral("occupancyBlocksPerSm"));
    r.occupancy = json::readDouble(json, QStringLiteral("occupancy"));
    return r;
}

} // namespace kernelpad
