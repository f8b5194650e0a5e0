#include "ui/widgets/BufferViewer.h"

#include "core/engine/OutputRangeReader.h"
#include "ui/models/BufferTableModel.h"
#include "ui/widgets/HeatMapView.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QRegularExpressionValidator>
#include <QScrollBar>
#include <QSpinBox>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace kernelpad {

namespace {

/// Wider rows than this are not readable as a table; the heat map still takes any width.
constexpr int kMaxRowWidth = 1 << 20;

} // namespace

BufferViewer::BufferViewer(QWidget* parent)
    : QWidget(parent)
    , m_model(new BufferTableModel(this)) {
    m_page = new BufferPageModel(m_model, this);

    m_combo = new QComboBox(this);
    m_combo->setObjectName(QStringLiteral("bufferCombo"));
    m_combo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_info = new QLabel(this);
    m_info->setObjectName(QStringLiteral("bufferInfo"));
    // Wraps rather than setting the window's minimum width by its longest sentence.
    m_info->setWordWrap(true);
    m_kept = new QLabel(this);
    m_kept->setObjectName(QStringLiteral("keptNote"));
    m_kept->setWordWrap(true);
    m_kept->setVisible(false);
    m_rowWidth = new QSpinBox(this);
    m_rowWidth->setObjectName(QStringLiteral("rowWidth"));
    m_rowWidth->setRange(0, kMaxRowWidth);
    m_rowWidth->setSpecialValueText(tr("1-D"));
    m_rowWidth->setToolTip(tr("Elements per row: shows the buffer as a 2-D table and sets the "
                              "heat map's width (1-D: one element per row, square heat map)"));
    m_goto = new QLineEdit(this);
    m_goto->setObjectName(QStringLiteral("gotoIndex"));
    m_goto->setPlaceholderText(tr("go to index"));
    m_goto->setValidator(
        new QRegularExpressionValidator(QRegularExpression(QStringLiteral("\\d{1,18}")), this));
    m_goto->setMaximumWidth(160);

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Buffer"), this));
    top->addWidget(m_combo);
    top->addWidget(m_info, 1);
    top->addWidget(new QLabel(tr("Row width"), this));
    top->addWidget(m_rowWidth);
    top->addWidget(m_goto);

    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("bufferTable"));
    m_table->setModel(m_page);
    // Fixed row heights: the view never measures rows it does not show.
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 4);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setDefaultSectionSize(110);
    m_table->setWordWrap(false);

    m_prevPage = new QToolButton(this);
    m_prevPage->setIcon(style()->standardIcon(QStyle::SP_ArrowLeft));
    m_prevPage->setToolTip(tr("Previous rows"));
    m_nextPage = new QToolButton(this);
    m_nextPage->setIcon(style()->standardIcon(QStyle::SP_ArrowRight));
    m_nextPage->setToolTip(tr("Next rows"));
    m_pageLabel = new QLabel(this);
    auto* pages = new QHBoxLayout;
    pages->addWidget(m_prevPage);
    pages->addWidget(m_pageLabel, 1);
    pages->addWidget(m_nextPage);

    auto* tablePage = new QWidget(this);
    auto* tableLayout = new QVBoxLayout(tablePage);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->addWidget(m_table);
    tableLayout->addLayout(pages);

    m_heatMap = new HeatMapView(this);
    m_heatMap->setObjectName(QStringLiteral("heatMap"));
    auto* heatPage = new QWidget(this);
    auto* heatLayout = new QVBoxLayout(heatPage);
    heatLayout->setContentsMargins(0, 0, 0, 0);
    auto* hover = new QLabel(heatPage);
    heatLayout->addWidget(m_heatMap, 1);
    heatLayout->addWidget(hover);

    m_tabs = new QTabWidget(this);
    m_tabs->addTab(tablePage, tr("Table"));
    m_tabs->addTab(heatPage, tr("Heat map"));

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_kept);
    layout->addWidget(m_tabs, 1);
    m_heatMap->setReader(m_model->reader());
    connect(m_model->reader(), &OutputRangeReader::failed, this, &BufferViewer::showKeptNote);
    connect(m_table->verticalScrollBar(), &QScrollBar::valueChanged, this,
            &BufferViewer::followTable);

    connect(m_combo, &QComboBox::currentIndexChanged, this, &BufferViewer::showBuffer);
    connect(m_rowWidth, &QSpinBox::valueChanged, this, &BufferViewer::applyRowWidth);
    connect(m_goto, &QLineEdit::returnPressed, this, &BufferViewer::onGoTo);
    connect(m_prevPage, &QToolButton::clicked, this, [this] { showPage(m_page->page() - 1); });
    connect(m_nextPage, &QToolButton::clicked, this, [this] { showPage(m_page->page() + 1); });
    connect(m_page, &QAbstractItemModel::modelReset, this, &BufferViewer::updatePageLabel);
    connect(m_heatMap, &HeatMapView::hoveredElement, hover,
            [hover](qint64 index, const QString& value) {
                hover->setText(index < 0 ? QString()
                                         : QStringLiteral("[%1] = %2").arg(index).arg(value));
            });
    clear();
}

void BufferViewer::setRangeFetcher(RangeFetcher* fetcher) {
    m_fetcher = fetcher;
    m_model->setRangeFetcher(fetcher);
}

