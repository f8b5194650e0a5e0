#include "core/launch/BufferInitSpecial.h"

#include "core/launch/BufferInit.h"
#include "core/launch/ValueType.h"

#include <cstring>

namespace kernelpad {

QVector<quint64> specialValueBits(ScalarType type) {
    // Per float format: NaN, +Inf, -Inf, -0, +-smallest denormal, largest denormal, smallest
    // normal, +-largest finite (IEEE 754 layouts; bfloat16 is float32's upper half).
    switch (type) {
    case ScalarType::Bool:
        return {};
    case ScalarType::Int8:
    case ScalarType::Int16:
    case ScalarType::Int32:
    case ScalarType::Int64: {
        const int bits = 8 * scalarTypeInfo(type).sizeBytes;
        const quint64 mask = bits == 64 ? ~quint64(0) : (quint64(1) << bits) - 1;
        const quint64 min = quint64(1) << (bits - 1);
        return {min, min - 1, 0, mask}; // min, max, 0, -1 in two's complement
    }
    case ScalarType::UInt8:
    case ScalarType::UInt16:
    case ScalarType::UInt32:
    case ScalarType::UInt64: {
        const int bits = 8 * scalarTypeInfo(type).sizeBytes;
        return {0, bits == 64 ? ~quint64(0) : (quint64(1) << bits) - 1};
    }
    case ScalarType::Float16:
        return {0x7E00, 0x7C00, 0xFC00, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x7BFF, 0xFBFF};
    case ScalarType::BFloat16:
        return {0x7FC0, 0x7F80, 0xFF80, 0x8000, 0x0001, 0x8001, 0x007F, 0x0080, 0x7F7F, 0xFF7F};
    case ScalarType::Float32:
    case ScalarType::Complex64:
        return {0x7FC00000, 0x7F800000, 0xFF800000, 0x80000000, 0x00000001,
                0x80000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF};
    case ScalarType::Float64:
    case ScalarType::Complex128:
        return {0x7FF8000000000000ULL, 0x7FF0000000000000ULL, 0xFFF0000000000000ULL,
                0x8000000000000000ULL, 0x0000000000000001ULL, 0x8000000000000001ULL,
                0x000FFFFFFFFFFFFFULL, 0x0010000000000000ULL, 0x7FEFFFFFFFFFFFFFULL,
                0xFFEFFFFFFFFFFFFFULL};
    case ScalarType::Float8E4M3: // no infinity; S.1111.111 is NaN, 448 the largest
        return {0x7F, 0x80, 0x01, 0x81, 0x07, 0x08, 0x7E, 0xFE};
    case ScalarType::Float8E5M2:
        return {0x7F, 0x7C, 0xFC, 0x80, 0x01, 0x81, 0x03, 0x04, 0x7B, 0xFB};
    case ScalarType::Float4E2M1x2: // no NaN, no infinity: +-6, +-0.5 (the denormal), -0
        return {0x7, 0xF, 0x1, 0x9, 0x8};
    }
    return {};
}

void replaceWithSpecials(const InitSpec& init, ScalarType type, qint64 count, char* out) {
    const QVector<quint64> table = specialValueBits(type);
    if (table.isEmpty())
        return;
    const ScalarTypeInfo& info = scalarTypeInfo(type);
    const int components = componentCount(type);
    const bool nibbles = type == ScalarType::Float4E2M1x2;
    const int componentBytes = nibbles ? 1 : info.sizeBytes / components;
    const quint64 rateKey = specialRateKey(init.seed);
    const quint64 pickKey = specialPickKey(init.seed);
    const auto size = quint64(table.size());
    for (qint64 i = 0; i < count; ++i) {
        for (int c = 0; c < components; ++c) {
            const quint64 d = quint64(i) * quint64(components) + quint64(c);
            if (!(unitFromBits(randomBits(rateKey, d)) < init.rate))
                continue;
            const quint64 bits = table[qsizetype(randomBits(pickKey, d) % size)];
            if (nibbles) {
                const int shift = 4 * c;
                auto& byte = reinterpret_cast<unsigned char&>(out[i]);
                byte = static_cast<unsigned char>((byte & ~(0xF << shift)) | (bits << shift));
            } else {
                // Little-endian, as every target of KernelPad (x86-64, aarch64) stores it.
                std::memcpy(out + i * info.sizeBytes + c * componentBytes, &bits,
                            size_t(componentBytes));
            }
        }
    }
}

} // namespace kernelpad
