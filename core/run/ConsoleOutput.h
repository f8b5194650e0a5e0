#pragma once
// What a kernel printed (device printf) during a run, bounded.

#include <QString>

namespace kernelpad {

/// What the kernel printed (device printf) during one run, as text, bounded: the output of
/// the verified launch (the first), of which the first kMaxConsoleBytes are kept; what the
/// launches after it printed (reference, warm-up, timed) is only counted, since every
/// repetition prints the same again.
struct ConsoleOutput {
    QString text;
    qint64 totalBytes = 0; ///< everything the verified launch printed, kept or not
    qint64 laterBytes = 0; ///< printed by the launches after it

    [[nodiscard]] bool isEmpty() const { return totalBytes == 0 && laterBytes == 0; }
    [[nodiscard]] qint64 droppedBytes() const;
};
/// Kernel output kept per run: 10,000 lines of printf fit with room to spare.
inline constexpr qint64 kMaxConsoleBytes = qint64(1) << 20;

} // namespace kernelpad
