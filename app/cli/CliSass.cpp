#include "app/cli/CliSass.h"

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

} // namespace

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
            out << "  " << QStringLiteral("%1").arg(instruction.address, 4, 16, QLatin1Char('0'))
                << "  " << terminalSafe(instructionText(instruction)) << '\n';
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
            instructions.append(QJsonObject{{"address", instruction.address},
                                            {"predicate", instruction.predicate},
                                            {"opcode", instruction.opcode},
                                            {"operands", instruction.operands},
                                            {"line", map.sourceLineOfSass(f, i)}});
        }
        functions.append(QJsonObject{{"name", function.name},
                                     {"kernel", kernelNameOf(compile, function.name)},
                                     {"instructions", instructions}});
    }
    return functions;
}

} // namespace kernelpad::cli
