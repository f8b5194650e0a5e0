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
//                                                     the request's device; with
//                                                     "program":"<base64>" (another
//                                                     runner's, below) it is taken
//                                                     instead of compiling when it is the
//                                                     same compile (same key: source,
//                                                     options, arch, compiler, project
//                                                     folder, headers), for this session
//                                                     only (never into the disk cache)
//   {"type":"program","id":11,"request":{RunRequest},"arch":"sm_90"}
//                                                     the compiled program this runner
//                                                     holds for the request (never
//                                                     compiles; answered at once, even
//                                                     during a run)
//   {"type":"cancel","id":7}                          stop run 7 between repetitions
//   {"type":"shutdown"}                               exit cleanly (temporary files removed)
// runner -> client
//   {"type":"hello","version":1,"kernelpad":"0.1.0","pid":1234,
//    "outputDir":"/tmp/kernelpad-runner-XXXXXX",   protocol and release; a runner elsewhere
//    "batchStep":"12.0"}                              (RunnerSpec) must match both; the Slurm
//                                                     job step it runs in, only under Slurm
//   {"type":"progress","id":7,"stage":"timing","done":5,"total":20}
//                                                     "stage" is a RunStage's toString()
//                                                     (core/run/RunStage.h); the watchdog
//                                                     keys on it
//   {"type":"result","id":7,"result":{RunResult},"poisoned":false,
//    "outputs":[{"name":"out","type":{ValueType},"count":N,"file":"7-0.bin","bytes":B}]}
//   {"type":"devices","id":8,"devices":[{DeviceInfo}],"error":null}
//   {"type":"resources","id":9,"kernel":"saxpy","resources":{KernelResources}} or
//   {"type":"resources","id":9,"error":"..."}
//   {"type":"compile","id":10,"result":{CompileResult},"programTaken":false}
//                                                     "programTaken": a program handed in
//                                                     was used; "programNote" says why
//                                                     one was not
//   {"type":"program","id":11,"program":"<base64>"} or  a compile-cache entry
//   {"type":"program","id":11,"error":"..."}          (DiskCompileCache::encodeEntry)
//   {"type":"error","id":7,"message":"..."}           a request the runner could not read
//
// Output buffers, by default, never travel through the pipe: the runner writes each to a file
// in its private outputDir (mode 0700, removed when the runner ends); the client reads and
// deletes it. "poisoned": a sticky CUDA error happened and the runner will not touch the GPU
// again; the client replaces it before the next run.
//
// Streamed buffers (a runner that shares no file system with the client): a frame is a header
// line followed by exactly "bytes" raw bytes (any bytes, '\n' included), at most
// kMaxFrameBytes each, in both directions:
//   {"type":"frame","id":7,"stream":"data/x.npy","offset":0,"bytes":B,"last":false}<B bytes>
// A run with streamed buffers says so in the run message:
//   {"type":"run","id":7,"request":{RunRequest},
//    "stream":{"files":[{"name":"data/x.npy","bytes":N}],"keepBeyondBytes":67108864}}
// and its frames (id 7, one stream per file, offsets in order) follow it. Names are relative
// paths inside the project folder (no '..', no absolute path); the runner writes them to a
// private folder of its own and runs the request there, never opening a path of the client's.
// Every path the request names must be one of those files. Each output then comes back as:
//   "outputs":[{"name":"out","type":{ValueType},"count":N,"bytes":B,"stream":true}]
// followed by the frames of stream "out" (id 7) after the result line, or, when B is beyond
// keepBeyondBytes, "kept":true: the bytes stay on the runner (verified there) until the next
// run replaces them or the runner ends, and the client asks for a range:
//   client -> runner {"type":"fetch","id":12,"run":7,"buffer":"out","offset":O,"bytes":B}
//   runner -> client frames of stream "out" with id 12 covering [O, O+B), or
//                    {"type":"error","id":12,"message":"..."}
// A frame is checked before its bytes are read: a stream nobody announced, an offset out of
// order, more bytes than announced or than kMaxFrameBytes end the connection with a message
// naming the field (after a bad header the reader cannot know where the next message starts).
// The frames of one file, output or fetched range end with an empty line ('\n' after the last
// frame's bytes), and readers skip empty lines: a transport that passes the runner's output on
// line by line holds an unfinished last line until the next '\n' (srun without -u does, the
// README's Slurm runner), so without it the last frame's tail would wait for the next message.

#include "core/project/RunnerSpec.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QVector>

#include <optional>

