#pragma once
// Which module globals the project declares itself. A toolkit header brings its own: the
// PTX of a kernel that includes <cooperative_groups.h> declares about a thousand libcu++ and
// cooperative-groups constants (cuda::std::__4::integral_constant<bool, true>::value), which
// are no arguments of the user's.

#include "core/compile/CompileResult.h"

#include <QString>
#include <QStringList>
#include <QVector>

namespace kernelpad {

/// The parts of a demangled qualified name, split at the `::` outside template arguments,
/// each without its template arguments: {"cuda", "std", "__4", "integral_constant", "value"}.
/// The compiler's "_INTERNAL_..." prefix of internal-linkage names and "(anonymous
/// namespace)" are left out: no source spells them.
[[nodiscard]] QStringList qualifiedNameParts(const QString& name);

/// Sets each global's fromProject: every part of its name is a word of `projectTexts` (the
/// project's source and the project headers it includes, not the toolkit's). A toolkit
/// global has a part no user source spells, as libcu++'s inline namespace `__4` or
/// cooperative groups' `__v1`, or a name the project never mentions.
void markProjectGlobals(QVector<ModuleGlobal>* globals, const QStringList& projectTexts);

} // namespace kernelpad
