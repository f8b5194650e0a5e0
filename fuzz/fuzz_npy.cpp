// Fuzzes the .npy reader: any bytes in, an array whose data matches its shape, or an error.
#include "core/launch/Npy.h"

#include <QByteArray>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace kernelpad;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const QByteArray bytes = QByteArray::fromRawData(reinterpret_cast<const char*>(data), qsizetype(size));
    QString error;
    const std::optional<NpyArray> array = parseNpy(bytes, &error);
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
