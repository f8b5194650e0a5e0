#include "ui/windows/OpenAtStart.h"

#include "ui/windows/MainWindow.h"

namespace kernelpad {

void openAtStart(MainWindow& window, Engine* engine, const QString& path, bool scripted, bool run) {
    int restored = 0;
    if (!scripted)
        restored = window.restoreRecovery();
    if (!path.isEmpty() && restored > 0) {
        // Keep the restored work in this window; the requested file gets its own.
        auto* other = new MainWindow(engine);
        other->setAttribute(Qt::WA_DeleteOnClose);
        other->show();
        if (!other->openProject(path))
            other->closeProject(); // its error was shown; the welcome page, not a blank page
        return;
    }
    if (!path.isEmpty() && window.openProject(path))
        return;
    if (restored > 0)
        return;
    // Nothing asked for, nothing to restore, or a file that would not open (its error was
    // shown): the welcome page (templates, recent projects, examples) until a project opens.
    window.closeProject();
    if (scripted && run && path.isEmpty())
        window.run(); // nothing to open: the run reports why it cannot start
}

} // namespace kernelpad
