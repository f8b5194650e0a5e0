#pragma once
// A project made from a bare .cu file: the kernel's signature fills the argument table, and
// the launch covers the elements it guesses. `kernelpad-cli init` and the window's File ▸ Open
// of a .cu both use it.

#include "core/project/Project.h"

#include <QString>

#include <optional>

namespace kernelpad {

/// The project for `kernel` (empty: the first __global__ kernel) of the source in `path`, or
/// nothing with `*error` saying why (unreadable, no kernel, name not found). The source is read
/// as a bounded regular file. A .ptx file makes a PTX project and a .ll or .nvvm file an NVVM
/// IR one: their kernels are the module's `.entry`s, their arguments guessed from the `.param`
/// types (the description says how).
[[nodiscard]] std::optional<Project> projectFromSourceFile(const QString& path,
                                                           const QString& kernel, QString* error);

/// The block a first run uses: a multiple of every warp size, within every device's limit.
inline constexpr int kDefaultBlockThreads = 256;

} // namespace kernelpad
