#pragma once
// Clocks locked by this process (the runner), so that timings taken at different times are
// taken at the same frequency. A lock lasts until unlockClocks() or the process's exit: the
// clocks are restored then (std::atexit, and restoreLockedClocks() where a process ends with
// std::_Exit, as the runner does), so a runner that ends never leaves the GPU locked; one
// killed outright (SIGKILL) does, and `nvidia-smi --reset-gpu-clocks` undoes it.

#include <QString>

namespace kernelpad {

/// The outcome of locking: the frequencies held, or the refusal worded for the user.
struct ClockLockResult {
    QString error; ///< empty on success
    int smMHz = 0;
    int memMHz = 0;
};

/// Locks the SM and memory clocks of the device at `pciBusId` to its default application
/// clocks (the base clocks, which the GPU can hold under load without throttling; the
/// maximum where it has no default). Without permission the error says how to do it by hand.
[[nodiscard]] ClockLockResult lockClocksToBase(const QString& pciBusId);
/// Restores clocks this process locked; an empty string on success (or when none were).
[[nodiscard]] QString unlockClocks(const QString& pciBusId);
/// What a run asks for (RunRequest::lockClocks): `wanted` locks (again: another runner's exit
/// may have restored them) or keeps the lock, otherwise a lock this process holds is released.
/// Empty on success, else the refusal.
[[nodiscard]] QString applyClockLock(bool wanted, const QString& pciBusId);
/// Restores every lock this process took; for an exit that skips std::atexit (std::_Exit).
void restoreLockedClocks();
/// Whether this process holds a lock on the device's clocks.
[[nodiscard]] bool clocksLockedByKernelPad(const QString& pciBusId);
/// The nvidia-smi command that locks the clocks by hand at these frequencies.
[[nodiscard]] QString lockClocksCommand(int smMHz, int memMHz);

} // namespace kernelpad
