#pragma once
// The window's RangeFetcher: ranges of kept outputs through the Workbench and its Engine.

#include "core/engine/OutputRangeReader.h"

namespace kernelpad {

class Workbench;

/// Fetches through Workbench::fetchRange(); names the Workbench's runner.
class WorkbenchRangeFetcher final : public RangeFetcher {
public:
    WorkbenchRangeFetcher(Workbench* workbench, QObject* parent = nullptr);
    quint64 fetchRange(quint64 run, const QString& buffer, qint64 offset, qint64 bytes) override;
    [[nodiscard]] QString sourceName() const override;

private:
    Workbench* m_workbench;
};

} // namespace kernelpad
