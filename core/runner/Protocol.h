#pragma once
// The runner protocol: kernelpad-cli serve <-> RunnerClient over a private channel.
//
// The channel: requests arrive on the runner's stdin. Answers leave on the descriptor that was
// the runner's stdout when it started; the runner then points its fd 1 at a pipe of its own, so
// whatever a kernel prints (device printf is written to stdout at each synchronisation) can
// never be read as a message. That output is captured, bounded, and returned with the run's
// result as "console". The client trusts only this channel: exactly one "hello" first (version
// checked, outputDir checked), answers only to requests it sent, one "result" per run.
//
// One message per line: a UTF-8 JSON object, compact, terminated by '\n'. Every message has
// "type"; requests and their answers carry the same non-negative integer "id".
//
// client -> runner
//   {"type":"run","id":7,"request":{RunRequest}}      run, verify, time
//   {"type":"devices","id":8}                         list devices
//   {"type":"resources","id":9,"request":{RunRequest}} compile and report the kernel's
//                                                     registers, shared memory, occupancy
//   {"type":"compile","id":10,"request":{RunRequest}}  compile only (for a client without
//                                                     NVRTC), for the project's arch or
//                                                     the request's device
//   {"type":"cancel","id":7}                          stop run 7 between repetitions
//   {"type":"shutdown"}                               exit cleanly (temporary files removed)
// runner -> client
//   {"type":"hello","version":1,"kernelpad":"0.1.0","pid":1234,
//    "outputDir":"/tmp/kernelpad-runner-XXXXXX"}    protocol and release; a runner elsewhere
//                                                     (RunnerSpec) must match both
//   {"type":"progress","id":7,"stage":"timing","done":5,"total":20}
//   {"type":"result","id":7,"result":{RunResult},"poisoned":false,
//    "outputs":[{"name":"out","type":{ValueType},"count":N,"file":"7-0.bin","bytes":B}]}
//   {"type":"devices","id":8,"devices":[{DeviceInfo}],"error":null}
//   {"type":"resources","id":9,"kernel":"saxpy","resources":{KernelResources}} or
//   {"type":"resources","id":9,"error":"..."}
//   {"type":"compile","id":10,"result":{CompileResult}}
//   {"type":"error","id":7,"message":"..."}           a request the runner could not read
//
// Output buffers never travel through the pipe: the runner writes each to a file in its
// private outputDir (mode 0700, removed when the runner ends); the client reads and deletes
// it. "poisoned": a sticky CUDA error happened and the runner will not touch the GPU again;
// the client replaces it before the next run.

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QVector>

#include <optional>

namespace kernelpad {

inline constexpr int kRunnerProtocolVersion = 1;
/// Longest line either side accepts (a RunRequest carries the source, a result the PTX).
inline constexpr qsizetype kMaxRunnerMessageBytes = qsizetype(64) << 20;

/// One decoded protocol message.
struct RunnerMessage {
    QString type;
    quint64 id = 0;
    QJsonObject body; ///< the whole object, "type" and "id" included

    [[nodiscard]] static RunnerMessage make(const QString& type, quint64 id, QJsonObject body = {});
};

/// Requests the client may send; anything else arriving at the runner is refused.
[[nodiscard]] bool isRunnerRequestType(const QString& type);

/// Splits a byte stream into lines, refusing (and skipping) any line longer than `maxBytes`
/// while it is still arriving, so that a peer can never make the reader hold more than that.
class LineSplitter {
public:
    explicit LineSplitter(qsizetype maxBytes = kMaxRunnerMessageBytes)
        : m_maxBytes(maxBytes) {}
    /// One complete line without its '\n', or an over-long line's refusal.
    struct Line {
        QByteArray bytes;
        bool tooLong = false; ///< `bytes` is empty; the line was dropped
    };
    /// Feeds bytes; returns the lines they complete.
    [[nodiscard]] QVector<Line> feed(const char* data, qsizetype size);
    /// Bytes of the unfinished line held now (at most maxBytes).
    [[nodiscard]] qsizetype pendingBytes() const { return m_pending.size(); }

private:
    qsizetype m_maxBytes;
    QByteArray m_pending;
    bool m_skipping = false; ///< inside an over-long line: drop until its '\n'
};

/// Parses one line (with or without its '\n'). Fails with a message for: an over-long line,
/// invalid JSON, a non-object, a missing or unknown "type", a missing/negative/non-integer
/// "id" where the type needs one. Never crashes on any bytes.
[[nodiscard]] std::optional<RunnerMessage> decodeRunnerMessage(const QByteArray& line,
                                                               QString* error);
/// Compact JSON plus '\n'.
[[nodiscard]] QByteArray encodeRunnerMessage(const RunnerMessage& message);

} // namespace kernelpad
