#include "ui/models/ArgumentTableModel.h"

#include "core/compile/KernelSignature.h"
#include "core/launch/ArgumentText.h"
#include "core/launch/TextureArgument.h"

#include <QBrush>
#include <QColor>
#include <QPainter>
#include <QPixmap>
#include <QPolygonF>
#include <QSet>

namespace kernelpad {

namespace {

/// Light red, readable with black text in light and dark palettes alike.
const QColor kInvalidBackground(255, 205, 205);
/// Light amber for a type that differs from the kernel's: a warning, not a refusal.
const QColor kMismatchBackground(255, 230, 160);

/// A small red disc; drawn rather than taken from an icon theme, which headless machines lack.
QPixmap errorPixmap() {
    static const QPixmap pixmap = [] {
        QPixmap p(12, 12);
        p.fill(Qt::transparent);
        QPainter painter(&p);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setBrush(QColor(200, 30, 30));
        painter.setPen(Qt::NoPen);
        painter.drawEllipse(1, 1, 10, 10);
        painter.setPen(QPen(Qt::white, 2));
        painter.drawLine(6, 3, 6, 7);
        painter.drawPoint(6, 9);
        return p;
    }();
    return pixmap;
}

/// A small amber triangle with "!", the type-mismatch mark of the Type cell and the row header.
QPixmap warningPixmap() {
    static const QPixmap pixmap = [] {
        QPixmap p(12, 12);
        p.fill(Qt::transparent);
        QPainter painter(&p);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setBrush(QColor(200, 135, 0));
        painter.setPen(Qt::NoPen);
        painter.drawPolygon(QPolygonF({QPointF(6, 0.5), QPointF(11.5, 11), QPointF(0.5, 11)}));
        painter.setPen(QPen(Qt::white, 2));
        painter.drawLine(6, 4, 6, 7);
        painter.drawPoint(6, 9);
        return p;
    }();
    return pixmap;
}

QString directionDisplay(Direction d) {
    return directionName(d);
}

/// A texture or surface row: its format and extent where a buffer has type and count (both
/// edited in the TextureDialog), then its contents as a buffer's.
QVariant imageDisplay(const ArgumentSpec& arg, int column) {
    const bool surface = arg.kind == ArgumentSpec::Kind::Surface;
    switch (column) {
    case ArgumentTableModel::NameColumn:
        return arg.name;
    case ArgumentTableModel::TypeColumn:
        return arg.texture.formatName();
    case ArgumentTableModel::KindColumn:
        return surface ? QStringLiteral("surface") : QStringLiteral("texture");
    case ArgumentTableModel::ValueColumn:
        return arg.texture.extentText();
    case ArgumentTableModel::InitColumn:
        return formatInitSpec(arg.buffer.init);
    case ArgumentTableModel::DirectionColumn:
        return directionDisplay(arg.buffer.direction);
    case ArgumentTableModel::VerifyColumn:
        return surface ? formatVerifySpec(arg.buffer.verify) : QString();
    default:
        return {};
    }
}

} // namespace

ArgumentTableModel::ArgumentTableModel(QObject* parent)
    : QAbstractTableModel(parent) {}

int ArgumentTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_arguments.size());
}

int ArgumentTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ArgumentTableModel::displayText(const ArgumentSpec& arg, int column) const {
    if (arg.isImage())
        return imageDisplay(arg, column);
    switch (column) {
    case NameColumn:
        return arg.name;
    case TypeColumn:
        return arg.isBuffer() ? arg.buffer.elementType.displayName() : arg.type.displayName();
    case KindColumn:
        return arg.isBuffer() ? QStringLiteral("buffer") : QStringLiteral("scalar");
    case ValueColumn:
        return arg.isBuffer() ? arg.buffer.count : arg.value;
    case InitColumn:
        return arg.isBuffer() ? formatInitSpec(arg.buffer.init) : QString();
    case DirectionColumn:
        return arg.isBuffer() ? directionDisplay(arg.buffer.direction) : QString();
    case VerifyColumn:
        return arg.isBuffer() ? formatVerifySpec(arg.buffer.verify) : QString();
    default:
        return {};
    }
}

