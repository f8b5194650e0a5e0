#include "ui/WorkbenchRangeFetcher.h"

#include "ui/Workbench.h"

namespace kernelpad {

WorkbenchRangeFetcher::WorkbenchRangeFetcher(Workbench* workbench, QObject* parent)
    : RangeFetcher(parent)
    , m_workbench(workbench) {
    connect(workbench, &Workbench::rangeFetched, this, &RangeFetcher::fetched);
}

quint64 WorkbenchRangeFetcher::fetchRange(quint64 run, const QString& buffer, qint64 offset,
                                          qint64 bytes) {
    return m_workbench->fetchRange(run, buffer, offset, bytes);
}

QString WorkbenchRangeFetcher::sourceName() const {
    return m_workbench->runnerName();
}

} // namespace kernelpad
