#include "ui/models/TestsModel.h"

#include <QBrush>
#include <QColor>
#include <QFont>

namespace kernelpad {

namespace {

QColor outcomeColour(CheckOutcome outcome) {
    switch (outcome) {
    case CheckOutcome::Passed:
        return QColor(0x2e, 0x7d, 0x32);
    case CheckOutcome::Failed:
        return QColor(0xc6, 0x28, 0x28);
    case CheckOutcome::Warning:
        return QColor(0xb2, 0x6a, 0x00);
    case CheckOutcome::Skipped:
        return QColor(0x75, 0x75, 0x75);
    }
    return {};
}

QString checkTooltip(const TestCheck& check) {
    QStringList lines{QStringLiteral("%1: %2").arg(check.name, checkOutcomeName(check.outcome))};
    if (!check.message.isEmpty())
        lines << check.message;
    lines << check.details;
    return lines.join(QLatin1Char('\n'));
}

} // namespace

void TestsModel::clear() {
    beginResetModel();
    m_cases.clear();
    m_checks.clear();
    endResetModel();
}

void TestsModel::append(const TestCaseResult& result) {
    QStringList added;
    for (const TestCheck& check : result.checks)
        if (!m_checks.contains(check.name) && !added.contains(check.name))
            added << check.name;
    if (!added.isEmpty()) {
        const int first = columnCount();
        beginInsertColumns({}, first, first + int(added.size()) - 1);
        m_checks << added;
        endInsertColumns();
    }
    const int row = rowCount();
    beginInsertRows({}, row, row);
    m_cases.append(result);
    endInsertRows();
}

const TestCheck* TestsModel::checkAt(int row, int column) const {
    if (row < 0 || row >= m_cases.size() || column < kFixedColumns || column >= columnCount())
        return nullptr;
    return m_cases[row].find(m_checks[column - kFixedColumns]);
}

int TestsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_cases.size());
}

int TestsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : kFixedColumns + int(m_checks.size());
}

QVariant TestsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    const TestCaseResult& c = m_cases[index.row()];
    if (index.column() == CaseName) {
        if (role == Qt::DisplayRole)
            return c.name;
        if (role == Qt::FontRole && c.failed()) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    }
    if (index.column() == Launch)
        return role == Qt::DisplayRole ? QVariant(c.launch) : QVariant();
    const TestCheck* check = checkAt(index.row(), index.column());
    if (!check)
        return role == Qt::DisplayRole ? QVariant(QStringLiteral("—")) : QVariant();
    switch (role) {
    case Qt::DisplayRole:
        return checkOutcomeName(check->outcome);
    case Qt::ForegroundRole:
        return QBrush(outcomeColour(check->outcome));
    case Qt::ToolTipRole:
        return checkTooltip(*check);
    default:
        return {};
    }
}

QVariant TestsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole || orientation != Qt::Horizontal || section < 0 ||
        section >= columnCount())
        return QAbstractTableModel::headerData(section, orientation, role);
    if (section == CaseName)
        return tr("Case");
    if (section == Launch)
        return tr("Launch");
    return m_checks[section - kFixedColumns];
}

} // namespace kernelpad
