#include "ui/models/SweepResultsModel.h"

#include "core/sweep/SweepSpace.h"

#include <QBrush>
#include <QColor>
#include <QFont>

#include <cmath>
#include <limits>

namespace kernelpad {

void SweepResultsModel::reset(const QStringList& names, const QVector<SweepRecord>& records,
                              SweepObjective objective) {
    beginResetModel();
    m_names = names;
    m_records = records;
    m_objective = objective;
    m_best = -1;
    endResetModel();
    updateBest();
}

void SweepResultsModel::append(const SweepRecord& record) {
    const int row = int(m_records.size());
    beginInsertRows({}, row, row);
    m_records.append(record);
    endInsertRows();
    updateBest();
}

void SweepResultsModel::updateBest() {
    int best = -1;
    double bestScore = std::numeric_limits<double>::infinity();
    for (int row = 0; row < m_records.size(); ++row) {
        const double score = m_records[row].score(m_objective);
        // Ties go by key, as bestRecord() ranks them: the row of the sweep's best, whose
        // confirmation the panel shows.
        const bool better = score < bestScore || (score == bestScore && best >= 0 &&
                                                  m_records[row].key < m_records[best].key);
        if (m_records[row].passed() && std::isfinite(score) && better) {
            bestScore = score;
            best = row;
        }
    }
    if (best == m_best)
        return;
    const int old = m_best;
    m_best = best;
    for (int row : {old, best})
        if (row >= 0)
            emit dataChanged(index(row, 0), index(row, columnCount() - 1));
}

int SweepResultsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_records.size());
}

int SweepResultsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_names.size()) + kFixedColumns;
}

namespace {
QString number(double value, int decimals) {
    return std::isfinite(value) ? QString::number(value, 'f', decimals) : QStringLiteral("–");
}
} // namespace

QVariant SweepResultsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= m_records.size())
        return {};
    const SweepRecord& r = m_records[index.row()];
    const int names = int(m_names.size());
    const int c = index.column();
    const bool best = index.row() == m_best;
    if (role == Qt::ForegroundRole)
        return r.passed() ? QVariant() : QVariant(QBrush(QColor(0xc6, 0x28, 0x28)));
    if (role == Qt::FontRole && best) {
        QFont font;
        font.setBold(true);
        return font;
    }
    if (role == Qt::ToolTipRole)
        return r.passed() ? (best ? tr("The best configuration") : QVariant())
                          : QVariant(tr("%1: %2").arg(r.status, r.error));
    if (c < names) {
        const double v = c < r.values.size() ? r.values[c] : std::nan("");
        if (role == Qt::DisplayRole)
            return SweepSpace::formatValue(v);
        if (role == kSortRole)
            return v;
        return {};
    }
    // A failure's missing number sorts after every real one.
    const auto key = [](double v) {
        return std::isfinite(v) ? v : std::numeric_limits<double>::max();
    };
    switch (c - names) {
    case Status:
        if (role == Qt::DisplayRole)
            return best ? tr("★ best") : r.status;
        if (role == kSortRole)
            return best ? QStringLiteral(" best") : r.status;
        break;
    case MedianMs:
        if (role == Qt::DisplayRole)
            return number(r.medianMs, 4);
        if (role == kSortRole)
            return key(r.medianMs);
        break;
    case MinMs:
        if (role == Qt::DisplayRole)
            return number(r.minMs, 4);
        if (role == kSortRole)
            return key(r.minMs);
        break;
    case Bandwidth:
        if (role == Qt::DisplayRole)
            return number(r.bandwidthGBs, 1);
        if (role == kSortRole)
            return std::isfinite(r.bandwidthGBs) ? r.bandwidthGBs : -1.0;
        break;
    case Device:
        if (role == Qt::DisplayRole || role == kSortRole)
            return r.device;
        break;
    case Error:
        if (role == Qt::DisplayRole || role == kSortRole)
            return r.error;
        break;
    default:
        break;
    }
    return {};
}

QVariant SweepResultsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (section < m_names.size())
        return m_names[section];
    switch (section - int(m_names.size())) {
    case Status:
        return tr("Status");
    case MedianMs:
        return tr("Median ms");
    case MinMs:
        return tr("Min ms");
    case Bandwidth:
        return tr("GB/s");
    case Device:
        return tr("Device");
    case Error:
        return tr("Error");
    default:
        return {};
    }
}

} // namespace kernelpad
