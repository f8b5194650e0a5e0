#pragma once
// The strip above the editor that explains a kernel fault and offers (or reports) the one run
// under memcheck that finds its line, thread and block.

#include <QFrame>

class QLabel;
class QPushButton;

namespace kernelpad {

/// Shows a fault's explanation and what comes next. Child object names: faultText,
/// faultMemcheckButton, faultDismissButton. The banner itself is "faultBanner".
class FaultBanner : public QFrame {
    Q_OBJECT
public:
    explicit FaultBanner(QWidget* parent = nullptr);

    /// The explanation and the offer of a memcheck run.
    void showOffer(const QString& fault);
    /// The explanation alone: memcheck cannot place this fault (a timeout, a hardware error).
    void showFault(const QString& fault);
    /// The explanation while the memcheck run is under way.
    void showMemcheckRunning(const QString& fault);
    /// The explanation followed by what memcheck found (its line, thread and block last).
    void showFinding(const QString& fault, const QString& finding);

    /// What the banner says now.
    [[nodiscard]] QString text() const;
    /// The memcheck button is shown and can be pressed.
    [[nodiscard]] bool offersMemcheck() const;

signals:
    /// The user asked for the memcheck run.
    void memcheckRequested();

protected:
    void changeEvent(QEvent* event) override;

private:
    void present(const QString& text, bool offer, bool running);
    void applyTheme();

    QLabel* m_text = nullptr;
    QPushButton* m_memcheck = nullptr;
    QPushButton* m_dismiss = nullptr;
};

} // namespace kernelpad
