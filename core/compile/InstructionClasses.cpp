#include "core/compile/InstructionClasses.h"

#include "core/compile/PtxParser.h"

#include <QRegularExpression>

#include <algorithm>
#include <initializer_list>
#include <utility>

namespace kernelpad {

namespace {

using Table = QHash<QString, InstructionClass>;

Table makeTable(std::initializer_list<std::pair<InstructionClass, QStringList>> groups) {
    Table table;
    for (const auto& [kind, names] : groups)
        for (const QString& name : names)
            table.insert(name, kind);
    return table;
}

// SASS opcodes without modifiers, from the CUDA Binary Utilities' instruction set tables
// (Hopper and Ampere). Uniform-datapath forms ("UIADD3", "ULOP3") are looked up without
// their leading U when the full name is not here.
const Table& sassTable() {
    static const Table table = makeTable({
        {InstructionClass::Memory,
         {"LD",       "ST",      "LDG",      "STG",          "LDS",    "STS",     "LDL",
          "STL",      "LDC",     "LDSM",     "STSM",         "LDGSTS", "ATOM",    "ATOMS",
          "ATOMG",    "RED",     "CCTL",     "CCTLL",        "CCTLT",  "TEX",     "TLD",
          "TLD4",     "TMML",    "TXD",      "TXQ",          "SULD",   "SUST",    "SUATOM",
          "SURED",    "SUQUERY", "UBLKCP",   "UBLKRED",      "UBLKPF", "UTMALDG", "UTMASTG",
          "UTMAREDG", "UTMAPF",  "UTMACCTL", "UTMACMDFLUSH", "LDTRAM", "QSPC"}},
        {InstructionClass::Arithmetic,
         {"FADD",   "FADD32I", "FMUL",   "FMUL32I", "FFMA",      "FFMA32I",   "FMNMX", "FSET",
          "FSETP",  "FSEL",    "FCHK",   "FSWZADD", "MUFU",      "DADD",      "DMUL",  "DFMA",
          "DMMA",   "DSETP",   "DMNMX",  "HADD2",   "HMUL2",     "HFMA2",     "HSET2", "HSETP2",
          "HMNMX2", "HMMA",    "IMMA",   "BMMA",    "HGMMA",     "IGMMA",     "BGMMA", "QGMMA",
          "IMAD",   "IMAD32I", "IMADSP", "IMUL",    "IMUL32I",   "IADD",      "IADD3", "IADD32I",
          "IABS",   "IMNMX",   "ISETP",  "ISCADD",  "ISCADD32I", "LEA",       "LOP",   "LOP3",
          "LOP32I", "SHF",     "SHL",    "SHR",     "POPC",      "FLO",       "BREV",  "BMSK",
          "SGXT",   "PRMT",    "IDP",    "IDP4A",   "VABSDIFF",  "VABSDIFF4", "SEL",   "VIADD",
          "VIMNMX", "VHMNMX",  "FMNMX3", "FADD2",   "FMUL2"}},
        {InstructionClass::Conversion,
         {"F2F", "F2I", "I2F", "I2I", "F2FP", "I2FP", "F2IP", "FRND"}},
        {InstructionClass::Control,
         {"BRA",  "BRX",  "BRXU",  "JMP",   "JMX",      "JMXU",         "CALL",
          "RET",  "EXIT", "BSSY",  "BSYNC", "WARPSYNC", "BREAK",        "BPT",
          "KILL", "BMOV", "YIELD", "RTT",   "ACQBULK",  "ENDCOLLECTIVE"}},
        {InstructionClass::Sync,
         {"BAR", "MEMBAR", "ERRBAR", "DEPBAR", "LDGDEPBAR", "SYNCS", "ARRIVES", "FENCE",
          "CGAERRBAR", "CGABAR_ARV", "CGABAR_GET", "CGABAR_SET", "CGABAR_WAIT", "WARPGROUP"}},
    });
    return table;
}

// PTX opcodes without modifiers, from the PTX ISA's instruction chapters.
const Table& ptxTable() {
    static const Table table = makeTable({
        {InstructionClass::Memory,
         {"ld",           "ldu",       "st",       "atom",          "red",
          "prefetch",     "prefetchu", "cp",       "tex",           "tld4",
          "txq",          "suld",      "sust",     "sured",         "suq",
          "ldmatrix",     "stmatrix",  "multimem", "applypriority", "discard",
          "createpolicy", "tensormap"}},
        {InstructionClass::Arithmetic,
         {"add",  "sub",      "mul",   "mad",  "mul24", "mad24", "sad", "div",  "rem",   "abs",
          "neg",  "min",      "max",   "popc", "clz",   "bfind", "fns", "brev", "bfe",   "bfi",
          "dp4a", "dp2a",     "fma",   "rcp",  "sqrt",  "rsqrt", "sin", "cos",  "lg2",   "ex2",
          "tanh", "copysign", "testp", "and",  "or",    "xor",   "not", "cnot", "lop3",  "shf",
          "shl",  "shr",      "setp",  "set",  "selp",  "slct",  "mma", "wmma", "wgmma", "szext",
          "bmsk", "prmt",     "addc",  "subc", "madc"}},
        {InstructionClass::Conversion, {"cvt", "cvta"}},
        {InstructionClass::Control, {"bra", "brx", "call", "ret", "exit", "trap", "brkpt"}},
        {InstructionClass::Sync,
         {"bar", "barrier", "membar", "fence", "mbarrier", "griddepcontrol", "elect"}},
    });
    return table;
}

QString sassBase(const QString& opcode) {
    const int dot = opcode.indexOf(QLatin1Char('.'));
    return dot < 0 ? opcode : opcode.left(dot);
}

} // namespace

QString instructionClassName(InstructionClass kind) {
    switch (kind) {
    case InstructionClass::Memory:
        return QStringLiteral("memory");
    case InstructionClass::Arithmetic:
        return QStringLiteral("arithmetic");
    case InstructionClass::Conversion:
        return QStringLiteral("conversion");
    case InstructionClass::Control:
        return QStringLiteral("control");
    case InstructionClass::Sync:
        return QStringLiteral("sync");
    case InstructionClass::Other:
        break;
    }
    return QStringLiteral("other");
}

std::array<InstructionClass, kInstructionClassCount> instructionClasses() {
    return {InstructionClass::Memory,  InstructionClass::Arithmetic, InstructionClass::Conversion,
            InstructionClass::Control, InstructionClass::Sync,       InstructionClass::Other};
}

InstructionClass classifySassOpcode(const QString& opcode) {
    const Table& table = sassTable();
    const QString base = sassBase(opcode);
    auto it = table.constFind(base);
    if (it != table.constEnd())
        return *it;
    // UIADD3, ULOP3, ULDC, UBAR...: the uniform datapath's form of the same operation.
    if (base.size() > 1 && base.startsWith(QLatin1Char('U'))) {
        it = table.constFind(base.mid(1));
        if (it != table.constEnd())
            return *it;
    }
    return InstructionClass::Other;
}

InstructionClass classifyPtxOpcode(const QString& opcode) {
    // cp.async.wait_group, cp.async.commit_group, cp.async.bulk.wait_group: they order
    // copies already issued, as a barrier does; the other cp.* forms move data.
    if (opcode.startsWith(QLatin1String("cp.")) &&
        (opcode.contains(QLatin1String(".wait")) || opcode.contains(QLatin1String(".commit"))))
        return InstructionClass::Sync;
    const Table& table = ptxTable();
    const int dot = opcode.indexOf(QLatin1Char('.'));
    const auto it = table.constFind(dot < 0 ? opcode : opcode.left(dot));
    return it == table.constEnd() ? InstructionClass::Other : *it;
}

bool isLocalLoad(const QString& opcode) {
    return sassBase(opcode) == QLatin1String("LDL") || opcode.startsWith(QLatin1String("ld.local"));
}

bool isLocalStore(const QString& opcode) {
    return sassBase(opcode) == QLatin1String("STL") || opcode.startsWith(QLatin1String("st.local"));
}

InstructionCounts countSass(const SassFunction& function) {
    InstructionCounts counts;
    for (const SassInstruction& instruction : function.instructions) {
        counts.add(classifySassOpcode(instruction.opcode));
        counts.localLoads += isLocalLoad(instruction.opcode) ? 1 : 0;
        counts.localStores += isLocalStore(instruction.opcode) ? 1 : 0;
    }
    return counts;
}

InstructionCounts countPtx(const PtxFunctionBody& function) {
    InstructionCounts counts;
    for (const QString& opcode : function.opcodes) {
        counts.add(classifyPtxOpcode(opcode));
        counts.localLoads += isLocalLoad(opcode) ? 1 : 0;
        counts.localStores += isLocalStore(opcode) ? 1 : 0;
    }
    return counts;
}

namespace {

/// The opcode of one PTX statement (the text before its ';'), or empty for a directive, a
/// label alone or nothing.
QString statementOpcode(const QString& statement) {
    static const QRegularExpression label(QStringLiteral("^[$%\\w]+:\\s*"));
    static const QRegularExpression predicate(QStringLiteral("^@!?%?[$\\w]+\\s+"));
    // .loc and .file lines end without ';' and so sit in front of the next instruction.
    QString text;
    for (const QString& line : statement.split(QLatin1Char('\n'))) {
        const QString trimmed = line.trimmed();
        if (trimmed.startsWith(QLatin1String(".loc")) || trimmed.startsWith(QLatin1String(".file")))
            continue;
        text += trimmed + QLatin1Char(' ');
    }
    text = text.trimmed();
    for (QRegularExpressionMatch m = label.match(text); m.hasMatch(); m = label.match(text))
        text = text.mid(m.capturedLength());
    const QRegularExpressionMatch p = predicate.match(text);
    if (p.hasMatch())
        text = text.mid(p.capturedLength());
    if (text.isEmpty() || text.startsWith(QLatin1Char('.')))
        return {};
    const int end = text.indexOf(QRegularExpression(QStringLiteral("[\\s(]")));
    return end < 0 ? text : text.left(end);
}

} // namespace

QVector<PtxFunctionBody> ptxFunctionBodies(const QString& ptx) {
    static const QRegularExpression header(
        QStringLiteral("\\.(entry|func)\\s+(?:\\([^)]*\\)\\s*)?([A-Za-z_$%][\\w$]*)"));
    const QString text = ptxWithoutCommentsAndStrings(ptx);
    QVector<PtxFunctionBody> functions;
    QString statement;
    int depth = 0;
    bool inFunction = false;
    for (const QChar c : text) {
        if (c == QLatin1Char('{')) {
            if (depth == 0) {
                // The last match: a buffer may hold earlier .func prototypes' text.
                QRegularExpressionMatchIterator it = header.globalMatch(statement);
                QRegularExpressionMatch last;
                while (it.hasNext())
                    last = it.next();
                inFunction = last.hasMatch();
                if (inFunction) {
                    PtxFunctionBody body;
                    body.entry = last.captured(1) == QLatin1String("entry");
                    body.name = last.captured(2);
                    functions.append(body);
                }
            }
            ++depth;
            statement.clear();
        } else if (c == QLatin1Char('}')) {
            depth = std::max(0, depth - 1);
            if (depth == 0)
                inFunction = false;
            statement.clear();
        } else if (c == QLatin1Char(';')) {
            if (inFunction && depth > 0) {
                const QString opcode = statementOpcode(statement);
                if (!opcode.isEmpty())
                    functions.last().opcodes.append(opcode);
            }
            statement.clear();
        } else {
            statement += c;
        }
    }
    return functions;
}

} // namespace kernelpad
