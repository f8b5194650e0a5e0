#pragma once
// The files a run reads from its project folder, for a runner that shares no file system with
// the client (streamed buffers, Protocol.h): the client lists and sends them, the runner
// checks that the request names nothing else.

#include "core/run/RunRequest.h"

#include <QSet>
#include <QString>
#include <QVector>

#include <optional>

namespace kernelpad {

/// One file sent with a request: its name on the wire (relative to the project folder) and
/// where the client reads it.
struct StreamedFile {
    QString name;
    QString path;
    qint64 bytes = 0;
};

/// Most files one request may send (local headers and .npy files together).
inline constexpr int kMaxStreamedFiles = 256;

/// Lists the .npy files of `request` (buffer and global contents, expected values) and the
/// local headers its source includes (quoted includes and include dirs inside the project
/// folder), and rewrites the request's paths to those names, relative to the project folder.
/// Fails, naming the field, for a file outside the project folder or one that cannot be read.
[[nodiscard]] std::optional<QVector<StreamedFile>> collectStreamedFiles(RunRequest* request,
                                                                        QString* error);

/// The runner's side: empty when every path the request names is a relative name among
/// `names` (.npy files) or a relative folder (include dirs), else why not, naming the field.
[[nodiscard]] QString checkStreamedPaths(const RunRequest& request, const QSet<QString>& names);

} // namespace kernelpad
