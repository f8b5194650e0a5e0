// Fuzzes the PTX entry/parameter parser: any text in, kernel signatures out, never a crash.
#include "core/compile/PtxParser.h"

#include <QByteArray>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace kernelpad;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const QString ptx = QString::fromUtf8(reinterpret_cast<const char*>(data), qsizetype(size));
    const QVector<KernelInfo> kernels = parsePtxEntries(ptx);
    for (const KernelInfo& k : kernels) {
        for (const PtxParam& p : k.params) {
            // Packing trusts these to lay out the argument buffer.
            if (p.sizeBytes < 0 || p.alignBytes < 0) {
                std::fprintf(stderr, "negative size/alignment %d/%d for %s\n", p.sizeBytes,
                             p.alignBytes, qPrintable(p.name));
                std::abort();
            }
            (void)ptxTypeSizeBytes(p.ptxType);
        }
        (void)k.toJson();
    }
    return 0;
}
