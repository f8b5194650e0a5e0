#pragma once
// From a kernel's lowered (mangled) name to what the user wrote, via the Itanium demangler.

#include <QString>
#include <QStringList>

namespace kernelpad {

/// The full demangled signature ("saxpy(float, float const*, float*, int)"); empty if
/// `lowered` is not a mangled name (an extern "C" kernel) or cannot be demangled.
[[nodiscard]] QString demangle(const QString& lowered);

/// The name a user knows: "saxpy" for _Z5saxpyfPKfPfi, "vector_add<float>" for a template
/// (return type and parameter list dropped), `lowered` itself when it is not mangled.
[[nodiscard]] QString kernelDisplayName(const QString& lowered);

/// The parameter types of a mangled kernel ("float", "float const*", ...); empty when unknown
/// or when the kernel takes none (tell them apart with demangle()).
[[nodiscard]] QStringList demangledParameterTypes(const QString& lowered);

/// True for a demangled parameter type that is a pointer ("float const*", "int* restrict").
[[nodiscard]] bool isPointerType(const QString& demangledType);

} // namespace kernelpad
