#pragma once
// The welcome page, shown when no project is open: sections of cards (new from template,
// recent projects, examples by topic), "Open…", and a way back to the project behind it.

#include "ui/widgets/WelcomeCard.h"

#include <QScrollArea>

class QHBoxLayout;
class QLabel;
class QPushButton;
class QVBoxLayout;

namespace kernelpad {

/// Sections of WelcomeCards, each read from its WelcomeCardSource. A section without cards is
/// not shown. Holds no knowledge of projects: the window gives it the sources and handles
/// openRequested() and returnRequested().
class WelcomePage : public QScrollArea {
    Q_OBJECT
public:
    explicit WelcomePage(QWidget* parent = nullptr);

    /// Adds a section below the others, named `id` (for refreshSection() and tests).
    void addSection(const QString& id, const QString& title, WelcomeCardSource source);
    /// Puts the sections named in `ids` first, in that order; the others follow in the order
    /// they had.
    void setSectionOrder(const QStringList& ids);
    /// The ids of every section, top to bottom.
    [[nodiscard]] QStringList sectionOrder() const;
    /// Puts `tool` (a filter) at the right of the section's heading; the section owns it.
    void setSectionTool(const QString& id, QWidget* tool);
    /// Reads every section's cards again.
    void refresh();
    void refreshSection(const QString& id);
    /// The name of the project behind the page, offered as "Back to <name>" (and Escape);
    /// empty: nothing to go back to.
    void setReturnTarget(const QString& projectName);

    /// The cards a section shows now, in order (empty when it is hidden).
    [[nodiscard]] QVector<WelcomeCardButton*> cards(const QString& id) const;
    /// The section's widget; null when there is no such section. Hidden while it has no cards.
    [[nodiscard]] QWidget* section(const QString& id) const;

signals:
    /// "Open…": the window asks for a file.
    void openRequested();
    /// "Back to …" or Escape: show the project again.
    void returnRequested();

private:
    struct Section {
        QString id;
        WelcomeCardSource source;
        QWidget* widget = nullptr;
        QVBoxLayout* groups = nullptr; ///< one heading and grid per topic
        QHBoxLayout* headingRow = nullptr;
    };

    void fill(Section& section);

    QVector<Section> m_sections;
    QVBoxLayout* m_sectionsLayout = nullptr;
    QPushButton* m_returnButton = nullptr;
};

} // namespace kernelpad
