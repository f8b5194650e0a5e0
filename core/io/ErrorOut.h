#pragma once
// The one way a reader or check that reports through a `QString* error` says why it failed;
// it was copied into five files of core/launch before.

#include <QString>

namespace kernelpad {

/// Sets `*error` (when given) to `message` and returns false: `return fail(error, "...")`.
inline bool fail(QString* error, const QString& message) {
    if (error)
        *error = message;
    return false;
}

} // namespace kernelpad
