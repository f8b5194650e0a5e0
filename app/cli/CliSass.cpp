#include "app/cli/CliSass.h"

#include "app/cli/CliCommands.h"
#include "app/cli/CliFormat.h"

#include <QJsonObject>

namespace kernelpad::cli {

namespace {

/// The kernel name the user knows for a function symbol; the symbol itself for a function
/// that is no kernel entry (a device function nvdisasm lists on its own).
QString kernelNameOf(const CompileResult& compile, const QString& symbol) {
    for (const KernelInfo& k : compile.kernels) {
        if (k.lowered == symbol)
            return k.name.isEmpty() ? symbol : k.name;
    }
    return symbol;
}

/// "@P0 ISETP.GE.AND P0, PT, R0, UR6, PT": the instruction without nvdisasm's spacing.
QString instructionText(const SassInstruction& instruction) {
    QString text = instruction.predicate;
    for (const QString& part : {instruction.opcode, instruction.operands}) {
        if (part.isEmpty())
            continue;
        if (!text.isEmpty())
            text += u' ';
        text += part;
    }
    return text;
}

/// "  45 1  2": the registers, predicates and uniform registers live at an instruction, in
/// columns wide enough for the register file (255, 7, 63).
QString liveColumns(const LiveRegisters& live) {
    return QStringLiteral("%1 %2 %3")
        .arg(live.gprs, 3)
        .arg(live.predicates, 1)
        .arg(live.uniforms, 2);
}

/// The 1-based `line` of `lines`, trimmed and safe to print; empty past the end.
QString sourceText(const QStringList& lines, int line) {
    return line >= 1 && line <= lines.size() ? terminalSafe(lines[line - 1].trimmed()) : QString();
}

/// "unrolled: 48 registers per thread, at most 45 live; 128 local stores, 122 local loads
/// (ptxas: ...)".
QString functionRegisterHeading(const FunctionRegisterUse& f, const CompileResult& compile) {
    const QString kernel = kernelNameOf(compile, f.name);
    QString text = kernel == f.name ? kernel : QStringLiteral("%1 (%2)").arg(kernel, f.name);
    QStringList parts;
    if (f.registers > 0)
        parts << QStringLiteral("%1 registers per thread").arg(f.registers);
    if (f.counted)
        parts << QStringLiteral("at most %1 live").arg(f.peak.gprs);
    text += QStringLiteral(": ") + parts.join(QStringLiteral(", "));
    text += f.localStores + f.localLoads == 0
                ? QStringLiteral("; no local-memory instructions")
                : QStringLiteral("; %1 local stores (STL), %2 local loads (LDL)")
                      .arg(f.localStores)
                      .arg(f.localLoads);
    if (f.ptxasReported)
        text += QStringLiteral(" (%1)").arg(f.ptxasSpillText());
    return text;
}

} // namespace

int runSass(const QStringList& args) {
    return runCompile(QStringList(args) << QStringLiteral("--sass"));
}

QString registersOptionError(bool registers, bool sass, bool diff) {
    if (!registers || (sass && !diff))
        return QString();
    return QStringLiteral("--registers is read from the SASS: use it with --sass "
                          "(kernelpad-cli sass FILE --registers), without --diff");
}

void printSassPart(QTextStream& out, const SassResult& sass,
                   const QVector<FunctionRegisterUse>* registers, const CompileResult& compile,
                   const QString& source, const QString& sourceName) {
    if (registers)
        printRegisters(out, *registers, compile, source, sourceName, sass.liveRangeError);
    else
        printSass(out, sass, compile, source, sourceName);
}

void insertSassJson(QJsonObject* object, const SassResult& sass,
                    const QVector<FunctionRegisterUse>* registers, const CompileResult& compile,
                    const QString& sourceName) {
    if (!sass.ok) {
        object->insert("sassError", sass.error);
        return;
    }
    if (!sass.liveRangeError.isEmpty())
        object->insert("liveRangeError", sass.liveRangeError);
    if (registers)
        object->insert("registers", registersJson(*registers, compile));
    else
        object->insert("sass", sassJson(sass.listing, compile, sourceName));
}

void printRegisters(QTextStream& out, const QVector<FunctionRegisterUse>& functions,
                    const CompileResult& compile, const QString& source, const QString& sourceName,
                    const QString& liveRangeError) {
    const QStringList sourceLines = source.split(u'\n');
    out << "\nRegisters per source line of " << sourceName
        << " (live: the most registers live at any of the line's instructions, from nvdisasm "
           "--print-life-ranges; spill: its STL/LDL instructions, register spills or a local "
           "array):\n";
    if (!liveRangeError.isEmpty())
        out << "  no live registers: " << terminalSafe(liveRangeError) << '\n';
    for (const FunctionRegisterUse& f : functions) {
        out << '\n' << terminalSafe(functionRegisterHeading(f, compile)) << '\n';
        out << QStringLiteral("  %1  %2  %3  %4  %5  %6\n")
                   .arg(QStringLiteral("line"), 5)
                   .arg(QStringLiteral("live"), 4)
                   .arg(QStringLiteral("pred"), 4)
                   .arg(QStringLiteral("unif"), 4)
                   .arg(QStringLiteral("spill"), -28)
                   .arg(QStringLiteral("source"));
        for (const LineRegisterUse& line : f.lines) {
            const auto count = [&](int value) {
                return line.counted ? QString::number(value) : QStringLiteral("-");
            };
            QString row = QStringLiteral("  %1  %2  %3  %4  %5  %6")
                              .arg(line.line, 5)
                              .arg(count(line.peak.gprs), 4)
                              .arg(count(line.peak.predicates), 4)
                              .arg(count(line.peak.uniforms), 4)
                              .arg(line.spillText(), -28)
                              .arg(sourceText(sourceLines, line.line));
            while (row.endsWith(u' '))
                row.chop(1);
            out << row << '\n';
        }
    }
}

QJsonArray registersJson(const QVector<FunctionRegisterUse>& functions,
                         const CompileResult& compile) {
    QJsonArray array;
    for (const FunctionRegisterUse& f : functions) {
        QJsonObject object = registerUseJson(f);
        object.insert("kernel", kernelNameOf(compile, f.name));
        array.append(object);
    }
    return array;
}

void printSass(QTextStream& out, const SassResult& sass, const CompileResult& compile,
               const QString& source, const QString& sourceName) {
    const LineMap map = LineMap::build(compile.ptx, sass.listing, sourceName);
    const QStringList sourceLines = source.split(u'\n');
    out << "\nSASS (" << sass.nvdisasm << " -c -gi -ndf):\n";
    for (int f = 0; f < sass.listing.functions.size(); ++f) {
        const SassFunction& function = sass.listing.functions[f];
        const QString kernel = kernelNameOf(compile, function.name);
        out << "\n" << kernel;
        if (kernel != function.name)
            out << " (" << function.name << ")";
        out << ": " << function.instructions.size() << " instructions\n";
        if (sass.liveRanges)
            out << "        // after each address: the registers, predicates and uniform "
                   "registers live there\n";
        int shownLine = 0;
        for (int i = 0; i < function.instructions.size(); ++i) {
            const SassInstruction& instruction = function.instructions[i];
            const int line = map.sourceLineOfSass(f, i);
            if (line > 0 && line != shownLine) {
                const QString text =
                    line <= sourceLines.size() ? sourceLines[line - 1].trimmed() : QString();
                out << "        // " << sourceName << ':' << line << ": " << terminalSafe(text)
                    << '\n';
                shownLine = line;
            }
            out << "  " << QStringLiteral("%1").arg(instruction.address, 4, 16, QLatin1Char('0'));
            if (sass.liveRanges)
                out << "  "
                    << (instruction.live ? liveColumns(*instruction.live)
                                         : QStringLiteral("      "));
            out << "  " << terminalSafe(instructionText(instruction)) << '\n';
        }
    }
}

QJsonArray sassJson(const SassListing& listing, const CompileResult& compile,
                    const QString& sourceName) {
    const LineMap map = LineMap::build(compile.ptx, listing, sourceName);
    QJsonArray functions;
    for (int f = 0; f < listing.functions.size(); ++f) {
        const SassFunction& function = listing.functions[f];
        QJsonArray instructions;
        for (int i = 0; i < function.instructions.size(); ++i) {
            const SassInstruction& instruction = function.instructions[i];
            QJsonObject object{{"address", instruction.address},
                               {"predicate", instruction.predicate},
                               {"opcode", instruction.opcode},
                               {"operands", instruction.operands},
                               {"line", map.sourceLineOfSass(f, i)}};
            if (instruction.live)
                object.insert("live",
                              QJsonObject{{"registers", instruction.live->gprs},
                                          {"predicates", instruction.live->predicates},
                                          {"uniformRegisters", instruction.live->uniforms}});
            instructions.append(object);
        }
        functions.append(QJsonObject{{"name", function.name},
                                     {"kernel", kernelNameOf(compile, function.name)},
                                     {"instructions", instructions}});
    }
    return functions;
}

} // namespace kernelpad::cli
