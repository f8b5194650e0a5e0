#include "ui/widgets/VersionsPanelCompare.h"

#include "core/compile/ListingDiff.h"
#include "core/project/ProjectDiff.h"
#include "core/run/Summary.h"
#include "core/run/VersionHistory.h"
#include "ui/Theme.h"
#include "ui/models/VersionsModel.h"

#include <QEvent>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSplitter>
#include <QTableWidget>
#include <QTextBlock>
#include <QVBoxLayout>

#include <functional>

namespace kernelpad {

namespace {

QPlainTextEdit* makeComparePane(QWidget* parent, const QString& name) {
    auto* pane = new QPlainTextEdit(parent);
    pane->setObjectName(name);
    pane->setReadOnly(true);
    pane->setLineWrapMode(QPlainTextEdit::NoWrap);
    pane->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    return pane;
}

QTableWidget* makeCompareTable(QWidget* parent, const QString& name, const QStringList& headers) {
    auto* table = new QTableWidget(0, int(headers.size()), parent);
    table->setObjectName(name);
    table->setHorizontalHeaderLabels(headers);
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->horizontalHeader()->setStretchLastSection(true);
    table->setWordWrap(false);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    return table;
}

void setRow(QTableWidget* table, int row, const QStringList& cells) {
    for (int c = 0; c < cells.size(); ++c) {
        auto* item = new QTableWidgetItem(cells.at(c));
        item->setToolTip(cells.at(c));
        table->setItem(row, c, item);
    }
}

QString versionLabel(const Version& v) {
    return QObject::tr("version %1 (%2)")
        .arg(v.number)
        .arg(v.finishedAt.toString(QStringLiteral("HH:mm:ss")));
}

/// "+12.3 %" of `after` against `before`; empty where `before` is 0.
QString relativeChange(double before, double after) {
    if (before == 0)
        return {};
    const double percent = (after / before - 1) * 100;
    return QStringLiteral("%1%2 %")
        .arg(percent >= 0 ? QStringLiteral("+") : QString())
        .arg(percent, 0, 'f', 1);
}

} // namespace

VersionCompareView::VersionCompareView(QWidget* parent)
    : QWidget(parent) {
    m_verdict = new QLabel(this);
    m_verdict->setObjectName(QStringLiteral("versionVerdict"));
    m_verdict->setWordWrap(true);
    m_verdict->setTextFormat(Qt::PlainText);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = m_verdict->font();
    bold.setBold(true);
    m_verdict->setFont(bold);
    m_verdict->hide();
    m_title = new QLabel(this);
    m_title->setObjectName(QStringLiteral("versionCompareTitle"));
    m_title->setWordWrap(true);
    m_title->setTextFormat(Qt::PlainText);
    m_before = makeComparePane(this, QStringLiteral("versionSourceBefore"));
    m_after = makeComparePane(this, QStringLiteral("versionSourceAfter"));
    m_beforeTitle = new QLabel(this);
    m_afterTitle = new QLabel(this);
    // One scroll for both panes: the rows are aligned, so line N faces line N.
    for (auto [from, to] : {std::pair{m_before, m_after}, std::pair{m_after, m_before}}) {
        connect(from->verticalScrollBar(), &QScrollBar::valueChanged, to->verticalScrollBar(),
                &QScrollBar::setValue);
        connect(from->horizontalScrollBar(), &QScrollBar::valueChanged, to->horizontalScrollBar(),
                &QScrollBar::setValue);
    }
    m_settings = makeCompareTable(this, QStringLiteral("versionSettings"),
                                  {tr("Setting"), tr("Before"), tr("After")});
    m_timings = makeCompareTable(this, QStringLiteral("versionTimings"),
                                 {tr("Timing"), tr("Before"), tr("After"), tr("Change")});

    auto* sourceBox = new QWidget(this);
    auto* sourceGrid = new QHBoxLayout(sourceBox);
    sourceGrid->setContentsMargins(0, 0, 0, 0);
    for (auto [label, pane] :
         {std::pair{m_beforeTitle, m_before}, std::pair{m_afterTitle, m_after}}) {
        auto* column = new QVBoxLayout;
        column->addWidget(label);
        column->addWidget(pane, 1);
        sourceGrid->addLayout(column, 1);
    }
    auto* figures = new QSplitter(Qt::Vertical, this);
    figures->addWidget(m_settings);
    figures->addWidget(m_timings);
    figures->setStretchFactor(0, 1);
    figures->setStretchFactor(1, 2);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(sourceBox);
    split->addWidget(figures);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setChildrenCollapsible(false);
    // The source gets a little more than half: the figures need their four columns whole.
    split->setSizes({1250, 750});

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_verdict);
    layout->addWidget(m_title);
    layout->addWidget(split, 1);
    showMessage(tr("Select two versions to compare them (Ctrl+click or Shift+arrow); one "
                   "version is compared with the one before it."));
}

