#include "ui/widgets/WelcomeCard.h"

#include "ui/Theme.h"

#include <QContextMenuEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QPainter>
#include <QPainterPath>
#include <QScrollArea>
#include <QTextLayout>

#include <algorithm>

namespace kernelpad {

namespace {
// Sizes are in the font's units, so the cards scale with the font and the screen.
// The title and the subtitle share this many lines; the title takes what it needs, up to
// kMaxTitleLines, so that a long lesson title is read whole rather than elided.
constexpr int kTextLines = 4;
constexpr int kMaxTitleLines = 3;
constexpr qreal kLevelScale = 0.85;
constexpr int kPreferredWidthChars = 28;
constexpr int kMinimumWidthChars = 18;
constexpr qreal kCornerRadiusEm = 0.4;

/// `text` laid out in `width` (the first line in `firstWidth`), at most `maxLines` lines, the
/// last elided when more would follow.
QStringList wrapLines(const QString& text, const QFont& font, int firstWidth, int width,
                      int maxLines) {
    QStringList lines;
    QTextLayout layout(text, font);
    layout.beginLayout();
    for (;;) {
        QTextLine line = layout.createLine();
        if (!line.isValid())
            break;
        const int lineWidth = lines.isEmpty() ? firstWidth : width;
        line.setLineWidth(lineWidth);
        if (lines.size() == maxLines - 1) {
            const QString rest = text.mid(line.textStart()).simplified();
            lines.append(QFontMetrics(font).elidedText(rest, Qt::ElideRight, lineWidth));
            break;
        }
        lines.append(text.mid(line.textStart(), line.textLength()).trimmed());
    }
    layout.endLayout();
    return lines;
}
} // namespace

WelcomeCardButton::WelcomeCardButton(WelcomeCard card, QWidget* parent)
    : QAbstractButton(parent)
    , m_card(std::move(card)) {
    setFocusPolicy(Qt::StrongFocus);
    setCursor(m_card.unusable() ? Qt::ArrowCursor : Qt::PointingHandCursor);
    setText(m_card.title);
    setAccessibleName(m_card.title);
    setAccessibleDescription(subtitleText());
    setToolTip(!m_card.toolTip.isEmpty()    ? m_card.toolTip
               : !m_card.subtitle.isEmpty() ? m_card.subtitle
                                            : m_card.path);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    connect(this, &QAbstractButton::clicked, this, [this] {
        if (!m_card.unusable() && m_card.activate)
            m_card.activate();
    });
}

int WelcomeCardButton::padding() const {
    return fontMetrics().height() * 2 / 3;
}

QString WelcomeCardButton::subtitleText() const {
    if (!m_card.problem.isEmpty())
        return m_card.problem;
    if (m_card.missing)
        return tr("Not found: %1").arg(m_card.subtitle);
    if (m_topicShown && !m_card.topic.isEmpty())
        return m_card.subtitle.isEmpty() ? m_card.topic
                                         : tr("%1 · %2").arg(m_card.topic, m_card.subtitle);
    return m_card.subtitle;
}

void WelcomeCardButton::setTopicShown(bool shown) {
    m_topicShown = shown;
    setAccessibleDescription(subtitleText());
    update();
}

QFont WelcomeCardButton::titleFont() const {
    QFont bold = font();
    bold.setBold(true);
    return bold;
}

int WelcomeCardButton::levelWidth() const {
    if (m_card.level.isEmpty())
        return 0;
    QFont levelFont = font();
    levelFont.setPointSizeF(font().pointSizeF() * kLevelScale);
    return QFontMetrics(levelFont).horizontalAdvance(m_card.level) + padding();
}

QStringList WelcomeCardButton::titleLines() const {
    const int width = std::max(1, this->width() - 2 * padding());
    return wrapLines(m_card.title, titleFont(), std::max(1, width - levelWidth()), width,
                     kMaxTitleLines);
}

QSize WelcomeCardButton::sizeHint() const {
    const QFontMetrics metrics = fontMetrics();
    const int height =
        2 * padding() + metrics.height() / 3 +
        kTextLines * std::max(metrics.lineSpacing(), QFontMetrics(titleFont()).lineSpacing());
    return {metrics.averageCharWidth() * kPreferredWidthChars + 2 * padding(), height};
}

QSize WelcomeCardButton::minimumSizeHint() const {
    return {fontMetrics().averageCharWidth() * kMinimumWidthChars + 2 * padding(),
            sizeHint().height()};
}

void WelcomeCardButton::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QPalette& colours = palette();
    const bool focused = hasFocus();
    const QColor paper = m_hovered && !m_card.unusable() ? colours.color(QPalette::AlternateBase)
                                                         : colours.color(QPalette::Base);
    const QColor border =
        focused ? colours.color(QPalette::Highlight) : colours.color(QPalette::Mid);
    const qreal radius = fontMetrics().height() * kCornerRadiusEm;
    const qreal penWidth = focused ? 2.0 : 1.0;
    QPainterPath outline;
    outline.addRoundedRect(
        QRectF(rect()).adjusted(penWidth / 2, penWidth / 2, -penWidth / 2, -penWidth / 2), radius,
        radius);
    painter.fillPath(outline, paper);
    painter.setPen(QPen(border, penWidth));
    painter.drawPath(outline);

