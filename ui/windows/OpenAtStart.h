#pragma once
// What the first window of the application shows: recovered work, the project named on the
// command line, or the welcome page (app/gui/main.cpp calls it; a test can too).

#include <QString>

namespace kernelpad {

class Engine;
class MainWindow;

/// Restores recovered work (unless `scripted`), then opens `path` (in a window of its own when
/// work was recovered). Nothing asked for and nothing restored, or a `path` that does not open
/// (its error already shown): the welcome page, never a blank untitled project. `scripted` with
/// `run` and no project runs at once, so that the run says why it cannot start.
void openAtStart(MainWindow& window, Engine* engine, const QString& path, bool scripted, bool run);

} // namespace kernelpad
