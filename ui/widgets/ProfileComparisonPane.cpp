#include "ui/widgets/ProfileComparisonPane.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace kernelpad {

ProfileComparisonPane::ProfileComparisonPane(QWidget* parent)
    : QWidget(parent)
    , m_choice(new QComboBox(this))
    , m_headline(new QLabel(this))
    , m_changedOnly(new QCheckBox(tr("Only changes of 1 % or more"), this))
    , m_table(new QTableWidget(0, Columns, this)) {
    m_choice->setObjectName(QStringLiteral("profileBaseline"));
    m_choice->setToolTip(tr("Compare the shown profile with another profiled run: every metric "
                            "side by side with its change"));
    m_headline->setObjectName(QStringLiteral("profileComparisonHeadline"));
    m_headline->setWordWrap(true);
    m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_changedOnly->setObjectName(QStringLiteral("profileComparisonChangedOnly"));
    m_changedOnly->setChecked(true);
    m_table->setObjectName(QStringLiteral("profileComparison"));
    m_table->setHorizontalHeaderLabels(
        {tr("Section"), tr("Metric"), tr("Baseline"), tr("This run"), tr("Change")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setSectionResizeMode(MetricColumn, QHeaderView::Stretch);
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Compare with:"), this));
    top->addWidget(m_choice, 1);
    top->addWidget(m_changedOnly);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_headline);
    layout->addWidget(m_table, 1);
    connect(m_choice, qOverload<int>(&QComboBox::activated), this,
            [this](int index) { emit baselineChosen(index - 1); });
    connect(m_changedOnly, &QCheckBox::toggled, this, [this] { fill(); });
    setChoices({}, -1);
}

void ProfileComparisonPane::setChoices(const QStringList& entries, int current) {
    const QSignalBlocker block(m_choice);
    m_choice->clear();
    m_choice->addItem(tr("none"));
    m_choice->addItems(entries);
    m_choice->setCurrentIndex(current + 1);
    m_choice->setEnabled(entries.size() > 1);
}

void ProfileComparisonPane::showComparison(const ProfileComparison& comparison) {
    m_comparison = comparison;
    m_headline->setText(comparison.headline.isEmpty()
                            ? tr("No duration, throughput or occupancy in both profiles.")
                            : comparison.headline.join(QStringLiteral("; ")));
    m_changedOnly->setEnabled(true);
    m_table->show();
    fill();
}

void ProfileComparisonPane::clearComparison(const QString& why) {
    m_comparison = {};
    m_headline->setText(why);
    m_changedOnly->setEnabled(false);
    m_table->setRowCount(0);
    m_table->hide();
}

QString ProfileComparisonPane::headline() const {
    return m_headline->text();
}

void ProfileComparisonPane::fill() {
    const bool changedOnly = m_changedOnly->isChecked();
    m_table->setRowCount(0);
    for (const MetricChange& c : std::as_const(m_comparison.metrics)) {
        const std::optional<double> pct = c.changePct();
        const bool oneSided = c.currentText.isEmpty() || c.baselineText.isEmpty();
        if (changedOnly && !oneSided && (!pct || std::abs(*pct) < kNotableChangePct))
            continue;
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        const QString change = pct ? QStringLiteral("%1%2 %")
                                         .arg(*pct >= 0 ? QStringLiteral("+") : QStringLiteral("−"))
                                         .arg(std::abs(*pct), 0, 'f', 1)
                                   : QString();
        const QStringList cells = {
            c.section, c.name, c.baselineText.isEmpty() ? tr("(absent)") : c.baselineText,
            c.currentText.isEmpty() ? tr("(absent)") : c.currentText, change};
        for (int col = 0; col < Columns; ++col) {
            auto* item = new QTableWidgetItem(cells[col]);
            if (col >= BaselineColumn)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(row, col, item);
        }
    }
    m_table->resizeColumnToContents(SectionColumn);
    for (int col = BaselineColumn; col < Columns; ++col)
        m_table->resizeColumnToContents(col);
}

} // namespace kernelpad
