#pragma once
// NVRTC ships no C or C++ standard library headers, so a kernel file that nvcc accepts with
// `#include <cstdint>` or `<cmath>` fails under NVRTC with "cannot open source file". KernelPad
// hands NVRTC a small header of its own under each such name: it forwards to libcu++'s
// `<cuda/std/...>` (in the toolkit) and names its contents in `std::` as nvcc users expect, or
// names NVRTC's builtin device functions (printf, memcpy, sqrtf, ...) in `std::`. A header
// that cannot work in device code (<iostream>, <vector>) becomes an #error that names it and
// what to use instead, so the message appears only when NVRTC really includes it.

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <optional>

namespace kernelpad {

/// What NVRTC gets for a standard header name it does not have.
struct StandardHeader {
    QByteArray text;       ///< the header's text, handed to NVRTC under the name as written
    bool hostOnly = false; ///< an #error: the header cannot work in device code
};

/// KernelPad's header for `name` ("cstdint", "math.h", "iostream"), or nothing for a name
/// that is no standard header KernelPad knows. `toolkitDirs` are searched for libcu++'s
/// `cuda/std/<name>`: a header is forwarded only where the toolkit has it.
[[nodiscard]] std::optional<StandardHeader> standardHeader(const QString& name,
                                                           const QStringList& toolkitDirs);

} // namespace kernelpad
