#pragma once
// The runner protocol's codec for the client side (Protocol.h), apart from the process: the
// bytes the runner's channel gives, in any chunking, become decoded messages and frames; the
// runner's one hello is checked; requests are encoded. A message that breaks the protocol is
// an error value here, which RunnerConnection turns into a stop reason.

#include "core/project/RunnerSpec.h"
#include "core/run/RunStage.h"
#include "core/run/RunTypes.h"
#include "core/runner/Protocol.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QVector>

#include <optional>

namespace kernelpad {

class RunnerCodec {
public:
    /// What went wrong with the bytes read, and so what the connection does about it.
    enum class Problem {
        None,
        Unreadable,      ///< a line that is no message (a tool's banner): ignored
        Greeting,        ///< such a line from a runner elsewhere before its hello: no runner
        TooLong,         ///< a line over kMaxRunnerMessageBytes: a violation
        BadFrame,        ///< a frame header that cannot be read: a violation, reading ends
        Violation,       ///< a message that breaks the protocol (a field, an order)
        VersionMismatch, ///< a runner elsewhere of another protocol or release: not a runner
    };

    /// One thing the bytes completed: a problem, a frame, or a decoded message whose fields
    /// below are set for its type.
    struct Event {
        Problem problem = Problem::None;
        QString error;   ///< the problem's sentence (Greeting: the unreadable reason)
        QByteArray text; ///< Greeting, Unreadable: the line's first bytes, to quote

        std::optional<FrameHeader> frame; ///< a complete frame, its bytes in `data`
        QByteArray data;

        MessageType type = MessageType::Error;
        quint64 id = 0;
        QJsonObject body; ///< the whole message (a streamed result's outputs are read from it)
        RunStage stage = RunStage::Compiling;
        int done = 0, total = 0; ///< Progress
        QVector<DeviceInfo> devices;
        QString deviceError; ///< Devices: the runner's own (no driver, no device)
        QString kernel;      ///< Resources
        /// Resources: absent when the kernel could not be loaded (the panel keeps its view).
        std::optional<KernelResources> resources;
        CompileResult compile;
        /// Program: the compiled program's bytes (a compile-cache entry), empty with `message`
        /// saying why when the runner had none
        QByteArray program;
        QString message; ///< Error: the runner's sentence; Program: why there is none
        /// Result: its outputs are cleared (they come as files or frames)
        RunResult result;
        bool poisoned = false;
        /// Result, buffers in files: each output named and typed, and its bare file name.
        QVector<std::pair<OutputBuffer, QString>> outputFiles;

        [[nodiscard]] bool isMessage() const { return problem == Problem::None && !frame; }
    };

    /// The runner decoded: `spec` says whether a version mismatch is a start failure and
    /// `program` is named in it; `streamed` whether outputs come as frames (then its output
    /// folder is neither checked nor used).
    void setPeer(const RunnerSpec& spec, const QString& program, bool streamed);
    /// Forgets everything read (a new process).
    void reset();
    /// Feeds bytes; returns what they complete. Nothing after a BadFrame.
    [[nodiscard]] QVector<Event> feed(const char* data, qsizetype size);
    [[nodiscard]] bool helloSeen() const { return m_helloSeen; }
    /// The batch system's job step the runner runs in ("12.0" under srun), from its hello; empty
    /// when it runs outside one (or said something that is not a step id).
    [[nodiscard]] const QString& batchStep() const { return m_batchStep; }
    /// The runner's private output folder from its hello (checked), or empty.
    [[nodiscard]] const QString& outputDir() const { return m_outputDir; }

    /// Why `dir` cannot be the runner's output folder, or empty when it can.
    [[nodiscard]] static QString checkOutputDir(const QString& dir);

    // Requests, each one line (Protocol.h).
    [[nodiscard]] static QByteArray encodeRun(quint64 id, const RunRequest& request);
    [[nodiscard]] static QByteArray encodeRequest(MessageType type, quint64 id,
                                                  const RunRequest& request);
    /// A compile request; `program` (another runner's, from a "program" answer) non-empty:
    /// taken instead of compiling when it is the same compile.
    [[nodiscard]] static QByteArray encodeCompile(quint64 id, const RunRequest& request,
                                                  const QByteArray& program = {});
    /// Asks for the program the runner compiled for `request` and `arch`.
    [[nodiscard]] static QByteArray encodeProgram(quint64 id, const RunRequest& request,
                                                  const QString& arch);
    [[nodiscard]] static QByteArray encodeDevices(quint64 id);
    [[nodiscard]] static QByteArray encodeCancel(quint64 id);
    [[nodiscard]] static QByteArray encodeShutdown();
    [[nodiscard]] static QByteArray encodeFetch(quint64 id, quint64 run, const QString& buffer,
                                                qint64 offset, qint64 bytes);

private:
    /// Decodes one message into `e`; sets e->problem when it breaks the protocol.
    void decode(const RunnerMessage& m, Event* e);
    void decodeHello(const RunnerMessage& m, Event* e);
    [[nodiscard]] bool decodeResult(const RunnerMessage& m, Event* e, QString* error) const;
    static void fail(Event* e, Problem problem, const QString& error);

    ProtocolReader m_reader;
    RunnerSpec m_spec;
    QString m_program;
    bool m_streamed = false;
    bool m_helloSeen = false;
    QString m_outputDir;
    QString m_batchStep;
};

} // namespace kernelpad
