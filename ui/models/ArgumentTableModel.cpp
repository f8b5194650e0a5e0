#include "ui/models/ArgumentTableModel.h"

#include "core/compile/KernelSignature.h"
#include "core/launch/BufferInit.h"
#include "core/launch/Packing.h"

#include <QBrush>
#include <QColor>
#include <QHash>
#include <QLocale>
#include <QPainter>
#include <QPixmap>
#include <QRegularExpression>
#include <QSet>

namespace kernelpad {

namespace {

/// Light red, readable with black text in light and dark palettes alike.
const QColor kInvalidBackground(255, 205, 205);

QString number(double v) {
    return QString::number(v, 'g', QLocale::FloatingPointShortest);
}

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

/// Parses "key=value" and positional numbers after the keyword.
struct Tokens {
    QStringList positional;
    QHash<QString, QString> named;
};

Tokens tokenize(const QStringList& words) {
    Tokens t;
    for (const QString& w : words) {
        const int eq = w.indexOf(QLatin1Char('='));
        if (eq > 0)
            t.named.insert(w.left(eq).toLower(), w.mid(eq + 1));
        else
            t.positional << w;
    }
    return t;
}

/// Takes a number from `named[key]` or the next positional word; false on a bad number.
bool takeNumber(Tokens& t, const QString& key, double* out, QString* error) {
    QString text;
    if (t.named.contains(key))
        text = t.named.take(key);
    else if (!t.positional.isEmpty())
        text = t.positional.takeFirst();
    else
        return true; // keep the default
    bool ok = false;
    const double v = text.toDouble(&ok);
    if (!ok) {
        if (error)
            *error = QStringLiteral("'%1' is not a number (%2)").arg(text, key);
        return false;
    }
    *out = v;
    return true;
}

QString directionDisplay(Direction d) {
    return directionName(d);
}

} // namespace

QString formatInitSpec(const InitSpec& init) {
    switch (init.kind) {
    case InitSpec::Kind::Zeros:
        return QStringLiteral("zeros");
    case InitSpec::Kind::Ones:
        return QStringLiteral("ones");
    case InitSpec::Kind::Constant:
        return QStringLiteral("constant %1").arg(number(init.value));
    case InitSpec::Kind::Iota:
        return QStringLiteral("iota %1 %2").arg(number(init.value), number(init.step));
    case InitSpec::Kind::Uniform:
        return QStringLiteral("uniform %1 %2 seed=%3")
            .arg(number(init.low), number(init.high))
            .arg(init.seed);
    case InitSpec::Kind::Normal:
        return QStringLiteral("normal %1 %2 seed=%3")
            .arg(number(init.mean), number(init.stddev))
            .arg(init.seed);
    case InitSpec::Kind::File:
        return QStringLiteral("file %1").arg(init.path);
    }
    return {};
}

std::optional<InitSpec> parseInitSpec(const QString& text, QString* error) {
    QStringList words = text.simplified().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    if (words.isEmpty()) {
        if (error)
            *error =
                QStringLiteral("expected zeros, ones, constant V, iota START STEP, "
                               "uniform LOW HIGH seed=S, normal MEAN STDDEV seed=S or file PATH");
        return std::nullopt;
    }
    const QString keyword = words.takeFirst().toLower();
    InitSpec init;
    if (keyword == QLatin1String("file")) {
        init.kind = InitSpec::Kind::File;
        // The path is the rest of the text as typed: it may contain spaces.
        init.path = text.trimmed().mid(4).trimmed();
        return init;
    }
    Tokens t = tokenize(words);
    bool ok = true;
    if (keyword == QLatin1String("zeros") || keyword == QLatin1String("zero")) {
        init.kind = InitSpec::Kind::Zeros;
    } else if (keyword == QLatin1String("ones") || keyword == QLatin1String("one")) {
        init.kind = InitSpec::Kind::Ones;
    } else if (keyword == QLatin1String("constant") || keyword == QLatin1String("const")) {
        init.kind = InitSpec::Kind::Constant;
        ok = takeNumber(t, QStringLiteral("value"), &init.value, error);
    } else if (keyword == QLatin1String("iota")) {
        init.kind = InitSpec::Kind::Iota;
        ok = takeNumber(t, QStringLiteral("start"), &init.value, error) &&
             takeNumber(t, QStringLiteral("step"), &init.step, error);
    } else if (keyword == QLatin1String("uniform")) {
        init.kind = InitSpec::Kind::Uniform;
        ok = takeNumber(t, QStringLiteral("low"), &init.low, error) &&
             takeNumber(t, QStringLiteral("high"), &init.high, error);
    } else if (keyword == QLatin1String("normal")) {
        init.kind = InitSpec::Kind::Normal;
        ok = takeNumber(t, QStringLiteral("mean"), &init.mean, error) &&
             takeNumber(t, QStringLiteral("stddev"), &init.stddev, error);
    } else {
        if (error)
            *error = QStringLiteral("unknown initialisation '%1'").arg(keyword);
        return std::nullopt;
    }
    if (!ok)
        return std::nullopt;
    if (t.named.contains(QStringLiteral("seed"))) {
        bool seedOk = false;
        init.seed = t.named.take(QStringLiteral("seed")).toULongLong(&seedOk);
        if (!seedOk) {
            if (error)
                *error = QStringLiteral("seed must be a non-negative integer");
            return std::nullopt;
        }
    }
    if (!t.positional.isEmpty() || !t.named.isEmpty()) {
        if (error)
            *error = QStringLiteral("unexpected '%1' after %2")
                         .arg((t.positional + t.named.keys()).join(QLatin1Char(' ')), keyword);
        return std::nullopt;
    }
    return init;
}

QString formatVerifySpec(const VerifySpec& verify) {
    QString head;
    switch (verify.kind) {
    case VerifySpec::Kind::None:
        return QStringLiteral("none");
    case VerifySpec::Kind::Reference:
        head = QStringLiteral("reference %1").arg(verify.referenceKernel);
        break;
    case VerifySpec::Kind::Expression:
        head = QStringLiteral("expression %1").arg(verify.expression);
        break;
    case VerifySpec::Kind::File:
        head = QStringLiteral("file %1").arg(verify.path);
        break;
    }
    return QStringLiteral("%1 atol=%2 rtol=%3").arg(head, number(verify.atol), number(verify.rtol));
}

std::optional<VerifySpec> parseVerifySpec(const QString& text, QString* error) {
    QStringList words = text.simplified().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    VerifySpec verify;
    if (words.isEmpty() || words.first().toLower() == QLatin1String("none"))
        return verify;
    const QString keyword = words.takeFirst().toLower();
    // Tolerances are the trailing key=value words; the rest is the argument, which may
    // contain spaces ("a * x + y").
    static const QRegularExpression tol(QStringLiteral("^(atol|rtol)=(.*)$"));
    while (!words.isEmpty()) {
        const auto m = tol.match(words.last());
        if (!m.hasMatch())
            break;
        bool ok = false;
        const double v = m.captured(2).toDouble(&ok);
        if (!ok) {
            if (error)
                *error = QStringLiteral("%1 must be a number").arg(m.captured(1));
            return std::nullopt;
        }
        (m.captured(1) == QLatin1String("atol") ? verify.atol : verify.rtol) = v;
        words.removeLast();
    }
    const QString argument = words.join(QLatin1Char(' '));
    if (keyword == QLatin1String("reference") || keyword == QLatin1String("ref")) {
        verify.kind = VerifySpec::Kind::Reference;
        verify.referenceKernel = argument;
    } else if (keyword == QLatin1String("expression") || keyword == QLatin1String("expr")) {
        verify.kind = VerifySpec::Kind::Expression;
        verify.expression = argument;
    } else if (keyword == QLatin1String("file")) {
        verify.kind = VerifySpec::Kind::File;
        verify.path = argument;
    } else {
        if (error)
            *error = QStringLiteral("unknown verification '%1' (none, reference NAME, "
                                    "expression EXPR, file PATH)")
                         .arg(keyword);
        return std::nullopt;
    }
    return verify;
}

ArgumentTableModel::ArgumentTableModel(QObject* parent)
    : QAbstractTableModel(parent) {}

int ArgumentTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_arguments.size());
}

int ArgumentTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ArgumentTableModel::displayText(const ArgumentSpec& arg, int column) const {
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
        // The whole value first (a narrow column cuts it), then what may be typed.
        if (column == InitColumn && arg.isBuffer())
            return tr("%1\n\nzeros | ones | constant V | iota START STEP | uniform LOW HIGH "
                      "seed=S | normal MEAN STDDEV seed=S | file PATH.npy")
                .arg(editText(arg, column).toString());
        if (column == VerifyColumn && arg.isBuffer())
            return tr("%1\n\nnone | reference KERNEL | expression EXPR (inputs, scalars and i) | "
                      "file PATH.npy, then atol=A rtol=R")
                .arg(editText(arg, column).toString());
        if (column == ValueColumn && arg.isBuffer())
            return tr("Element count: a number or an expression over integer scalars (n*2)");
        return {};
    }
    case Qt::BackgroundRole:
        if (!cellProblem(index.row(), column).isEmpty())
            return QBrush(kInvalidBackground);
        return {};
    case Qt::ForegroundRole:
        if (!cellProblem(index.row(), column).isEmpty())
            return QBrush(Qt::black);
        return {};
    case Qt::DecorationRole:
        if (!cellProblem(index.row(), column).isEmpty())
            return errorPixmap();
        return {};
    case ProblemRole:
        return cellProblem(index.row(), column);
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
    const bool buffer = m_arguments.at(index.row()).isBuffer();
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
        if (!arg.isBuffer() || !init)
            return false;
        arg.buffer.init = *init;
        return true;
    }
    case DirectionColumn: {
        const auto d = directionFromName(text.trimmed().toLower());
        if (!arg.isBuffer() || !d)
            return false;
        arg.buffer.direction = *d;
        return true;
    }
    case VerifyColumn: {
        const auto verify = parseVerifySpec(text, nullptr);
        if (!arg.isBuffer() || !verify)
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
    emitRowChanged(index.row());
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
}

