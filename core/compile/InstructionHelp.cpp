#include "core/compile/InstructionHelp.h"

#include "core/compile/InstructionHelpTables.h"

#include <QHash>
#include <QRegularExpression>

#include <algorithm>

namespace kernelpad {

namespace {

using HelpTable = QHash<QString, QString>;

HelpTable toHelpTable(const QVector<help::Entry>& entries) {
    HelpTable table;
    for (const help::Entry& entry : entries)
        table.insert(QString::fromLatin1(entry.name), QString::fromLatin1(entry.text));
    return table;
}

const HelpTable& entries(InstructionSet set) {
    static const HelpTable ptx = toHelpTable(help::ptxEntries());
    static const HelpTable sass = toHelpTable(help::sassEntries());
    return set == InstructionSet::Ptx ? ptx : sass;
}

const HelpTable& modifiers(InstructionSet set) {
    static const HelpTable ptx = toHelpTable(help::ptxModifiers());
    static const HelpTable sass = toHelpTable(help::sassModifiers());
    return set == InstructionSet::Ptx ? ptx : sass;
}

/// "@%p1 ld.global.f32" -> "ld.global.f32"; "@!P0 EXIT" -> "EXIT".
QString withoutPredicate(const QString& instruction) {
    QString text = instruction.trimmed();
    if (text.startsWith(u'@')) {
        const qsizetype space = text.indexOf(QRegularExpression(QStringLiteral("\\s")));
        text = space < 0 ? QString() : text.mid(space).trimmed();
    }
    const qsizetype end = text.indexOf(QRegularExpression(QStringLiteral("[\\s,;]")));
    return end < 0 ? text : text.left(end);
}

void addModifiers(InstructionHelp& help, InstructionSet set, const QStringList& parts) {
    const QString prefix = set == InstructionSet::Ptx ? QStringLiteral(".") : QString();
    for (const QString& part : parts) {
        if (part.isEmpty())
            continue;
        const QString modifier = prefix + part;
        // PTX writes modifiers in lower case; nvdisasm in upper case.
        const QString text = modifiers(set).value(modifier);
        if (!text.isEmpty())
            help.modifiers.append({modifier, text});
    }
}

} // namespace

QString InstructionHelp::toPlainText() const {
    if (isEmpty())
        return {};
    QString text = opcode + QStringLiteral(": ") + summary;
    if (uniform)
        text += QStringLiteral("\n  U: the uniform datapath, computed once for the whole warp");
    for (const ModifierHelp& m : modifiers)
        text += QStringLiteral("\n  %1: %2").arg(m.modifier, m.text);
    return text;
}

QString InstructionHelp::toHtml() const {
    if (isEmpty())
        return {};
    QString html = QStringLiteral("<p style='white-space:normal'><b>%1</b> &mdash; %2</p>")
                       .arg(opcode.toHtmlEscaped(), summary.toHtmlEscaped());
    QStringList items;
    if (uniform)
        items << QStringLiteral("<li><b>U</b>: the uniform datapath, computed once for the "
                                "whole warp</li>");
    for (const ModifierHelp& m : modifiers)
        items << QStringLiteral("<li><b>%1</b>: %2</li>")
                     .arg(m.modifier.toHtmlEscaped(), m.text.toHtmlEscaped());
    if (!items.isEmpty())
        html += QStringLiteral("<ul style='margin:0'>") + items.join(QString()) +
                QStringLiteral("</ul>");
    return html;
}

InstructionHelp instructionHelp(InstructionSet set, const QString& instruction) {
    const QString written = withoutPredicate(instruction);
    InstructionHelp help;
    if (written.isEmpty())
        return help;
    const HelpTable& table = entries(set);
    if (set == InstructionSet::Ptx) {
        // The longest dotted prefix with an entry: "cp.async.bulk.tensor.2d" is one opcode
        // with a modifier, "ld.global.nc.v4.f32" is ld with four.
        const QStringList parts = written.split(u'.');
        for (qsizetype n = parts.size(); n >= 1; --n) {
            const QString key = parts.mid(0, n).join(u'.');
            const auto it = table.constFind(key);
            if (it == table.constEnd())
                continue;
            help.opcode = key;
            help.summary = it.value();
            addModifiers(help, set, parts.mid(n));
            return help;
        }
        return help;
    }
    const QStringList parts = written.split(u'.');
    QString base = parts.first();
    auto it = table.constFind(base);
    // ULEA, UIADD3, ULDC: the uniform datapath's twin of a vector instruction.
    if (it == table.constEnd() && base.size() > 1 && base.startsWith(u'U')) {
        it = table.constFind(base.mid(1));
        help.uniform = it != table.constEnd();
    }
    if (it == table.constEnd())
        return help;
    help.opcode = base;
    help.summary = it.value();
    addModifiers(help, set, parts.mid(1));
    return help;
}

QStringList instructionHelpOpcodes(InstructionSet set) {
    QStringList names = entries(set).keys();
    std::sort(names.begin(), names.end());
    return names;
}

QString opcodeAtColumn(InstructionSet set, const QString& line, int column) {
    // PTX: optional label-free guard then the dotted opcode; SASS: an optional address
    // ("  00a0  " as the view shows it, "/*00a0*/" as nvdisasm prints it) then the same.
    static const QRegularExpression ptx(
        QStringLiteral("^\\s*(?:@!?%[A-Za-z0-9_]+\\s+)?([a-z][a-z0-9_]*(?:\\.[A-Za-z0-9_:]+)*)"
                       "(?=[\\s;]|$)"));
    static const QRegularExpression sass(
        QStringLiteral("^\\s*(?:/\\*[0-9a-f]+\\*/|[0-9a-f]{4,})?\\s*(?:@!?U?P[0-9T]\\s+)?"
                       "([A-Z][A-Z0-9_]*(?:\\.[A-Z0-9_]+)*)(?=[\\s;]|$)"));
    const QRegularExpressionMatch match = (set == InstructionSet::Ptx ? ptx : sass).match(line);
    if (!match.hasMatch())
        return {};
    const qsizetype start = match.capturedStart(1);
    if (column < start || column > match.capturedEnd(1))
        return {};
    return match.captured(1);
}

} // namespace kernelpad
