#pragma once
// The documents Help opens: found installed (share/doc/kernelpad beside the program's bin) or
// in the source tree the program was built from.

#include <QString>

namespace kernelpad {

/// The user guide that Help ▸ User Guide opens: share/doc/kernelpad/user-guide.md when
/// installed, else docs/user-guide.md in the sources; empty when neither is there.
[[nodiscard]] QString userGuidePath();

} // namespace kernelpad
