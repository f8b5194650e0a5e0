#include "ui/models/PipelineStepModel.h"

#include "core/run/Summary.h"

#include <QRegularExpression>

#include <limits>

namespace kernelpad {
namespace {

const QRegularExpression& listSeparator() {
    static const QRegularExpression comma(QStringLiteral("\\s*,\\s*"));
    return comma;
}

QStringList items(const QString& text) {
    QStringList parts = text.trimmed().split(listSeparator(), Qt::SkipEmptyParts);
    for (QString& p : parts)
        p = p.trimmed();
    return parts;
}

} // namespace

PipelineStepModel::PipelineStepModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void PipelineStepModel::setSteps(const QVector<PipelineStep>& steps) {
    if (steps == m_steps)
        return;
    beginResetModel();
    if (steps.size() != m_steps.size())
        m_timing = {};
    m_steps = steps;
    endResetModel();
}

void PipelineStepModel::setTiming(const PipelineTiming& timing) {
    m_timing = timing;
    if (!m_steps.isEmpty())
        emit dataChanged(index(0, Time), index(int(m_steps.size()) - 1, Time));
}

void PipelineStepModel::appendStep(const PipelineStep& step) {
    const int row = int(m_steps.size());
    beginInsertRows({}, row, row);
    m_steps.append(step);
    m_timing = {};
    endInsertRows();
    emit stepsEdited();
}

void PipelineStepModel::removeStep(int row) {
    if (row < 0 || row >= m_steps.size())
        return;
    beginRemoveRows({}, row, row);
    m_steps.removeAt(row);
    m_timing = {};
    endRemoveRows();
    emit stepsEdited();
}

int PipelineStepModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_steps.size());
}

int PipelineStepModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant PipelineStepModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Vertical)
        return section + 1;
    switch (section) {
    case Kernel:
        return tr("Kernel");
    case Grid:
        return tr("Grid");
    case Block:
        return tr("Block");
    case Shared:
        return tr("Shared bytes");
    case Repeat:
        return tr("Repeat");
    case Arguments:
        return tr("Arguments");
    case Swaps:
        return tr("Swaps");
    case Time:
        return tr("Median");
    default:
        return {};
    }
}

Qt::ItemFlags PipelineStepModel::flags(const QModelIndex& index) const {
    if (!index.isValid())
        return Qt::NoItemFlags;
    const Qt::ItemFlags base = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    return index.column() == Time ? base : base | Qt::ItemIsEditable;
}

QVariant PipelineStepModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= m_steps.size() || index.column() >= ColumnCount)
        return {};
    const PipelineStep& step = m_steps[index.row()];
    if (role == Qt::ToolTipRole && index.column() == Arguments)
        return tr("Project arguments in the kernel's parameter order; name=value gives a "
                  "scalar a value of this step's own");
    if (role == Qt::ToolTipRole && index.column() == Swaps)
        return tr("Buffer pairs a:b exchanged after each repetition (ping-pong)");
    if (role != Qt::DisplayRole && role != Qt::EditRole)
        return {};
    switch (index.column()) {
    case Kernel:
        return step.kernel;
    case Grid:
        return dimsText(step.launch.grid);
    case Block:
        return dimsText(step.launch.block);
    case Shared:
        return step.launch.sharedMemBytes;
    case Repeat:
        return step.repeat;
    case Arguments:
        return argumentsText(step.args);
    case Swaps:
        return swapsText(step.swaps);
    case Time:
        if (index.row() < m_timing.steps.size())
            return formatDuration(m_timing.steps[index.row()].stats.medianMs / 1e3);
        return QStringLiteral("-");
    default:
        return {};
    }
}

