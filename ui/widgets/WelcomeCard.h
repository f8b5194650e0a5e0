#pragma once
// One card of the welcome page: what it shows and what it does, and the button that draws it.

#include <QAbstractButton>
#include <QPair>
#include <QString>
#include <QVector>

#include <functional>

namespace kernelpad {

/// What a card shows and does. The welcome page's sections are lists of these, read from a
/// WelcomeCardSource, so a new kind of card (a lesson) is one more source.
struct WelcomeCard {
    QString title;
    QString subtitle;
    /// Cards of a section are grouped under their topics, in the order the topics first
    /// appear; empty: no heading.
    QString topic;
    /// A short tag drawn in the card's corner ("beginner"); empty: none.
    QString level;
    /// The file the card opens: how a card is found again.
    QString path;
    /// What hovering the card says (a lesson's summary); empty: the subtitle, else the path.
    QString toolTip;
    /// The file is gone: the card is greyed, says "not found" and does nothing when activated.
    bool missing = false;
    /// Set: what is wrong with what the card names (a lesson that does not load); the card is
    /// greyed, shows this in place of the subtitle and does nothing when activated.
    QString problem;
    std::function<void()> activate;
    [[nodiscard]] bool unusable() const { return missing || !problem.isEmpty(); }
    /// Set: a Remove button beside the card calls it.
    std::function<void()> remove;
    /// More that can be done with what the card names, offered on its context menu
    /// (label, action): "Start Over…" on a lesson.
    QVector<QPair<QString, std::function<void()>>> menu;
};

/// The cards of one section, read again at each WelcomePage::refresh().
using WelcomeCardSource = std::function<QVector<WelcomeCard>()>;

/// A focusable, clickable card: the title in bold (wrapped, up to three lines), the subtitle
/// below in the lines the title leaves (elided), the level in the corner. Space, Enter and a click
/// activate it; the arrow keys move to the neighbouring cards. Drawn from the palette, so it
/// follows the light and dark themes.
class WelcomeCardButton : public QAbstractButton {
    Q_OBJECT
public:
    explicit WelcomeCardButton(WelcomeCard card, QWidget* parent = nullptr);

    [[nodiscard]] const WelcomeCard& card() const { return m_card; }
    /// The title as drawn at the card's width: the last line elided only when the title
    /// does not fit in kMaxTitleLines.
    [[nodiscard]] QStringList titleLines() const;
    /// Draws the card's topic before its subtitle, for a section that shows no topic headings.
    void setTopicShown(bool shown);
    [[nodiscard]] QSize sizeHint() const override;
    [[nodiscard]] QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void focusInEvent(QFocusEvent* event) override;
    void enterEvent(QEnterEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    [[nodiscard]] int padding() const;
    [[nodiscard]] QString subtitleText() const;
    [[nodiscard]] QFont titleFont() const;
    /// The width the level tag takes from the title's first line.
    [[nodiscard]] int levelWidth() const;

    WelcomeCard m_card;
    bool m_hovered = false;
    bool m_topicShown = false;
};

} // namespace kernelpad
