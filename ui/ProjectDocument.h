#pragma once
// The open project: its path, dirty state, loading and saving through Project::load/save, and
// the recovery file that autosave keeps so that unsaved text survives a crash.

#include "core/project/Project.h"

#include <QDateTime>
#include <QObject>
#include <QString>
#include <QTimer>
#include <QVector>

#include <functional>
#include <memory>
#include <optional>

class QLockFile;

namespace kernelpad {

/// A recovery file left by a KernelPad that did not close cleanly.
struct RecoveryEntry {
    QString recoveryPath; ///< the JSON file in the recovery directory
    QString originalPath; ///< where the project was saved, empty for an untitled one
    QDateTime savedAt;
    Project project;
};

/// Path and dirty state of the open project; writes a recovery file (the whole project and
/// its original path, JSON) every few seconds while there are unsaved edits and removes it
/// on save or clean close. The recovery file outlives the object so that a crash keeps it.
class ProjectDocument : public QObject {
    Q_OBJECT
public:
    static constexpr int kAutosaveIntervalMs = 5000;

    explicit ProjectDocument(QObject* parent = nullptr);
    ~ProjectDocument() override;

    [[nodiscard]] QString path() const { return m_path; }
    [[nodiscard]] bool isUntitled() const { return m_path.isEmpty(); }
    /// The file name ("saxpy.kpad"), or "Untitled".
    [[nodiscard]] QString displayName() const;
    /// Where relative paths of the project resolve: the file's folder, else the working one.
    [[nodiscard]] QString directory() const;
    [[nodiscard]] bool isDirty() const { return m_dirty; }

    /// Reads a project file; on success this document takes its path and becomes clean.
    /// On failure nothing changes and `error` names the file and the field.
    std::optional<Project> load(const QString& path, QString* error);
    /// Writes `project` to `path`; on success the path is adopted, the document is clean and
    /// the recovery file is removed. On failure nothing changes.
    [[nodiscard]] bool save(const Project& project, const QString& path, QString* error);
    /// Starts over as an untitled (or `path`) clean document with a fresh recovery file name.
    void reset(const QString& path = QString());
    /// Untitled, but relative paths (.npy files, include folders) resolve in `directory`:
    /// an example opened as a copy keeps finding its files until it is saved elsewhere.
    void resetAsCopy(const QString& directory);

    /// Content changed: marks the document dirty and schedules an autosave.
    void markChanged();
    void setDirty(bool dirty);

    /// How the document reads the current project for autosave (the window's editor+panels).
    void setSnapshotProvider(std::function<Project()> provider);
    void setAutosaveIntervalMs(int intervalMs);
    [[nodiscard]] int autosaveIntervalMs() const { return m_autosave.interval(); }
    /// Writes the recovery file now if there are unsaved changes; true when written.
    bool autosaveNow(QString* error = nullptr);
    [[nodiscard]] QString recoveryPath() const { return m_recoveryPath; }
    [[nodiscard]] bool hasRecoveryFile() const;
    /// Deletes the recovery file (save, discard, clean close).
    void removeRecovery();
    /// Continues a restored document: its original path, dirty, and the same recovery file.
    void adoptRecovery(const RecoveryEntry& entry);

    /// The folder of recovery files (QStandardPaths::AppDataLocation/recovery).
    [[nodiscard]] static QString recoveryDirectory();
    /// Recovery files not held by a running KernelPad, newest first; unreadable ones are
    /// skipped (and kept, so nothing is deleted that could still be rescued by hand).
    [[nodiscard]] static QVector<RecoveryEntry> findRecoveryFiles();
    static std::optional<RecoveryEntry> readRecovery(const QString& file, QString* error);

signals:
    void dirtyChanged(bool dirty);
    void pathChanged(const QString& path);
    /// An autosave could not be written; the text is still in the editor.
    void autosaveFailed(const QString& error);

private:
    void newRecoveryPath();
    void releaseLock();

    QString m_path;
    QString m_copyDirectory; ///< directory() of an untitled copy; empty otherwise
    bool m_dirty = false;
    bool m_recoveryStale = false; ///< edits since the last autosave
    QString m_recoveryPath;
    std::unique_ptr<QLockFile> m_lock; ///< tells other instances the recovery file is live
    std::function<Project()> m_snapshot;
    QTimer m_autosave;
};

} // namespace kernelpad
