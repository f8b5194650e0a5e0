#include "core/engine/EditVerdictSass.h"

#include "core/compile/CompileComparison.h"
#include "core/engine/EditVerdict.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace kernelpad {

QByteArray sassCompileKey(const Project& project, const CompileResult& compile) {
    if (compile.arch.isEmpty())
        return {};
    // The options as a disassembly compiles them (core/engine/EngineWorkers.cpp: -lineinfo;
    // ui/CompileHistory.cpp: ptxas's -v), with the arch that was resolved for the compile.
    ProgramOptions options = withPtxasReport(project.options);
    options.lineInfo = true;
    options.arch = compile.arch;
    const QJsonObject inputs{
        {QStringLiteral("source"), project.source},
        {QStringLiteral("sourceName"), project.sourceName},
        {QStringLiteral("language"), languageName(project.language)},
        {QStringLiteral("options"), options.toJson()},
        {QStringLiteral("nameExpressions"), QJsonArray::fromStringList(project.nameExpressions())},
        // A header edited between two compiles of the same project changes the code too.
        {QStringLiteral("includes"), compile.includeFingerprint},
    };
    return QCryptographicHash::hash(QJsonDocument(inputs).toJson(QJsonDocument::Compact),
                                    QCryptographicHash::Sha256);
}

SassOpcodesByKernel sassOpcodesOf(const SassReport& report) {
    SassOpcodesByKernel counts;
    if (!report.ok() || report.sass.cancelled)
        return counts;
    for (const KernelInfo& kernel : report.compile.kernels)
        if (const SassFunction* f = report.sass.listing.findFunction(kernel.lowered))
            counts.insert(kernel.lowered, sassOpcodeCounts(*f));
    return counts;
}

} // namespace kernelpad
