#include "ui/widgets/KernelItems.h"

#include "core/compile/KernelNames.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QComboBox>
#include <QPainter>

#include <algorithm>

namespace kernelpad {

namespace {

/// Space between the name and the lowered name, in widths of an "m".
constexpr int kGapEms = 2;

int gapPx(const QFontMetrics& metrics) {
    return kGapEms * metrics.horizontalAdvance(QLatin1Char('m'));
}

} // namespace

QString KernelItemDelegate::besideText(const QModelIndex& index) {
    const QString lowered = index.data(kLoweredNameRole).toString();
    return lowered == index.data(Qt::DisplayRole).toString() ? QString() : lowered;
}

void KernelItemDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                               const QModelIndex& index) const {
    QStyledItemDelegate::paint(painter, option, index);
    const QString beside = besideText(index);
    if (beside.isEmpty())
        return;
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QFontMetrics metrics(opt.font);
    const QStyle* style = opt.widget ? opt.widget->style() : QApplication::style();
    const QRect textRect = style->subElementRect(QStyle::SE_ItemViewItemText, &opt, opt.widget);
    const int used = metrics.horizontalAdvance(opt.text) + gapPx(metrics);
    QRect besideRect = textRect.adjusted(used, 0, 0, 0);
    if (besideRect.width() <= 0)
        return;
    const bool selected = opt.state & QStyle::State_Selected;
    QColor colour = opt.palette.color(selected ? QPalette::HighlightedText : QPalette::Text);
    colour.setAlphaF(0.6f); // muted: the name the user knows comes first
    painter->save();
    painter->setPen(colour);
    painter->setFont(opt.font);
    painter->drawText(besideRect, Qt::AlignVCenter | Qt::AlignLeft,
                      metrics.elidedText(beside, Qt::ElideMiddle, besideRect.width()));
    painter->restore();
}

QSize KernelItemDelegate::sizeHint(const QStyleOptionViewItem& option,
                                   const QModelIndex& index) const {
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    const QString beside = besideText(index);
    if (!beside.isEmpty()) {
        const QFontMetrics metrics(option.font);
        size.rwidth() += gapPx(metrics) + metrics.horizontalAdvance(beside);
    }
    return size;
}

void fillKernelItems(QComboBox* combo, const QVector<KernelInfo>& kernels) {
    if (!combo)
        return;
    if (!qobject_cast<KernelItemDelegate*>(combo->itemDelegate()))
        combo->setItemDelegate(new KernelItemDelegate(combo));
    combo->clear();
    for (const KernelInfo& k : kernels) {
        const QString name = k.name.isEmpty() ? kernelDisplayName(k.lowered) : k.name;
        combo->addItem(name);
        const int row = combo->count() - 1;
        combo->setItemData(row, k.lowered, kLoweredNameRole);
        const QString signature = demangle(k.lowered);
        combo->setItemData(row,
                           signature.isEmpty() ? k.lowered
                                               : QStringLiteral("%1\n%2").arg(signature, k.lowered),
                           Qt::ToolTipRole);
    }
    // The list is as wide as its widest item, lowered name included.
    QAbstractItemView* view = combo->view();
    view->setMinimumWidth(
        std::max(combo->width(), view->sizeHintForColumn(0) + 2 * view->frameWidth()));
}

void fillKernelItems(QComboBox* combo, const QStringList& loweredNames) {
    QVector<KernelInfo> kernels;
    for (const QString& lowered : loweredNames) {
        KernelInfo k;
        k.lowered = lowered;
        kernels << k;
    }
    fillKernelItems(combo, kernels);
}

} // namespace kernelpad
