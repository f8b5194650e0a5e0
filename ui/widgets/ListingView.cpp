#include "ui/widgets/ListingView.h"

#include "ui/widgets/LineColours.h"
#include "ui/widgets/RuleHighlighter.h"

#include <QEvent>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QPlainTextEdit>
#include <QShortcut>
#include <QTextBlock>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>

namespace kernelpad {

/// The text of a listing with the source-line bands painted behind the visible blocks (only
/// those: a listing of thousands of lines costs nothing off screen), under the syntax colours
/// and the extra selections.
class ListingText : public QPlainTextEdit {
public:
    using QPlainTextEdit::QPlainTextEdit;

    /// One colour per block; invalid for none.
    QVector<QColor> colours;

    /// True when viewport row `y` lies on `block` (cursorForPosition() snaps to the nearest
    /// text, so below the last line it would still name one).
    [[nodiscard]] bool isOnBlock(const QTextBlock& block, int y) const {
        const QRectF box = blockBoundingGeometry(block).translated(contentOffset());
        return y >= box.top() && y < box.bottom();
    }

protected:
    void paintEvent(QPaintEvent* event) override {
        if (!colours.isEmpty()) {
            QPainter painter(viewport());
            const QPointF offset = contentOffset();
            const int width = viewport()->width();
            for (QTextBlock block = firstVisibleBlock(); block.isValid(); block = block.next()) {
                const QRectF box = blockBoundingGeometry(block).translated(offset);
                if (box.top() > viewport()->height())
                    break;
                const int number = block.blockNumber();
                if (number < colours.size() && colours[number].isValid())
                    painter.fillRect(QRectF(0, box.top(), width, box.height()), colours[number]);
            }
        }
        QPlainTextEdit::paintEvent(event);
    }
};

ListingView::ListingView(InstructionSet set, QWidget* parent)
    : QWidget(parent)
    , m_set(set)
    , m_text(new ListingText(this))
    , m_search(new QLineEdit(this))
    , m_info(new QLabel(this))
    , m_bar(new QHBoxLayout)
    , m_layout(new QVBoxLayout(this))
    , m_hoverTimer(new QTimer(this))
    , m_theme(Theme::forPalette(palette())) {
    m_text->setReadOnly(true);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setFont(monospaceFont());
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    // Read-only text changed only by setListingText(): no undo history to keep.
    m_text->document()->setUndoRedoEnabled(false);
    m_text->viewport()->setMouseTracking(true);
    m_text->viewport()->installEventFilter(this);
    m_search->setClearButtonEnabled(true);

    m_bar->setContentsMargins(0, 0, 0, 0);
    m_bar->addWidget(m_search, 1);
    m_bar->addWidget(m_info);
    m_layout->setContentsMargins(2, 2, 2, 2);
    m_layout->setSpacing(2);
    m_layout->addLayout(m_bar);
    m_layout->addWidget(m_text, 1);

    m_hoverTimer->setSingleShot(true);
    m_hoverTimer->setInterval(kHoverDebounceMs);
    connect(m_hoverTimer, &QTimer::timeout, this, [this] {
        if (m_pendingHover == m_reportedHover)
            return;
        m_reportedHover = m_pendingHover;
        emit sourceLineHovered(m_reportedHover);
    });
    connect(m_search, &QLineEdit::returnPressed, this, [this] {
        const bool backward = QGuiApplication::keyboardModifiers() & Qt::ShiftModifier;
        find(m_search->text(), backward);
    });
    auto* findShortcut =
        new QShortcut(QKeySequence::Find, this, nullptr, nullptr, Qt::WidgetWithChildrenShortcut);
    connect(findShortcut, &QShortcut::activated, this, [this] {
        m_search->setFocus();
        m_search->selectAll();
    });
}

QPlainTextEdit* ListingView::textView() const {
    return m_text;
}

void ListingView::setListingText(const QString& text) {
    m_sourceOfBlock.clear();
    m_text->colours.clear();
    m_text->setPlainText(text);
}

void ListingView::setHighlighter(RuleHighlighter* highlighter) {
    m_highlighter = highlighter;
}

QLabel* ListingView::addBanner(const QString& objectName) {
    auto* banner = new QLabel(this);
    banner->setObjectName(objectName);
    banner->setWordWrap(true);
    banner->setMargin(4);
    banner->hide();
    m_layout->insertWidget(m_layout->indexOf(m_text), banner);
    m_banners << banner;
    return banner;
}

bool ListingView::find(const QString& text, bool backward) {
    if (text.isEmpty())
        return false;
    const QTextDocument::FindFlags flags =
        backward ? QTextDocument::FindBackward : QTextDocument::FindFlags();
    const QSignalBlocker blocker(m_text); // a search is no click on a line
    if (m_text->find(text, flags)) {
        m_info->clear();
        return true;
    }
    QTextCursor cursor = m_text->textCursor();
    cursor.movePosition(backward ? QTextCursor::End : QTextCursor::Start);
    m_text->setTextCursor(cursor);
    const bool found = m_text->find(text, flags);
    m_info->setText(found ? tr("Wrapped") : tr("Not found"));
    return found;
}

void ListingView::setBlockSourceLines(const QVector<int>& sourceLineOfBlock) {
    m_sourceOfBlock = sourceLineOfBlock;
    recolour();
}

int ListingView::sourceLineOfBlock(int block) const {
    return block >= 0 && block < m_sourceOfBlock.size() ? m_sourceOfBlock[block] : 0;
}

QVector<int> ListingView::blocksOfSourceLine(int sourceLine) const {
    QVector<int> blocks;
    if (sourceLine <= 0)
        return blocks;
    for (int i = 0; i < m_sourceOfBlock.size(); ++i) {
        if (m_sourceOfBlock[i] == sourceLine)
            blocks << i;
    }
    return blocks;
}

void ListingView::setLineColours(bool on) {
    if (m_lineColours == on)
        return;
    m_lineColours = on;
    recolour();
}

void ListingView::setEmphasisedLine(int sourceLine) {
    if (m_emphasised == sourceLine)
        return;
    m_emphasised = sourceLine;
    recolour();
}

QColor ListingView::blockColour(int block) const {
    return block >= 0 && block < m_text->colours.size() ? m_text->colours[block] : QColor();
}

void ListingView::recolour() {
    // Runs on every hover: the palette is made once, then each block is a lookup, so a listing
    // of tens of thousands of lines stays well under a frame.
    QVector<QColor> colours;
    if (m_lineColours) {
        QColor bands[kLineColourCount];
        for (int i = 0; i < kLineColourCount; ++i)
            bands[i] = sourceLineColour(i == 0 ? kLineColourCount : i, m_theme);
        const QColor strong = sourceLineColour(m_emphasised, m_theme, true);
        colours.reserve(m_sourceOfBlock.size());
        for (const int line : m_sourceOfBlock) {
            if (line <= 0)
                colours << QColor();
            else
                colours << (line == m_emphasised ? strong : bands[sourceLineColourIndex(line)]);
        }
    }
    m_text->colours = colours;
    m_text->viewport()->update();
}

QString ListingView::toolTipAt(const QPoint& viewportPos) const {
    const QTextCursor cursor = m_text->cursorForPosition(viewportPos);
    const QTextBlock block = cursor.block();
    if (!block.isValid() || !m_text->isOnBlock(block, viewportPos.y()))
        return {};
    const QString opcode = opcodeAtColumn(m_set, block.text(), cursor.positionInBlock());
    return opcode.isEmpty() ? QString() : instructionHelp(m_set, opcode).toHtml();
}

bool ListingView::eventFilter(QObject* watched, QEvent* event) {
    if (watched != m_text->viewport())
        return QWidget::eventFilter(watched, event);
    switch (event->type()) {
    case QEvent::MouseMove: {
        const QPoint at = static_cast<QMouseEvent*>(event)->position().toPoint();
        const QTextBlock block = m_text->cursorForPosition(at).block();
        m_pendingHover =
            m_text->isOnBlock(block, at.y()) ? sourceLineOfBlock(block.blockNumber()) : 0;
        m_hoverTimer->start();
        break;
    }
    case QEvent::Leave:
        m_pendingHover = 0;
        m_hoverTimer->start();
        break;
    case QEvent::ToolTip: {
        const auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, m_text->viewport());
        return true;
    }
    default:
        break;
    }
    return QWidget::eventFilter(watched, event);
}

void ListingView::applyTheme(const Theme& theme) {
    m_theme = theme;
    if (m_highlighter)
        m_highlighter->setTheme(theme);
    for (QLabel* banner : m_banners) {
        banner->setStyleSheet(QStringLiteral("#%1 { background: %2; color: %3; border: 1px "
                                             "solid %4; }")
                                  .arg(banner->objectName(), theme.bannerPaper.name(),
                                       theme.bannerText.name(), theme.warningColor.name()));
    }
    QPalette p = m_text->palette();
    p.setColor(QPalette::Base, theme.paper);
    p.setColor(QPalette::Text, theme.text);
    m_text->setPalette(p);
    recolour();
}

void ListingView::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyTheme(Theme::forPalette(palette()));
}

} // namespace kernelpad
