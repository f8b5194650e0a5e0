#include "ui/widgets/WelcomeCard.h"

#include "ui/Theme.h"

#include <QContextMenuEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QPainter>
#include <QPainterPath>
#include <QScrollArea>
#include <QTextLayout>

namespace kernelpad {

namespace {
// Sizes are in the font's units, so the cards scale with the font and the screen.
constexpr int kSubtitleLines = 3;
constexpr int kPreferredWidthChars = 28;
constexpr int kMinimumWidthChars = 18;
constexpr qreal kCornerRadiusEm = 0.4;

/// `text` laid out in `width`, at most `maxLines` lines, the last elided when more would follow.
QStringList wrapLines(const QString& text, const QFont& font, int width, int maxLines) {
    QStringList lines;
    QTextLayout layout(text, font);
    layout.beginLayout();
    for (;;) {
        QTextLine line = layout.createLine();
        if (!line.isValid())
            break;
        line.setLineWidth(width);
        if (lines.size() == maxLines - 1) {
            const QString rest = text.mid(line.textStart()).simplified();
            lines.append(QFontMetrics(font).elidedText(rest, Qt::ElideRight, width));
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
    setToolTip(m_card.path.isEmpty() ? m_card.subtitle : m_card.path);
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
    return m_card.missing ? tr("Not found: %1").arg(m_card.subtitle) : m_card.subtitle;
}

QSize WelcomeCardButton::sizeHint() const {
    const QFontMetrics metrics = fontMetrics();
    const int height = 2 * padding() + metrics.height() + metrics.height() / 3 +
                       kSubtitleLines * metrics.lineSpacing();
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

    QFont titleFont = font();
    titleFont.setBold(true);
    int levelWidth = 0;
    if (!m_card.level.isEmpty()) {
        QFont levelFont = font();
        levelFont.setPointSizeF(font().pointSizeF() * 0.85);
        const QFontMetrics levelMetrics(levelFont);
        levelWidth = levelMetrics.horizontalAdvance(m_card.level) + padding();
        painter.setFont(levelFont);
        painter.setPen(softInk);
        painter.drawText(inner, Qt::AlignRight | Qt::AlignTop, m_card.level);
    }
    painter.setFont(titleFont);
    painter.setPen(ink);
    const QFontMetrics titleMetrics(titleFont);
    painter.drawText(
        QRect(inner.left(), inner.top(), inner.width() - levelWidth, titleMetrics.height()),
        Qt::AlignLeft | Qt::AlignTop,
        titleMetrics.elidedText(m_card.title, Qt::ElideRight, inner.width() - levelWidth));

    painter.setFont(font());
    painter.setPen(m_card.unusable() ? softInk
                                     : colours.color(QPalette::Active, QPalette::WindowText));
    const QFontMetrics metrics = fontMetrics();
    int y = inner.top() + titleMetrics.height() + metrics.height() / 3;
    for (const QString& line : wrapLines(subtitleText(), font(), inner.width(), kSubtitleLines)) {
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