QString VersionCompareView::title() const {
    return m_title->text();
}

QString VersionCompareView::verdict() const {
    return m_verdict->text();
}

void VersionCompareView::showMessage(const QString& message) {
    m_title->setText(message);
    m_verdict->clear();
    m_verdict->hide();
    m_beforeTitle->clear();
    m_afterTitle->clear();
    m_before->clear();
    m_after->clear();
    m_rowKinds.clear();
    m_shown.reset();
    m_settings->setRowCount(0);
    m_timings->setRowCount(0);
}

void VersionCompareView::compare(const Version& before, const Version& after,
                                 const QString& verdict) {
    m_shown = std::make_pair(before, after);
    m_verdict->setText(verdict);
    m_verdict->setVisible(!verdict.isEmpty());
    const ListingDiff diff =
        diffListings(before.project.source, after.project.source, ListingKind::Source);
    const QVector<SettingChange> settings = diffProjectSettings(before.project, after.project);
    const int lines = diff.changed + diff.added + diff.removed;
    QStringList parts;
    parts << tr("%1 → %2").arg(versionLabel(before), versionLabel(after));
    parts << (lines == 0 ? tr("same source")
                         : tr("source: %1 changed, %2 added, %3 removed")
                               .arg(diff.changed)
                               .arg(diff.added)
                               .arg(diff.removed));
    parts << (settings.isEmpty()     ? tr("same settings")
              : settings.size() == 1 ? tr("1 setting differs")
                                     : tr("%1 settings differ").arg(settings.size()));
    m_title->setText(parts.join(QStringLiteral(" · ")));
    m_beforeTitle->setText(tr("Before: %1").arg(versionLabel(before)));
    m_afterTitle->setText(tr("After: %1").arg(versionLabel(after)));
    showSource(diff);
    showSettings(before, after);
    showTimings(before, after);
}

void VersionCompareView::showSource(const ListingDiff& diff) {
    QStringList left;
    QStringList right;
    m_rowKinds.clear();
    for (const ListingDiffRow& row : diff.rows) {
        left << (row.before >= 0 ? diff.before.at(row.before) : QString());
        right << (row.after >= 0 ? diff.after.at(row.after) : QString());
        m_rowKinds << int(row.kind);
    }
    m_before->setPlainText(left.join(QLatin1Char('\n')));
    m_after->setPlainText(right.join(QLatin1Char('\n')));

    const Theme theme = Theme::forPalette(palette());
    QList<QTextEdit::ExtraSelection> marksBefore;
    QList<QTextEdit::ExtraSelection> marksAfter;
    const auto mark = [](QPlainTextEdit* pane, int block, const QColor& colour) {
        QTextEdit::ExtraSelection selection;
        selection.format.setBackground(colour);
        selection.format.setProperty(QTextFormat::FullWidthSelection, true);
        selection.cursor = QTextCursor(pane->document()->findBlockByNumber(block));
        return selection;
    };
    int first = -1;
    for (int i = 0; i < m_rowKinds.size(); ++i) {
        switch (ListingDiffRow::Kind(m_rowKinds.at(i))) {
        case ListingDiffRow::Kind::Same:
            continue;
        case ListingDiffRow::Kind::Removed:
            marksBefore << mark(m_before, i, theme.errorPaper);
            marksAfter << mark(m_after, i, theme.lineNumberPaper);
            break;
        case ListingDiffRow::Kind::Added:
            marksBefore << mark(m_before, i, theme.lineNumberPaper);
            marksAfter << mark(m_after, i, theme.notePaper);
            break;
        case ListingDiffRow::Kind::Changed:
            marksBefore << mark(m_before, i, theme.warningPaper);
            marksAfter << mark(m_after, i, theme.warningPaper);
            break;
        }
        if (first < 0)
            first = i;
    }
    m_before->setExtraSelections(marksBefore);
    m_after->setExtraSelections(marksAfter);
    // Open at the first change, a few lines of context above it.
    constexpr int kContextLines = 3;
    if (first > kContextLines)
        m_before->verticalScrollBar()->setValue(first - kContextLines);
}

