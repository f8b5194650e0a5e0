#pragma once
// The open project: the Project itself, its path and dirty state, loading and saving through
// Project::load/save, and the recovery file that autosave keeps so that unsaved text survives a
// crash. Panels edit the project through the setters and follow it through the signals
// (docs/ARCHITECTURE.md, "The window").

#include "core/project/Project.h"

#include <QDateTime>
#include <QObject>
#include <QString>
#include <QTimer>
#include <QVector>

#include <memory>
#include <optional>

class QLockFile;

namespace kernelpad {

class SettingsHistory;

/// A recovery file left by a KernelPad that did not close cleanly.
struct RecoveryEntry {
    QString recoveryPath; ///< the JSON file in the recovery directory
    QString originalPath; ///< where the project was saved, empty for an untitled one
    QDateTime savedAt;
    Project project;
};

/// The open project, its path and dirty state. Every setter that changes something emits its
/// own signal and `edited()`, marks the document dirty and schedules an autosave; a setter
/// given the value already held does nothing, so a panel echoing the document back is
/// harmless. Writes a recovery file (the whole project and its original path, JSON) every few
/// seconds while there are unsaved edits and removes it on save or clean close. The recovery
/// file outlives the object so that a crash keeps it.
class ProjectDocument : public QObject {
    Q_OBJECT
public:
    static constexpr int kAutosaveIntervalMs = 5000;

    explicit ProjectDocument(QObject* parent = nullptr);
    ~ProjectDocument() override;

    [[nodiscard]] const Project& project() const { return m_project; }

    // --- edits: each emits its signal and edited() when the value changes ---
    void setSource(const QString& source);
    void setOptions(const ProgramOptions& options);
    /// The kernel's entry name or name expression; surrounding spaces are dropped.
    void setKernel(const QString& kernel);
    void setArguments(const QVector<ArgumentSpec>& arguments);
    /// The module globals the run sets and reads back (`__constant__`, `__device__`).
    void setGlobals(const QVector<GlobalSpec>& globals);
    void setLaunch(const LaunchConfig& launch);
    void setTiming(const TimingSpec& timing);
    /// The sequence of launches run instead of the single one.
    void setPipeline(const Pipeline& pipeline);
    /// The parameter sweep's section (the sweep panel's tunables, strategy and objective).
    void setSweep(const SweepSpec& sweep);
    /// The library call the kernel is measured against (empty: none).
    void setBaseline(const BaselineSpec& baseline);

    /// The undo history of compound settings changes (a sweep's Apply, a version's Restore);
    /// cleared when another project replaces this one, kept by Save.
    [[nodiscard]] SettingsHistory* settingsHistory() const { return m_settingsHistory; }
    /// After an undo or redo of settings: the document is clean again when the project is
    /// what was last opened or saved (and its recovery file, holding the undone edit, goes).
    void cleanIfSaved();

    /// Shows `project` as an untitled (or `path`) clean document: every panel re-reads it
    /// (projectReplaced). An untitled copy resolves relative paths in `copyDirectory`.
    void replace(const Project& project, const QString& path = QString(),
                 const QString& copyDirectory = QString());
    /// Reads a project file without touching this document; on failure `error` names the file
    /// and the field.
    [[nodiscard]] static std::optional<Project> read(const QString& path, QString* error);

    [[nodiscard]] QString path() const { return m_path; }
    [[nodiscard]] bool isUntitled() const { return m_path.isEmpty(); }
    /// The file name ("saxpy.kpad"); while untitled, the untitled name (the project's own
    /// name, or the .cu file it was made from), else "Untitled", and for a copy what it
    /// copies: "SAXPY (copy of the example saxpy.kpad)".
    [[nodiscard]] QString displayName() const;
    /// What an untitled document is called in the title and in Save As's suggestion.
    void setUntitledName(const QString& name);
    [[nodiscard]] QString untitledName() const { return m_untitledName; }
    /// Marks an untitled document as a copy of what `origin` names ("the example saxpy.kpad"):
    /// the title says so until it is saved. Cleared by replace() and save().
    void setCopyOf(const QString& origin);
    [[nodiscard]] QString copyOf() const { return m_copyOf; }
    /// Where relative paths of the project resolve: the file's folder, else the working one.
    [[nodiscard]] QString directory() const;
    /// Where Save As starts: the file's folder; for an untitled document the folder it came
    /// from (a .cu's) when the user may save there, else the working folder, else home.
    [[nodiscard]] QString saveDirectory() const;
    /// Why a Save must not write over `path` ("the shipped example", "a read-only folder"): a
    /// project KernelPad ships (core shippedKind()), or a file or folder that cannot be
    /// written; empty when the file is the user's to save over.
    [[nodiscard]] static QString protectedReason(const QString& path);
    /// Whether the user may create files in `folder`: it is writable, and its owner has not
    /// taken the write permission away (which root would otherwise ignore).
    [[nodiscard]] static bool isWritableFolder(const QString& folder);
    [[nodiscard]] bool isDirty() const { return m_dirty; }

