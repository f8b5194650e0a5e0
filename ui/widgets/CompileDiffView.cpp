#include "ui/widgets/CompileDiffView.h"

#include "ui/CompileHistory.h"
#include "ui/Theme.h"

#include <QComboBox>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableWidget>
#include <QTextBlock>
#include <QVBoxLayout>

namespace kernelpad {

namespace {

QPlainTextEdit* makePane(QWidget* parent, const QString& name) {
    auto* pane = new QPlainTextEdit(parent);
    pane->setObjectName(name);
    pane->setReadOnly(true);
    pane->setLineWrapMode(QPlainTextEdit::NoWrap);
    pane->setFont(monospaceFont());
    pane->setToolTip(QObject::tr("Red: removed · blue: added · yellow: changed; "
                                 "addresses, encodings, comments and .loc lines are left out"));
    pane->setTabStopDistance(4 * pane->fontMetrics().horizontalAdvance(QLatin1Char(' ')));
    return pane;
}

/// Scrolls `b` with `a` (and back): the rows are aligned, so equal values show equal rows.
void lockScrolling(QScrollBar* a, QScrollBar* b) {
    QObject::connect(a, &QScrollBar::valueChanged, b, &QScrollBar::setValue);
    QObject::connect(b, &QScrollBar::valueChanged, a, &QScrollBar::setValue);
}

QString diffCounts(const ListingDiff& diff) {
    if (diff.identical())
        return QObject::tr("no changes");
    return QObject::tr("%1 changed, %2 added, %3 removed")
        .arg(diff.changed)
        .arg(diff.added)
        .arg(diff.removed);
}

} // namespace

CompileDiffView::CompileDiffView(QWidget* parent)
    : QWidget(parent)
    , m_baseline(new QComboBox(this))
    , m_pin(new QPushButton(tr("Pin this compile"), this))
    , m_listing(new QComboBox(this))
    , m_kernels(new QComboBox(this))
    , m_message(new QLabel(this))
    , m_figures(new QTableWidget(this))
    , m_before(makePane(this, QStringLiteral("diffBefore")))
    , m_after(makePane(this, QStringLiteral("diffAfter")))
    , m_beforeTitle(new QLabel(this))
    , m_afterTitle(new QLabel(this)) {
    m_baseline->setObjectName(QStringLiteral("diffBaseline"));
    m_baseline->addItem(tr("previous compile"));
    m_baseline->addItem(tr("pinned compile"));
    m_pin->setObjectName(QStringLiteral("diffPin"));
    m_pin->setToolTip(tr("Keep this compile to compare the following edits with it"));
    m_listing->setObjectName(QStringLiteral("diffListing"));
    m_listing->addItems({QStringLiteral("PTX"), QStringLiteral("SASS")});
    m_kernels->setObjectName(QStringLiteral("diffKernels"));
    m_kernels->setToolTip(tr("The kernel whose figures the table shows"));
    m_message->setObjectName(QStringLiteral("diffMessage"));
    m_message->setWordWrap(true);
    m_message->setMinimumWidth(0);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_figures->setObjectName(QStringLiteral("diffFigures"));
    m_figures->setColumnCount(2);
    m_figures->setHorizontalHeaderLabels({tr("Figure"), tr("Before → after")});
    m_figures->verticalHeader()->hide();
    m_figures->horizontalHeader()->setStretchLastSection(true);
    m_figures->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_figures->setSelectionMode(QAbstractItemView::NoSelection);
    m_figures->verticalHeader()->setDefaultSectionSize(m_figures->fontMetrics().height() + 4);

    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Compare with:"), this));
    bar->addWidget(m_baseline);
    bar->addWidget(m_pin);
    bar->addStretch(1);
    // Two rows: beside the editor one row of all five would widen the window past 1280.
    auto* bar2 = new QHBoxLayout;
    bar2->addWidget(new QLabel(tr("Listing:"), this));
    bar2->addWidget(m_listing);
    bar2->addSpacing(12);
    bar2->addWidget(new QLabel(tr("Kernel:"), this));
    bar2->addWidget(m_kernels, 1);

    auto* panes = new QWidget(this);
    auto* grid = new QGridLayout(panes);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->addWidget(m_beforeTitle, 0, 0);
    grid->addWidget(m_afterTitle, 0, 1);
    grid->addWidget(m_before, 1, 0);
    grid->addWidget(m_after, 1, 1);
    lockScrolling(m_before->verticalScrollBar(), m_after->verticalScrollBar());
    lockScrolling(m_before->horizontalScrollBar(), m_after->horizontalScrollBar());

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_figures);
    split->addWidget(panes);
    split->setStretchFactor(1, 1);
    // Beside the editor the tab is about 630 pixels wide: the table gets what its labels and
    // "1234 → 1240 (+6)" need, the listings the rest.
    split->setSizes({250, 900});

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addLayout(bar2);
    layout->addWidget(m_message);
    layout->addWidget(split, 1);

    connect(m_baseline, &QComboBox::activated, this, [this](int index) {
        if (m_history)
            m_history->setBaseline(index == 1 ? CompileHistory::Baseline::Pinned
                                              : CompileHistory::Baseline::Previous);
    });
    connect(m_pin, &QPushButton::clicked, this, [this] {
        if (m_history)
            m_history->pinCurrent();
    });
    connect(m_listing, &QComboBox::activated, this, [this] { refresh(); });
    connect(m_kernels, &QComboBox::activated, this, [this] { showFigures(); });
    refresh();
}

