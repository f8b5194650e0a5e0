#include "core/compile/SassReport.h"

namespace kernelpad {

SassReport makeSassReport(const CompileResult& compile, const QString& sourceName) {
    SassReport report;
    report.compile = compile;
    report.sourceName = sourceName;
    if (!compile.ok) {
        report.sass.error = compile.error.isEmpty()
                                ? QStringLiteral("no SASS: the source does not compile")
                                : QStringLiteral("no SASS: ") + compile.error;
        return report;
    }
    report.sass = disassembleCubin(compile.cubin);
    if (report.sass.ok)
        report.lines = LineMap::build(compile.ptx, report.sass.listing, sourceName);
    return report;
}

} // namespace kernelpad
