#pragma once
// What kernels printed (device printf), run after run, each under a line naming the kernel and
// the time; the text is the runner's captured copy, never its protocol channel.

#include "core/run/RunTypes.h"

#include <QDateTime>
#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace kernelpad {

/// The Console tab: read-only, monospace, bounded, with a Clear button.
class ConsolePanel : public QWidget {
    Q_OBJECT
public:
    explicit ConsolePanel(QWidget* parent = nullptr);

    /// Appends one run's output under a heading; a run that printed nothing adds a short line
    /// saying so only when the console already has text (so it is clear which run was silent).
    void showRun(const QString& kernel, const ConsoleOutput& output, const QDateTime& when);
    void clear();

    /// The whole text shown (for tests and copying).
    [[nodiscard]] QString text() const;
    /// Lines printed by the last run (0 when it printed nothing).
    [[nodiscard]] int lastRunLines() const { return m_lastRunLines; }

signals:
    /// The tab's title should change: it names how many lines the last run printed.
    void titleChanged(const QString& title);

private:
    QPlainTextEdit* m_text = nullptr;
    QLabel* m_status = nullptr;
    QPushButton* m_clear = nullptr;
    int m_lastRunLines = 0;
};

} // namespace kernelpad
