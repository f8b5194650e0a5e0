#include "ui/widgets/DiagnosticsList.h"

#include "ui/Theme.h"

#include <QHeaderView>
#include <QPainter>
#include <QStyledItemDelegate>

namespace kernelpad {

namespace {

enum Column { SeverityColumn, LocationColumn, MessageColumn };

QIcon severityIcon(Diagnostic::Severity s) {
    const Theme theme = Theme::current();
    const QColor colour = s == Diagnostic::Severity::Error     ? theme.errorColor
                          : s == Diagnostic::Severity::Warning ? theme.warningColor
                                                               : theme.noteColor;
    constexpr int kSizePx = 12;
    QPixmap pixmap(kSizePx, kSizePx);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(colour);
    p.drawEllipse(QRectF(1, 1, kSizePx - 2, kSizePx - 2));
    return QIcon(pixmap);
}

constexpr int kAnyHeightPx = 1 << 16;

/// Sizes a message's row to its wrapped text: QTreeView asks delegates for a size without the
/// column's width (QTreeView::indexRowSizeHint()), so rows would stay one line tall.
class WrappedMessageDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    [[nodiscard]] QSize sizeHint(const QStyleOptionViewItem& option,
                                 const QModelIndex& index) const override {
        QStyleOptionViewItem wrapped(option);
        // The style wraps only within a valid rectangle: the column's width, any height.
        if (const auto* tree = qobject_cast<const QTreeView*>(parent()))
            wrapped.rect = QRect(0, 0, tree->header()->sectionSize(index.column()), kAnyHeightPx);
        return QStyledItemDelegate::sizeHint(wrapped, index);
    }
};

} // namespace

DiagnosticsList::DiagnosticsList(QWidget* parent)
    : QTreeWidget(parent) {
    setColumnCount(3);
    setHeaderLabels({tr("Severity"), tr("Location"), tr("Message")});
    setRootIsDecorated(false);
    setAlternatingRowColors(true);
    setSelectionMode(QAbstractItemView::SingleSelection);
    // A message is shown whole, wrapped to the column, never cut with "…": rows grow instead.
    setWordWrap(true);
    setTextElideMode(Qt::ElideNone);
    setItemDelegateForColumn(MessageColumn, new WrappedMessageDelegate(this));
    header()->setStretchLastSection(true);
    header()->setSectionResizeMode(SeverityColumn, QHeaderView::ResizeToContents);
    header()->setSectionResizeMode(LocationColumn, QHeaderView::ResizeToContents);
    // Wrapped rows change height with the message column's width.
    connect(header(), &QHeaderView::sectionResized, this, [this] { scheduleDelayedItemsLayout(); });
    // A single click jumps, as in IDEs; Enter and double click still do too.
    auto activate = [this](QTreeWidgetItem* item) {
        const int index = item->data(SeverityColumn, Qt::UserRole).toInt();
        if (index < 0 || index >= m_diagnostics.size())
            return;
        const Diagnostic& d = m_diagnostics.at(index);
        emit diagnosticActivated(d);
        if (d.file == m_sourceName && d.line > 0)
            emit jumpRequested(d.line, d.column);
    };
    connect(this, &QTreeWidget::itemClicked, this, activate);
    connect(this, &QTreeWidget::itemActivated, this, activate);
}

bool DiagnosticsList::activateAdjacent(int step) {
    const int count = topLevelItemCount();
    if (count == 0)
        return false;
    const int current = currentItem() ? indexOfTopLevelItem(currentItem()) : (step > 0 ? -1 : 0);
    const int next = ((current + step) % count + count) % count;
    QTreeWidgetItem* item = topLevelItem(next);
    setCurrentItem(item);
    scrollToItem(item);
    emit itemActivated(item, 0);
    return true;
}

void DiagnosticsList::setDiagnostics(const QVector<Diagnostic>& diagnostics,
                                     const QString& sourceName) {
    clearDiagnostics();
    m_diagnostics = diagnostics;
    m_sourceName = sourceName;
    for (int i = 0; i < diagnostics.size(); ++i) {
        const Diagnostic& d = diagnostics.at(i);
        QString location = d.file.isEmpty() ? tr("(no file)") : d.file;
        if (d.line > 0)
            location += QStringLiteral(":%1").arg(d.line);
        if (d.column > 0)
            location += QStringLiteral(":%1").arg(d.column);
        auto* item = new QTreeWidgetItem(this);
        item->setText(SeverityColumn, severityName(d.severity));
        item->setIcon(SeverityColumn, severityIcon(d.severity));
        item->setData(SeverityColumn, Qt::UserRole, i);
        item->setText(LocationColumn, location);
        // NVRTC messages may span lines (template instantiation context): all of them, in
        // the row and in the tooltip.
        item->setText(MessageColumn, d.message);
        item->setToolTip(MessageColumn, d.message);
        if (d.file != sourceName) {
            item->setToolTip(LocationColumn, tr("In a header, not in the editor's source"));
            item->setForeground(LocationColumn,
                                palette().brush(QPalette::Disabled, QPalette::Text));
        }
    }
}

void DiagnosticsList::clearDiagnostics() {
    clear();
    m_diagnostics.clear();
}

QString DiagnosticsList::summary() const {
    return summaryOf(m_diagnostics);
}

QString DiagnosticsList::summaryOf(const QVector<Diagnostic>& diagnostics) {
    int errors = 0, warnings = 0, others = 0;
    for (const Diagnostic& d : diagnostics) {
        if (d.severity == Diagnostic::Severity::Error)
            ++errors;
        else if (d.severity == Diagnostic::Severity::Warning)
            ++warnings;
        else
            ++others;
    }
    if (errors + warnings + others == 0)
        return tr("No problems");
    QStringList parts;
    if (errors)
        parts << (errors == 1 ? tr("1 error") : tr("%1 errors").arg(errors));
    if (warnings)
        parts << (warnings == 1 ? tr("1 warning") : tr("%1 warnings").arg(warnings));
    if (others)
        parts << (others == 1 ? tr("1 note") : tr("%1 notes").arg(others));
    return parts.join(QStringLiteral(", "));
}

} // namespace kernelpad
