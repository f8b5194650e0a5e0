#pragma once
// The argument table's cell language, kept where the CLI and tests can use it: the text of the
// Init and Verify cells, and the rules each part of an argument must follow before a run.

#include "core/launch/ArgumentSpec.h"

#include <QString>
#include <QVector>

#include <optional>

namespace kernelpad {

/// "uniform 0 1 seed=42", "constant 2.5", "iota 0 1", "normal 0 1 seed=7", "file x.npy".
[[nodiscard]] QString formatInitSpec(const InitSpec& init);
/// Parses formatInitSpec()'s text; the error says what is expected. Only the syntax is
/// checked here: InitSpec::problem() says whether the values make sense.
[[nodiscard]] std::optional<InitSpec> parseInitSpec(const QString& text, QString* error);
/// "none", "reference saxpy_ref atol=1e-06 rtol=1e-05", "expression a*x+y ...", "file y.npy ...".
[[nodiscard]] QString formatVerifySpec(const VerifySpec& verify);
/// Parses formatVerifySpec()'s text; tolerances are the trailing atol=/rtol=/ulp= words, and
/// nan=equal or nan=differ (VerifySpec::nan).
[[nodiscard]] std::optional<VerifySpec> parseVerifySpec(const QString& text, QString* error);

/// The parts of an argument a rule can be about; the table shows each in its own column.
enum class ArgumentPart {
    Name,  ///< an identifier, used once
    Value, ///< a scalar's value, or a buffer's element count
    Init,  ///< a buffer's initialisation
    Verify ///< a buffer's verification
};

/// Why `part` of arguments[index] stops a run, empty when it is fine. Init and Verify apply
/// InitSpec::problem() and VerifySpec::problem(), the rules the .kpad loader applies too, so a
/// cell and a project file never disagree; the other rules need the whole list (counts name
/// other arguments, names must differ) and mark cells without refusing to load a project,
/// which could then not be opened to fix it.
[[nodiscard]] QString argumentProblem(const QVector<ArgumentSpec>& arguments, int index,
                                      ArgumentPart part);

} // namespace kernelpad
