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
/// with" picks the previous or the pinned compile. The reports (SASS, ptxas) of the compared
/// compiles are asked for as soon as the history changes (a compile came back, a compile was
/// pinned) while the view is shown or was shown since the project was opened, so that they
/// are there when it comes back; never for a view nobody opened (nvdisasm costs about 0.4 s of
/// CPU per CUBIN). Child object names: diffBaseline, diffPin,
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
    /// The view was shown since the project was opened (or forgetShown()).
    [[nodiscard]] bool opened() const { return m_opened; }
    /// A new project: its compiles are compared early again only once the view is shown.
    void forgetShown();

protected:
    void showEvent(QShowEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void refresh();
    void showFigures();
    void showListing(const ListingDiff& diff);

    CompileHistory* m_history = nullptr;
    bool m_opened = false;
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
