#include "ui/widgets/PtxView.h"

#include "ui/Theme.h"
#include "ui/widgets/KernelItems.h"
#include "ui/widgets/RuleHighlighter.h"

#include <QAction>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QTextBlock>
#include <QToolButton>

namespace kernelpad {

/// Colours PTX: directives, instructions, registers, numbers, labels and comments.
class PtxHighlighter : public RuleHighlighter {
public:
    explicit PtxHighlighter(QTextDocument* doc)
        : RuleHighlighter(doc) {
        setTheme(Theme::current());
    }

protected:
    QVector<Rule> makeRules(const Theme& theme) override {
        QVector<Rule> rules;
        // Later rules win where they overlap, so comments come last.
        rules.append({QRegularExpression(QStringLiteral("^\\s*[a-z][a-z0-9_]*(\\.[a-z0-9_]+)*")),
                      format(theme.keyword)});
        rules.append(
            {QRegularExpression(QStringLiteral("^\\s*@!?%p[0-9]+")), format(theme.preprocessor)});
        rules.append({QRegularExpression(QStringLiteral("\\.[a-z_][a-z0-9_]*\\b")),
                      format(theme.cudaKeyword, true)});
        rules.append({QRegularExpression(QStringLiteral("%[a-z_]+[0-9]*(\\.[xyz])?\\b")),
                      format(theme.type)});
        rules.append({QRegularExpression(QStringLiteral(
                          "\\b(0[xX][0-9a-fA-F]+|0[fFdD][0-9a-fA-F]+|[0-9]+(\\.[0-9]+)?)\\b")),
                      format(theme.number)});
        rules.append({QRegularExpression(QStringLiteral("^\\s*\\$?[A-Za-z_][A-Za-z0-9_$]*:")),
                      format(theme.preprocessor, true)});
        rules.append({QRegularExpression(QStringLiteral("\"[^\"]*\"")), format(theme.string)});
        rules.append(
            {QRegularExpression(QStringLiteral("//.*$")), format(theme.comment, false, true)});
        m_commentFormat = format(theme.comment, false, true);
        return rules;
    }

    void highlightBlock(const QString& text) override {
        RuleHighlighter::highlightBlock(text);
        // Block comments /* ... */ may span lines.
        setCurrentBlockState(0);
        int start = previousBlockState() == 1 ? 0 : int(text.indexOf(QLatin1String("/*")));
        while (start >= 0) {
            const int end = int(text.indexOf(QLatin1String("*/"), start));
            const int length = end < 0 ? int(text.size()) - start : end - start + 2;
            if (end < 0)
                setCurrentBlockState(1);
            setFormat(start, length, m_commentFormat);
            start = end < 0 ? -1 : int(text.indexOf(QLatin1String("/*"), start + length));
        }
    }

private:
    QTextCharFormat m_commentFormat;
};

namespace {
const QRegularExpression& entryPattern() {
    static const QRegularExpression re(
        QStringLiteral("^\\s*(?:\\.visible\\s+|\\.weak\\s+)?\\.entry\\s+([A-Za-z0-9_$]+)"),
        QRegularExpression::MultilineOption);
    return re;
}
} // namespace

PtxView::PtxView(QWidget* parent)
    : ListingView(InstructionSet::Ptx, parent)
    , m_entries(new QComboBox(this))
    , m_staleBanner(addBanner(QStringLiteral("stalePtxBanner")))
    , m_saveAsPtx(new QAction(tr("Save as PTX Project"), this)) {
    setHighlighter(new PtxHighlighter(textView()->document()));
    textView()->setPlaceholderText(tr("Compile to see the PTX NVRTC generates."));
    searchField()->setPlaceholderText(tr("Search PTX (Enter: next, Shift+Enter: previous)"));
    m_entries->setObjectName(QStringLiteral("ptxEntries"));
    m_entries->setToolTip(tr("Jump to a kernel entry"));
    m_entries->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_entries->setMinimumContentsLength(16);

    toolBar()->insertWidget(0, new QLabel(tr("Entry:"), this));
    toolBar()->insertWidget(1, m_entries);
    m_saveAsPtx->setObjectName(QStringLiteral("saveAsPtxProject"));
    m_saveAsPtx->setToolTip(tr("Start a new project whose source is this PTX, with the same "
                               "arguments and launch: edit the PTX by hand, nvJitLink "
                               "assembles it"));
    m_saveAsPtx->setEnabled(false);
    connect(m_saveAsPtx, &QAction::triggered, this, &PtxView::saveAsPtxProjectRequested);
    auto* saveButton = new QToolButton(this);
    saveButton->setObjectName(QStringLiteral("saveAsPtxProjectButton"));
    saveButton->setDefaultAction(m_saveAsPtx);
    saveButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    toolBar()->addWidget(saveButton);
    QPlainTextEdit* text = textView();
    text->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(text, &QWidget::customContextMenuRequested, this, [this, text](const QPoint& at) {
        QMenu* menu = text->createStandardContextMenu(at);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->addSeparator();
        menu->addAction(m_saveAsPtx);
        menu->popup(text->viewport()->mapToGlobal(at));
    });
    connect(m_entries, &QComboBox::activated, this, &PtxView::jumpToEntry);
    applyTheme(Theme::forPalette(palette()));
}

void PtxView::setPtx(const QString& ptx) {
    setListingText(ptx);
    fillKernelItems(m_entries, entries()); // demangled names beside the lowered ones
    m_entries->setEnabled(m_entries->count() > 0);
    m_saveAsPtx->setEnabled(!ptx.isEmpty());
    infoLabel()->setText(ptx.isEmpty() ? QString()
                                       : tr("%1 lines").arg(textView()->document()->blockCount()));
}

void PtxView::showCompile(const CompileResult& result, const QTime& at) {
    if (result.ok || ptx().isEmpty()) {
        setPtx(result.ptx);
        m_lastGoodAt = result.ok ? at : QTime();
        m_staleBanner->hide();
        return;
    }
    // Keep the last good PTX to read while the source is being fixed, said to be stale.
    m_staleBanner->setText(tr("This PTX is from the last successful compile at %1; the current "
                              "source does not compile.")
                               .arg(m_lastGoodAt.isValid()
                                        ? m_lastGoodAt.toString(QStringLiteral("HH:mm:ss"))
                                        : tr("an earlier time")));
    m_staleBanner->show();
}

bool PtxView::isStale() const {
    return !m_staleBanner->isHidden();
}

void PtxView::clear() {
    setPtx(QString());
    m_lastGoodAt = QTime();
    m_staleBanner->hide();
}

QString PtxView::ptx() const {
    return textView()->toPlainText();
}

QStringList PtxView::entries() const {
    QStringList names;
    auto it = entryPattern().globalMatch(textView()->toPlainText());
    while (it.hasNext())
        names.append(it.next().captured(1));
    return names;
}

void PtxView::jumpToEntry(int index) {
    int seen = 0;
    QPlainTextEdit* text = textView();
    for (QTextBlock block = text->document()->begin(); block.isValid(); block = block.next()) {
        if (entryPattern().match(block.text()).hasMatch() && seen++ == index) {
            QTextCursor cursor(block);
            text->setTextCursor(cursor);
            text->centerCursor();
            return;
        }
    }
}

void PtxView::showEvent(QShowEvent* event) {
    ListingView::showEvent(event);
    emit shown();
}

} // namespace kernelpad
