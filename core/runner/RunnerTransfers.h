#pragma once
// The streamed transfers of one runner connection (Protocol.h, "Streamed buffers"), apart from
// the process: a request's files written as frames, a result's outputs received as frames and
// ranges of outputs the runner kept fetched. It takes bytes and frames in and says what they
// completed; RunnerConnection owns one and does the writing, the signals and the stopping.

#include "core/io/JsonFields.h"
#include "core/run/RunTypes.h"
#include "core/runner/Protocol.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QString>

#include <functional>
#include <optional>

namespace kernelpad {

class RunnerTransfers {
public:
    /// A result whose outputs are all here.
    struct Delivery {
        quint64 id = 0;
        RunResult result;
        bool poisoned = false;
    };
    /// What one frame did: nothing yet, a fetched range, a complete result, or a violation.
    struct FrameOutcome {
        QString violation; ///< non-empty: the runner broke the protocol (the sentence)
        std::optional<quint64> fetchedId;
        QByteArray fetched;
        std::optional<Delivery> delivered;
    };

    /// Streamed outputs larger than this stay on the runner (the request says so).
    void setKeepBeyondBytes(qint64 bytes) { m_keepBeyondBytes = bytes; }
    [[nodiscard]] qint64 keepBeyondBytes() const { return m_keepBeyondBytes; }

    /// Writes request `id` of `type` with its files (collectStreamedFiles) through `write`: the
    /// message, then each file's frames. False with why when a file cannot be read or changed
    /// while it was sent (the caller stops the runner: it waits for bytes that will not come).
    bool writeRequest(MessageType type, quint64 id, const RunRequest& request,
                      const std::function<void(const QByteArray&)>& write, QString* error) const;

    /// Reads the outputs listed in a streamed result of request `id` (each one of the request's
    /// buffers in `bounds`, at most its bytes there): the kept ones are marked, those that
    /// stream are awaited as frames. `ready` gets the result at once when none streams. False
    /// with why (a violation) when the list is wrong.
    bool announceOutputs(const json::FieldReader& fields, quint64 id,
                         const QHash<QString, qint64>& bounds, RunResult result, bool poisoned,
                         std::optional<Delivery>* ready, QString* error);
    [[nodiscard]] bool hasPendingOutputs() const { return m_pending.has_value(); }
    /// Forgets a result half received (its run ended otherwise).
    void dropPendingOutputs() { m_pending.reset(); }

    /// One frame of a result's output or of a fetched range.
    [[nodiscard]] FrameOutcome onFrame(const FrameHeader& header, const QByteArray& data);

    /// Why [offset, offset + bytes) is no range of a buffer, or empty.
    [[nodiscard]] static QString rangeProblem(qint64 offset, qint64 bytes);
    /// Awaits bytes [offset, offset + bytes) of `buffer` as fetch `id`; empty, or why it
    /// cannot be asked (a range that is none, an id already waiting).
    [[nodiscard]] QString beginFetch(quint64 id, const QString& buffer, qint64 offset,
                                     qint64 bytes);
    /// Ends fetch `id` (the runner refused it); false when no such fetch waits.
    bool endFetch(quint64 id);
    /// Drops the pending result and every waiting fetch; returns the fetches' ids.
    [[nodiscard]] QList<quint64> dropAll();

private:
    struct PendingOutputs {
        quint64 id = 0;
        RunResult result;
        bool poisoned = false;
        QHash<QString, int> streams; ///< buffer name -> index in result.outputs
        /// Buffer name -> its announced bytes; the data grows as frames arrive, never ahead.
        QHash<QString, qint64> expected;
    };
    struct PendingFetch {
        QString buffer;
        qint64 offset = 0;
        qint64 bytes = 0; ///< the range asked for
        QByteArray data;  ///< what has arrived of it
    };
    /// Appends `data` to `into` when the frame is the next one, within `expected` bytes from
    /// `base`; else the violation.
    [[nodiscard]] static QString take(const FrameHeader& h, const QByteArray& data,
                                      QByteArray* into, qint64 base, qint64 expected);

    qint64 m_keepBeyondBytes = kDefaultKeepBeyondBytes;
    std::optional<PendingOutputs> m_pending;
    QHash<quint64, PendingFetch> m_fetches;
};

} // namespace kernelpad