QVariant ArgumentTableModel::editText(const ArgumentSpec& arg, int column) const {
    return displayText(arg, column);
}

QVariant ArgumentTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() < 0 || index.row() >= m_arguments.size() ||
        index.column() < 0 || index.column() >= ColumnCount)
        return {};
    const ArgumentSpec& arg = m_arguments.at(index.row());
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        return displayText(arg, column);
    case Qt::EditRole:
        return editText(arg, column);
    case Qt::ToolTipRole: {
        const QString problem = cellProblem(index.row(), column);
        if (!problem.isEmpty())
            return problem;
        if (const ArgumentTypeMismatch* m = mismatchAt(index.row());
            m && (column == TypeColumn || column == NameColumn || column == KindColumn))
            return tr("%1\n\nUpdate types to match the kernel (above the table, or right-click) "
                      "changes it and keeps the values.")
                .arg(m->message);
        // The whole value first (a narrow column cuts it), then what may be typed.
        if (column == InitColumn && arg.isBuffer())
            return tr("%1\n\nzeros | ones | constant V | iota START STEP | uniform LOW HIGH "
                      "seed=S | normal MEAN STDDEV seed=S | file PATH.npy")
                .arg(editText(arg, column).toString());
        if (column == VerifyColumn && arg.isBuffer())
            return tr("%1\n\nnone | reference KERNEL | expression EXPR (inputs, scalars and i) | "
                      "file PATH.npy, then atol=A rtol=R")
                .arg(editText(arg, column).toString());
        if ((column == ValueColumn || column == TypeColumn) && arg.isImage())
            return tr("%1\n\nDouble-click to edit the array and the sampler")
                .arg(displayText(arg, column).toString());
        if (column == ValueColumn && arg.isBuffer())
            return tr("Element count: a number or an expression over integer scalars (n*2)");
        return {};
    }
    case Qt::BackgroundRole:
        if (!cellProblem(index.row(), column).isEmpty())
            return QBrush(kInvalidBackground);
        if (column == TypeColumn && mismatchAt(index.row()))
            return QBrush(kMismatchBackground);
        return {};
    case Qt::ForegroundRole:
        if (!cellProblem(index.row(), column).isEmpty() ||
            (column == TypeColumn && mismatchAt(index.row())))
            return QBrush(Qt::black);
        return {};
    case Qt::DecorationRole:
        if (!cellProblem(index.row(), column).isEmpty())
            return errorPixmap();
        if (column == TypeColumn && mismatchAt(index.row()))
            return warningPixmap();
        return {};
    case ProblemRole:
        return cellProblem(index.row(), column);
    case TypeMismatchRole: {
        const ArgumentTypeMismatch* m = mismatchAt(index.row());
        return m ? m->message : QString();
    }
    case TypeChoicesRole: {
        QStringList names;
        for (ScalarType t : allScalarTypes())
            names << QString::fromLatin1(scalarTypeInfo(t).numpyName);
        for (const StructType& s : m_structs)
            names << s.name;
        return names;
    }
    default:
        return {};
    }
}

QVariant ArgumentTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    // The row header carries the type mismatch too, so that the row is marked however
    // narrow the Type column is.
    if (orientation == Qt::Vertical && (role == Qt::DecorationRole || role == Qt::ToolTipRole)) {
        const ArgumentTypeMismatch* m = mismatchAt(section);
        if (!m)
            return {};
        return role == Qt::DecorationRole ? QVariant(warningPixmap()) : QVariant(m->message);
    }
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Vertical)
        return section + 1;
    switch (section) {
    case NameColumn:
        return tr("Name");
    case TypeColumn:
        return tr("Type");
    case KindColumn:
        return tr("Kind");
    case ValueColumn:
        return tr("Value / Count");
    case InitColumn:
        return tr("Init");
    case DirectionColumn:
        return tr("Direction");
    case VerifyColumn:
        return tr("Verify");
    default:
        return {};
    }
}

