#include "core/compile/SassRegisters.h"

#include "core/compile/CubinKernelInfo.h"
#include "core/compile/InstructionClasses.h"
#include "core/compile/KernelFacts.h"

#include <QJsonArray>
#include <QMap>

#include <algorithm>

namespace kernelpad {

namespace {

void raiseTo(LiveRegisters* peak, const LiveRegisters& live) {
    peak->gprs = std::max(peak->gprs, live.gprs);
    peak->predicates = std::max(peak->predicates, live.predicates);
    peak->uniforms = std::max(peak->uniforms, live.uniforms);
}

/// Adds one instruction's figures to `use`.
template <typename Use> void addInstruction(Use* use, const SassInstruction& instruction) {
    if (instruction.live) {
        raiseTo(&use->peak, *instruction.live);
        use->counted = true;
    }
    if (isLocalStore(instruction.opcode))
        ++use->localStores;
    else if (isLocalLoad(instruction.opcode))
        ++use->localLoads;
}

FunctionRegisterUse functionUse(const SassReport& report, int index) {
    const SassFunction& function = report.sass.listing.functions[index];
    FunctionRegisterUse use;
    use.name = function.name;
    const CubinKernelInfo info = cubinKernelInfo(report.compile.cubin, function.name);
    if (info.found)
        use.registers = info.registers;
    const KernelCompileFacts facts =
        kernelCompileFacts(report.compile.ptx, report.compile.log, function.name);
    if (facts.ptxasReported) {
        use.ptxasReported = true;
        use.spillStoreBytes = facts.spillStoreBytes;
        use.spillLoadBytes = facts.spillLoadBytes;
        if (use.registers == 0)
            use.registers = facts.registers;
    }
    QMap<int, LineRegisterUse> lines;
    for (int i = 0; i < function.instructions.size(); ++i) {
        const SassInstruction& instruction = function.instructions[i];
        addInstruction(&use, instruction);
        const int line = report.lines.sourceLineOfSass(index, i);
        if (line <= 0)
            continue;
        LineRegisterUse& lineUse = lines[line];
        lineUse.line = line;
        ++lineUse.instructions;
        addInstruction(&lineUse, instruction);
    }
    for (LineRegisterUse& line : lines) {
        line.function = use.name;
        line.registers = use.registers;
        use.lines.append(line);
    }
    return use;
}

} // namespace

QString LineRegisterUse::spillText() const {
    if (!spills())
        return QString();
    return QStringLiteral("spill: %1 store%2, %3 load%4")
        .arg(localStores)
        .arg(localStores == 1 ? "" : "s")
        .arg(localLoads)
        .arg(localLoads == 1 ? "" : "s");
}

QString LineRegisterUse::summary() const {
    QStringList parts;
    if (counted) {
        QString gprs =
            QStringLiteral("%1 live register%2").arg(peak.gprs).arg(peak.gprs == 1 ? "" : "s");
        if (registers > 0)
            gprs += QStringLiteral(" (of %1)").arg(registers);
        parts << gprs;
        if (peak.predicates > 0)
            parts << QStringLiteral("%1 predicate%2")
                         .arg(peak.predicates)
                         .arg(peak.predicates == 1 ? "" : "s");
        if (peak.uniforms > 0)
            parts << QStringLiteral("%1 uniform").arg(peak.uniforms);
    }
    QString text = parts.join(QStringLiteral(", "));
    if (spills())
        text += (text.isEmpty() ? QString() : QStringLiteral("; ")) + spillText();
    return text;
}

const LineRegisterUse* FunctionRegisterUse::findLine(int line) const {
    for (const LineRegisterUse& use : lines) {
        if (use.line == line)
            return &use;
    }
    return nullptr;
}

QString FunctionRegisterUse::ptxasSpillText() const {
    if (!ptxasReported)
        return QString();
    return QStringLiteral("ptxas: %1 bytes spill stores, %2 bytes spill loads")
        .arg(spillStoreBytes)
        .arg(spillLoadBytes);
}

QVector<FunctionRegisterUse> registerUse(const SassReport& report) {
    QVector<FunctionRegisterUse> functions;
    for (int f = 0; f < report.sass.listing.functions.size(); ++f)
        functions.append(functionUse(report, f));
    return functions;
}

QVector<LineRegisterUse> mergedLines(const QVector<FunctionRegisterUse>& functions) {
    QMap<int, LineRegisterUse> merged;
    for (const FunctionRegisterUse& function : functions) {
        for (const LineRegisterUse& line : function.lines) {
            auto it = merged.find(line.line);
            if (it == merged.end()) {
                merged.insert(line.line, line);
                continue;
            }
            LineRegisterUse& into = it.value();
            const int stores = into.localStores + line.localStores;
            const int loads = into.localLoads + line.localLoads;
            const int instructions = into.instructions + line.instructions;
            if (line.counted && (!into.counted || line.peak.gprs > into.peak.gprs))
                into = line;
            into.localStores = stores;
            into.localLoads = loads;
            into.instructions = instructions;
        }
    }
    return merged.values().toVector();
}

QJsonObject registerUseJson(const FunctionRegisterUse& function) {
    QJsonArray lines;
    for (const LineRegisterUse& line : function.lines) {
        QJsonObject object{{"line", line.line},
                           {"instructions", line.instructions},
                           {"spillStores", line.localStores},
                           {"spillLoads", line.localLoads}};
        if (line.counted) {
            object.insert("peakRegisters", line.peak.gprs);
            object.insert("peakPredicates", line.peak.predicates);
            object.insert("peakUniformRegisters", line.peak.uniforms);
        }
        lines.append(object);
    }
    QJsonObject object{{"name", function.name},
                       {"spillStores", function.localStores},
                       {"spillLoads", function.localLoads},
                       {"lines", lines}};
    if (function.registers > 0)
        object.insert("registers", function.registers);
    if (function.counted) {
        object.insert("peakRegisters", function.peak.gprs);
        object.insert("peakPredicates", function.peak.predicates);
        object.insert("peakUniformRegisters", function.peak.uniforms);
    }
    if (function.ptxasReported) {
        object.insert("ptxasSpillStoreBytes", function.spillStoreBytes);
        object.insert("ptxasSpillLoadBytes", function.spillLoadBytes);
    }
    return object;
}

} // namespace kernelpad