bool PipelineStepModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::EditRole || !index.isValid() || index.row() >= m_steps.size())
        return false;
    PipelineStep step = m_steps[index.row()];
    const QString text = value.toString().trimmed();
    QString error;
    bool ok = true;
    switch (index.column()) {
    case Kernel:
        ok = !text.isEmpty();
        error = tr("Kernel: must name the kernel to launch");
        step.kernel = text;
        break;
    case Grid:
    case Block: {
        const std::optional<std::array<int, 3>> dims = parseDims(text, &error);
        ok = dims.has_value();
        if (ok)
            (index.column() == Grid ? step.launch.grid : step.launch.block) = *dims;
        error = (index.column() == Grid ? tr("Grid: ") : tr("Block: ")) + error;
        break;
    }
    case Shared:
    case Repeat: {
        const int number = text.toInt(&ok);
        const int low = index.column() == Shared ? 0 : 1;
        const int high =
            index.column() == Shared ? std::numeric_limits<int>::max() : PipelineStep::kMaxRepeat;
        ok = ok && number >= low && number <= high;
        error = tr("%1: must be a whole number from %2 to %3 (got \"%4\")")
                    .arg(index.column() == Shared ? tr("Shared bytes") : tr("Repeat"))
                    .arg(low)
                    .arg(high)
                    .arg(text);
        if (ok)
            (index.column() == Shared ? step.launch.sharedMemBytes : step.repeat) = number;
        break;
    }
    case Arguments: {
        const std::optional<QVector<PipelineBinding>> args = parseArguments(text, &error);
        ok = args.has_value();
        if (ok)
            step.args = *args;
        error = tr("Arguments: ") + error;
        break;
    }
    case Swaps: {
        const std::optional<QVector<BufferSwap>> swaps = parseSwaps(text, &error);
        ok = swaps.has_value();
        if (ok)
            step.swaps = *swaps;
        error = tr("Swaps: ") + error;
        break;
    }
    default:
        return false;
    }
    if (!ok) {
        m_lastError = error;
        return false;
    }
    m_lastError.clear();
    if (step == m_steps[index.row()])
        return true;
    m_steps[index.row()] = step;
    emit dataChanged(index, index, {Qt::DisplayRole, Qt::EditRole});
    emit stepsEdited();
    return true;
}

QString PipelineStepModel::dimsText(const std::array<int, 3>& dims) {
    if (dims[1] == 1 && dims[2] == 1)
        return QString::number(dims[0]);
    return QStringLiteral("%1,%2,%3").arg(dims[0]).arg(dims[1]).arg(dims[2]);
}

std::optional<std::array<int, 3>> PipelineStepModel::parseDims(const QString& text,
                                                               QString* error) {
    const QStringList parts = items(text);
    if (parts.isEmpty() || parts.size() > 3) {
        *error = tr("expected 1 to 3 whole numbers separated by commas (got \"%1\")").arg(text);
        return std::nullopt;
    }
    std::array<int, 3> dims{1, 1, 1};
    for (int i = 0; i < parts.size(); ++i) {
        bool ok = false;
        dims[size_t(i)] = parts[i].toInt(&ok);
        if (!ok || dims[size_t(i)] < 1) {
            *error = tr("each dimension must be a whole number >= 1 (got \"%1\")").arg(parts[i]);
            return std::nullopt;
        }
    }
    return dims;
}

QString PipelineStepModel::argumentsText(const QVector<PipelineBinding>& args) {
    QStringList parts;
    for (const PipelineBinding& b : args)
        parts << (b.value ? b.argument + QLatin1Char('=') + *b.value : b.argument);
    return parts.join(QStringLiteral(", "));
}

std::optional<QVector<PipelineBinding>> PipelineStepModel::parseArguments(const QString& text,
                                                                          QString* error) {
    QVector<PipelineBinding> args;
    for (const QString& part : items(text)) {
        const qsizetype equals = part.indexOf(QLatin1Char('='));
        PipelineBinding b;
        b.argument = (equals < 0 ? part : part.left(equals)).trimmed();
        if (equals >= 0)
            b.value = part.mid(equals + 1).trimmed();
        if (b.argument.isEmpty() || (b.value && b.value->isEmpty())) {
            *error = tr("\"%1\" is not an argument name or name=value").arg(part);
            return std::nullopt;
        }
        args.append(b);
    }
    return args;
}

QString PipelineStepModel::swapsText(const QVector<BufferSwap>& swaps) {
    QStringList parts;
    for (const BufferSwap& s : swaps)
        parts << s.first + QLatin1Char(':') + s.second;
    return parts.join(QStringLiteral(", "));
}

std::optional<QVector<BufferSwap>> PipelineStepModel::parseSwaps(const QString& text,
                                                                 QString* error) {
    QVector<BufferSwap> swaps;
    for (const QString& part : items(text)) {
        const QStringList pair = part.split(QLatin1Char(':'));
        if (pair.size() != 2 || pair[0].trimmed().isEmpty() || pair[1].trimmed().isEmpty()) {
            *error = tr("\"%1\" is not a pair of buffers a:b").arg(part);
            return std::nullopt;
        }
        swaps.append({pair[0].trimmed(), pair[1].trimmed()});
    }
    return swaps;
}

} // namespace kernelpad
