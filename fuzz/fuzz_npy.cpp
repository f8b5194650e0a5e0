// Fuzzes the .npy reader: any bytes in, an array whose data matches its shape, or an error.
#include "core/launch/Npy.h"

#include <QByteArray>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace kernelpad;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const QByteArray bytes =
        QByteArray::fromRawData(reinterpret_cast<const char*>(data), qsizetype(size));
    QString error;
    // readNpy trusts the header parser to bound what it reads next: the data offset must lie
    // within what was parsed, and the data size must be the shape's product times the type.
    QString headerError;
    const std::optional<NpyHeader> header = parseNpyHeader(bytes, &headerError);
    if (header) {
        if (header->dataOffset > qint64(size) || header->dataOffset < 10) {
            std::fprintf(stderr, "data offset %lld outside the %zu bytes parsed\n",
                         static_cast<long long>(header->dataOffset), size);
            std::abort();
        }
        const bool overflowed = header->elementCount < 0;
        if (overflowed != (header->dataBytes < 0) ||
            (!overflowed && header->dataBytes != header->elementCount * header->type.sizeBytes())) {
            std::fprintf(stderr, "header sizes disagree: %lld elements, %lld bytes\n",
                         static_cast<long long>(header->elementCount),
                         static_cast<long long>(header->dataBytes));
            std::abort();
        }
    } else if (headerError.isEmpty()) {
        std::fprintf(stderr, "parseNpyHeader failed without saying why\n");
        std::abort();
    }
    const std::optional<NpyArray> array = parseNpy(bytes, &error);
    if (array && (!header || header->shape != array->shape || header->type != array->type)) {
        std::fprintf(stderr, "parseNpy accepted what parseNpyHeader did not describe\n");
        std::abort();
    }
    if (!array) {
        if (error.isEmpty()) {
            std::fprintf(stderr, "parseNpy failed without saying why\n");
            std::abort();
        }
        return 0;
    }
    // Buffers are filled from `data` by element count: the two must agree.
    const qint64 expected = array->elementCount() * array->type.sizeBytes();
    if (array->elementCount() < 0 || qint64(array->data.size()) != expected) {
        std::fprintf(stderr, "%lld elements of %d bytes but %lld data bytes\n",
                     static_cast<long long>(array->elementCount()), array->type.sizeBytes(),
                     static_cast<long long>(array->data.size()));
        std::abort();
    }
    // What we read, we can write and read back.
    QString again;
    const std::optional<NpyArray> reread = parseNpy(serializeNpy(*array), &again);
    if (!reread || reread->shape != array->shape || reread->data != array->data) {
        std::fprintf(stderr, "serializeNpy/parseNpy round trip failed: %s\n", qPrintable(again));
        std::abort();
    }
    return 0;
}
