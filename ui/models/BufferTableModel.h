#pragma once
// A read-only, lazy view of one output buffer: nothing is precomputed per element, only the
// rows the view asks for are formatted (100 million elements stay smooth). An output kept on
// the runner is read through an OutputRangeReader: the rows the view asks for are fetched (with
// a margin) and show "…" until they arrive.

#include "core/run/RunTypes.h"

#include <QAbstractTableModel>

namespace kernelpad {

class OutputRangeReader;
class RangeFetcher;

/// Table over an OutputBuffer: one column (row = element) or `rowWidth` columns (2-D).
class BufferTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    explicit BufferTableModel(QObject* parent = nullptr);

    /// What a kept cell shows until its element arrives.
    static constexpr const char* kFetchingText = "…";

    /// O(1): the QByteArray is implicitly shared, not copied. A kept buffer (isKept()) keeps
    /// its count and is fetched through rangeFetcher() as rows are shown.
    void setBuffer(const OutputBuffer& buffer);
    /// Where kept buffers' rows come from (the window's Workbench; a fake in tests).
    void setRangeFetcher(RangeFetcher* fetcher);
    /// The reader of the current buffer (shared with the heat map).
    [[nodiscard]] OutputRangeReader* reader() const { return m_reader; }
    void clear();
    /// 0 or 1: one element per row; N > 1: N elements per row (a 2-D table).
    void setRowWidth(qint64 width);
    [[nodiscard]] qint64 rowWidth() const { return m_rowWidth; }
    [[nodiscard]] const OutputBuffer& buffer() const { return m_buffer; }
    [[nodiscard]] qint64 elementCount() const;
    /// The cell showing element `element` (invalid when out of range).
    [[nodiscard]] QModelIndex indexOfElement(qint64 element) const;
    /// The element a cell shows, -1 for cells past the end of the last row.
    [[nodiscard]] qint64 elementAt(const QModelIndex& index) const;

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index,
                                int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;

private:
    /// data() asked for an element that is not here: wanted once the view's paint is over.
    void noteMissing(qint64 element) const;
    void requestMissing();
    void onArrived(qint64 first, qint64 last);

    OutputBuffer m_buffer;
    qint64 m_rowWidth = 0;
    OutputRangeReader* m_reader = nullptr;
    /// Elements asked for and missing since the last request, [first, last]; first < 0: none.
    mutable qint64 m_missingFirst = -1;
    mutable qint64 m_missingLast = -1;
};

/// A window of at most `pageRows` rows of a BufferTableModel. QTableView keeps per-row
/// header state (about 11 bytes a row, measured with Qt 6.4), so 100 million rows would cost
/// a gigabyte; the viewer shows the buffer one page at a time instead.
class BufferPageModel : public QAbstractTableModel {
    Q_OBJECT
public:
    static constexpr int kDefaultPageRows = 100000;

    explicit BufferPageModel(BufferTableModel* source, QObject* parent = nullptr);

    void setPageRows(int rows);
    [[nodiscard]] int pageRows() const { return m_pageRows; }
    /// Shows page `page` (clamped to the existing pages).
    void setPage(qint64 page);
    [[nodiscard]] qint64 page() const { return m_page; }
    [[nodiscard]] qint64 pageCount() const;
    [[nodiscard]] qint64 firstRow() const { return m_page * m_pageRows; }
    [[nodiscard]] BufferTableModel* source() const { return m_source; }

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index,
                                int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;

private:
    BufferTableModel* m_source = nullptr;
    int m_pageRows = kDefaultPageRows;
    qint64 m_page = 0;
};

} // namespace kernelpad
