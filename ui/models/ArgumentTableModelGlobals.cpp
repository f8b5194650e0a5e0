// The module-global rows of ArgumentTableModel: their cells, edits and how
// they follow the project and the compiled module. The rows' own logic is in GlobalRows.

#include "ui/models/ArgumentCells.h"
#include "ui/models/ArgumentTableModel.h"

#include <QBrush>
#include <QColor>

namespace kernelpad {

QVariant ArgumentTableModel::globalData(int row, int column, int role) const {
    const int g = row - argumentCount();
    const GlobalRow& r = m_globals.at(g);
    const QString problem = m_globals.problem(g, column, m_arguments);
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
        return m_globals.text(g, column);
    case Qt::CheckStateRole:
        if (column != NameColumn)
            return {};
        return r.included ? Qt::Checked : Qt::Unchecked;
    case Qt::ToolTipRole:
        return problem.isEmpty() ? m_globals.toolTip(g, column) : problem;
    case Qt::BackgroundRole:
        return problem.isEmpty() ? QVariant() : QBrush(cells::kInvalidBackground);
    case Qt::ForegroundRole:
        if (!problem.isEmpty())
            return QBrush(Qt::black);
        // An offered row is not part of the run: greyed until checked.
        return r.included ? QVariant() : QBrush(QColor(128, 128, 128));
    case Qt::DecorationRole:
        return problem.isEmpty() ? QVariant() : QVariant(cells::errorPixmap());
    case ProblemRole:
        return problem;
    case TypeMismatchRole:
        return QString();
    case GlobalRowRole:
        return true;
    case TypeChoicesRole:
        return typeChoices();
    default:
        return {};
    }
}

bool ArgumentTableModel::setGlobalData(int row, int column, const QVariant& value, int role) {
    const int g = row - argumentCount();
    bool edited = false;
    if (role == Qt::CheckStateRole && column == NameColumn)
        edited = m_globals.setIncluded(g, value.toInt() == Qt::Checked);
    else if (role == Qt::EditRole && m_globals.isEditable(column))
        edited = m_globals.applyEdit(g, column, value.toString(), m_structs);
    if (!edited)
        return false;
    emitAllChanged();
    emit globalsChanged();
    return true;
}

namespace {

bool sameRows(const GlobalRows& a, const GlobalRows& b) {
    if (a.size() != b.size())
        return false;
    for (int i = 0; i < a.size(); ++i) {
        const GlobalRow& x = a.at(i);
        const GlobalRow& y = b.at(i);
        if (!(x.spec == y.spec) || x.included != y.included ||
            x.declared.has_value() != y.declared.has_value() ||
            (x.declared && x.declared->toJson() != y.declared->toJson()))
            return false;
    }
    return true;
}

} // namespace

void ArgumentTableModel::resetGlobals(const std::function<void()>& change) {
    const GlobalRows before = m_globals;
    change();
    if (sameRows(before, m_globals))
        return;
    const GlobalRows after = m_globals;
    const int first = argumentCount();
    if (before.size() == after.size()) {
        emitAllChanged();
        return;
    }
    // Only the global rows are replaced, so that an editor open on a parameter survives a
    // compile that declares a new global.
    m_globals = before; // the rows as the view knows them, until each change is announced
    if (before.size() > 0) {
        beginRemoveRows({}, first, first + before.size() - 1);
        m_globals = GlobalRows();
        endRemoveRows();
    }
    if (after.size() > 0) {
        beginInsertRows({}, first, first + after.size() - 1);
        m_globals = after;
        endInsertRows();
    }
    m_globals = after;
    emitAllChanged();
}

void ArgumentTableModel::setGlobals(const QVector<GlobalSpec>& globals) {
    resetGlobals([&] { m_globals.setSpecs(globals); });
}

void ArgumentTableModel::setModuleGlobals(const std::optional<QVector<ModuleGlobal>>& declared) {
    resetGlobals([&] { m_globals.setDeclared(declared, m_structs); });
}

} // namespace kernelpad
