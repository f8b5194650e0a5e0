#include "ui/widgets/WelcomePage.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QResizeEvent>
#include <QShortcut>
#include <QVBoxLayout>

namespace kernelpad {

namespace {

constexpr int kMaxColumns = 4;
// Headings as multiples of the body font, so the page scales with it.
constexpr qreal kTitleScale = 2.0;
constexpr qreal kSectionScale = 1.35;
constexpr qreal kTopicScale = 1.1;
// The page's text column: wide enough for four cards, centred beyond that.
constexpr int kMaxPageWidthChars = 150;

QLabel* heading(const QString& text, qreal scale, QWidget* parent) {
    auto* label = new QLabel(text, parent);
    QFont font = label->font();
    font.setPointSizeF(font.pointSizeF() * scale);
    font.setBold(true);
    label->setFont(font);
    label->setTextFormat(Qt::PlainText);
    return label;
}

/// Cards in as many columns as fit (one to kMaxColumns), re-laid out when the width changes.
class CardGrid : public QWidget {
public:
    explicit CardGrid(QWidget* parent)
        : QWidget(parent)
        , m_layout(new QGridLayout(this)) {
        m_layout->setContentsMargins(0, 0, 0, 0);
        setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    }

    /// `item` is the card, or the card with its Remove button.
    void add(QWidget* item, int cardWidth) {
        m_items.append(item);
        m_cardWidth = std::max(m_cardWidth, cardWidth);
        relayout(columnsFor(width()));
    }

protected:
    void resizeEvent(QResizeEvent* event) override {
        QWidget::resizeEvent(event);
        const int columns = columnsFor(event->size().width());
        if (columns != m_columns)
            relayout(columns);
    }

private:
    [[nodiscard]] int columnsFor(int width) const {
        if (m_cardWidth <= 0 || width <= 0)
            return kMaxColumns;
        const int spacing = m_layout->horizontalSpacing();
        return std::clamp((width + spacing) / (m_cardWidth + spacing), 1, kMaxColumns);
    }

    void relayout(int columns) {
        m_columns = columns;
        for (QWidget* item : m_items)
            m_layout->removeWidget(item);
        for (int i = 0; i < m_items.size(); ++i)
            m_layout->addWidget(m_items.at(i), i / columns, i % columns);
        for (int c = 0; c < kMaxColumns; ++c)
            m_layout->setColumnStretch(c, c < columns ? 1 : 0);
    }

