#include "ui/widgets/VersionsPanel.h"

#include "ui/models/VersionsModel.h"
#include "ui/widgets/VersionsPanelCompare.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace kernelpad {

namespace {
constexpr int kMinimumWidth = 240;
constexpr int kMinimumHeight = 160;
} // namespace

QSize VersionsPanel::sizeHint() const {
    return {2 * kMinimumWidth, 2 * kMinimumHeight};
}

VersionsPanel::VersionsPanel(QWidget* parent)
    : QWidget(parent)
    , m_model(new VersionsModel(this)) {
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("versionsTable"));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    m_table->setToolTip(tr("Every run of this project, newest first. Select two versions to "
                           "compare them; Restore puts the selected one into the editor."));
    connect(m_table, &QWidget::customContextMenuRequested, this, &VersionsPanel::showContextMenu);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &VersionsPanel::selectionChanged);
    // Columns fit what they show (the time, the median) as rows come.
    const auto fit = [this] {
        for (int c = 0; c < VersionsModel::MarksColumn; ++c)
            m_table->resizeColumnToContents(c);
    };
    connect(m_model, &QAbstractItemModel::rowsInserted, this, fit);
    connect(m_model, &QAbstractItemModel::modelReset, this, fit);
    // A new row at the top, or a reset, changes which versions are compared.
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &VersionsPanel::selectionChanged);
    connect(m_model, &QAbstractItemModel::modelReset, this, &VersionsPanel::selectionChanged);
    // A profile that arrived changes the compared versions' verdict.
    connect(m_model, &QAbstractItemModel::dataChanged, this, &VersionsPanel::selectionChanged);

    m_restore = new QPushButton(tr("Restore"), this);
    m_restore->setObjectName(QStringLiteral("versionsRestore"));
    m_restore->setToolTip(tr("Put the selected version's source and settings into the "
                             "document (Edit ▸ Undo in the editor brings the source back)"));
    connect(m_restore, &QPushButton::clicked, this, [this] {
        const QList<int> numbers = selectedNumbers();
        if (numbers.size() == 1)
            emit restoreRequested(numbers.first());
    });
    m_compileDiff = new QPushButton(tr("PTX/SASS Diff"), this);
    m_compileDiff->setObjectName(QStringLiteral("versionsCompileDiff"));
    m_compileDiff->setToolTip(tr("Compile both compared versions and show their PTX and SASS "
                                 "side by side in the Diff tab"));
    connect(m_compileDiff, &QPushButton::clicked, this, [this] {
        if (m_compared.first != 0)
            emit compileDiffRequested(m_compared.first, m_compared.second);
    });
    m_abCompare = new QPushButton(tr("Compare with…"), this);
    m_abCompare->setObjectName(QStringLiteral("versionsAbCompare"));
    m_abCompare->setToolTip(tr("Time the selected version (A) against the editor's source (B) "
                               "on the same inputs, their launches interleaved, and say whether "
                               "B is faster, slower or no different"));
    connect(m_abCompare, &QPushButton::clicked, this, [this] {
        const QList<int> numbers = selectedNumbers();
        if (m_abRunning)
            emit abCancelRequested();
        else if (numbers.size() == 1)
            emit abCompareRequested(numbers.first());
    });
    // Keys on the table itself: the buttons' mnemonics would clash with the menu bar's
    // (Alt+D is the Device menu).
    auto* restoreKey = new QAction(m_table);
    restoreKey->setShortcuts({QKeySequence(Qt::Key_Return), QKeySequence(Qt::Key_Enter)});
    restoreKey->setShortcutContext(Qt::WidgetShortcut);
    connect(restoreKey, &QAction::triggered, m_restore, &QPushButton::click);
    auto* diffKey = new QAction(m_table);
    diffKey->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    diffKey->setShortcutContext(Qt::WidgetShortcut);
    connect(diffKey, &QAction::triggered, m_compileDiff, &QPushButton::click);
    m_table->addActions({restoreKey, diffKey});
    m_restore->setToolTip(m_restore->toolTip() + tr(" (Return in the list)"));
    m_compileDiff->setToolTip(m_compileDiff->toolTip() + tr(" (Ctrl+D in the list)"));

    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("versionsMessage"));
    m_message->setWordWrap(true);
    m_message->setTextFormat(Qt::PlainText);
    m_message->hide();

    m_compare = new VersionCompareView(this);
    m_compare->setObjectName(QStringLiteral("versionCompare"));

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_restore);
    buttons->addWidget(m_compileDiff);
    buttons->addWidget(m_abCompare);
    buttons->addStretch(1);
    auto* top = new QWidget(this);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_message);
    topLayout->addLayout(buttons);
    topLayout->addWidget(m_table, 1);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->setObjectName(QStringLiteral("versionsSplitter"));
    split->addWidget(top);
    split->addWidget(m_compare);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    split->setChildrenCollapsible(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(split);
    // A tab among the docks of the right column: its tables and panes must not raise that
    // column's minimum height or width, or the compile options above it lose their room at
    // 1280x800 (tst_windowlayout). Squeezed, it clips; floated, it gets the room it wants.
    setMinimumSize(kMinimumWidth, kMinimumHeight);
    selectionChanged();
}

