#include "ui/widgets/ArgumentTableView.h"

#include "ui/Theme.h"
#include "ui/dialogs/TensorMapDialog.h"
#include "ui/dialogs/TextureDialog.h"
#include "ui/models/ArgumentTableModel.h"
#include "ui/widgets/ArgumentDelegates.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QStyle>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace kernelpad {

namespace {

// A long init or verify expression is elided beyond this (its tooltip shows it whole)
// rather than widening the dock column past half a 1280 px screen.
constexpr int kMaxColumnWidthPx = 260;
// The most the table asks of the dock column: beyond it (a kernel with many or long arguments)
// the table scrolls sideways rather than making the window wider than a 1280 px screen, where
// the editor and a lesson pane share the rest.
constexpr int kMaxMinimumWidthPx = 480;

QToolButton* makeButton(QWidget* parent, const QString& text, const QString& toolTip,
                        QStyle::StandardPixmap icon, const char* objectName) {
    auto* button = new QToolButton(parent);
    button->setText(text);
    button->setToolTip(toolTip);
    button->setIcon(parent->style()->standardIcon(icon));
    button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    button->setAutoRaise(true);
    button->setObjectName(QString::fromLatin1(objectName));
    return button;
}

} // namespace

ArgumentTableView::ArgumentTableView(QWidget* parent)
    : QWidget(parent)
    , m_model(new ArgumentTableModel(this))
    , m_table(new QTableView(this)) {
    m_table->setObjectName(QStringLiteral("argumentTable"));
    m_table->setModel(m_model);
    m_table->setItemDelegate(new ArgumentDelegate(m_table));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                             QAbstractItemView::AnyKeyPressed | QAbstractItemView::SelectedClicked);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->setWordWrap(false);

    m_addButton = makeButton(this, tr("Add"), tr("Add an argument after the selected one"),
                             QStyle::SP_FileDialogNewFolder, "addArgument");
    m_removeButton = makeButton(this, tr("Remove"),
                                tr("Remove the selected arguments, or stop setting the selected "
                                   "globals (a global the module declares is offered again)"),
                                QStyle::SP_TrashIcon, "removeArgument");
    m_upButton = makeButton(this, tr("Up"), tr("Move the argument up (parameter order matters)"),
                            QStyle::SP_ArrowUp, "moveArgumentUp");
    m_downButton = makeButton(this, tr("Down"), tr("Move the argument down"), QStyle::SP_ArrowDown,
                              "moveArgumentDown");

    m_textureButton =
        makeButton(this, tr("Texture…"),
                   tr("Edit the texture's or surface's array and sampler, or the tensor map"),
                   QStyle::SP_FileDialogDetailedView, "editTexture");

    auto* buttons = new QHBoxLayout;
    buttons->setContentsMargins(0, 0, 0, 0);
    buttons->addWidget(m_addButton);
    buttons->addWidget(m_removeButton);
    buttons->addWidget(m_upButton);
    buttons->addWidget(m_downButton);
    buttons->addWidget(m_textureButton);
    buttons->addStretch();

    m_updateTypesAction = new QAction(tr("Update types to match the kernel"), this);
    m_updateTypesAction->setObjectName(QStringLiteral("updateTypesAction"));
    m_updateTypesAction->setToolTip(tr("Give each marked argument the type the compiled kernel "
                                       "takes; values, counts and settings stay"));
    connect(m_updateTypesAction, &QAction::triggered, m_model,
            &ArgumentTableModel::updateTypesToKernel);
    m_table->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_table->addAction(m_updateTypesAction);

    m_mismatchBar = new QWidget(this);
    m_mismatchBar->setObjectName(QStringLiteral("typeMismatchBar"));
    m_mismatchText = new QLabel(m_mismatchBar);
    m_mismatchText->setObjectName(QStringLiteral("typeMismatchText"));
    m_mismatchText->setWordWrap(true);
    auto* updateButton = new QToolButton(m_mismatchBar);
    updateButton->setObjectName(QStringLiteral("updateTypesButton"));
    updateButton->setDefaultAction(m_updateTypesAction);
    auto* bar = new QHBoxLayout(m_mismatchBar);
    bar->setContentsMargins(4, 2, 4, 2);
    bar->addWidget(m_mismatchText, 1);
    bar->addWidget(updateButton);
    m_mismatchBar->hide();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_mismatchBar);
    layout->addWidget(m_table);
    layout->addLayout(buttons);

    connect(m_addButton, &QToolButton::clicked, this, &ArgumentTableView::addRow);
    connect(m_removeButton, &QToolButton::clicked, this, &ArgumentTableView::removeSelectedRows);
    connect(m_upButton, &QToolButton::clicked, this, [this] { moveCurrentRow(-1); });
    connect(m_downButton, &QToolButton::clicked, this, [this] { moveCurrentRow(+1); });
    connect(m_textureButton, &QToolButton::clicked, this,
            [this] { editTexture(m_table->currentIndex().row()); });
    // Format and extent cells are not edited in place: a double-click opens the dialog.
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        if (index.column() == ArgumentTableModel::TypeColumn ||
            index.column() == ArgumentTableModel::ValueColumn)
            editTexture(index.row());
    });
    connect(m_model, &QAbstractItemModel::dataChanged, this, &ArgumentTableView::updateButtons);
    connect(m_model, &ArgumentTableModel::changed, this, &ArgumentTableView::changed);
    connect(m_model, &ArgumentTableModel::globalsChanged, this, &ArgumentTableView::changed);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &ArgumentTableView::updateButtons);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &ArgumentTableView::updateButtons);
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        fitColumns();
        updateButtons();
    });
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &ArgumentTableView::fitColumns);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &ArgumentTableView::fitColumns);
    connect(m_model, &QAbstractItemModel::rowsMoved, this, &ArgumentTableView::updateButtons);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &ArgumentTableView::updateButtons);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &ArgumentTableView::fitColumns);
    connect(m_model, &ArgumentTableModel::typeMismatchesChanged, this,
            &ArgumentTableView::updateTypeMismatchBar);
    updateButtons();
    updateTypeMismatchBar();
}