Qt::ItemFlags ArgumentTableModel::flags(const QModelIndex& index) const {
    if (!index.isValid() || index.row() >= m_arguments.size() || index.column() >= ColumnCount)
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsSelectable | Qt::ItemIsEnabled;
    const ArgumentSpec& arg = m_arguments.at(index.row());
    const bool buffer = arg.isBuffer();
    if (arg.isImage()) {
        // Format and extent are edited in the TextureDialog; a texture is read-only, so only
        // a surface has a direction and a verification.
        const int column = index.column();
        const bool surfaceOnly = column == DirectionColumn || column == VerifyColumn;
        if (column == TypeColumn || column == ValueColumn ||
            (surfaceOnly && arg.kind != ArgumentSpec::Kind::Surface))
            return f;
        return f | Qt::ItemIsEditable;
    }
    switch (index.column()) {
    case InitColumn:
    case DirectionColumn:
    case VerifyColumn:
        // Scalars are passed by value: nothing to initialise, copy back or check.
        return buffer ? f | Qt::ItemIsEditable : f;
    default:
        return f | Qt::ItemIsEditable;
    }
}

std::optional<ValueType> ArgumentTableModel::typeFromName(const QString& name) const {
    const QString trimmed = name.trimmed();
    for (const StructType& s : m_structs) {
        if (s.name == trimmed)
            return ValueType::ofStruct(s);
    }
    if (const auto scalar = scalarTypeFromName(trimmed))
        return ValueType::of(*scalar);
    return std::nullopt;
}

bool ArgumentTableModel::applyEdit(ArgumentSpec& arg, int column, const QString& text) {
    switch (column) {
    case NameColumn:
        arg.name = text.trimmed();
        return true;
    case TypeColumn: {
        const auto type = typeFromName(text);
        if (!type)
            return false;
        (arg.isBuffer() ? arg.buffer.elementType : arg.type) = *type;
        return true;
    }
    case KindColumn: {
        const QString kind = text.trimmed().toLower();
        if (kind == QLatin1String("texture") || kind == QLatin1String("surface")) {
            const bool surface = kind == QLatin1String("surface");
            if (!arg.isImage())
                arg = makeTextureArgument(arg.name, surface);
            arg.kind = surface ? ArgumentSpec::Kind::Surface : ArgumentSpec::Kind::Texture;
            arg.buffer.direction = surface ? Direction::Out : Direction::In;
            arg.buffer.verify = VerifySpec{};
            syncTextureContents(arg);
            return true;
        }
        if (arg.isImage()) {
            // The contents become the buffer (or the value type the scalar).
            arg.type = arg.buffer.elementType;
            arg.kind = kind == QLatin1String("buffer") ? ArgumentSpec::Kind::Buffer
                                                       : ArgumentSpec::Kind::Scalar;
            return kind == QLatin1String("buffer") || kind == QLatin1String("scalar");
        }
        if (kind == QLatin1String("buffer") && !arg.isBuffer()) {
            arg.kind = ArgumentSpec::Kind::Buffer;
            arg.buffer.elementType = arg.type;
        } else if (kind == QLatin1String("scalar") && arg.isBuffer()) {
            arg.kind = ArgumentSpec::Kind::Scalar;
            arg.type = arg.buffer.elementType;
        } else if (kind != QLatin1String("buffer") && kind != QLatin1String("scalar")) {
            return false;
        }
        return true;
    }
    case ValueColumn:
        (arg.isBuffer() ? arg.buffer.count : arg.value) = text.trimmed();
        return true;
    case InitColumn: {
        const auto init = parseInitSpec(text, nullptr);
        if (!(arg.isBuffer() || arg.isImage()) || !init)
            return false;
        arg.buffer.init = *init;
        return true;
    }
    case DirectionColumn: {
        const auto d = directionFromName(text.trimmed().toLower());
        if (!(arg.isBuffer() || arg.isImage()) || !d)
            return false;
        arg.buffer.direction = *d;
        return true;
    }
    case VerifyColumn: {
        const auto verify = parseVerifySpec(text, nullptr);
        if (!(arg.isBuffer() || arg.isImage()) || !verify)
            return false;
        arg.buffer.verify = *verify;
        return true;
    }
    default:
        return false;
    }
}

