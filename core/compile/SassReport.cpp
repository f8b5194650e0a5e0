#include "core/compile/SassReport.h"

#include <QElapsedTimer>

namespace kernelpad {

SassReport makeSassReport(const CompileResult& compile, const QString& sourceName,
                          const SassListedCallback& listed, SassCache* cache,
                          const std::atomic_bool* cancel) {
    SassReport report;
    report.compile = compile;
    report.sourceName = sourceName;
    if (!compile.ok) {
        report.sass.error = compile.error.isEmpty()
                                ? QStringLiteral("no SASS: the source does not compile")
                                : QStringLiteral("no SASS: ") + compile.error;
        return report;
    }
    // Without nvdisasm or a CUBIN there is nothing to look up: disassembleCubin says why.
    const QString nvdisasm = compile.cubin.isEmpty() ? QString() : findNvdisasm().path;
    const bool cached = cache && !nvdisasm.isEmpty();
    const QByteArray key = cached ? SassCache::key(compile.cubin, nvdisasm) : QByteArray();
    const QByteArray mapKey = SassCache::mapKey(compile.ptx, sourceName);
    if (cached) {
        if (std::optional<SassCache::Entry> hit = cache->find(key)) {
            report.sass = hit->sass;
            report.sass.cacheHit = true;
            report.sass.processes = 0;
            report.sass.processMs = 0;
            report.sass.parseMs = 0;
            if (hit->mapKey == mapKey) {
                report.lines = hit->lines;
                return report;
            }
        }
    }
    if (!report.sass.cacheHit) {
        SassOptions options;
        options.liveRanges = true;
        options.cancel = cancel;
        // The text goes out when the listing's nvdisasm has ended, before the life ranges'.
        options.listed = [&](const SassResult& sass) {
            if (!listed)
                return;
            SassReport early = report;
            early.sass = sass;
            listed(early);
        };
        report.sass = disassembleCubin(compile.cubin, options);
        if (report.sass.cancelled)
            return report; // replaced: whoever asked no longer waits for it
        if (!report.sass.ok) {
            // No SASS (no nvdisasm, or a PTX-only compile): the PTX's own .loc lines still
            // map the source to the PTX, so the colours and links of those two stay.
            report.lines = LineMap::build(compile.ptx, SassListing{}, sourceName);
            return report;
        }
    }
    if (listed && report.sass.cacheHit)
        listed(report);
    QElapsedTimer clock;
    clock.start();
    report.lines = LineMap::build(compile.ptx, report.sass.listing, sourceName);
    report.mapMs = double(clock.nsecsElapsed()) / 1e6;
    if (cached)
        cache->insert({key, report.sass, mapKey, report.lines});
    return report;
}

} // namespace kernelpad