    const QRect inner = rect().adjusted(padding(), padding(), -padding(), -padding());
    const QColor ink =
        colours.color(m_card.unusable() ? QPalette::Disabled : QPalette::Active, QPalette::Text);
    const QColor softInk = m_card.unusable()
                               ? Theme::forPalette(colours).warningColor
                               : colours.color(QPalette::Active, QPalette::PlaceholderText);

    if (!m_card.level.isEmpty()) {
        QFont levelFont = font();
        levelFont.setPointSizeF(font().pointSizeF() * kLevelScale);
        painter.setFont(levelFont);
        painter.setPen(softInk);
        painter.drawText(inner, Qt::AlignRight | Qt::AlignTop, m_card.level);
    }
    painter.setFont(titleFont());
    painter.setPen(ink);
    const QFontMetrics titleMetrics(titleFont());
    const QStringList title = titleLines();
    int y = inner.top();
    for (const QString& line : title) {
        painter.drawText(QRect(inner.left(), y, inner.width(), titleMetrics.lineSpacing()),
                         Qt::AlignLeft | Qt::AlignTop, line);
        y += titleMetrics.lineSpacing();
    }

    painter.setFont(font());
    painter.setPen(m_card.unusable() ? softInk
                                     : colours.color(QPalette::Active, QPalette::WindowText));
    const QFontMetrics metrics = fontMetrics();
    y += metrics.height() / 3;
    const int subtitleLines = std::max(1, kTextLines - int(title.size()));
    for (const QString& line :
         wrapLines(subtitleText(), font(), inner.width(), inner.width(), subtitleLines)) {
        painter.drawText(QRect(inner.left(), y, inner.width(), metrics.lineSpacing()),
                         Qt::AlignLeft | Qt::AlignTop, line);
        y += metrics.lineSpacing();
    }
}

void WelcomeCardButton::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
    case Qt::Key_Return:
    case Qt::Key_Enter:
        click();
        return;
    case Qt::Key_Right:
    case Qt::Key_Down:
        focusNextChild();
        return;
    case Qt::Key_Left:
    case Qt::Key_Up:
        focusPreviousChild();
        return;
    default:
        QAbstractButton::keyPressEvent(event);
    }
}

void WelcomeCardButton::contextMenuEvent(QContextMenuEvent* event) {
    if (m_card.menu.isEmpty()) {
        QAbstractButton::contextMenuEvent(event);
        return;
    }
    QMenu menu(this);
    for (const auto& [label, action] : m_card.menu)
        connect(menu.addAction(label), &QAction::triggered, this, [action = action] { action(); });
    menu.exec(event->globalPos());
}

void WelcomeCardButton::focusInEvent(QFocusEvent* event) {
    QAbstractButton::focusInEvent(event);
    // Keyboard users must see the card they are on: scroll the page to it.
    for (QWidget* ancestor = parentWidget(); ancestor; ancestor = ancestor->parentWidget()) {
        if (auto* scroll = qobject_cast<QScrollArea*>(ancestor)) {
            scroll->ensureWidgetVisible(this);
            break;
        }
    }
}

void WelcomeCardButton::enterEvent(QEnterEvent* event) {
    m_hovered = true;
    update();
    QAbstractButton::enterEvent(event);
}

void WelcomeCardButton::leaveEvent(QEvent* event) {
    m_hovered = false;
    update();
    QAbstractButton::leaveEvent(event);
}

} // namespace kernelpad
