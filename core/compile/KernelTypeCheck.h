#pragma once
// The argument table against the compiled kernel's instantiated signature: a template kernel
// recompiled as vector_add<double> still has float32 buffers unless someone says so.

#include "core/compile/CompileResult.h"
#include "core/launch/ArgumentSpec.h"

#include <QString>
#include <QVector>

#include <optional>

namespace kernelpad {

/// One argument whose type or kind differs from the kernel parameter at its position.
struct ArgumentTypeMismatch {
    int index = -1;            ///< the argument's row, which is the parameter's position
    QString argument;          ///< the argument's name
    QString parameterType;     ///< as the demangled signature spells it: "double const*"
    bool takesPointer = false; ///< the parameter is a pointer: the argument must be a buffer
    /// What the argument's type (a buffer's element type) should be; nullopt when the
    /// parameter is `void*`, whose element type the kernel does not say.
    std::optional<ValueType> expected;
    /// "A is float32 but vector_add<double> takes double const*", for tooltips and the CLI.
    QString message;
};

/// The arguments that do not match `kernel`'s parameters as its mangled name declares them
/// (template arguments substituted), in order. Empty when the kernel is not mangled
/// (extern "C" keeps no types), when the counts differ (that is another problem, reported by
/// the launch), or when every argument fits. A parameter of a type the seed's table and
/// `structs` do not know (say __nv_bfloat16) is not judged.
[[nodiscard]] QVector<ArgumentTypeMismatch>
argumentTypeMismatches(const QVector<ArgumentSpec>& arguments, const KernelInfo& kernel,
                       const QVector<StructType>& structs = {});

/// `arguments` with each mismatch corrected: the kind (buffer or value) and the type the
/// kernel takes. Names, values, counts, initialisation, direction and verification are kept.
[[nodiscard]] QVector<ArgumentSpec>
withKernelTypes(QVector<ArgumentSpec> arguments, const QVector<ArgumentTypeMismatch>& mismatches);

} // namespace kernelpad