namespace kernelpad {

inline constexpr int kRunnerProtocolVersion = 1;
/// Longest line either side accepts (a RunRequest carries the source, a result the PTX).
inline constexpr qsizetype kMaxRunnerMessageBytes = qsizetype(64) << 20;

/// A message's "type" (the list above); both ends compare these, never the text.
enum class MessageType {
    // client -> runner
    Run,
    Devices,
    Resources,
    Compile,
    Cancel,
    Shutdown,
    Fetch,
    Frame,   ///< both directions
    Program, ///< both directions: asked for, and answered with, a compiled program
    // runner -> client (Devices, Resources, Compile, Program and Frame answer in kind)
    Hello,
    Progress,
    Result,
    Error,
};

/// The type as the wire spells it ("progress").
[[nodiscard]] QString toString(MessageType type);
/// The type the wire spells as `text`; nothing for an unknown one.
[[nodiscard]] std::optional<MessageType> messageTypeFromString(const QString& text);
/// Requests the client may send; anything else arriving at the runner is refused.
[[nodiscard]] bool isRunnerRequestType(MessageType type);
/// Whether a message of `type` must carry an "id" (all but shutdown, hello and error).
[[nodiscard]] bool messageNeedsId(MessageType type);

/// One decoded protocol message.
struct RunnerMessage {
    MessageType type = MessageType::Error;
    quint64 id = 0;
    QJsonObject body; ///< the whole object, "type" and "id" included

    [[nodiscard]] static RunnerMessage make(MessageType type, quint64 id, QJsonObject body = {});
};

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

/// The most raw bytes one frame carries (4 MiB): the reader holds at most this much of a frame.
inline constexpr qint64 kMaxFrameBytes = qint64(4) << 20;
/// What follows the last frame of a file, output or fetched range: an empty line (above).
inline constexpr char kFramesEnd = '\n';
// kDefaultKeepBeyondBytes, what stays on a streaming runner unless the client says otherwise,
// is a default of the runner's settings: core/project/RunnerSpec.h.

/// A frame's header line (see the protocol above).
struct FrameHeader {
    quint64 id = 0;
    QString stream;
    qint64 offset = 0;
    qint64 bytes = 0;
    bool last = false;
};

/// True when `name` may name a streamed file: a relative path of plain components (no "",
/// ".", "..", backslash or NUL), at most 255 bytes, so that it stays inside the folder it is
/// written to.
[[nodiscard]] bool isSafeStreamName(const QString& name);
/// Reads a "frame" message's header; fails with a message naming the bad field.
[[nodiscard]] std::optional<FrameHeader> readFrameHeader(const QJsonObject& body, QString* error);
/// The header line of a frame of `header.bytes` bytes (the bytes follow it on the wire).
[[nodiscard]] QByteArray encodeFrameHeader(const FrameHeader& header);
/// `data` as frames of at most kMaxFrameBytes, offsets from `offset`; the final one is "last",
/// then kFramesEnd. An empty `data` is one empty last frame.
[[nodiscard]] QByteArray encodeFrames(quint64 id, const QString& stream, qint64 offset,
                                      const char* data, qint64 size);

/// Reads the protocol channel: lines become messages, and a frame's header line takes the
/// raw bytes that follow it, however the reads split them. A fatal item (a bad frame header)
/// means the stream can no longer be read.
class ProtocolReader {
public:
    explicit ProtocolReader(qsizetype maxLineBytes = kMaxRunnerMessageBytes)
        : m_lines(maxLineBytes) {}
    struct Item {
        std::optional<RunnerMessage> message; ///< absent: `error` says why
        std::optional<FrameHeader> frame;     ///< a complete frame: its header; data below
        QByteArray data;                      ///< the frame's bytes
        QString error;                        ///< an unreadable line or a bad frame header
        QByteArray text;      ///< an unreadable line's first bytes, to quote (a shell's greeting)
        bool tooLong = false; ///< the line was longer than the limit
        bool fatal = false;   ///< a bad frame header: stop reading
    };
    /// Feeds bytes; returns the messages and frames they complete. Nothing after a fatal item.
    [[nodiscard]] QVector<Item> feed(const char* data, qsizetype size);
    /// Bytes held now: the unfinished line or frame.
    [[nodiscard]] qsizetype pendingBytes() const {
        return m_lines.pendingBytes() + m_frameData.size();
    }

private:
    LineSplitter m_lines;
    std::optional<FrameHeader> m_frame; ///< inside a frame's bytes
    QByteArray m_frameData;
    bool m_broken = false;
};

/// Parses one line (with or without its '\n'). Fails with a message for: an over-long line,
/// invalid JSON, a non-object, a missing or unknown "type", a missing/negative/non-integer
/// "id" where the type needs one. Never crashes on any bytes.
[[nodiscard]] std::optional<RunnerMessage> decodeRunnerMessage(const QByteArray& line,
                                                               QString* error);
/// Compact JSON plus '\n'.
[[nodiscard]] QByteArray encodeRunnerMessage(const RunnerMessage& message);

} // namespace kernelpad
