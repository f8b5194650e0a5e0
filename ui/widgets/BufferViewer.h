#pragma once
// The output buffers of the last run as a lazy table and a heat map.

#include "core/run/RunTypes.h"

#include <QVector>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTabWidget;
class QTableView;
class QToolButton;

namespace kernelpad {

class BufferPageModel;
class BufferTableModel;
class HeatMapView;
class RangeFetcher;

/// Pick an output buffer, read it as a table (1-D or rows of N) or look at it as a heat map.
/// Child object names: bufferCombo, bufferInfo, keptNote, rowWidth, gotoIndex, bufferTable,
/// heatMap. The table shows one page of BufferPageModel::kDefaultPageRows rows at a time (see
/// BufferPageModel). An output kept on the runner (OutputBuffer::isKept) is fetched through the
/// RangeFetcher as its rows are shown; keptNote says where it is, or why it cannot be shown.
class BufferViewer : public QWidget {
    Q_OBJECT
public:
    explicit BufferViewer(QWidget* parent = nullptr);

    /// The output buffers a run returned (none: the run copied nothing back).
    void setOutputs(const QVector<OutputBuffer>& outputs);
    /// No run yet: says that output buffers show after one.
    void clear();
    /// Where kept outputs' rows come from (the window's Workbench; a fake in tests).
    void setRangeFetcher(RangeFetcher* fetcher);
    /// keptNote's text: where a kept output is, or why it cannot be shown; empty otherwise.
    [[nodiscard]] QString keptNote() const;

    [[nodiscard]] BufferTableModel* model() const { return m_model; }
    [[nodiscard]] HeatMapView* heatMap() const { return m_heatMap; }
    [[nodiscard]] BufferPageModel* pageModel() const { return m_page; }
    [[nodiscard]] QTableView* tableView() const { return m_table; }
    /// Selects and scrolls to element `index` of the current buffer; false when out of range.
    bool goToIndex(qint64 index);

private:
    void showBuffer(int comboIndex);
    void applyRowWidth();
    void onGoTo();
    void showPage(qint64 page);
    void updatePageLabel();
    /// The heat map's window of a kept output follows the table's first visible row.
    void followTable();
    void showKeptNote();

    QVector<OutputBuffer> m_outputs; ///< implicitly shared bytes: no copies
    bool m_hasRun = false;           ///< setOutputs() since the last clear()
    BufferTableModel* m_model = nullptr;
    BufferPageModel* m_page = nullptr;
    QToolButton* m_prevPage = nullptr;
    QToolButton* m_nextPage = nullptr;
    QLabel* m_pageLabel = nullptr;
    QComboBox* m_combo = nullptr;
    QSpinBox* m_rowWidth = nullptr;
    QLineEdit* m_goto = nullptr;
    QLabel* m_info = nullptr;
    QLabel* m_kept = nullptr;
    RangeFetcher* m_fetcher = nullptr;
    QTabWidget* m_tabs = nullptr;
    QTableView* m_table = nullptr;
    HeatMapView* m_heatMap = nullptr;
};

} // namespace kernelpad