void VersionCompareView::showSettings(const Version& before, const Version& after) {
    const QVector<SettingChange> changes = diffProjectSettings(before.project, after.project);
    m_settings->setRowCount(int(changes.size()));
    for (int i = 0; i < changes.size(); ++i)
        setRow(m_settings, i, {changes.at(i).field, changes.at(i).before, changes.at(i).after});
    if (changes.isEmpty()) {
        m_settings->setRowCount(1);
        setRow(m_settings, 0, {tr("(every setting the same)"), QString(), QString()});
    }
    m_settings->resizeColumnsToContents();
}

void VersionCompareView::showTimings(const Version& before, const Version& after) {
    struct Figure {
        QString name;
        std::function<double(const TimingStats&)> value;
        bool duration;
    };
    const QVector<Figure> figures = {
        {tr("median"), [](const TimingStats& t) { return t.medianMs; }, true},
        {tr("min"), [](const TimingStats& t) { return t.minMs; }, true},
        {tr("max"), [](const TimingStats& t) { return t.maxMs; }, true},
        {tr("mean"), [](const TimingStats& t) { return t.meanMs; }, true},
        {tr("noise %"), [](const TimingStats& t) { return t.relNoise * 100; }, false},
        {tr("samples"), [](const TimingStats& t) { return double(t.reps()); }, false},
        {tr("bandwidth GB/s"), [](const TimingStats& t) { return t.bandwidthGBs; }, false},
    };
    const auto text = [](const Version& v, const Figure& f) {
        if (!v.hasTiming())
            return tr("(not timed)");
        const double value = f.value(v.timing);
        return f.duration ? formatDurationMs(value) : QString::number(value, 'g', 4);
    };
    // Energy where either version measured it; an older version's cell stays empty, not 0.
    const QString energyBefore = VersionsModel::energyText(before);
    const QString energyAfter = VersionsModel::energyText(after);
    const bool energy = !energyBefore.isEmpty() || !energyAfter.isEmpty();
    m_timings->setRowCount(int(figures.size()) + (energy ? 3 : 1));
    int row = 0;
    for (const Figure& f : figures) {
        const bool both = before.hasTiming() && after.hasTiming();
        setRow(m_timings, row++,
               {f.name, text(before, f), text(after, f),
                both && f.duration ? relativeChange(f.value(before.timing), f.value(after.timing))
                                   : QString()});
    }
    if (energy) {
        const bool both = !energyBefore.isEmpty() && !energyAfter.isEmpty();
        setRow(m_timings, row++,
               {tr("energy per launch"), energyBefore, energyAfter,
                both ? relativeChange(before.timing.telemetry.energyPerLaunchJ(),
                                      after.timing.telemetry.energyPerLaunchJ())
                     : QString()});
        setRow(m_timings, row++,
               {tr("per joule"), VersionsModel::efficiencyText(before),
                VersionsModel::efficiencyText(after), QString()});
    }
    setRow(m_timings, row, {tr("device"), before.device, after.device, QString()});
    m_timings->resizeColumnsToContents();
}

void VersionCompareView::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && m_shown) {
        const std::pair<Version, Version> shown = *m_shown;
        compare(shown.first, shown.second, m_verdict->text());
    }
}

} // namespace kernelpad
