#pragma once
// The argument table with its editors and the add / remove / move buttons.

#include <QWidget>

class QAction;
class QLabel;
class QTableView;
class QToolButton;

namespace kernelpad {

class ArgumentTableModel;

/// QTableView over an ArgumentTableModel, with delegates and row buttons; emits changed() when
/// the arguments or the globals change.
/// When the rows' types differ from the compiled kernel's, a bar above the table says so
/// and offers to update them (also in the table's context menu). Child object names:
/// argumentTable, typeMismatchBar, typeMismatchText, updateTypesButton.
class ArgumentTableView : public QWidget {
    Q_OBJECT
public:
    explicit ArgumentTableView(QWidget* parent = nullptr);

    [[nodiscard]] ArgumentTableModel* model() const { return m_model; }
    [[nodiscard]] QTableView* tableView() const { return m_table; }
    /// "Update types to match the kernel": enabled while the model has type mismatches.
    [[nodiscard]] QAction* updateTypesAction() const { return m_updateTypesAction; }
    /// The width that shows every column whole: the table asks for at most a capped part of
    /// it, and the window gives the rest where it has room (MainWindow::fitDockColumn()).
    [[nodiscard]] int columnsWidth() const;

signals:
    void changed();

private:
    void addRow();
    void removeSelectedRows();
    void moveCurrentRow(int delta);
    /// Opens the TextureDialog on a texture or surface row; its OK replaces the row.
    void editTexture(int row);
    void updateButtons();
    /// Shows or hides the type-mismatch bar and enables the update action.
    void updateTypeMismatchBar();
    /// Columns at their content's width (capped), the table at least as wide as them all.
    void fitColumns();

    ArgumentTableModel* m_model = nullptr;
    QTableView* m_table = nullptr;
    int m_columnsWidth = 0; ///< every column whole, frame and scroll bar included
    QToolButton* m_addButton = nullptr;
    QToolButton* m_removeButton = nullptr;
    QToolButton* m_upButton = nullptr;
    QToolButton* m_downButton = nullptr;
    QWidget* m_mismatchBar = nullptr;
    QLabel* m_mismatchText = nullptr;
    QAction* m_updateTypesAction = nullptr;
    QToolButton* m_textureButton = nullptr;
};

} // namespace kernelpad