void CompileDiffView::setHistory(CompileHistory* history) {
    m_history = history;
    connect(history, &CompileHistory::changed, this, [this] {
        if (m_opened || isVisible())
            m_history->requestReports();
        refresh();
    });
    refresh();
}

QString CompileDiffView::message() const {
    return m_message->text();
}

QString CompileDiffView::listingShown() const {
    return m_listing->currentText();
}

void CompileDiffView::forgetShown() {
    m_opened = isVisible();
}

void CompileDiffView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    m_opened = true;
    if (m_history)
        m_history->requestReports();
}

void CompileDiffView::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        refresh();
}

void CompileDiffView::refresh() {
    const bool pinned = m_history && m_history->baseline() == CompileHistory::Baseline::Pinned;
    m_baseline->setCurrentIndex(pinned ? 1 : 0);
    m_pin->setEnabled(m_history && m_history->current());
    const std::optional<CompileComparison>* comparison =
        m_history ? &m_history->comparison() : nullptr;
    if (!comparison || !*comparison) {
        QString why;
        if (m_history && m_history->waitingForCompiles())
            why = tr("Compiling %1 and %2 with -lineinfo and -Xptxas -v…")
                      .arg(m_history->baselineSnapshot()->label(), m_history->current()->label());
        else if (!m_history || !m_history->current())
            why = tr("No compile yet: compile the kernel, edit it and compile again to see what "
                     "changed.");
        else if (pinned)
            why = tr("Nothing pinned: press Pin this compile, then edit the kernel; each compile "
                     "is compared with the pinned one.");
        else
            why = tr("No previous compile: this is %1. Edit the kernel and compile again to "
                     "compare.")
                      .arg(m_history->current()->label());
        m_message->setText(why);
        m_kernels->clear();
        m_figures->setRowCount(0);
        m_before->clear();
        m_after->clear();
        m_beforeTitle->clear();
        m_afterTitle->clear();
        return;
    }
    const CompileComparison& c = **comparison;
    const CompileSnapshot& before = *m_history->baselineSnapshot();
    const CompileSnapshot& after = *m_history->current();
    // SASS only where both sides have it; otherwise the PTX, and why.
    auto* sassItem = qobject_cast<QStandardItemModel*>(m_listing->model());
    if (sassItem && sassItem->item(1))
        sassItem->item(1)->setEnabled(c.hasSass);
    if (!c.hasSass)
        m_listing->setCurrentIndex(0);
    const bool sass = c.hasSass && m_listing->currentIndex() == 1;

    QStringList parts;
    parts << tr("%1 → %2").arg(before.label(), after.label());
    parts << tr("PTX: %1").arg(diffCounts(c.ptx));
    if (c.hasSass)
        parts << tr("SASS: %1").arg(diffCounts(c.sass));
    else if (!m_history->reportsReady())
        parts << tr("SASS, registers and spills: compiling with -lineinfo and -Xptxas -v…");
    else
        parts << tr("SASS unavailable: %1").arg(m_history->sassUnavailable());
    m_message->setText(parts.join(QStringLiteral(" · ")));
    m_beforeTitle->setText(tr("Before: %1").arg(before.label()));
    m_afterTitle->setText(tr("After: %1").arg(after.label()));

    const QString kernel = m_kernels->currentText();
    m_kernels->clear();
    for (const KernelComparison& k : c.kernels)
        m_kernels->addItem(k.name, k.lowered);
    const int keep = m_kernels->findText(kernel);
    m_kernels->setCurrentIndex(keep >= 0 ? keep : 0);
    showFigures();
    showListing(sass ? c.sass : c.ptx);
}

void CompileDiffView::showFigures() {
    m_figures->setRowCount(0);
    if (!m_history || !m_history->comparison())
        return;
    const KernelComparison* k = m_history->comparison()->find(m_kernels->currentData().toString());
    if (!k)
        return;
    QFont bold = m_figures->font();
    bold.setBold(true);
    m_figures->setRowCount(k->rows.size());
    for (int i = 0; i < k->rows.size(); ++i) {
        const ComparisonRow& row = k->rows.at(i);
        auto* label = new QTableWidgetItem(row.label);
        auto* value = new QTableWidgetItem(row.text(QStringLiteral(" → ")));
        label->setData(Qt::UserRole, row.key);
        if (row.changed()) {
            label->setFont(bold);
            value->setFont(bold);
        }
        m_figures->setItem(i, 0, label);
        m_figures->setItem(i, 1, value);
    }
    m_figures->resizeColumnToContents(0);
}

void CompileDiffView::showListing(const ListingDiff& diff) {
    const int scroll = m_before->verticalScrollBar()->value();
    QStringList left;
    QStringList right;
    for (const ListingDiffRow& row : diff.rows) {
        left << (row.before >= 0 ? diff.before.at(row.before) : QString());
        right << (row.after >= 0 ? diff.after.at(row.after) : QString());
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
    for (int i = 0; i < diff.rows.size(); ++i) {
        switch (diff.rows.at(i).kind) {
        case ListingDiffRow::Kind::Same:
            break;
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
    }
    m_before->setExtraSelections(marksBefore);
    m_after->setExtraSelections(marksAfter);
    // A fresh listing opens at its first change; one already scrolled stays where it was.
    int first = -1;
    for (int i = 0; i < diff.rows.size() && first < 0; ++i)
        first = diff.rows.at(i).kind == ListingDiffRow::Kind::Same ? -1 : i;
    if (scroll == 0 && first > 0) {
        m_after->setTextCursor(QTextCursor(m_after->document()->findBlockByNumber(first)));
        m_after->centerCursor();
    } else {
        m_before->verticalScrollBar()->setValue(scroll);
    }
}

} // namespace kernelpad