void ArgumentTableModel::setStructTypes(const QVector<StructType>& structs) {
    m_structs = structs;
    if (!m_arguments.isEmpty())
        emit dataChanged(index(0, TypeColumn), index(int(m_arguments.size()) - 1, TypeColumn));
}

QString ArgumentTableModel::cellProblem(int row, int column) const {
    if (row < 0 || row >= m_arguments.size())
        return {};
    const ArgumentSpec& arg = m_arguments.at(row);
    QString error;
    switch (column) {
    case NameColumn: {
        static const QRegularExpression identifier(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
        if (arg.name.isEmpty())
            return tr("The name is empty.");
        if (!identifier.match(arg.name).hasMatch())
            return tr("'%1' is not an identifier: counts and expressions could not use it.")
                .arg(arg.name);
        for (int i = 0; i < m_arguments.size(); ++i) {
            if (i != row && m_arguments.at(i).name == arg.name)
                return tr("The name '%1' is used by another argument too.").arg(arg.name);
        }
        return {};
    }
    case ValueColumn:
        if (!arg.isBuffer()) {
            if (!packValue(arg.type, arg.value, &error))
                return error.isEmpty() ? tr("'%1' is not a valid %2 value.")
                                             .arg(arg.value, arg.type.displayName())
                                       : error;
            return {};
        }
        {
            const auto count = resolveCount(arg.buffer.count, m_arguments, &error);
            if (!count)
                return error.isEmpty() ? tr("Cannot evaluate the count '%1'.").arg(arg.buffer.count)
                                       : error;
            if (*count < 1)
                return tr("The count is %1: a buffer needs at least one element.").arg(*count);
            const qint64 elementBytes = std::max(1, arg.buffer.elementType.sizeBytes());
            if (*count > kMaxBufferBytes / elementBytes)
                return tr("%1 elements of %2 bytes exceed the %3 GiB limit of a buffer.")
                    .arg(*count)
                    .arg(elementBytes)
                    .arg(kMaxBufferBytes >> 30);
        }
        return {};
    case InitColumn:
        if (!arg.isBuffer())
            return {};
        switch (arg.buffer.init.kind) {
        case InitSpec::Kind::File:
            if (arg.buffer.init.path.trimmed().isEmpty())
                return tr("Initialisation from a file needs a path to a .npy file.");
            break;
        case InitSpec::Kind::Uniform:
            if (!(arg.buffer.init.low < arg.buffer.init.high))
                return tr("Uniform needs low < high (got %1 and %2).")
                    .arg(number(arg.buffer.init.low), number(arg.buffer.init.high));
            break;
        case InitSpec::Kind::Normal:
            if (!(arg.buffer.init.stddev >= 0))
                return tr("The standard deviation must not be negative.");
            break;
        default:
            break;
        }
        return {};
    case VerifyColumn: {
        if (!arg.isBuffer())
            return {};
        const VerifySpec& v = arg.buffer.verify;
        if (v.kind == VerifySpec::Kind::None)
            return {};
        if (arg.buffer.direction == Direction::In)
            return tr("Only out and inout buffers are verified: '%1' is an input.").arg(arg.name);
        if (v.kind == VerifySpec::Kind::Reference && v.referenceKernel.trimmed().isEmpty())
            return tr("Name the reference kernel.");
        if (v.kind == VerifySpec::Kind::Expression && v.expression.trimmed().isEmpty())
            return tr("The expression is empty.");
        if (v.kind == VerifySpec::Kind::File && v.path.trimmed().isEmpty())
            return tr("Verification against a file needs a path to a .npy file.");
        if (!(v.atol >= 0) || !(v.rtol >= 0))
            return tr("Tolerances must not be negative (atol=%1, rtol=%2).")
                .arg(number(v.atol), number(v.rtol));
        return {};
    }
    default:
        return {};
    }
}

QStringList ArgumentTableModel::problems() const {
    QStringList list;
    for (int row = 0; row < m_arguments.size(); ++row) {
        const QString name = m_arguments.at(row).name.isEmpty()
                                 ? tr("#%1").arg(row + 1)
                                 : QStringLiteral("'%1'").arg(m_arguments.at(row).name);
        for (int column = 0; column < ColumnCount; ++column) {
            const QString problem = cellProblem(row, column);
            if (!problem.isEmpty())
                list << tr("Argument %1, %2: %3")
                            .arg(name, headerData(column, Qt::Horizontal).toString().toLower(),
                                 problem);
        }
    }
    return list;
}

} // namespace kernelpad

namespace kernelpad {

void ArgumentTableModel::syncWithKernel(const KernelInfo& kernel, const QString& source) {
    QVector<StructType> structs;
    const QVector<ArgumentSpec> synced = argumentsForKernel(kernel, source, m_arguments, &structs);
    const bool same = synced.size() == m_arguments.size() &&
                      std::equal(synced.cbegin(), synced.cend(), m_arguments.cbegin(),
                                 [](const ArgumentSpec& a, const ArgumentSpec& b) {
                                     return a.toJson() == b.toJson();
                                 });
    beginResetModel();
    m_arguments = synced;
    m_structs = structs;
    endResetModel();
    if (!same)
        emit changed();
}

} // namespace kernelpad
