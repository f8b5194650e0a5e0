#include "ui/widgets/ProfileAdviceList.h"

#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace kernelpad {
namespace {

/// Rows shown before the list scrolls: the first few rules are the ones acted on.
constexpr int kVisibleRows = 6;

QString linesText(const QList<int>& lines) {
    QStringList parts;
    for (int line : lines)
        parts << QString::number(line);
    return parts.join(QStringLiteral(", "));
}

} // namespace

ProfileAdviceList::ProfileAdviceList(QWidget* parent)
    : QWidget(parent)
    , m_list(new QTreeWidget(this))
    , m_text(new QLabel(this)) {
    m_list->setObjectName(QStringLiteral("profileAdvice"));
    m_list->setColumnCount(Columns);
    m_list->setHeaderLabels({tr("Est. speedup"), tr("Section"), tr("Rule"), tr("Lines")});
    m_list->headerItem()->setToolTip(
        SpeedupColumn, tr("Nsight Compute's estimate of the time the advice could save: of the "
                          "whole kernel's time, or \"local\": of one unit's share of it"));
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setAlternatingRowColors(true);
    m_list->header()->setStretchLastSection(false);
    m_list->header()->setSectionResizeMode(RuleColumn, QHeaderView::Stretch);
    m_list->setMinimumHeight(m_list->header()->sizeHint().height() +
                             kVisibleRows * (fontMetrics().height() + 4));
    m_text->setObjectName(QStringLiteral("profileAdviceText"));
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_text->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_list, 1);
    layout->addWidget(m_text);
    connect(m_list, &QTreeWidget::currentItemChanged, this, [this] { showSelected(); });
    connect(m_list, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        const int row = m_list->indexOfTopLevelItem(item);
        if (row >= 0 && row < m_advice.size() && !m_advice[row].lines.isEmpty())
            emit lineChosen(m_advice[row].lines.first());
    });
    setAdvice({});
}

void ProfileAdviceList::setAdvice(const QList<ProfileAdvice>& advice) {
    m_advice = advice;
    m_list->clear();
    for (const ProfileAdvice& a : advice) {
        auto* item = new QTreeWidgetItem(m_list);
        const ProfileRule& r = a.rule;
        item->setText(
            SpeedupColumn,
            r.estimatedSpeedup
                ? QStringLiteral("%1 %%2")
                      .arg(*r.estimatedSpeedup, 0, 'f', 1)
                      .arg(r.speedupType == QLatin1String("global") ? QString() : tr(" local"))
                : r.type);
        item->setTextAlignment(SpeedupColumn, Qt::AlignRight | Qt::AlignVCenter);
        item->setText(SectionColumn, a.sectionTitle);
        item->setText(RuleColumn, r.name);
        item->setText(LinesColumn, linesText(a.lines));
        const QString tip = adviceSpeedupText(r);
        item->setToolTip(SpeedupColumn, tip.isEmpty() ? tr("no estimate (%1)").arg(r.type) : tip);
        item->setToolTip(RuleColumn, r.description);
        if (!a.lines.isEmpty())
            item->setToolTip(LinesColumn, tr("Double-click to go to line %1").arg(a.lines.first()));
    }
    for (int c = 0; c < Columns; ++c)
        if (c != RuleColumn)
            m_list->resizeColumnToContents(c);
    if (m_list->topLevelItemCount() > 0)
        m_list->setCurrentItem(m_list->topLevelItem(0));
    showSelected();
}

QString ProfileAdviceList::selectedText() const {
    return m_text->text();
}

void ProfileAdviceList::showSelected() {
    const int row = m_list->currentItem() ? m_list->indexOfTopLevelItem(m_list->currentItem()) : -1;
    if (row < 0 || row >= m_advice.size()) {
        m_text->setText(m_advice.isEmpty() ? tr("Nsight Compute gave no advice for this launch.")
                                           : tr("Choose a rule to read Nsight Compute's advice."));
        return;
    }
    const ProfileAdvice& a = m_advice[row];
    QString text = a.rule.description;
    const QString speedup = adviceSpeedupText(a.rule);
    if (!speedup.isEmpty())
        text = tr("Estimated speedup: %1. %2").arg(speedup, text);
    if (!a.lines.isEmpty())
        text += tr(" (Lines %1: double-click the rule to go there.)").arg(linesText(a.lines));
    m_text->setText(text);
}

} // namespace kernelpad
