#pragma once
// Nsight Compute's advice in the Profile tab: its rules, most estimated speedup first
// (core/profile/ProfileAdvice), the selected rule's words below the list, and a rule about
// particular source lines taking the editor to them.

#include "core/profile/ProfileAdvice.h"

#include <QWidget>

class QLabel;
class QTreeWidget;

namespace kernelpad {

/// Children by name: "profileAdvice" (the list: speedup, section, rule, lines) and
/// "profileAdviceText" (the selected rule's description, or a sentence when ncu gave none).
class ProfileAdviceList : public QWidget {
    Q_OBJECT
public:
    enum Column { SpeedupColumn, SectionColumn, RuleColumn, LinesColumn, Columns };

    explicit ProfileAdviceList(QWidget* parent = nullptr);

    void setAdvice(const QList<ProfileAdvice>& advice);
    [[nodiscard]] QTreeWidget* list() const { return m_list; }
    [[nodiscard]] QString selectedText() const;

signals:
    /// A rule about source lines was activated (double-click or Enter): its first line.
    void lineChosen(int line);

private:
    void showSelected();

    QTreeWidget* m_list = nullptr;
    QLabel* m_text = nullptr;
    QList<ProfileAdvice> m_advice;
};

} // namespace kernelpad
