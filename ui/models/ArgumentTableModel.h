#pragma once
// The kernel-argument table: one row per parameter, then one per module global, in the style of
// Qt's addressbook example.

#include "core/compile/CompileResult.h"
#include "core/compile/KernelTypeCheck.h"
#include "core/launch/ArgumentSpec.h"
#include "core/launch/ArgumentText.h" // the cell language, for the delegates
#include "ui/models/GlobalRows.h"

#include <QAbstractTableModel>
#include <QStringList>
#include <QVector>

#include <functional>
#include <optional>

namespace kernelpad {

/// Table model over the project's QVector<ArgumentSpec> (rows 0 .. argumentCount()-1) and its
/// module globals below them (GlobalRows: the project's `globals` and the ones the last compile
/// declares, checkable in the Name column); invalid cells are red with a tooltip.
class ArgumentTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        TypeColumn,
        KindColumn,
        ValueColumn, ///< scalar: the value; buffer: the element count
        InitColumn,
        DirectionColumn,
        VerifyColumn,
        ColumnCount
    };
    enum Role {
        /// QStringList of the names the Type column accepts: scalar NumPy names, then structs.
        TypeChoicesRole = Qt::UserRole + 1,
        /// QString: why the cell is invalid, empty when it is fine.
        ProblemRole,
        /// QString: why the row's type differs from the compiled kernel's, empty when not.
        TypeMismatchRole,
        /// bool: the row is a module global, not a kernel parameter.
        GlobalRowRole,
    };

    explicit ArgumentTableModel(QObject* parent = nullptr);

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index,
                                int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;
    [[nodiscard]] Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    bool insertRows(int row, int count, const QModelIndex& parent = {}) override;
    bool removeRows(int row, int count, const QModelIndex& parent = {}) override;
    bool moveRows(const QModelIndex& sourceParent, int sourceRow, int count,
                  const QModelIndex& destinationParent, int destinationChild) override;

    void setArguments(const QVector<ArgumentSpec>& arguments);
    [[nodiscard]] int argumentCount() const { return int(m_arguments.size()); }
    [[nodiscard]] bool isGlobalRow(int row) const {
        return row >= argumentCount() && row < rowCount();
    }

    /// The project's globals, shown below the parameters (offered rows kept).
    void setGlobals(const QVector<GlobalSpec>& globals);
    /// The included global rows: the project's `globals`.
    [[nodiscard]] QVector<GlobalSpec> globals() const { return m_globals.specs(); }
    /// The globals of the last successful compile (CompileResult::globals): project globals it
    /// does not declare are marked, declared ones the project does not set are offered. nullopt:
    /// no compile known, nothing marked or offered.
    void setModuleGlobals(const std::optional<QVector<ModuleGlobal>>& declared);
    [[nodiscard]] const GlobalRows& globalRows() const { return m_globals; }
    /// Replaces row `row` whole (a texture's array and sampler, from the TextureDialog).
    bool setArgument(int row, const ArgumentSpec& arg);
    [[nodiscard]] QVector<ArgumentSpec> arguments() const { return m_arguments; }
    /// Rebuilds the rows from the kernel's parameters in order, keeping every setting of a
    /// row whose name matches an existing one; names and types come from the source. The
    /// kernel is kept: rows whose type differs from its instantiated signature are marked.
    /// The compiled kernel the rows are checked against (typeMismatches()); none: no check.
    void setKernel(const std::optional<KernelInfo>& kernel);
    void syncWithKernel(const KernelInfo& kernel, const QString& source);
    /// Rows whose kind or type differs from the last synced kernel's signature (a template
    /// recompiled as vector_add<double> keeps float32 buffers until updated).
    [[nodiscard]] const QVector<ArgumentTypeMismatch>& typeMismatches() const {
        return m_mismatches;
    }
    /// Gives every mismatched row the kernel's kind and type, keeping its values; returns
    /// how many rows changed (an edit: changed() is emitted).
    int updateTypesToKernel();
    /// Structs the Type column offers (set by syncWithKernel from the source).
    void setStructTypes(const QVector<StructType>& structs);
    [[nodiscard]] QVector<StructType> structTypes() const { return m_structs; }

    /// Why the cell is invalid, empty when it is fine.
    [[nodiscard]] QString cellProblem(int row, int column) const;
    /// One message per invalid cell, naming the argument or the global.
    [[nodiscard]] QStringList problems() const;
    /// problems() of any argument list (without globals), as the table would show it.
    [[nodiscard]] static QStringList problemsOf(const QVector<ArgumentSpec>& arguments);
    [[nodiscard]] bool isValid() const { return problems().isEmpty(); }

signals:
    void changed();
    /// globals() changed by an edit in the table (a cell, a check box, a removed row).
    void globalsChanged();
    /// typeMismatches() changed (after a compile, an edit or an update).
    void typeMismatchesChanged();

private:
    [[nodiscard]] QStringList typeChoices() const;
    [[nodiscard]] QVariant globalData(int row, int column, int role) const;
    bool setGlobalData(int row, int column, const QVariant& value, int role);
    /// Replaces the global rows through a model reset when their number changes.
    void resetGlobals(const std::function<void()>& change);
    /// Every cell may change validity on an edit (names and counts feed other rows).
    void emitAllChanged();
    /// Recomputes m_mismatches against m_kernel; emits typeMismatchesChanged() on a change.
    void refreshTypeMismatches();
    [[nodiscard]] const ArgumentTypeMismatch* mismatchAt(int row) const;

    QVector<ArgumentSpec> m_arguments;
    QVector<StructType> m_structs;
    std::optional<KernelInfo> m_kernel; ///< the kernel of the last sync, for the type check
    QVector<ArgumentTypeMismatch> m_mismatches;
    GlobalRows m_globals;
};

} // namespace kernelpad
