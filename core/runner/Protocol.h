#pragma once
// The runner protocol: kernelpad-cli serve <-> RunnerClient over stdin/stdout.
//
// One message per line: a UTF-8 JSON object, compact, terminated by '\n'. Every message has
// "type"; requests and their answers carry the same non-negative integer "id".
//
// client -> runner
//   {"type":"run","id":7,"request":{RunRequest}}      run, verify, time
//   {"type":"devices","id":8}                         list devices
//   {"type":"resources","id":9,"request":{RunRequest}} compile and report the kernel's
//                                                     registers, shared memory, occupancy
//   {"type":"cancel","id":7}                          stop run 7 between repetitions
//   {"type":"shutdown"}                               exit cleanly (temporary files removed)
// runner -> client
//   {"type":"hello","version":1,"pid":1234,"outputDir":"/tmp/kernelpad-runner-XXXXXX"}
//   {"type":"progress","id":7,"stage":"timing","done":5,"total":20}
//   {"type":"result","id":7,"result":{RunResult},"poisoned":false,
//    "outputs":[{"name":"out","type":{ValueType},"count":N,"file":"7-0.bin","bytes":B}]}
//   {"type":"devices","id":8,"devices":[{DeviceInfo}],"error":null}
//   {"type":"resources","id":9,"kernel":"saxpy","resources":{KernelResources}} or
//   {"type":"resources","id":9,"error":"..."}
//   {"type":"error","id":7,"message":"..."}           a request the runner could not read
//
// Output buffers never travel through the pipe: the runner writes each to a file in its
// private outputDir (mode 0700, removed when the runner ends); the client reads and deletes
// it. "poisoned": a sticky CUDA error happened and the runner will not touch the GPU again;
// the client replaces it before the next run.

#include <QByteArray>
#include <QJsonObject>
#include <QString>

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

/// Parses one line (with or without its '\n'). Fails with a message for: an over-long line,
/// invalid JSON, a non-object, a missing or unknown "type", a missing/negative/non-integer
/// "id" where the type needs one. Never crashes on any bytes.
[[nodiscard]] std::optional<RunnerMessage> decodeRunnerMessage(const QByteArray& line,
                                                               QString* error);
/// Compact JSON plus '\n'.
[[nodiscard]] QByteArray encodeRunnerMessage(const RunnerMessage& message);

} // namespace kernelpad
