#pragma once
// Where a sweep's results file lives, the same for the window and kernelpad-cli so that
// either resumes what the other left: under the cache folder, in a folder of the project's
// own keyed by its canonical path, as "NAME.sweep-HASH.jsonl". Never beside the project: a
// project folder someone sent (a checkout, a tarball) could plant a file or a link there,
// and the name is computable. HASH covers what
// makes two sweeps' records comparable, and nothing else, so that a file found under the
// name is of the same kernel, settings, space and device, and a file of another version of
// the project is never taken for the current one.

#include "core/project/Project.h"
#include "core/sweep/SweepResults.h"

#include <QDateTime>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QVector>

class QThread;

namespace kernelpad {

/// The device part of the hash: the names of the devices a sweep runs on, sorted, repeats
/// dropped ("NVIDIA H100 80GB HBM3"); empty when none is known (no driver).
[[nodiscard]] QString sweepDeviceKey(QStringList deviceNames);

/// Eight hex digits over the project as its configurations run it (the first configuration
/// that maps applied, so that Apply Best or a block edited by hand, which only change what
/// the tunables set, keep the hash): source, source name, language, compile options,
/// kernel, arguments, globals, launch, timing, pipeline; the sweep section less its strategy
/// and objective (they choose which records to make and which is best, never a record's
/// figures); and `deviceKey`. The project's name, description and lesson text are left out.
[[nodiscard]] QString sweepResultsHash(const Project& project, const QString& deviceKey);

/// The folder every project's results folder is in: $XDG_CACHE_HOME/kernelpad/sweeps
/// (QStandardPaths::GenericCacheLocation), created with mode 0700.
[[nodiscard]] QString sweepResultsCacheDirectory();

/// The folder of `projectPath`'s results files: sweepResultsCacheDirectory()/KEY, KEY the
/// SHA-256 (hex) of the project file's canonical path, so that two paths to one project (a
/// symbolic link to its folder) share it; "untitled" for an untitled project. Created 0700.
[[nodiscard]] QString sweepResultsDirectory(const QString& projectPath);

/// The results file of `project`'s sweep on `deviceKey`'s devices:
/// sweepResultsDirectory(projectPath)/NAME.sweep-HASH.jsonl; NAME "untitled" for an untitled
/// project.
[[nodiscard]] QString sweepResultsPath(const Project& project, const QString& projectPath,
                                       const QString& deviceKey = {});

/// Results files that an older KernelPad kept beside the project ("NAME.sweep-*.jsonl" in its
/// folder), by name only: they are never opened, read or written, only mentioned as ignored.
[[nodiscard]] QStringList sweepResultsBesideProject(const QString& projectPath);

/// The other results files of the same project in `resultsPath`'s folder ("NAME.sweep-*.jsonl"
/// with another hash), newest first: results of an earlier version of the project, its sweep
/// or its device.
[[nodiscard]] QStringList staleSweepResults(const QString& resultsPath);

/// What a results file holds for a project as it is now, as the sweep panel shows it at open.
struct SweepResultsSnapshot {
    quint64 generation = 0;       ///< the request it answers (SweepResultsLoader)
    QString path;                 ///< the project's results file, found or not
    bool exists = false;          ///< the file is there
    QVector<SweepRecord> records; ///< what it holds
    QDateTime modified;           ///< when it was last written
    /// Configurations the sweep's strategy evaluates at most; 0 when the sweep does not read.
    int total = 0;
    QString error;             ///< the file is there but does not read
    QStringList stale;         ///< staleSweepResults(path)
    QStringList besideProject; ///< sweepResultsBesideProject(): ignored, named in the panel
};

/// Looks up and reads `project`'s results file (sweepResultsPath, readSweepResults).
[[nodiscard]] SweepResultsSnapshot
loadSweepResults(const Project& project, const QString& projectPath, const QString& deviceKey);

/// loadSweepResults on a thread of its own: the file is JSON lines and may be large, and the
/// hash builds the sweep's space. A newer request makes an older one's answer moot: only the
/// latest generation is delivered. Made and used on one thread (the window's).
class SweepResultsLoader : public QObject {
    Q_OBJECT
public:
    explicit SweepResultsLoader(QObject* parent = nullptr);
    /// Waits for a load in progress to end.
    ~SweepResultsLoader() override;
    /// Starts a load; loaded() follows, unless another request comes first.
    void request(const Project& project, const QString& projectPath, const QString& deviceKey);

signals:
    void loaded(const kernelpad::SweepResultsSnapshot& snapshot);

private:
    QThread* m_thread = nullptr;
    QObject* m_worker = nullptr; ///< lives on m_thread
    quint64 m_generation = 0;
};

} // namespace kernelpad
