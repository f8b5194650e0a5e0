#pragma once
// The SASS of the last compile, per kernel: read-only, highlighted, searchable, with the
// instructions of a source line marked in a colour (Compiler Explorer's line matching).

#include "core/compile/SassRegisters.h"
#include "core/compile/SassReport.h"
#include "ui/widgets/ListingView.h"

class QComboBox;
class QLabel;

namespace kernelpad {

/// One function of a SassReport at a time (picked in the kernel box), a "// line N" comment
/// before each source line's instructions (with the line's peak live registers and spills when
/// the report has life ranges), a "live" column of the registers, predicates and uniform
/// registers live at each instruction, a search field (Enter / Shift+Enter).
/// highlightSourceLine() marks a source line's instructions; clicking an instruction emits
/// sourceLineClicked(). Line colours, hover and instruction help come from ListingView.
/// Child object names: sassKernels, sassMessage.
class SassView : public ListingView {
    Q_OBJECT
public:
    explicit SassView(QWidget* parent = nullptr);

    /// Shows the report's SASS, or its error (nvdisasm missing: where it looked).
    void showReport(const SassReport& report);
    /// A compile is under way: the SASS shown is kept until its report comes.
    void clear();
    [[nodiscard]] const SassReport& report() const { return m_report; }
    /// The report's registers per function and source line (registerUse()).
    [[nodiscard]] const QVector<FunctionRegisterUse>& registerUse() const { return m_registers; }
    /// The kernel names in the picker, in nvdisasm's order.
    [[nodiscard]] QStringList functions() const;
    [[nodiscard]] int currentFunction() const;
    void setCurrentFunction(int index);
    /// Marks the instructions of `sourceLine` in the function shown (0: none) and, with
    /// `scroll`, shows the first; returns how many there are.
    int highlightSourceLine(int sourceLine, bool scroll = true);
    /// The instruction indices (in the function shown) now marked.
    [[nodiscard]] QVector<int> highlightedInstructions() const { return m_highlighted; }
    /// The text line (0-based block) of instruction `index` of the function shown; -1 if none.
    [[nodiscard]] int blockOfInstruction(int index) const;
    [[nodiscard]] QString message() const;

signals:
    /// An instruction of `sourceLine` was clicked.
    void sourceLineClicked(int sourceLine);
    /// The view became visible with no SASS for the last compile: the owner should ask for it.
    void wanted();

protected:
    void showEvent(QShowEvent* event) override;

private:
    /// The empty listing's text before any compile.
    [[nodiscard]] static QString compilePlaceholder();
    void showFunction(int index);
    void onCursorMoved();

    QComboBox* m_kernels;
    QLabel* m_message;
    SassReport m_report;
    QVector<FunctionRegisterUse> m_registers;
    QVector<int> m_instructionOfBlock; ///< block -> instruction index, -1 for comments
    QVector<int> m_blockOfInstruction;
    QVector<int> m_highlighted;
    int m_highlightedLine = 0;
};

} // namespace kernelpad
