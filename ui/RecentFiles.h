#pragma once
// The recently opened projects, kept in QSettings and shown as a menu.

#include <QObject>
#include <QStringList>

class QMenu;

namespace kernelpad {

/// Most-recent-first list of project paths, shared by every window through QSettings.
class RecentFiles : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxEntries = 10;

    explicit RecentFiles(QObject* parent = nullptr);

    /// Paths, most recent first; files that no longer exist are left out.
    [[nodiscard]] QStringList files() const;
    /// Every stored path, most recent first, missing files included (the welcome page marks
    /// them "not found" and offers to remove them).
    [[nodiscard]] QStringList allFiles() const { return stored(); }
    /// Moves (or adds) `path` to the top.
    void add(const QString& path);
    void remove(const QString& path);
    void clear();
    /// Rebuilds `menu`: one action per file (Ctrl+Shift+1..9 for the first) and "Clear".
    void fillMenu(QMenu* menu);

signals:
    void changed();
    void openRequested(const QString& path);

private:
    [[nodiscard]] QStringList stored() const;
    void store(const QStringList& paths);
};

} // namespace kernelpad
