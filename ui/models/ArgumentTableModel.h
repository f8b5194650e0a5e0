#pragma once
// The kernel-argument table: one row per parameter, in the style of Qt's addressbook example.

#include "core/compile/CompileResult.h"
#include "core/compile/KernelTypeCheck.h"
#include "core/launch/ArgumentSpec.h"
#include "core/launch/ArgumentText.h" // the cell language, for the delegates

#include <QAbstractTableModel>
#include <QStringList>
#include <QVector>

#include <optional>

namespace kernelpad {

/// Table model over the project's QVector<ArgumentSpec>; invalid cells are red with a tooltip.
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
    /// One message per invalid cell, naming the argument.
    [[nodiscard]] QStringList problems() const;
    /// problems() of any argument list, as the table would show it.
    [[nodiscard]] static QStringList problemsOf(const QVector<ArgumentSpec>& arguments);
    [[nodiscard]] bool isValid() const { return problems().isEmpty(); }

signals:
    void changed();
    /// typeMismatches() changed (after a compile, an edit or an update).
    void typeMismatchesChanged();

private:
    [[nodiscard]] QVariant displayText(const ArgumentSpec& arg, int column) const;
    [[nodiscard]] QVariant editText(const ArgumentSpec& arg, int column) const;
    bool applyEdit(ArgumentSpec& arg, int column, const QString& text);
    [[nodiscard]] std::optional<ValueType> typeFromName(const QString& name) const;
    void emitRowChanged(int row);
    /// Recomputes m_mismatches against m_kernel; emits typeMismatchesChanged() on a change.
    void refreshTypeMismatches();
    [[nodiscard]] const ArgumentTypeMismatch* mismatchAt(int row) const;

    QVector<ArgumentSpec> m_arguments;
    QVector<StructType> m_structs;
    std::optional<KernelInfo> m_kernel; ///< the kernel of the last sync, for the type check
    QVector<ArgumentTypeMismatch> m_mismatches;
};

} // namespace kernelpad