void VersionsPanel::selectVersions(const QList<int>& numbers) {
    QItemSelection selection;
    int first = -1;
    for (int number : numbers) {
        const int row = m_model->rowOf(number);
        if (row < 0)
            continue;
        if (first < 0)
            first = row;
        selection.select(m_model->index(row, 0),
                         m_model->index(row, VersionsModel::ColumnCount - 1));
    }
    QItemSelectionModel* model = m_table->selectionModel();
    model->select(selection, QItemSelectionModel::ClearAndSelect);
    if (first >= 0)
        model->setCurrentIndex(m_model->index(first, 0), QItemSelectionModel::NoUpdate);
}

QList<int> VersionsPanel::selectedNumbers() const {
    QList<int> numbers;
    for (const QModelIndex& index : m_table->selectionModel()->selectedRows())
        numbers << index.data(Qt::UserRole).toInt();
    std::sort(numbers.begin(), numbers.end());
    return numbers;
}

void VersionsPanel::setMessage(const QString& message) {
    m_message->setText(message);
    m_message->setVisible(!message.isEmpty());
}

QString VersionsPanel::message() const {
    return m_message->text();
}

void VersionsPanel::setAbRunning(bool running) {
    m_abRunning = running;
    m_abCompare->setText(running ? tr("Stop Comparing") : tr("Compare with…"));
    selectionChanged();
}

void VersionsPanel::selectionChanged() {
    const QList<int> numbers = selectedNumbers();
    m_restore->setEnabled(numbers.size() == 1);
    m_compared = {0, 0};
    if (numbers.size() == 2) {
        m_compared = {numbers.at(0), numbers.at(1)};
    } else if (numbers.size() == 1) {
        // One version: against the one before it in the timeline.
        const int row = m_model->rowOf(numbers.first());
        if (const Version* older = m_model->at(row + 1))
            m_compared = {older->number, numbers.first()};
    }
    const Version* before = m_model->find(m_compared.first);
    const Version* after = m_model->find(m_compared.second);
    if (before && after) {
        m_compare->compare(*before, *after, m_model->editVerdictOf(*before, *after).sentence);
    } else {
        m_compared = {0, 0};
        m_compare->showMessage(
            m_model->rowCount() == 0
                ? tr("No versions yet: every run of this project is kept here.")
            : numbers.size() > 2
                ? tr("%1 versions selected: select two to compare them.").arg(numbers.size())
                : tr("Select two versions to compare them (Ctrl+click or Shift+arrow); one "
                     "version is compared with the one before it."));
    }
    m_compileDiff->setEnabled(m_compared.first != 0);
    const Version* chosen = numbers.size() == 1 ? m_model->find(numbers.first()) : nullptr;
    m_abCompare->setEnabled(m_abRunning || (chosen && !chosen->kept));
}

void VersionsPanel::showContextMenu(const QPoint& at) {
    QMenu menu(this);
    QAction* restore = menu.addAction(m_restore->text(), m_restore, &QPushButton::click);
    restore->setEnabled(m_restore->isEnabled());
    QAction* diff = menu.addAction(m_compileDiff->text(), m_compileDiff, &QPushButton::click);
    diff->setEnabled(m_compileDiff->isEnabled());
    QAction* ab = menu.addAction(m_abCompare->text(), m_abCompare, &QPushButton::click);
    ab->setEnabled(m_abCompare->isEnabled());
    menu.exec(m_table->viewport()->mapToGlobal(at));
}

} // namespace kernelpad
