#pragma once
// Kernel signatures and simple structs read from CUDA C++ source text, so the argument table
// (and `kernelpad-cli init`) can name and type parameters the way the author wrote them: PTX
// keeps only sizes.

#include "core/compile/CompileResult.h"
#include "core/launch/ArgumentSpec.h"
#include "core/launch/ValueType.h"

#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace kernelpad {

/// One parameter as spelled in the source: `const float* __restrict__ x`.
struct KernelParameter {
    QString name;     ///< "x"; empty when the declaration has no name
    QString baseType; ///< the type without qualifiers and '*': "float", "unsigned int", "Particle"
    QString spelling; ///< the whole declaration, whitespace-normalised
    bool isPointer = false;
    bool isConst = false; ///< const applies to the pointee (read-only buffer)
};

/// The parameter list of one __global__ function, read from source text without compiling.
struct KernelSignature {
    QString kernelName;
    QVector<KernelParameter> params;

    /// The signature of the __global__ function called `kernelName` (a name expression like
    /// "vector_add<float>" is matched on its base name "vector_add"); its definition is
    /// preferred over a forward declaration. nullopt when not found or the parameter list
    /// cannot be split.
    [[nodiscard]] static std::optional<KernelSignature> find(const QString& source,
                                                             const QString& kernelName);
    /// The names of the source's __global__ functions in source order, each once; commented-out
    /// kernels are not listed.
    [[nodiscard]] static QStringList kernelNames(const QString& source);
};

/// The source with // and /* */ comments replaced by spaces (string literals kept), so that
/// offsets stay valid and commented-out kernels are not found.
[[nodiscard]] QString stripComments(const QString& source);

/// Every `struct Name { ... };` (or typedef struct) of the source whose fields are all scalar
/// types of the seed's table, possibly fixed-size arrays; others are skipped.
[[nodiscard]] QVector<StructType> parseStructs(const QString& source);

/// The argument list for `kernel`: one argument per PTX parameter, in order. Names and types
/// come from the source's signature when it parses and has as many parameters ("arg0".. and
/// the PTX size otherwise); a `kernel` without PTX parameters (not compiled yet) takes the
/// source's word for it. An argument of `previous` with the same name keeps every setting;
/// its kind and type follow the source when the source spells them. New arguments get
/// defaults a first run works with: pointers become buffers (const: in, else inout) sized by
/// the first integer scalar, integers 1024, floats 1. `structs` receives the source's simple
/// structs.
[[nodiscard]] QVector<ArgumentSpec> argumentsForKernel(const KernelInfo& kernel,
                                                       const QString& source,
                                                       const QVector<ArgumentSpec>& previous,
                                                       QVector<StructType>* structs = nullptr);

} // namespace kernelpad
