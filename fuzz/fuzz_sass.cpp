// Fuzzes the nvdisasm listing parser and the line map built on it: any text in (read as
// SASS, as PTX and as a life-range listing), never a crash, and every reference the map hands
// out is in range; the live-register counts joined from the same text are never negative and
// each line's peak is one of its instructions' counts.
#include "core/compile/LineMap.h"
#include "core/compile/Sass.h"
#include "core/compile/SassLiveRanges.h"
#include "core/compile/SassRegisters.h"

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
    SassReport report;
    report.sass.listing = listing;
    joinLiveRanges(&report.sass.listing, parseLiveRanges(text));
    report.lines = LineMap::build(QString(), report.sass.listing, QStringLiteral("kernel.cu"));
    for (const FunctionRegisterUse& f : registerUse(report)) {
        for (const LineRegisterUse& line : f.lines) {
            if (line.peak.gprs < 0 || line.peak.predicates < 0 || line.peak.uniforms < 0 ||
                line.peak.gprs > f.peak.gprs || line.instructions <= 0 ||
                line.localLoads + line.localStores > line.instructions) {
                std::fprintf(stderr, "bad figures for line %d\n", line.line);
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
