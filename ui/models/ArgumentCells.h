#pragma once
// The cells of the argument table's parameter rows: their text, how an edit of one changes the
// argument, and the marks an invalid or mismatched cell carries. Kept apart from the model so
// that the model is about rows and the Qt model rules, and the global rows (GlobalRows.h) use
// the same marks.

#include "core/launch/ArgumentSpec.h"
#include "core/launch/ValueType.h"

#include <QColor>
#include <QPixmap>
#include <QString>
#include <QVariant>
#include <QVector>

#include <optional>

namespace kernelpad::cells {

/// Light red, readable with black text in light and dark palettes alike.
inline const QColor kInvalidBackground(255, 205, 205);
/// Light amber for a type that differs from the kernel's: a warning, not a refusal.
inline const QColor kMismatchBackground(255, 230, 160);

/// A small red disc; drawn rather than taken from an icon theme, which headless machines lack.
[[nodiscard]] QPixmap errorPixmap();
/// A small amber triangle with "!", the type-mismatch mark of the Type cell and the row header.
[[nodiscard]] QPixmap warningPixmap();

/// The text of `column` (ArgumentTableModel::Column) of a parameter row.
[[nodiscard]] QVariant argumentText(const ArgumentSpec& arg, int column);
/// A NumPy name, a kernel spelling or one of `structs`; nullopt for anything else.
[[nodiscard]] std::optional<ValueType> typeFromName(const QString& name,
                                                    const QVector<StructType>& structs);
/// Applies the text typed into `column` to `arg`; false when the text is not accepted there.
[[nodiscard]] bool applyArgumentEdit(ArgumentSpec& arg, int column, const QString& text,
                                     const QVector<StructType>& structs);

} // namespace kernelpad::cells
