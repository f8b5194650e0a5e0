#include "ui/widgets/ArgumentDelegates.h"

#include "ui/models/ArgumentTableModel.h"

#include <QComboBox>
#include <QLineEdit>
#include <QRegularExpressionValidator>
#include <QToolTip>

namespace kernelpad {

namespace {

/// Starting points for the free-text cells; the user picks one and edits the numbers.
QStringList initTemplates() {
    return {QStringLiteral("zeros"),
            QStringLiteral("ones"),
            QStringLiteral("constant 1"),
            QStringLiteral("iota 0 1"),
            QStringLiteral("uniform 0 1 seed=1"),
            QStringLiteral("normal 0 1 seed=1"),
            QStringLiteral("special -1 1 rate=0.05 seed=7"),
            QStringLiteral("file input.npy")};
}

QStringList verifyTemplates() {
    return {QStringLiteral("none"), QStringLiteral("reference KERNEL_ref atol=1e-06 rtol=1e-05"),
            QStringLiteral("expression EXPR atol=1e-06 rtol=1e-05"),
            QStringLiteral("expression EXPR atol=1e-06 rtol=1e-05 nan=differ"),
            QStringLiteral("file expected.npy atol=1e-06 rtol=1e-05")};
}

bool isComboColumn(int column) {
    return column == ArgumentTableModel::TypeColumn || column == ArgumentTableModel::KindColumn ||
           column == ArgumentTableModel::DirectionColumn;
}

bool isTemplateColumn(int column) {
    return column == ArgumentTableModel::InitColumn || column == ArgumentTableModel::VerifyColumn;
}

} // namespace

ArgumentDelegate::ArgumentDelegate(QObject* parent)
    : QStyledItemDelegate(parent) {}

QWidget* ArgumentDelegate::createEditor(QWidget* parent, const QStyleOptionViewItem& option,
                                        const QModelIndex& index) const {
    const int column = index.column();
    if (isComboColumn(column)) {
        auto* combo = new QComboBox(parent);
        if (column == ArgumentTableModel::TypeColumn)
            combo->addItems(index.data(ArgumentTableModel::TypeChoicesRole).toStringList());
        else if (column == ArgumentTableModel::KindColumn)
            combo->addItems({QStringLiteral("scalar"), QStringLiteral("buffer"),
                             QStringLiteral("texture"), QStringLiteral("surface"),
                             QStringLiteral("tensorMap")});
        else
            combo->addItems({QStringLiteral("in"), QStringLiteral("out"), QStringLiteral("inout")});
        combo->setMaxVisibleItems(20);
        // A pick is the whole edit: commit at once instead of waiting for focus to leave.
        connect(combo, &QComboBox::activated, this, [this, combo] {
            auto* self = const_cast<ArgumentDelegate*>(this);
            emit self->commitData(combo);
            emit self->closeEditor(combo);
        });
        return combo;
    }
    if (isTemplateColumn(column)) {
        auto* combo = new QComboBox(parent);
        combo->setEditable(true);
        combo->setInsertPolicy(QComboBox::NoInsert);
        combo->addItems(column == ArgumentTableModel::InitColumn ? initTemplates()
                                                                 : verifyTemplates());
        combo->setToolTip(index.data(Qt::ToolTipRole).toString());
        return combo;
    }
    auto* edit = new QLineEdit(parent);
    edit->setFrame(false);
    if (column == ArgumentTableModel::NameColumn) {
        static const QRegularExpression identifier(QStringLiteral("[A-Za-z_][A-Za-z0-9_]*"));
        edit->setValidator(new QRegularExpressionValidator(identifier, edit));
    }
    Q_UNUSED(option);
    return edit;
}

void ArgumentDelegate::setEditorData(QWidget* editor, const QModelIndex& index) const {
    const QString text = index.data(Qt::EditRole).toString();
    if (auto* combo = qobject_cast<QComboBox*>(editor)) {
        const int found = combo->findText(text);
        if (combo->isEditable()) {
            combo->setEditText(text);
        } else if (found >= 0) {
            combo->setCurrentIndex(found);
        }
        return;
    }
    if (auto* edit = qobject_cast<QLineEdit*>(editor)) {
        edit->setText(text);
        return;
    }
    QStyledItemDelegate::setEditorData(editor, index);
}

void ArgumentDelegate::setModelData(QWidget* editor, QAbstractItemModel* model,
                                    const QModelIndex& index) const {
    QString text;
    if (auto* combo = qobject_cast<QComboBox*>(editor))
        text = combo->currentText();
    else if (auto* edit = qobject_cast<QLineEdit*>(editor))
        text = edit->text();
    else
        return QStyledItemDelegate::setModelData(editor, model, index);

    if (isTemplateColumn(index.column())) {
        // Say why a text was refused instead of silently keeping the old value.
        QString error;
        const bool ok = index.column() == ArgumentTableModel::InitColumn
                            ? parseInitSpec(text, &error).has_value()
                            : parseVerifySpec(text, &error).has_value();
        if (!ok) {
            QToolTip::showText(editor->mapToGlobal(QPoint(0, editor->height())), error, editor);
            return;
        }
    }
    model->setData(index, text, Qt::EditRole);
}

void ArgumentDelegate::updateEditorGeometry(QWidget* editor, const QStyleOptionViewItem& option,
                                            const QModelIndex& index) const {
    QRect rect = option.rect;
    // The init and verify texts are longer than their column: give the editor room.
    if (isTemplateColumn(index.column()))
        rect.setWidth(std::max(rect.width(), 260));
    editor->setGeometry(rect);
}

} // namespace kernelpad
