#include "ui/widgets/PtxView.h"

#include "ui/Theme.h"
#include "ui/widgets/KernelItems.h"
#include "ui/widgets/RuleHighlighter.h"

#include <QAction>
#include <QComboBox>
#include <QEvent>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QShortcut>
#include <QTextBlock>
#include <QToolButton>
#include <QVBoxLayout>

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
    : QWidget(parent)
    , m_text(new QPlainTextEdit(this))
    , m_search(new QLineEdit(this))
    , m_entries(new QComboBox(this))
    , m_info(new QLabel(this))
    , m_staleBanner(new QLabel(this))
    , m_highlighter(new PtxHighlighter(m_text->document()))
    , m_saveAsPtx(new QAction(tr("Save as PTX Project"), this)) {
    m_text->setReadOnly(true);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setFont(monospaceFont());
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_text->setPlaceholderText(tr("Compile to see the PTX NVRTC generates."));
    m_search->setPlaceholderText(tr("Search PTX (Enter: next, Shift+Enter: previous)"));
    m_search->setClearButtonEnabled(true);
    m_entries->setObjectName(QStringLiteral("ptxEntries"));
    m_entries->setToolTip(tr("Jump to a kernel entry"));
    m_staleBanner->setObjectName(QStringLiteral("stalePtxBanner"));
    m_staleBanner->setWordWrap(true);
    m_staleBanner->setMargin(4);
    m_staleBanner->hide();
    m_entries->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_entries->setMinimumContentsLength(16);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(new QLabel(tr("Entry:"), this));
    bar->addWidget(m_entries);
    bar->addWidget(m_search, 1);
    bar->addWidget(m_info);
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
    bar->addWidget(saveButton);
    m_text->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_text, &QWidget::customContextMenuRequested, this, [this](const QPoint& at) {
        QMenu* menu = m_text->createStandardContextMenu(at);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->addSeparator();
        menu->addAction(m_saveAsPtx);
        menu->popup(m_text->viewport()->mapToGlobal(at));
    });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    layout->addLayout(bar);
    layout->addWidget(m_staleBanner);
    layout->addWidget(m_text, 1);

    connect(m_search, &QLineEdit::returnPressed, this, [this] {
        const bool backward = QGuiApplication::keyboardModifiers() & Qt::ShiftModifier;
        if (!find(m_search->text(), backward))
            m_info->setText(tr("Not found"));
    });
    connect(m_entries, &QComboBox::activated, this, &PtxView::jumpToEntry);
    auto* findShortcut =
        new QShortcut(QKeySequence::Find, this, nullptr, nullptr, Qt::WidgetWithChildrenShortcut);
    connect(findShortcut, &QShortcut::activated, this, [this] {
        m_search->setFocus();
        m_search->selectAll();
    });
    applyTheme();
}

void PtxView::setPtx(const QString& ptx) {
    m_text->setPlainText(ptx);
    fillKernelItems(m_entries, entries()); // demangled names beside the lowered ones
    m_entries->setEnabled(m_entries->count() > 0);
    m_saveAsPtx->setEnabled(!ptx.isEmpty());
    m_info->setText(ptx.isEmpty() ? QString()
                                  : tr("%1 lines").arg(m_text->document()->blockCount()));
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
    return m_text->toPlainText();
}

QStringList PtxView::entries() const {
    QStringList names;
    auto it = entryPattern().globalMatch(m_text->toPlainText());
    while (it.hasNext())
        names.append(it.next().captured(1));
    return names;
}

bool PtxView::find(const QString& text, bool backward) {
    if (text.isEmpty())
        return false;
    const QTextDocument::FindFlags flags =
        backward ? QTextDocument::FindBackward : QTextDocument::FindFlags();
    if (m_text->find(text, flags)) {
        m_info->clear();
        return true;
    }
    // Wrap around once.
    QTextCursor cursor = m_text->textCursor();
    cursor.movePosition(backward ? QTextCursor::End : QTextCursor::Start);
    m_text->setTextCursor(cursor);
    const bool found = m_text->find(text, flags);
    m_info->setText(found ? tr("Wrapped") : tr("Not found"));
    return found;
}

void PtxView::jumpToEntry(int index) {
    int seen = 0;
    for (QTextBlock block = m_text->document()->begin(); block.isValid(); block = block.next()) {
        if (entryPattern().match(block.text()).hasMatch() && seen++ == index) {
            QTextCursor cursor(block);
            m_text->setTextCursor(cursor);
            m_text->centerCursor();
            return;
        }
    }
}

void PtxView::applyTheme() {
    const Theme theme = Theme::forPalette(palette());
    m_highlighter->setTheme(theme);
    m_staleBanner->setStyleSheet(
        QStringLiteral("#stalePtxBanner { background: %1; color: %2; border: 1px solid %3; }")
            .arg(theme.bannerPaper.name(), theme.bannerText.name(), theme.warningColor.name()));
    QPalette p = m_text->palette();
    p.setColor(QPalette::Base, theme.paper);
    p.setColor(QPalette::Text, theme.text);
    m_text->setPalette(p);
}

void PtxView::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyTheme();
}

} // namespace kernelpad
