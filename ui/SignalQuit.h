#pragma once
// What the window does on SIGINT, SIGTERM or SIGHUP (core/io/QuitSignals.h reads them).

namespace kernelpad {

class ProjectDocument;

/// A program ended by a signal reports 128 + its number, as the shell does.
inline constexpr int kSignalExitBase = 128;

/// Writes the unsaved edits of `document` to its recovery file (offered at the next start,
/// ui/ProjectDocument.h) and ends every event loop, a dialog's included, with
/// kSignalExitBase + `signal`. Nothing asks, and the window's clean-close steps (which would
/// remove that file) are skipped.
void quitKeepingEdits(ProjectDocument* document, int signal);

} // namespace kernelpad
