#pragma once
// The argument table with its editors and the add / remove / move buttons.

#include <QWidget>

class QTableView;
class QToolButton;

namespace kernelpad {

class ArgumentTableModel;

/// QTableView over an ArgumentTableModel, with delegates and row buttons; emits changed().
class ArgumentTableView : public QWidget {
    Q_OBJECT
public:
    explicit ArgumentTableView(QWidget* parent = nullptr);

    [[nodiscard]] ArgumentTableModel* model() const { return m_model; }
    [[nodiscard]] QTableView* tableView() const { return m_table; }

signals:
    void changed();

private:
    void addRow();
    void removeSelectedRows();
    void moveCurrentRow(int delta);
    /// Opens the TextureDialog on a texture or surface row; its OK replaces the row.
    void editTexture(int row);
    void updateButtons();
    /// Columns at their content's width (capped), the table at least as wide as them all.
    void fitColumns();

    ArgumentTableModel* m_model = nullptr;
    QTableView* m_table = nullptr;
    QToolButton* m_addButton = nullptr;
    QToolButton* m_removeButton = nullptr;
    QToolButton* m_upButton = nullptr;
    QToolButton* m_downButton = nullptr;
    QToolButton* m_textureButton = nullptr;
};

} // namespace kernelpad
