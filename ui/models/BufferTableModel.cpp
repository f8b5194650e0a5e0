#include "ui/models/BufferTableModel.h"

#include "core/launch/BufferInit.h"

#include <QFont>
#include <QFontDatabase>

#include <climits>

namespace kernelpad {

namespace {

/// Qt item models count rows in int: longer buffers show their first INT_MAX rows.
int clampToInt(qint64 n) {
    return int(std::min<qint64>(n, INT_MAX));
}

} // namespace

BufferTableModel::BufferTableModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void BufferTableModel::setBuffer(const OutputBuffer& buffer) {
    beginResetModel();
    m_buffer = buffer; // shares the bytes (QByteArray is implicitly shared)
    // Never trust count beyond the bytes that are really there.
    const qint64 elementBytes = m_buffer.type.sizeBytes();
    if (elementBytes <= 0)
        m_buffer.count = 0;
    else
        m_buffer.count = std::min(m_buffer.count, qint64(m_buffer.data.size()) / elementBytes);
    endResetModel();
}

void BufferTableModel::clear() {
    setBuffer(OutputBuffer{});
}

void BufferTableModel::setRowWidth(qint64 width) {
    width = width > 1 ? width : 0;
    if (width == m_rowWidth)
        return;
    beginResetModel();
    m_rowWidth = width;
    endResetModel();
}

qint64 BufferTableModel::elementCount() const {
    return m_buffer.count;
}

int BufferTableModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid())
        return 0;
    if (m_rowWidth <= 1)
        return clampToInt(m_buffer.count);
    return clampToInt((m_buffer.count + m_rowWidth - 1) / m_rowWidth);
}

int BufferTableModel::columnCount(const QModelIndex& parent) const {
    if (parent.isValid())
        return 0;
    return m_rowWidth > 1 ? clampToInt(m_rowWidth) : 1;
}

qint64 BufferTableModel::elementAt(const QModelIndex& index) const {
    if (!index.isValid() || index.model() != this || index.row() < 0 || index.column() < 0 ||
        index.row() >= rowCount() || index.column() >= columnCount())
        return -1;
    const qint64 width = m_rowWidth > 1 ? m_rowWidth : 1;
    const qint64 element = qint64(index.row()) * width + index.column();
    return element < m_buffer.count ? element : -1;
}

QModelIndex BufferTableModel::indexOfElement(qint64 element) const {
    if (element < 0 || element >= m_buffer.count)
        return {};
    const qint64 width = m_rowWidth > 1 ? m_rowWidth : 1;
    const qint64 row = element / width;
    if (row >= INT_MAX)
        return {};
    return index(int(row), int(element % width));
}

QVariant BufferTableModel::data(const QModelIndex& index, int role) const {
    const qint64 element = elementAt(index);
    if (element < 0)
        return {};
    switch (role) {
    case Qt::DisplayRole:
        // Formatted on demand: the view asks only for the rows it shows.
        return elementToString(m_buffer.type, m_buffer.data.constData(), element);
    case Qt::ToolTipRole:
        return tr("%1[%2] = %3")
            .arg(m_buffer.name)
            .arg(element)
            .arg(elementToString(m_buffer.type, m_buffer.data.constData(), element));
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::FontRole:
        return QFontDatabase::systemFont(QFontDatabase::FixedFont);
    default:
        return {};
    }
}

QVariant BufferTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole || section < 0)
        return {};
    if (orientation == Qt::Horizontal) {
        if (m_rowWidth > 1)
            return section;
        return m_buffer.name.isEmpty()
                   ? tr("Value")
                   : QStringLiteral("%1 (%2)").arg(m_buffer.name, m_buffer.type.displayName());
    }
    // Rows are labelled with the index of their first element, as a reader would count.
    const qint64 width = m_rowWidth > 1 ? m_rowWidth : 1;
    return qint64(section) * width;
}

BufferPageModel::BufferPageModel(BufferTableModel* source, QObject* parent)
    : QAbstractTableModel(parent)
    , m_source(source) {
    // Any change of the source (new buffer, row width) starts again at page 0.
    connect(source, &QAbstractItemModel::modelAboutToBeReset, this,
            &BufferPageModel::beginResetModel);
    connect(source, &QAbstractItemModel::modelReset, this, [this] {
        m_page = 0;
        endResetModel();
    });
}

void BufferPageModel::setPageRows(int rows) {
    rows = std::max(1, rows);
    if (rows == m_pageRows)
        return;
    beginResetModel();
    m_pageRows = rows;
    m_page = 0;
    endResetModel();
}

qint64 BufferPageModel::pageCount() const {
    const qint64 rows = m_source->rowCount();
    return std::max<qint64>(1, (rows + m_pageRows - 1) / m_pageRows);
}

void BufferPageModel::setPage(qint64 page) {
    page = std::clamp<qint64>(page, 0, pageCount() - 1);
    if (page == m_page)
        return;
    beginResetModel();
    m_page = page;
    endResetModel();
}

int BufferPageModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid())
        return 0;
    const qint64 left = qint64(m_source->rowCount()) - firstRow();
    return int(std::clamp<qint64>(left, 0, m_pageRows));
}

int BufferPageModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : m_source->columnCount();
}

QVariant BufferPageModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    return m_source->data(m_source->index(int(firstRow() + index.row()), index.column()), role);
}

QVariant BufferPageModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation == Qt::Vertical)
        return m_source->headerData(int(firstRow() + section), orientation, role);
    return m_source->headerData(section, orientation, role);
}

} // namespace kernelpad
