#pragma once
// The Diagnostics tab: every message of the last compile (the editor marks only its own
// file's), and a sanitizer run's reports; a message picked moves the editor to its line. The
// tab's title counts the compile's messages.

#include "ui/ResultView.h"

#include <QPointer>

namespace kernelpad {

class DiagnosticsList;

/// The project's own diagnostics and, after a sanitized run, its reports.
[[nodiscard]] QVector<Diagnostic> diagnosticMarks(const RunRecord& run);

class DiagnosticsView : public ResultView {
    Q_OBJECT
public:
    explicit DiagnosticsView(const ViewContext& context);
    [[nodiscard]] QWidget* widget() const override;
    [[nodiscard]] DiagnosticsList* list() const { return m_list; }

    void workbenchCleared(const Workbench& workbench) override;
    void compiled(const Workbench& workbench) override;
    void runFinished(const Workbench& workbench, const RunRecord& run) override;

private:
    DiagnosticsList* m_list;
    QPointer<QTabWidget> m_tabs;
};

} // namespace kernelpad
