#pragma once
// The runner's side of the channel (RunnerServer.cpp): the writer of protocol lines and frames,
// and the streamed buffers (Protocol.h, "Streamed buffers"): a request's files arriving in
// frames, outputs going out as frames, ranges of kept outputs on demand. Internal to
// core/runner.

#include "core/io/JsonFields.h"
#include "core/launch/BufferInit.h"
#include "core/run/OutputBuffer.h"
#include "core/runner/Protocol.h"
#include "core/runner/RunnerServer.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include <unistd.h>

namespace kernelpad::serve {

/// Writes protocol lines to the private descriptor; progress comes from the run, answers
/// from the loop.
class Output {
public:
    explicit Output(int fd)
        : m_fd(fd) {}
    void send(const RunnerMessage& m) {
        const QByteArray line = encodeRunnerMessage(m);
        std::lock_guard lock(m_mutex);
        writeAll(line.constData(), line.size());
    }
    void writeAll(const char* p, qint64 left) {
        while (left > 0) {
            const ssize_t n = ::write(m_fd, p, size_t(left));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                std::_Exit(kRunnerExitOk); // the client is gone: nobody to answer, free the GPU
            p += n;
            left -= n;
        }
    }
    /// `size` bytes as frames (Protocol.h), the last one followed by kFramesEnd; each frame is
    /// written whole under the lock, so progress from the run can never land inside one.
    void sendFrames(quint64 id, const QString& stream, qint64 offset, const char* data,
                    qint64 size) {
        qint64 done = 0;
        do {
            const qint64 n = std::min(kMaxFrameBytes, size - done);
            const QByteArray header =
                encodeFrameHeader(FrameHeader{id, stream, offset + done, n, done + n == size});
            std::lock_guard lock(m_mutex);
            writeAll(header.constData(), header.size());
            writeAll(data + done, n);
            done += n;
            if (done == size)
                writeAll(&kFramesEnd, 1);
        } while (done < size);
    }

private:
    int m_fd;
    std::mutex m_mutex; // guards writes to m_fd
};

/// The "stream" object of a run or resources request, read on the reader thread.
struct StreamSpec {
    QVector<std::pair<QString, qint64>> files; ///< name and announced size
    qint64 keepBeyondBytes = kDefaultKeepBeyondBytes;
};

/// Reads the "stream" object of a request; fails with a message naming the field.
[[nodiscard]] std::optional<StreamSpec> readStreamSpec(const QJsonObject& body, QString* error);

/// A request whose files are still arriving in frames; written into `dir` as they come.
class IncomingFiles {
public:
    IncomingFiles(RunnerMessage message, const StreamSpec& spec, const QString& dir)
        : m_message(std::move(message))
        , m_dir(dir) {
        for (const auto& [name, bytes] : spec.files)
            m_files[name] = File{bytes, 0, nullptr};
    }
    [[nodiscard]] quint64 id() const { return m_message.id; }
    [[nodiscard]] bool complete() const {
        return std::all_of(m_files.begin(), m_files.end(),
                           [](const auto& f) { return f.second.done; });
    }
    /// Creates the folder and the empty files; false with a message when it cannot.
    bool open(QString* error) {
        for (auto& [name, f] : m_files) {
            const QString path = QDir(m_dir).filePath(name);
            if (!QDir().mkpath(QFileInfo(path).absolutePath())) {
                *error = QStringLiteral("cannot create a folder for '%1' in %2").arg(name, m_dir);
                return false;
            }
            f.file = std::make_unique<QFile>(path);
            if (!f.file->open(QIODevice::WriteOnly)) {
                *error = QStringLiteral("cannot write '%1': %2").arg(path, f.file->errorString());
                return false;
            }
            if (f.bytes == 0)
                f.done = true; // an empty file needs no frame
        }
        return true;
    }
    /// Takes one frame; false with a message naming the field when it breaks the rules.
    bool take(const FrameHeader& h, const QByteArray& data, QString* error) {
        const auto it = m_files.find(h.stream);
        if (it == m_files.end() || it->second.done) {
            *error = QStringLiteral("frame.stream: '%1' was not announced by request %2 or is "
                                    "complete")
                         .arg(h.stream.left(64))
                         .arg(m_message.id);
            return false;
        }
        File& f = it->second;
        if (h.offset != f.received) {
            *error = QStringLiteral("frame.offset: %1 for '%2', expected %3")
                         .arg(h.offset)
                         .arg(h.stream)
                         .arg(f.received);
            return false;
        }
        if (f.received + h.bytes > f.bytes) {
            *error = QStringLiteral("frame.bytes: %1 at offset %2 runs past the %3 bytes "
                                    "announced for '%4'")
                         .arg(h.bytes)
                         .arg(h.offset)
                         .arg(f.bytes)
                         .arg(h.stream);
            return false;
        }
        if (h.last != (f.received + h.bytes == f.bytes)) {
            *error = QStringLiteral("frame.last: %1 at offset %2 of '%3' (%4 bytes announced)")
                         .arg(h.last ? QStringLiteral("true") : QStringLiteral("false"))
                         .arg(h.offset)
                         .arg(h.stream)
                         .arg(f.bytes);
            return false;
        }
        if (f.file->write(data) != data.size()) {
            *error = QStringLiteral("cannot write '%1': %2").arg(h.stream, f.file->errorString());
            return false;
        }
        f.received += h.bytes;
        if (h.last) {
            f.done = true;
            f.file->close();
        }
        return true;
    }
    /// The request, its project folder pointed at the files.
    RunnerMessage release() {
        QJsonObject request = m_message.body.value(QStringLiteral("request")).toObject();
        request.insert(QStringLiteral("projectDir"), m_dir);
        m_message.body.insert(QStringLiteral("request"), request);
        return std::move(m_message);
    }

private:
    struct File {
        qint64 bytes = 0;
        qint64 received = 0;
        std::unique_ptr<QFile> file;
        bool done = false;
    };
    RunnerMessage m_message;
    QString m_dir;
    std::map<QString, File> m_files;
};

/// The outputs of the last streamed run, kept for "fetch" until the next run replaces them.
struct KeptOutputs {
    quint64 run = 0;
    QVector<OutputBuffer> buffers;
};

/// Lists the outputs for the result; the ones at most `keepBeyondBytes` go out as frames
/// after it (streamOutputs), all stay in `kept`.
[[nodiscard]] QJsonArray listStreamedOutputs(const QVector<OutputBuffer>& outputs,
                                             qint64 keepBeyondBytes);
/// The outputs of at most `keepBeyondBytes` as frames of stream `id`.
void streamOutputs(Output& out, quint64 id, const QVector<OutputBuffer>& outputs,
                   qint64 keepBeyondBytes);
/// Answers a "fetch" from the kept outputs: frames of the range, or an error naming the field.
void answerFetch(Output& out, const RunnerMessage& m, const KeptOutputs& kept);

} // namespace kernelpad::serve
