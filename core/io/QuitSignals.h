#pragma once
// SIGINT (Ctrl+C in the terminal that started a program), SIGTERM and SIGHUP (a logout, a closed
// terminal, `kill`), read on the event loop rather than in a handler.
//
// A handler would not do: NVRTC's front end installs its own SIGINT and SIGTERM handlers while
// it compiles, and those end the process at once with status 4 (an exit that runs static
// destructors under a compile thread). So the window blocks the three signals in every thread
// from the start of main() and reads them from a signalfd: no handler, NVRTC's included, ever
// runs for them. A blocked mask survives fork and exec, so every program KernelPad starts (its
// runner is kernelpad-cli) calls unblockQuitSignals() first.

#include <QObject>

#include <functional>

class QSocketNotifier;

namespace kernelpad {

/// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread and in every thread it starts from
/// now on. Call it first in main(), before any library starts a thread.
void blockQuitSignals();
/// Undoes blockQuitSignals() for the calling thread (a program started by one that blocked them
/// inherits the mask).
void unblockQuitSignals();

class QuitSignals : public QObject {
public:
    /// Reads the blocked quit signals; `onSignal(signal)` runs on this object's thread, once per
    /// signal received. Without blockQuitSignals() in every thread, a signal may take its
    /// default action instead.
    explicit QuitSignals(std::function<void(int)> onSignal, QObject* parent = nullptr);
    ~QuitSignals() override;

private:
    void readSignals();

    std::function<void(int)> m_onSignal;
    int m_fd = -1;
    QSocketNotifier* m_notifier = nullptr;
};

} // namespace kernelpad
