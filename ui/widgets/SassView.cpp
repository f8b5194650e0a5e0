#include "ui/widgets/SassView.h"

#include "ui/Theme.h"
#include "ui/widgets/KernelItems.h"
#include "ui/widgets/RuleHighlighter.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QTextBlock>

namespace kernelpad {

/// Colours SASS: opcodes, predicates, registers, numbers, branch targets and comments.
class SassHighlighter : public RuleHighlighter {
public:
    explicit SassHighlighter(QTextDocument* doc)
        : RuleHighlighter(doc) {
        setTheme(Theme::current());
    }

protected:
    QVector<Rule> makeRules(const Theme& theme) override {
        QVector<Rule> rules;
        // Later rules win where they overlap, so comments come last. Lines read
        // "  0080  @P0 ISETP.GE.AND P0, PT, R0, UR6, PT".
        rules.append(
            {QRegularExpression(QStringLiteral("^\\s*[0-9a-f]+")), format(theme.lineNumberText)});
        rules.append({QRegularExpression(QStringLiteral("\\b[A-Z][A-Z0-9_]*(\\.[A-Z0-9_]+)*\\b")),
                      format(theme.keyword)});
        rules.append(
            {QRegularExpression(QStringLiteral("\\b(U?R[0-9]+|RZ|URZ|U?P[0-9T]|SR_[A-Za-z_.]+|"
                                               "B[0-9]+)(\\.[a-z0-9]+)?\\b")),
             format(theme.type)});
        rules.append(
            {QRegularExpression(QStringLiteral("@!?U?P[0-9T]")), format(theme.preprocessor, true)});
        rules.append({QRegularExpression(QStringLiteral(
                          "-?\\b(0x[0-9a-fA-F]+|[0-9]+(\\.[0-9]+)?(e[-+]?[0-9]+)?)\\b")),
                      format(theme.number)});
        rules.append(
            {QRegularExpression(QStringLiteral("`\\([^)]*\\)")), format(theme.preprocessor, true)});
        rules.append(
            {QRegularExpression(QStringLiteral("//.*$")), format(theme.comment, false, true)});
        return rules;
    }
};

namespace {

/// "@P0 ISETP.GE.AND P0, PT" without nvdisasm's column spacing.
QString instructionText(const SassInstruction& instruction) {
    QStringList parts;
    for (const QString& part : {instruction.predicate, instruction.opcode, instruction.operands}) {
        if (!part.isEmpty())
            parts << part;
    }
    return parts.join(u' ');
}

/// The "live" column: registers, predicates and uniform registers live at an instruction, wide
/// enough for the register file (255, 7, 63); blank where the life ranges did not list it.
QString liveColumnText(const SassInstruction& instruction) {
    if (!instruction.live)
        return QStringLiteral("        ");
    return QStringLiteral("%1 %2 %3")
        .arg(instruction.live->gprs, 3)
        .arg(instruction.live->predicates, 1)
        .arg(instruction.live->uniforms, 2);
}

/// "  ·  at most 45 live registers (of 48), ...; spill: 3 stores, 2 loads" after a line's
/// comment; empty without figures.
QString lineFigures(const FunctionRegisterUse* function, int line) {
    const LineRegisterUse* use = function ? function->findLine(line) : nullptr;
    const QString summary = use ? use->summary() : QString();
    return summary.isEmpty() ? QString() : QStringLiteral("  ·  at most ") + summary;
}

} // namespace

QString SassView::compilePlaceholder() {
    return tr("Compile to see the SASS: the GPU's instructions, as nvdisasm prints them.");
}

SassView::SassView(QWidget* parent)
    : ListingView(InstructionSet::Sass, parent)
    , m_kernels(new QComboBox(this))
    , m_message(addBanner(QStringLiteral("sassMessage"))) {
    setHighlighter(new SassHighlighter(textView()->document()));
    textView()->setPlaceholderText(compilePlaceholder());
    searchField()->setPlaceholderText(tr("Search SASS (Enter: next, Shift+Enter: previous)"));
    m_kernels->setObjectName(QStringLiteral("sassKernels"));
    m_kernels->setToolTip(tr("The kernel whose SASS is shown"));
    m_kernels->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_kernels->setMinimumContentsLength(16);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);

    toolBar()->insertWidget(0, new QLabel(tr("Kernel:"), this));
    toolBar()->insertWidget(1, m_kernels);
    connect(m_kernels, &QComboBox::activated, this, &SassView::showFunction);
    connect(textView(), &QPlainTextEdit::cursorPositionChanged, this, &SassView::onCursorMoved);
    applyTheme(Theme::forPalette(palette()));
}

void SassView::showReport(const SassReport& report) {
    const QString shown = m_kernels->currentData(kLoweredNameRole).toString();
    m_report = report;
    m_registers = report.sass.ok ? kernelpad::registerUse(report) : QVector<FunctionRegisterUse>{};
    QStringList names;
    for (const SassFunction& f : report.sass.listing.functions)
        names << f.name;
    fillKernelItems(m_kernels, names); // demangled names beside the symbols
    m_kernels->setEnabled(m_kernels->count() > 1);
    m_message->setVisible(!report.sass.ok);
    m_message->setText(report.sass.error);
    // Without SASS (no nvdisasm) the empty listing says why, not "Compile to see the SASS".
    textView()->setPlaceholderText(report.sass.error.isEmpty() ? compilePlaceholder()
                                                               : report.sass.error);
    // Keep the kernel the user was reading across recompiles.
    const int again = names.indexOf(shown);
    if (again >= 0)
        m_kernels->setCurrentIndex(again);
    showFunction(m_kernels->currentIndex());
}

