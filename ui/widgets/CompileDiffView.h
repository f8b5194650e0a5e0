#pragma once
// The diff between two compiles: PTX or SASS side by side with changed lines coloured and the
// two sides scrolled together, and per kernel the instructions by class, registers, spills and
// memory as "before -> after (delta)".

#include <QWidget>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableWidget;

namespace kernelpad {

class CompileHistory;
struct ListingDiff;

/// Shows a CompileHistory's comparison. "Pin this compile" pins the current compile; "Compare
/// with" picks the previous or the pinned compile. Child object names: diffBaseline, diffPin,
/// diffListing, diffKernels, diffMessage, diffFigures, diffBefore, diffAfter.
class CompileDiffView : public QWidget {
    Q_OBJECT
public:
    explicit CompileDiffView(QWidget* parent = nullptr);

    /// The compiles shown; the view asks it for SASS and ptxas reports while visible.
    void setHistory(CompileHistory* history);
    [[nodiscard]] QString message() const;
    /// "PTX" or "SASS": the listing the panes show.
    [[nodiscard]] QString listingShown() const;

protected:
    void showEvent(QShowEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void refresh();
    void showFigures();
    void showListing(const ListingDiff& diff);

    CompileHistory* m_history = nullptr;
    QComboBox* m_baseline;
    QPushButton* m_pin;
    QComboBox* m_listing;
    QComboBox* m_kernels;
    QLabel* m_message;
    QTableWidget* m_figures;
    QPlainTextEdit* m_before;
    QPlainTextEdit* m_after;
    QLabel* m_beforeTitle;
    QLabel* m_afterTitle;
};

} // namespace kernelpad
