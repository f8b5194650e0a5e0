#pragma once
// Kernel names in combo boxes (the kernel selector, the PTX view's entry picker): the name
// the user knows, with the lowered name the PTX and the driver use drawn beside it.

#include "core/compile/CompileResult.h"

#include <QStringList>
#include <QStyledItemDelegate>
#include <QVector>

class QComboBox;

namespace kernelpad {

/// Item data role of a kernel item: its lowered (mangled) name, a QString.
inline constexpr int kLoweredNameRole = Qt::UserRole + 40;

/// Draws an item's text and, in a muted colour after it, its lowered name when that differs
/// ("vector_add<float>   _Z10vector_addIfEvPKT_S2_PS0_i").
class KernelItemDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
    [[nodiscard]] QSize sizeHint(const QStyleOptionViewItem& option,
                                 const QModelIndex& index) const override;
    /// The text drawn beside the item's own: its lowered name, or empty when it is the same.
    [[nodiscard]] static QString besideText(const QModelIndex& index);
};

/// Replaces `combo`'s items with one per kernel: the text is its name ("vector_add<float>",
/// what the kernel box holds), the lowered name is drawn beside it, and the tooltip is the
/// whole demangled signature. Installs a KernelItemDelegate on the combo's list.
void fillKernelItems(QComboBox* combo, const QVector<KernelInfo>& kernels);

/// The same for entries known only by their lowered names (the PTX's `.entry` lines): the
/// text is the demangled name.
void fillKernelItems(QComboBox* combo, const QStringList& loweredNames);

} // namespace kernelpad
