#pragma once
// The files a run reads from its project folder, for a runner that shares no file system with
// the client (streamed buffers, Protocol.h): the client lists and sends them, the runner
// checks that the request names nothing else.

#include "core/run/RunRequest.h"

#include <QFile>
#include <QHash>
#include <QSet>
#include <QString>
#include <QVector>

#include <optional>

namespace kernelpad {

/// One file sent with a request: its name on the wire (relative to the project folder) and
/// where the client reads it (its canonical path, inside the project folder).
struct StreamedFile {
    QString name;
    QString path;
    qint64 bytes = 0;
};

/// Most files one request may send (local headers and .npy files together).
inline constexpr int kMaxStreamedFiles = 256;
/// The largest local header sent (read whole to find what it includes in turn).
inline constexpr qint64 kMaxStreamedHeaderBytes = qint64(16) << 20;

/// Lists the .npy files of `request` (buffer and global contents, expected values) and the
/// local headers its source includes (quoted includes and include dirs inside the project
/// folder), and rewrites the request's paths to those names, relative to the project folder.
/// Fails, naming the field, for a file outside the project folder (a symbolic link whose
/// target leaves it included), one that is not a regular file (a FIFO, a device) and one that
/// cannot be read. Headers are read through readRegularFile(), bounded.
[[nodiscard]] std::optional<QVector<StreamedFile>> collectStreamedFiles(RunRequest* request,
                                                                        QString* error);

/// Opens `file` to send it: its path as collectStreamedFiles() resolved it, without following a
/// link, without blocking on a FIFO, only as a regular file of exactly `file.bytes` (a file
/// swapped or changed since it was listed is refused). False with why in `error`.
[[nodiscard]] bool openStreamedFile(const StreamedFile& file, QFile* into, QString* error);

/// The most bytes each output of a run of `request` may have, by name: what the client
/// asked for (a buffer's or global's resolved count × element size, a texture's or surface's
/// channel values × their size; kMaxBufferBytes for a count that does not resolve here). A
/// streamed result that names anything else, or more bytes, is refused before anything is
/// allocated.
[[nodiscard]] QHash<QString, qint64> streamedOutputBounds(const RunRequest& request);

/// The runner's side: empty when every path the request names is a relative name among
/// `names` (.npy files) or a relative folder (include dirs), else why not, naming the field.
[[nodiscard]] QString checkStreamedPaths(const RunRequest& request, const QSet<QString>& names);

} // namespace kernelpad
