#pragma once
// Every diagnostic of the last compile in a list; activating one jumps to it.

#include "core/compile/CompileResult.h"

#include <QTreeWidget>

namespace kernelpad {

/// A three-column list (severity, location, message) of NVRTC diagnostics. Messages for the
/// user's source and for headers both appear; only the former can be jumped to in the editor.
class DiagnosticsList : public QTreeWidget {
    Q_OBJECT
public:
    explicit DiagnosticsList(QWidget* parent = nullptr);

    /// Replaces the list; `sourceName` is the project's source (its rows are jumpable).
    void setDiagnostics(const QVector<Diagnostic>& diagnostics, const QString& sourceName);
    void clearDiagnostics();
    [[nodiscard]] const QVector<Diagnostic>& diagnostics() const { return m_diagnostics; }
    /// "2 errors, 1 warning" or "No problems".
    [[nodiscard]] static QString summaryOf(const QVector<Diagnostic>& diagnostics);
    [[nodiscard]] QString summary() const;
    /// Selects and activates the diagnostic `step` rows after the current one (wrapping;
    /// -1 for the previous), as F8 and Shift+F8 do. False when the list is empty.
    bool activateAdjacent(int step);

signals:
    /// The user activated a diagnostic of the project's source (click, Enter, F8).
    void jumpRequested(int line, int column);
    /// Any activated diagnostic, including those in headers.
    void diagnosticActivated(const kernelpad::Diagnostic& diagnostic);

private:
    QVector<Diagnostic> m_diagnostics;
    QString m_sourceName;
};

} // namespace kernelpad
