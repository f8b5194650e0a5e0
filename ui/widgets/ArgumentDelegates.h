#pragma once
// Editors for the argument table's cells: combos for type, kind and direction, line edits
// with completion and live validation for value/count, init and verify texts.

#include <QStyledItemDelegate>

namespace kernelpad {

/// One delegate for the whole ArgumentTableModel; chooses the editor by column.
class ArgumentDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    explicit ArgumentDelegate(QObject* parent = nullptr);

    QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem& option,
                          const QModelIndex& index) const override;
    void setEditorData(QWidget* editor, const QModelIndex& index) const override;
    void setModelData(QWidget* editor, QAbstractItemModel* model,
                      const QModelIndex& index) const override;
    void updateEditorGeometry(QWidget* editor, const QStyleOptionViewItem& option,
                              const QModelIndex& index) const override;
};

} // namespace kernelpad