    /// Reads a project file and shows it (replace); false, with `error` naming the file and
    /// the field, leaves this document as it was.
    bool open(const QString& path, QString* error);
    /// Writes the project to `path` (".kpad" added when it has no suffix). An unnamed project
    /// takes the file's base name and a project without a kernel the first __global__
    /// function of its source, since the format needs both. On success the path is adopted,
    /// the document is clean and the recovery file is removed; on failure nothing changes. A
    /// `path` that protectedReason() names is refused, with `error` saying why.
    [[nodiscard]] bool save(const QString& path, QString* error);

    /// Content changed: marks the document dirty and schedules an autosave.
    void markChanged();
    void setDirty(bool dirty);

    void setAutosaveIntervalMs(int intervalMs);
    [[nodiscard]] int autosaveIntervalMs() const { return m_autosave.interval(); }
    /// Writes the recovery file now if there are unsaved changes; true when written.
    bool autosaveNow(QString* error = nullptr);
    [[nodiscard]] QString recoveryPath() const { return m_recoveryPath; }
    [[nodiscard]] bool hasRecoveryFile() const;
    /// Deletes the recovery file (save, discard, clean close).
    void removeRecovery();
    /// Continues a restored document: its project and original path, dirty, and the same
    /// recovery file.
    void adoptRecovery(const RecoveryEntry& entry);

    /// The folder of recovery files (QStandardPaths::AppDataLocation/recovery).
    [[nodiscard]] static QString recoveryDirectory();
    /// Recovery files not held by a running KernelPad, newest first; unreadable ones are
    /// skipped (and kept, so nothing is deleted that could still be rescued by hand).
    [[nodiscard]] static QVector<RecoveryEntry> findRecoveryFiles();
    static std::optional<RecoveryEntry> readRecovery(const QString& file, QString* error);

signals:
    /// A new project replaced the old one (new, open, restore): re-read everything.
    void projectReplaced();
    void sourceChanged();
    void optionsChanged();
    void kernelChanged();
    void argumentsChanged();
    void globalsChanged();
    void launchChanged();
    void timingChanged();
    void pipelineChanged();
    void sweepChanged();
    void baselineChanged();
    /// After any of the field signals above.
    void edited();
    void dirtyChanged(bool dirty);
    void pathChanged(const QString& path);
    /// An autosave could not be written; the text is still in the editor.
    void autosaveFailed(const QString& error);

private:
    /// Starts over as an untitled (or `path`) clean document with a fresh recovery file name.
    void reset(const QString& path);
    void newRecoveryPath();
    void releaseLock();
    /// Marks the document changed and emits `signal` and edited().
    void changedField(void (ProjectDocument::*signal)());

    Project m_project;
    /// The project as last opened or saved; none after a recovery, whose file is not it.
    std::optional<Project> m_savedProject;
    SettingsHistory* m_settingsHistory = nullptr;
    QString m_untitledName;
    QString m_path;
    QString m_copyDirectory; ///< directory() of an untitled copy; empty otherwise
    QString m_copyOf;        ///< what an untitled copy copies, for the title; setCopyOf()
    bool m_dirty = false;
    bool m_recoveryStale = false; ///< edits since the last autosave
    QString m_recoveryPath;
    std::unique_ptr<QLockFile> m_lock; ///< tells other instances the recovery file is live
    QTimer m_autosave;
};

} // namespace kernelpad
