#include "SignalQuit.h"

#include "ProjectDocument.h"

#include <QCoreApplication>

#include <cstdio>

namespace kernelpad {

void quitKeepingEdits(ProjectDocument* document, int signal) {
    QString error;
    if (document && document->isDirty() && !document->autosaveNow(&error))
        std::fprintf(stderr, "kernelpad: unsaved edits could not be kept: %s\n", qPrintable(error));
    QCoreApplication::exit(kSignalExitBase + signal);
}

} // namespace kernelpad