void SassView::clear() {
    showReport(SassReport{});
    m_message->hide();
}

QStringList SassView::functions() const {
    QStringList names;
    for (const SassFunction& f : m_report.sass.listing.functions)
        names << f.name;
    return names;
}

int SassView::currentFunction() const {
    return m_kernels->currentIndex();
}

void SassView::setCurrentFunction(int index) {
    m_kernels->setCurrentIndex(index);
    showFunction(index);
}

void SassView::showFunction(int index) {
    m_instructionOfBlock.clear();
    m_blockOfInstruction.clear();
    m_highlighted.clear();
    const QVector<SassFunction>& functions = m_report.sass.listing.functions;
    if (index < 0 || index >= functions.size()) {
        setListingText(QString());
        infoLabel()->clear();
        return;
    }
    const SassFunction& function = functions[index];
    const FunctionRegisterUse* registers =
        index < m_registers.size() ? &m_registers[index] : nullptr;
    const bool live = m_report.sass.liveRanges;
    QStringList lines;
    QVector<int> sourceOfBlock; // a "// file:N" line belongs to the line it names
    if (live) {
        lines << tr("//  addr  live: registers, predicates, uniform registers");
        m_instructionOfBlock << -1;
        sourceOfBlock << 0;
    }
    int shownLine = 0;
    for (int i = 0; i < function.instructions.size(); ++i) {
        const int line = m_report.lines.sourceLineOfSass(index, i);
        if (line > 0 && line != shownLine) {
            lines << QStringLiteral("// %1:%2%3")
                         .arg(m_report.sourceName)
                         .arg(line)
                         .arg(lineFigures(registers, line));
            m_instructionOfBlock << -1;
            sourceOfBlock << line;
            shownLine = line;
        }
        m_blockOfInstruction << int(lines.size());
        m_instructionOfBlock << i;
        sourceOfBlock << line;
        const SassInstruction& instruction = function.instructions[i];
        lines << QStringLiteral("  %1  %2%3")
                     .arg(instruction.address, 4, 16, QLatin1Char('0'))
                     .arg(live ? liveColumnText(instruction) + QStringLiteral("  ") : QString())
                     .arg(instructionText(instruction));
    }
    setListingText(lines.join(u'\n'));
    setBlockSourceLines(sourceOfBlock);
    QString info = tr("%n instruction(s)", nullptr, int(function.instructions.size()));
    if (registers && registers->counted)
        info += tr(" · at most %1 registers live").arg(registers->peak.gprs);
    if (registers && registers->registers > 0)
        info += tr(" · %1 registers per thread").arg(registers->registers);
    if (registers && registers->localStores + registers->localLoads > 0)
        info += tr(" · %1 STL, %2 LDL").arg(registers->localStores).arg(registers->localLoads);
    if (registers && registers->ptxasReported &&
        registers->spillStoreBytes + registers->spillLoadBytes > 0)
        info += QStringLiteral(" (") + registers->ptxasSpillText() + u')';
    infoLabel()->setText(info);
    infoLabel()->setToolTip(m_report.sass.liveRangeError.isEmpty()
                                ? QString()
                                : tr("No live registers: %1").arg(m_report.sass.liveRangeError));
    if (m_highlightedLine > 0)
        highlightSourceLine(m_highlightedLine, false);
}

int SassView::blockOfInstruction(int index) const {
    return index >= 0 && index < m_blockOfInstruction.size() ? m_blockOfInstruction[index] : -1;
}

int SassView::highlightSourceLine(int sourceLine, bool scroll) {
    m_highlightedLine = sourceLine;
    m_highlighted = sourceLine > 0 ? m_report.lines.sassInstructions(sourceLine, currentFunction())
                                   : QVector<int>{};
    QList<QTextEdit::ExtraSelection> selections;
    const Theme theme = Theme::forPalette(palette());
    QPlainTextEdit* text = textView();
    for (const int index : m_highlighted) {
        QTextEdit::ExtraSelection selection;
        selection.format.setBackground(theme.findMatch);
        selection.format.setProperty(QTextFormat::FullWidthSelection, true);
        selection.cursor =
            QTextCursor(text->document()->findBlockByNumber(blockOfInstruction(index)));
        selections << selection;
    }
    text->setExtraSelections(selections);
    if (scroll && !selections.isEmpty()) {
        // Scroll without moving the cursor, which would report a click.
        const QSignalBlocker blocker(text);
        text->setTextCursor(selections.first().cursor);
        text->ensureCursorVisible();
    }
    return int(m_highlighted.size());
}

void SassView::onCursorMoved() {
    const int block = textView()->textCursor().blockNumber();
    if (block < 0 || block >= m_instructionOfBlock.size())
        return;
    int instruction = m_instructionOfBlock[block];
    // A "// file:N" line stands for the instruction under it.
    if (instruction < 0 && block + 1 < m_instructionOfBlock.size())
        instruction = m_instructionOfBlock[block + 1];
    const int line = m_report.lines.sourceLineOfSass(currentFunction(), instruction);
    if (line > 0)
        emit sourceLineClicked(line);
}

QString SassView::message() const {
    return m_message->isHidden() ? QString() : m_message->text();
}

void SassView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    emit wanted();
}

} // namespace kernelpad