bool ArgumentTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::EditRole || !index.isValid() || index.row() >= m_arguments.size() ||
        index.column() >= ColumnCount || !(flags(index) & Qt::ItemIsEditable))
        return false;
    ArgumentSpec edited = m_arguments.at(index.row());
    if (!applyEdit(edited, index.column(), value.toString()))
        return false;
    m_arguments[index.row()] = edited;
    refreshTypeMismatches();
    emitRowChanged(index.row());
    emit changed();
    return true;
}

bool ArgumentTableModel::setArgument(int row, const ArgumentSpec& arg) {
    if (row < 0 || row >= m_arguments.size())
        return false;
    m_arguments[row] = arg;
    emitRowChanged(row);
    emit changed();
    return true;
}

void ArgumentTableModel::emitRowChanged(int row) {
    Q_UNUSED(row);
    // Names and integer values feed other rows' counts and expressions, so an edit can
    // change the validity of any cell: refresh them all (a handful of rows).
    if (!m_arguments.isEmpty())
        emit dataChanged(index(0, 0), index(int(m_arguments.size()) - 1, ColumnCount - 1));
}

bool ArgumentTableModel::insertRows(int row, int count, const QModelIndex& parent) {
    if (parent.isValid() || row < 0 || row > m_arguments.size() || count < 1)
        return false;
    QSet<QString> names;
    for (const ArgumentSpec& a : std::as_const(m_arguments))
        names.insert(a.name);
    beginInsertRows(parent, row, row + count - 1);
    for (int i = 0; i < count; ++i) {
        ArgumentSpec arg;
        int n = int(m_arguments.size());
        do {
            arg.name = QStringLiteral("arg%1").arg(n++);
        } while (names.contains(arg.name));
        names.insert(arg.name);
        m_arguments.insert(row + i, arg);
    }
    endInsertRows();
    refreshTypeMismatches();
    emitRowChanged(row);
    emit changed();
    return true;
}

bool ArgumentTableModel::removeRows(int row, int count, const QModelIndex& parent) {
    if (parent.isValid() || row < 0 || count < 1 || row + count > m_arguments.size())
        return false;
    beginRemoveRows(parent, row, row + count - 1);
    m_arguments.remove(row, count);
    endRemoveRows();
    refreshTypeMismatches();
    emitRowChanged(0);
    emit changed();
    return true;
}

bool ArgumentTableModel::moveRows(const QModelIndex& sourceParent, int sourceRow, int count,
                                  const QModelIndex& destinationParent, int destinationChild) {
    if (sourceParent.isValid() || destinationParent.isValid() || count < 1 || sourceRow < 0 ||
        sourceRow + count > m_arguments.size() || destinationChild < 0 ||
        destinationChild > m_arguments.size() ||
        (destinationChild >= sourceRow && destinationChild <= sourceRow + count))
        return false;
    if (!beginMoveRows(sourceParent, sourceRow, sourceRow + count - 1, destinationParent,
                       destinationChild))
        return false;
    const QVector<ArgumentSpec> moved = m_arguments.mid(sourceRow, count);
    m_arguments.remove(sourceRow, count);
    const int insertAt = destinationChild > sourceRow ? destinationChild - count : destinationChild;
    for (int i = 0; i < count; ++i)
        m_arguments.insert(insertAt + i, moved.at(i));
    endMoveRows();
    refreshTypeMismatches();
    emit changed();
    return true;
}

void ArgumentTableModel::setArguments(const QVector<ArgumentSpec>& arguments) {
    beginResetModel();
    m_arguments = arguments;
    // Keep struct types the arguments use selectable in the Type column.
    for (const ArgumentSpec& a : arguments) {
        const ValueType& t = a.isBuffer() ? a.buffer.elementType : a.type;
        if (!t.isStruct())
            continue;
        const bool known =
            std::any_of(m_structs.cbegin(), m_structs.cend(),
                        [&](const StructType& s) { return s.name == t.structType.name; });
        if (!known)
            m_structs << t.structType;
    }
    endResetModel();
    refreshTypeMismatches();
}

void ArgumentTableModel::setKernel(const std::optional<KernelInfo>& kernel) {
    m_kernel = kernel;
    refreshTypeMismatches();
}

