#pragma once
// The module-global rows of the argument table: the project's globals and
// those the last compile declares, each with its cells, edits and problems. The table model
// shows them below the kernel's parameters.

#include "core/compile/CompileResult.h"
#include "core/launch/GlobalSpec.h"
#include "core/launch/ValueType.h"

#include <QString>
#include <QStringList>
#include <QVariant>
#include <QVector>

#include <optional>

namespace kernelpad {

/// One `__constant__`/`__device__` variable as the table shows it.
struct GlobalRow {
    GlobalSpec spec;
    /// In the project's globals: written before each launch and read back after. An offered
    /// row (a global the module declares that the project does not set) is not.
    bool included = true;
    /// The module's declaration from the last compile; none when it declares no such
    /// variable or no compile is known.
    std::optional<ModuleGlobal> declared;
};

/// The global rows: merges the project's globals with the module's declarations. A project
/// global the module no longer declares is kept and marked (its settings are the user's); a
/// declared global the project does not set is offered with defaults, not included.
class GlobalRows {
public:
    /// The project's globals, in order; offered rows the module still declares stay after them.
    void setSpecs(const QVector<GlobalSpec>& specs);
    /// The globals of the last successful compile; nullopt when none is known (nothing is
    /// marked then and nothing offered). `structs` types the offered rows of a struct type.
    void setDeclared(const std::optional<QVector<ModuleGlobal>>& declared,
                     const QVector<StructType>& structs);
    /// The included rows' specs: the project's `globals`.
    [[nodiscard]] QVector<GlobalSpec> specs() const;

    [[nodiscard]] int size() const { return int(m_rows.size()); }
    [[nodiscard]] const GlobalRow& at(int row) const { return m_rows.at(row); }
    /// A project global the last compile does not declare.
    [[nodiscard]] bool isStale(int row) const;

    /// Display and edit text of `column` (ArgumentTableModel::Column).
    [[nodiscard]] QVariant text(int row, int column) const;
    [[nodiscard]] QString toolTip(int row, int column) const;
    [[nodiscard]] bool isEditable(int column) const;
    /// Applies typed text; an edit of an offered row includes it (the user means to set it).
    [[nodiscard]] bool applyEdit(int row, int column, const QString& text,
                                 const QVector<StructType>& structs);
    /// Includes or leaves out a row; false when it already was.
    bool setIncluded(int row, bool included);
    void remove(int row, int count);

    /// Why the cell stops a run, empty when fine (offered rows never stop one). Counts
    /// resolve against `arguments`' integer scalars.
    [[nodiscard]] QString problem(int row, int column,
                                  const QVector<ArgumentSpec>& arguments) const;
    /// One message per invalid cell, naming the global.
    [[nodiscard]] QStringList problems(const QVector<ArgumentSpec>& arguments) const;

private:
    /// Re-reads each row's declaration and adds an offered row per undeclared module global.
    void merge(QVector<GlobalRow> rows);
    [[nodiscard]] const ModuleGlobal* findDeclared(const QString& name) const;

    QVector<GlobalRow> m_rows;
    std::optional<QVector<ModuleGlobal>> m_declared;
    QVector<StructType> m_structs;
};

/// What a global the project does not set yet starts as: the source's type (or the PTX's),
/// as many elements as the declaration holds, zeros, "in" for a __constant__ (the kernel
/// cannot write it) and "inout" for a __device__ variable, no verification.
[[nodiscard]] GlobalSpec defaultGlobalSpec(const ModuleGlobal& global,
                                           const QVector<StructType>& structs);

} // namespace kernelpad
