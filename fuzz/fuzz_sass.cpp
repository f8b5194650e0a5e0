// Fuzzes the nvdisasm listing parser and the line map built on it: any text in (read as
// SASS and as PTX), never a crash, and every reference the map hands out is in range.
#include "core/compile/LineMap.h"
#include "core/compile/Sass.h"

#include <QByteArray>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace kernelpad;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const QString text = QString::fromUtf8(reinterpret_cast<const char*>(data), qsizetype(size));
    const SassListing listing = parseSass(text);
    for (const SassFunction& f : listing.functions) {
        for (const int index : f.labels) {
            // A label points at an instruction or just past the last one.
            if (index < 0 || index > f.instructions.size()) {
                std::fprintf(stderr, "label index %d of %lld\n", index,
                             static_cast<long long>(f.instructions.size()));
                std::abort();
            }
        }
    }
    const LineMap map = LineMap::build(text, listing, QStringLiteral("kernel.cu"));
    for (const int line : map.sourceLines()) {
        for (const SassRef& ref : map.sassInstructions(line)) {
            if (ref.function < 0 || ref.function >= listing.functions.size() ||
                ref.instruction < 0 ||
                ref.instruction >= listing.functions[ref.function].instructions.size() ||
                map.sourceLineOfSass(ref.function, ref.instruction) != line) {
                std::fprintf(stderr, "bad reference %d/%d for line %d\n", ref.function,
                             ref.instruction, line);
                std::abort();
            }
        }
        for (const int ptxLine : map.ptxLines(line)) {
            if (map.sourceLineOfPtx(ptxLine) != line) {
                std::fprintf(stderr, "PTX line %d does not map back to %d\n", ptxLine, line);
                std::abort();
            }
        }
    }
    return 0;
}
