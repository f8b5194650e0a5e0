#include "ui/SessionRangeFetcher.h"

#include "ui/Session.h"

namespace kernelpad {

SessionRangeFetcher::SessionRangeFetcher(Session* session, QObject* parent)
    : RangeFetcher(parent)
    , m_session(session) {
    connect(session, &Session::rangeFetched, this, &RangeFetcher::fetched);
}

quint64 SessionRangeFetcher::fetchRange(quint64 run, const QString& buffer, qint64 offset,
                                        qint64 bytes) {
    return m_session->fetchRange(run, buffer, offset, bytes);
}

QString SessionRangeFetcher::sourceName() const {
    return m_session->runnerName();
}

} // namespace kernelpad