void ArgumentTableView::updateTypeMismatchBar() {
    const QVector<ArgumentTypeMismatch>& mismatches = m_model->typeMismatches();
    m_updateTypesAction->setEnabled(!mismatches.isEmpty());
    m_mismatchBar->setVisible(!mismatches.isEmpty());
    if (mismatches.isEmpty()) {
        m_mismatchText->clear();
        m_mismatchBar->setToolTip(QString());
        return;
    }
    QStringList messages;
    for (const ArgumentTypeMismatch& m : mismatches)
        messages << m.message;
    // One mismatch reads best in full; several are counted, each named in the tooltip.
    m_mismatchText->setText(mismatches.size() == 1
                                ? messages.first()
                                : tr("%n arguments differ from the compiled kernel's types",
                                     nullptr, int(mismatches.size())));
    m_mismatchBar->setToolTip(messages.join(QLatin1Char('\n')));
    const Theme theme = Theme::forPalette(palette());
    m_mismatchBar->setAutoFillBackground(true);
    m_mismatchBar->setStyleSheet(
        QStringLiteral("#typeMismatchBar { background: %1; } #typeMismatchText { color: %2; }")
            .arg(theme.warningPaper.name(), theme.bannerText.name()));
}

void ArgumentTableView::fitColumns() {
    m_table->resizeColumnsToContents();
    QHeaderView* header = m_table->horizontalHeader();
    int width = 0;
    for (int column = 0; column < header->count(); ++column) {
        if (header->sectionSize(column) > kMaxColumnWidthPx)
            header->resizeSection(column, kMaxColumnWidthPx);
        width += header->sectionSize(column);
    }
    // The table asks for every column's width, up to kMaxMinimumWidthPx, so that a dock of
    // that width never hides Init, Direction or Verify behind a sideways scroll.
    width += m_table->verticalHeader()->sizeHint().width() + 2 * m_table->frameWidth() +
             m_table->style()->pixelMetric(QStyle::PM_ScrollBarExtent);
    m_columnsWidth = width;
    m_table->setMinimumWidth(std::min(width, kMaxMinimumWidthPx));
}

int ArgumentTableView::columnsWidth() const {
    return m_columnsWidth + (width() - m_table->width());
}

void ArgumentTableView::addRow() {
    const QModelIndex current = m_table->currentIndex();
    // A parameter is added among the parameters, never among the globals below them.
    const int row = current.isValid() && current.row() < m_model->argumentCount()
                        ? current.row() + 1
                        : m_model->argumentCount();
    if (!m_model->insertRow(row))
        return;
    const QModelIndex name = m_model->index(row, ArgumentTableModel::NameColumn);
    m_table->setCurrentIndex(name);
    m_table->edit(name);
}

void ArgumentTableView::removeSelectedRows() {
    QList<int> rows;
    for (const QModelIndex& index : m_table->selectionModel()->selectedRows())
        rows << index.row();
    if (rows.isEmpty() && m_table->currentIndex().isValid())
        rows << m_table->currentIndex().row();
    // From the bottom up so the remaining row numbers stay right.
    std::sort(rows.begin(), rows.end(), std::greater<int>());
    for (int row : rows)
        m_model->removeRow(row);
    updateButtons();
}

void ArgumentTableView::moveCurrentRow(int delta) {
    const QModelIndex current = m_table->currentIndex();
    if (!current.isValid())
        return;
    const int row = current.row();
    const int target = row + delta;
    // Parameter order is the call's; globals have none.
    if (target < 0 || row >= m_model->argumentCount() || target >= m_model->argumentCount())
        return;
    // moveRow's destination is the row the moved one is inserted before.
    const int destination = delta > 0 ? target + 1 : target;
    if (m_model->moveRow({}, row, {}, destination))
        m_table->selectRow(target);
    updateButtons();
}

void ArgumentTableView::editTexture(int row) {
    const QVector<ArgumentSpec> arguments = m_model->arguments();
    if (row >= 0 && row < arguments.size() && arguments.at(row).isTensorMap()) {
        TensorMapDialog dialog(arguments, row, this);
        if (dialog.exec() == QDialog::Accepted)
            m_model->setArgument(row, dialog.argument());
        return;
    }
    if (row < 0 || row >= arguments.size() || !arguments.at(row).isImage())
        return;
    TextureDialog dialog(arguments.at(row), this);
    if (dialog.exec() == QDialog::Accepted)
        m_model->setArgument(row, dialog.argument());
}

void ArgumentTableView::updateButtons() {
    const QModelIndex current = m_table->currentIndex();
    const bool has = current.isValid();
    const bool parameter = has && current.row() < m_model->argumentCount();
    m_textureButton->setEnabled(parameter &&
                                (m_model->arguments().at(current.row()).isImage() ||
                                 m_model->arguments().at(current.row()).isTensorMap()));
    m_removeButton->setEnabled(has);
    m_upButton->setEnabled(parameter && current.row() > 0);
    m_downButton->setEnabled(parameter && current.row() + 1 < m_model->argumentCount());
}

} // namespace kernelpad