    QGridLayout* m_layout;
    QVector<QWidget*> m_items;
    int m_cardWidth = 0;
    int m_columns = 0;
};

} // namespace

WelcomePage::WelcomePage(QWidget* parent)
    : QScrollArea(parent) {
    setObjectName(QStringLiteral("welcomePage"));
    setWidgetResizable(true);
    setFrameShape(QFrame::NoFrame);

    auto* content = new QWidget(this);
    content->setObjectName(QStringLiteral("welcomeContent"));
    content->setMaximumWidth(fontMetrics().averageCharWidth() * kMaxPageWidthChars);
    auto* outer = new QWidget(this);
    auto* centring = new QHBoxLayout(outer);
    centring->addWidget(content);
    setWidget(outer);

    auto* layout = new QVBoxLayout(content);
    const int gap = fontMetrics().height();
    layout->setContentsMargins(gap * 2, gap * 2, gap * 2, gap * 2);
    layout->setSpacing(gap);

    layout->addWidget(heading(tr("Welcome to KernelPad"), kTitleScale, content));
    auto* tagline = new QLabel(tr("Write a CUDA kernel, run it, and see what the GPU did: "
                                  "start from a template, an example or a project of yours."),
                               content);
    tagline->setWordWrap(true);
    layout->addWidget(tagline);

    auto* buttons = new QHBoxLayout;
    auto* open = new QPushButton(tr("&Open…"), content);
    open->setObjectName(QStringLiteral("welcomeOpen"));
    open->setToolTip(tr("Open a .kpad project or a CUDA, PTX or NVVM IR source"));
    connect(open, &QPushButton::clicked, this, &WelcomePage::openRequested);
    m_returnButton = new QPushButton(content);
    m_returnButton->setObjectName(QStringLiteral("welcomeReturn"));
    m_returnButton->hide();
    connect(m_returnButton, &QPushButton::clicked, this, &WelcomePage::returnRequested);
    buttons->addWidget(open);
    buttons->addWidget(m_returnButton);
    buttons->addStretch(1);
    layout->addLayout(buttons);

    m_sectionsLayout = new QVBoxLayout;
    m_sectionsLayout->setSpacing(gap * 3 / 2);
    layout->addLayout(m_sectionsLayout);
    layout->addStretch(1);

    auto* back = new QShortcut(QKeySequence(Qt::Key_Escape), this);
    back->setContext(Qt::WidgetWithChildrenShortcut);
    connect(back, &QShortcut::activated, this, [this] {
        if (m_returnButton->isVisible())
            emit returnRequested();
    });
}

void WelcomePage::addSection(const QString& id, const QString& title, WelcomeCardSource source) {
    Section section;
    section.id = id;
    section.source = std::move(source);
    section.widget = new QWidget(widget());
    section.widget->setObjectName(id + QStringLiteral("Section"));
    auto* layout = new QVBoxLayout(section.widget);
    layout->setContentsMargins(0, 0, 0, 0);
    section.headingRow = new QHBoxLayout;
    section.headingRow->addWidget(heading(title, kSectionScale, section.widget));
    section.headingRow->addStretch(1);
    layout->addLayout(section.headingRow);
    section.groups = new QVBoxLayout;
    layout->addLayout(section.groups);
    m_sectionsLayout->addWidget(section.widget);
    m_sections.append(section);
    fill(m_sections.last());
}

void WelcomePage::setSectionOrder(const QStringList& ids) {
    QVector<Section> ordered;
    for (const QString& id : ids)
        for (const Section& section : m_sections)
            if (section.id == id)
                ordered.append(section);
    for (const Section& section : m_sections)
        if (!ids.contains(section.id))
            ordered.append(section);
    m_sections = ordered;
    for (const Section& section : m_sections)
        m_sectionsLayout->removeWidget(section.widget);
    for (const Section& section : m_sections)
        m_sectionsLayout->addWidget(section.widget);
}

QStringList WelcomePage::sectionOrder() const {
    QStringList ids;
    for (const Section& section : m_sections)
        ids.append(section.id);
    return ids;
}

void WelcomePage::setSectionTool(const QString& id, QWidget* tool) {
    for (Section& section : m_sections)
        if (section.id == id) {
            tool->setParent(section.widget);
            section.headingRow->addWidget(tool, 0, Qt::AlignVCenter);
        }
}

void WelcomePage::refresh() {
    for (Section& section : m_sections)
        fill(section);
}

void WelcomePage::refreshSection(const QString& id) {
    for (Section& section : m_sections)
        if (section.id == id)
            fill(section);
}

void WelcomePage::fill(Section& section) {
    // Rebuilt whole: the lists are short, and a card's action may have removed it.
    while (QLayoutItem* item = section.groups->takeAt(0)) {
        if (QWidget* old = item->widget()) {
            // Later: the click being handled may be one of its cards' (Remove).
            old->hide();
            old->setParent(nullptr);
            old->deleteLater();
        }
        delete item;
    }
    const QVector<WelcomeCard> cards = section.source ? section.source() : QVector<WelcomeCard>();
    section.widget->setVisible(!cards.isEmpty());

    QStringList topics;
    for (const WelcomeCard& card : cards)
        if (!topics.contains(card.topic))
            topics.append(card.topic);
    // Topics of about one card each (thirteen lessons in thirteen topics) would each take a
    // heading and a row of their own and push the sections below far down: such a section is
    // one grid, each card naming its topic.
    const bool compact = topics.size() * 2 > cards.size() && topics.size() > 1;
    if (compact)
        topics = QStringList{QString()};
    for (const QString& topic : topics) {
        auto* group = new QWidget(section.widget);
        auto* groupLayout = new QVBoxLayout(group);
        groupLayout->setContentsMargins(0, 0, 0, 0);
        if (!topic.isEmpty())
            groupLayout->addWidget(heading(topic, kTopicScale, group));
        auto* grid = new CardGrid(group);
        for (const WelcomeCard& card : cards) {
            if (!compact && card.topic != topic)
                continue;
            auto* button = new WelcomeCardButton(card, grid);
            button->setTopicShown(compact);
            if (!card.remove) {
                grid->add(button, button->sizeHint().width());
                continue;
            }
            auto* item = new QWidget(grid);
            auto* row = new QHBoxLayout(item);
            row->setContentsMargins(0, 0, 0, 0);
            button->setParent(item);
            row->addWidget(button, 1);
            auto* remove = new QPushButton(tr("Remove"), item);
            remove->setObjectName(QStringLiteral("welcomeRemove"));
            remove->setToolTip(tr("Remove %1 from the recent projects").arg(card.path));
            remove->setAccessibleName(tr("Remove %1").arg(card.title));
            const std::function<void()> action = card.remove;
            connect(remove, &QPushButton::clicked, this, [action] { action(); });
            row->addWidget(remove, 0, Qt::AlignVCenter);
            grid->add(item, item->sizeHint().width());
        }
        groupLayout->addWidget(grid);
        section.groups->addWidget(group);
    }
}

void WelcomePage::setReturnTarget(const QString& projectName) {
    m_returnButton->setVisible(!projectName.isEmpty());
    m_returnButton->setText(tr("&Back to %1").arg(projectName));
    m_returnButton->setToolTip(tr("Show the open project again (Escape)"));
}

QVector<WelcomeCardButton*> WelcomePage::cards(const QString& id) const {
    QVector<WelcomeCardButton*> found;
    if (QWidget* widget = section(id); widget && !widget->isHidden())
        found = widget->findChildren<WelcomeCardButton*>().toVector();
    return found;
}

QWidget* WelcomePage::section(const QString& id) const {
    for (const Section& section : m_sections)
        if (section.id == id)
            return section.widget;
    return nullptr;
}

} // namespace kernelpad
