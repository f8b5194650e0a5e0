#include "ui/models/ArgumentTableModel.h"

#include "core/compile/KernelSignature.h"
#include "core/launch/ArgumentText.h"
#include "ui/models/ArgumentCells.h"

#include <QBrush>
#include <QColor>
#include <QSet>

namespace kernelpad {

using cells::errorPixmap;
using cells::kInvalidBackground;
using cells::kMismatchBackground;
using cells::warningPixmap;

ArgumentTableModel::ArgumentTableModel(QObject* parent)
    : QAbstractTableModel(parent) {}

int ArgumentTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_arguments.size()) + m_globals.size();
}

int ArgumentTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ArgumentTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() < 0 || index.row() >= rowCount() || index.column() < 0 ||
        index.column() >= ColumnCount)
        return {};
    if (isGlobalRow(index.row()))
        return globalData(index.row(), index.column(), role);
    const ArgumentSpec& arg = m_arguments.at(index.row());
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
        return cells::argumentText(arg, column);
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
                      "seed=S | normal MEAN STDDEV seed=S | special LOW HIGH rate=R seed=S "
                      "(uniform with NaN, infinities, -0, denormals and extremes mixed in) | "
                      "file PATH.npy")
                .arg(cells::argumentText(arg, column).toString());
        if (column == VerifyColumn && arg.isBuffer())
            return tr("%1\n\nnone | reference KERNEL | expression EXPR (inputs, scalars and i) | "
                      "file PATH.npy, then atol=A rtol=R and nan=equal (NaN matches NaN, the "
                      "default) or nan=differ")
                .arg(cells::argumentText(arg, column).toString());
        if ((column == ValueColumn || column == TypeColumn) && arg.isImage())
            return tr("%1\n\nDouble-click to edit the array and the sampler")
                .arg(cells::argumentText(arg, column).toString());
        if ((column == ValueColumn || column == TypeColumn) && arg.isTensorMap())
            return tr("%1\n\nDouble-click to edit the tensor map")
                .arg(cells::argumentText(arg, column).toString());
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
    case GlobalRowRole:
        return false;
    case TypeChoicesRole:
        return typeChoices();
    default:
        return {};
    }
}

QStringList ArgumentTableModel::typeChoices() const {
    QStringList names;
    for (ScalarType t : allScalarTypes())
        names << QString::fromLatin1(scalarTypeInfo(t).numpyName);
    for (const StructType& s : m_structs)
        names << s.name;
    return names;
}

QVariant ArgumentTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    // The row header carries the type mismatch too, so that the row is marked however
    // narrow the Type column is.
    if (orientation == Qt::Vertical && isGlobalRow(section)) {
        // Numbered apart from the parameters, whose numbers are their positions in the call.
        if (role == Qt::DisplayRole)
            return tr("G%1").arg(section - argumentCount() + 1);
        if (role == Qt::ToolTipRole)
            return tr("A __constant__ or __device__ variable of the module, set before each "
                      "launch and read back after it (not a kernel parameter)");
        return {};
    }
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
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsSelectable | Qt::ItemIsEnabled;
    if (isGlobalRow(index.row())) {
        if (index.column() == NameColumn)
            f |= Qt::ItemIsUserCheckable;
        return m_globals.isEditable(index.column()) ? f | Qt::ItemIsEditable : f;
    }
    const ArgumentSpec& arg = m_arguments.at(index.row());
    const bool buffer = arg.isBuffer();
    if (arg.isTensorMap()) // the map is edited in the TensorMapDialog
        return index.column() == NameColumn || index.column() == KindColumn ? f | Qt::ItemIsEditable
                                                                            : f;
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

bool ArgumentTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return false;
    if (isGlobalRow(index.row()))
        return setGlobalData(index.row(), index.column(), value, role);
    if (role != Qt::EditRole || !(flags(index) & Qt::ItemIsEditable))
        return false;
    ArgumentSpec edited = m_arguments.at(index.row());
    if (!cells::applyArgumentEdit(edited, index.column(), value.toString(), m_structs))
        return false;
    m_arguments[index.row()] = edited;
    refreshTypeMismatches();
    emitAllChanged();
    emit changed();
    return true;
}

bool ArgumentTableModel::setArgument(int row, const ArgumentSpec& arg) {
    if (row < 0 || row >= m_arguments.size())
        return false;
    m_arguments[row] = arg;
    emitAllChanged();
    emit changed();
    return true;
}

void ArgumentTableModel::emitAllChanged() {
    // Names and integer values feed other rows' counts and expressions (globals' counts too),
    // so an edit can change the validity of any cell: refresh them all (a handful of rows).
    if (rowCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
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
    emitAllChanged();
    emit changed();
    return true;
}

bool ArgumentTableModel::removeRows(int row, int count, const QModelIndex& parent) {
    if (parent.isValid() || row < 0 || count < 1 || row + count > rowCount())
        return false;
    if (isGlobalRow(row)) {
        // Removing a global stops the run setting it; one the module still declares is
        // offered again after the next compile.
        beginRemoveRows(parent, row, row + count - 1);
        m_globals.remove(row - argumentCount(), count);
        endRemoveRows();
        emitAllChanged();
        emit globalsChanged();
        return true;
    }
    if (row + count > m_arguments.size())
        return false; // parameters and globals are removed apart
    beginRemoveRows(parent, row, row + count - 1);
    m_arguments.remove(row, count);
    endRemoveRows();
    refreshTypeMismatches();
    emitAllChanged();
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
        emit dataChanged(index(0, TypeColumn), index(rowCount() - 1, TypeColumn));
}

QString ArgumentTableModel::cellProblem(int row, int column) const {
    if (isGlobalRow(row))
        return m_globals.problem(row - argumentCount(), column, m_arguments);
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
    return problemsOf(m_arguments) + m_globals.problems(m_arguments);
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
    emitAllChanged();
    emit changed();
    return count;
}

} // namespace kernelpad
