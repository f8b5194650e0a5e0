#include "ui/models/BufferTableModel.h"

#include "core/engine/OutputRangeReader.h"
#include "core/launch/BufferInit.h"

#include <QFont>
#include <QFontDatabase>

#include <QTimer>

#include <climits>

namespace kernelpad {

namespace {

/// Qt item models count rows in int: longer buffers show their first INT_MAX rows.
int clampToInt(qint64 n) {
    return int(std::min<qint64>(n, INT_MAX));
}

} // namespace

BufferTableModel::BufferTableModel(QObject* parent)
    : QAbstractTableModel(parent)
    , m_reader(new OutputRangeReader(this)) {
    connect(m_reader, &OutputRangeReader::arrived, this, &BufferTableModel::onArrived);
    // A failure empties the "…" cells; the viewer says why.
    connect(m_reader, &OutputRangeReader::failed, this, [this] {
        if (rowCount() > 0)
            emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
    });
}

void BufferTableModel::setBuffer(const OutputBuffer& buffer) {
    beginResetModel();
    m_reader->setBuffer(buffer); // shares the bytes (QByteArray is implicitly shared)
    m_buffer = buffer;
    // Never trust count beyond the bytes that are really there (or, kept, on the runner).
    m_buffer.count = m_reader->elementCount();
    m_missingFirst = m_missingLast = -1;
    endResetModel();
}

void BufferTableModel::setRangeFetcher(RangeFetcher* fetcher) {
    m_reader->setFetcher(fetcher);
}

void BufferTableModel::noteMissing(qint64 element) const {
    if (m_missingFirst < 0) {
        m_missingFirst = m_missingLast = element;
        // After the paint that asks for the rows in view: one request for all of them.
        QTimer::singleShot(0, const_cast<BufferTableModel*>(this),
                           &BufferTableModel::requestMissing);
        return;
    }
    m_missingFirst = std::min(m_missingFirst, element);
    m_missingLast = std::max(m_missingLast, element);
}

void BufferTableModel::requestMissing() {
    if (m_missingFirst < 0)
        return;
    // A screenful of margin on either side, so that a short scroll finds its rows here.
    const qint64 margin = m_missingLast - m_missingFirst + 1;
    m_reader->want(m_missingFirst - margin, m_missingLast + margin);
    m_missingFirst = m_missingLast = -1;
}

void BufferTableModel::onArrived(qint64 first, qint64 last) {
    const qint64 width = m_rowWidth > 1 ? m_rowWidth : 1;
    const qint64 rows = rowCount();
    const qint64 top = first / width;
    const qint64 bottom = std::min(last / width, rows - 1);
    if (top > bottom)
        return;
    emit dataChanged(index(int(top), 0), index(int(bottom), columnCount() - 1),
                     {Qt::DisplayRole, Qt::ToolTipRole});
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
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        // Formatted on demand: the view asks only for the rows it shows.
        const char* bytes = m_reader->element(element);
        if (!bytes) {
            if (!m_reader->error().isEmpty())
                return role == Qt::ToolTipRole ? QVariant(m_reader->error()) : QVariant(QString());
            noteMissing(element);
            return role == Qt::ToolTipRole ? QVariant(tr("%1[%2] is being fetched from the runner")
                                                          .arg(m_buffer.name)
                                                          .arg(element))
                                           : QVariant(QString::fromUtf8(kFetchingText));
        }
        // elementToString reads element `i` of a base pointer: this one points at the element.
        const QString text = elementToString(m_buffer.type, bytes, 0);
        return role == Qt::DisplayRole
                   ? text
                   : tr("%1[%2] = %3").arg(m_buffer.name).arg(element).arg(text);
    }
    switch (role) {
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
    // Rows of a kept buffer that arrived: those on this page change.
    connect(source, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex& topLeft, const QModelIndex& bottomRight,
                   const QList<int>& roles) {
                const qint64 top = std::max<qint64>(topLeft.row(), firstRow());
                const qint64 bottom =
                    std::min<qint64>(bottomRight.row(), firstRow() + rowCount() - 1);
                if (top > bottom)
                    return;
                emit dataChanged(index(int(top - firstRow()), topLeft.column()),
                                 index(int(bottom - firstRow()), bottomRight.column()), roles);
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
