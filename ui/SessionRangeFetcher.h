#pragma once
// The window's RangeFetcher: ranges of kept outputs through the Session and its Engine.

#include "core/engine/OutputRangeReader.h"

namespace kernelpad {

class Session;

/// Fetches through Session::fetchRange(); names the Session's runner.
class SessionRangeFetcher final : public RangeFetcher {
public:
    SessionRangeFetcher(Session* session, QObject* parent = nullptr);
    quint64 fetchRange(quint64 run, const QString& buffer, qint64 offset, qint64 bytes) override;
    [[nodiscard]] QString sourceName() const override;

private:
    Session* m_session;
};

} // namespace kernelpad