QString BufferViewer::keptNote() const {
    return m_model->buffer().isKept() ? m_kept->text() : QString();
}

void BufferViewer::showKeptNote() {
    const OutputBuffer& buffer = m_model->buffer();
    m_kept->setVisible(buffer.isKept());
    if (!buffer.isKept()) {
        m_kept->clear();
        return;
    }
    const OutputRangeReader* reader = m_model->reader();
    if (!reader->error().isEmpty()) {
        m_kept->setText(reader->error());
        return;
    }
    if (!m_fetcher) {
        m_kept->setText(tr("This output stayed on the runner, and this view cannot fetch it."));
        return;
    }
    const QString where = m_fetcher->sourceName();
    m_kept->setText(tr("kept on %1: %2, rows fetched as you scroll")
                        .arg(where.isEmpty() ? tr("the runner") : where,
                             QLocale().formattedDataSize(buffer.sizeBytes())));
}

void BufferViewer::followTable() {
    const qint64 width = m_heatMap->dataWidth();
    if (!m_model->buffer().isKept() || width <= 0)
        return;
    const int visible = std::max(0, m_table->rowAt(0));
    const qint64 row = m_page->firstRow() + visible;
    const qint64 tableWidth = std::max<qint64>(1, m_model->rowWidth());
    m_heatMap->setWindowRow(row * tableWidth / width);
}

void BufferViewer::clear() {
    setOutputs({});
    m_hasRun = false;
    showBuffer(-1);
}

void BufferViewer::setOutputs(const QVector<OutputBuffer>& outputs) {
    m_hasRun = true;
    const QString previous = m_combo->currentData().toString();
    m_outputs = outputs;
    {
        const QSignalBlocker blocker(m_combo);
        m_combo->clear();
        for (const OutputBuffer& b : outputs)
            m_combo->addItem(b.name, b.name);
    }
    m_combo->setEnabled(!outputs.isEmpty());
    // After a re-run the user usually wants the same buffer again.
    const int keep = m_combo->findData(previous);
    const int index = keep >= 0 ? keep : (outputs.isEmpty() ? -1 : 0);
    m_combo->setCurrentIndex(index);
    showBuffer(index);
}

void BufferViewer::showBuffer(int comboIndex) {
    if (comboIndex < 0 || comboIndex >= m_outputs.size()) {
        m_model->clear();
        m_heatMap->clear();
        // Before a run the project's out and inout buffers have no contents to show yet; it is
        // not that there are none.
        m_info->setText(m_hasRun ? tr("The last run returned no output buffers: only out and "
                                      "inout buffers are copied back, from a run that launched.")
                                 : tr("Output buffers (out and inout) show here after a run, "
                                      "as a table and a heat map."));
        updatePageLabel();
        showKeptNote();
        return;
    }
    const OutputBuffer& buffer = m_outputs.at(comboIndex);
    m_model->setBuffer(buffer);
    m_heatMap->setBuffer(buffer, m_rowWidth->value());
    const QLocale locale;
    m_info->setText(tr("%1 × %2 (%3)")
                        .arg(buffer.type.displayName(), locale.toString(m_model->elementCount()),
                             locale.formattedDataSize(buffer.sizeBytes())));
    updatePageLabel();
    showKeptNote();
}

void BufferViewer::applyRowWidth() {
    m_model->setRowWidth(m_rowWidth->value());
    const int index = m_combo->currentIndex();
    if (index >= 0 && index < m_outputs.size())
        m_heatMap->setBuffer(m_outputs.at(index), m_rowWidth->value());
    followTable();
}

void BufferViewer::showPage(qint64 page) {
    m_page->setPage(page);
    updatePageLabel();
    followTable();
}

void BufferViewer::updatePageLabel() {
    const qint64 rows = m_model->rowCount();
    const qint64 first = m_page->firstRow();
    const qint64 shown = m_page->rowCount();
    const QLocale locale;
    m_pageLabel->setText(rows == 0
                             ? QString()
                             : tr("rows %1–%2 of %3")
                                   .arg(locale.toString(first), locale.toString(first + shown - 1),
                                        locale.toString(rows)));
    m_prevPage->setEnabled(m_page->page() > 0);
    m_nextPage->setEnabled(m_page->page() + 1 < m_page->pageCount());
    m_pageLabel->setVisible(m_page->pageCount() > 1);
    m_prevPage->setVisible(m_page->pageCount() > 1);
    m_nextPage->setVisible(m_page->pageCount() > 1);
}

bool BufferViewer::goToIndex(qint64 index) {
    const QModelIndex cell = m_model->indexOfElement(index);
    if (!cell.isValid())
        return false;
    showPage(cell.row() / m_page->pageRows());
    const QModelIndex local = m_page->index(int(cell.row() - m_page->firstRow()), cell.column());
    m_tabs->setCurrentIndex(0);
    m_table->setCurrentIndex(local);
    m_table->scrollTo(local, QAbstractItemView::PositionAtCenter);
    return true;
}

void BufferViewer::onGoTo() {
    const qint64 index = m_goto->text().toLongLong();
    if (!goToIndex(index))
        m_goto->setToolTip(
            tr("Index %1 is past the end (%2 elements)").arg(index).arg(m_model->elementCount()));
    else
        m_goto->setToolTip(QString());
}

} // namespace kernelpad