void ArgumentTableModel::setStructTypes(const QVector<StructType>& structs) {
    m_structs = structs;
    refreshTypeMismatches();
    if (!m_arguments.isEmpty())
        emit dataChanged(index(0, TypeColumn), index(int(m_arguments.size()) - 1, TypeColumn));
}

QString ArgumentTableModel::cellProblem(int row, int column) const {
    // The rules live in core (argumentProblem), shared with the loader and the CLI; the
    // table only maps its columns to the parts of an argument.
    switch (column) {
    case NameColumn:
        return argumentProblem(m_arguments, row, ArgumentPart::Name);
    case ValueColumn:
        return argumentProblem(m_arguments, row, ArgumentPart::Value);
    case InitColumn:
        return argumentProblem(m_arguments, row, ArgumentPart::Init);
    case VerifyColumn:
        return argumentProblem(m_arguments, row, ArgumentPart::Verify);
    default:
        return {};
    }
}

QStringList ArgumentTableModel::problems() const {
    return problemsOf(m_arguments);
}

QStringList ArgumentTableModel::problemsOf(const QVector<ArgumentSpec>& arguments) {
    // The rules live in core (argumentProblem), shared with the loader and the CLI; the
    // messages name the row and the column as the table shows them.
    static const std::pair<ArgumentPart, const char*> kParts[] = {
        {ArgumentPart::Name, QT_TR_NOOP("Name")},
        {ArgumentPart::Value, QT_TR_NOOP("Value / Count")},
        {ArgumentPart::Init, QT_TR_NOOP("Init")},
        {ArgumentPart::Verify, QT_TR_NOOP("Verify")}};
    QStringList list;
    for (int row = 0; row < arguments.size(); ++row) {
        const QString name = arguments.at(row).name.isEmpty()
                                 ? tr("#%1").arg(row + 1)
                                 : QStringLiteral("'%1'").arg(arguments.at(row).name);
        for (const auto& [part, column] : kParts) {
            const QString problem = argumentProblem(arguments, row, part);
            if (!problem.isEmpty())
                list << tr("Argument %1, %2: %3").arg(name, tr(column).toLower(), problem);
        }
    }
    return list;
}

} // namespace kernelpad

namespace kernelpad {

void ArgumentTableModel::syncWithKernel(const KernelInfo& kernel, const QString& source) {
    QVector<StructType> structs;
    const QVector<ArgumentSpec> synced = argumentsForKernel(kernel, source, m_arguments, &structs);
    const bool same = sameArguments(synced, m_arguments);
    beginResetModel();
    m_arguments = synced;
    m_structs = structs;
    m_kernel = kernel;
    endResetModel();
    refreshTypeMismatches();
    if (!same)
        emit changed();
}

const ArgumentTypeMismatch* ArgumentTableModel::mismatchAt(int row) const {
    for (const ArgumentTypeMismatch& m : m_mismatches) {
        if (m.index == row)
            return &m;
    }
    return nullptr;
}

void ArgumentTableModel::refreshTypeMismatches() {
    const QVector<ArgumentTypeMismatch> found =
        m_kernel ? argumentTypeMismatches(m_arguments, *m_kernel, m_structs)
                 : QVector<ArgumentTypeMismatch>{};
    const bool same = found.size() == m_mismatches.size() &&
                      std::equal(found.cbegin(), found.cend(), m_mismatches.cbegin(),
                                 [](const ArgumentTypeMismatch& a, const ArgumentTypeMismatch& b) {
                                     return a.index == b.index && a.message == b.message;
                                 });
    if (same)
        return;
    m_mismatches = found;
    if (!m_arguments.isEmpty()) {
        const int last = int(m_arguments.size()) - 1;
        emit headerDataChanged(Qt::Vertical, 0, last);
        emit dataChanged(index(0, 0), index(last, ColumnCount - 1));
    }
    emit typeMismatchesChanged();
}

int ArgumentTableModel::updateTypesToKernel() {
    if (m_mismatches.isEmpty())
        return 0;
    const int count = int(m_mismatches.size());
    m_arguments = withKernelTypes(m_arguments, m_mismatches);
    refreshTypeMismatches();
    emitRowChanged(0);
    emit changed();
    return count;
}

} // namespace kernelpad
