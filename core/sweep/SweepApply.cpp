#include "core/sweep/SweepApply.h"

#include "core/sweep/SweepSpace.h"

#include <QStringList>

#include <memory>

namespace kernelpad {

QString sweepConfigurationText(const SweepRecord& record) {
    QStringList parts;
    for (qsizetype i = 0; i < record.names.size() && i < record.values.size(); ++i)
        parts << QStringLiteral("%1=%2").arg(record.names[i],
                                             SweepSpace::formatValue(record.values[i]));
    return parts.isEmpty() ? record.key : parts.join(QStringLiteral(", "));
}

int recordHeldBy(const Project& project, const QVector<SweepRecord>& records) {
    // One space for every record: projectWithRecord would parse the sweep once per record.
    const std::unique_ptr<SweepSpace> space = SweepSpace::create(project, nullptr);
    if (!space)
        return -1;
    for (int r = 0; r < records.size(); ++r) {
        const SweepRecord& record = records[r];
        if (record.names != space->names() || record.values.size() != record.names.size())
            continue;
        SweepPoint point;
        for (qsizetype d = 0; d < record.values.size(); ++d) {
            const int index = int(space->values()[d].indexOf(record.values[d]));
            if (index < 0)
                break;
            point.append(index);
        }
        if (point.size() != record.values.size() || space->indexOf(point) < 0)
            continue;
        std::optional<Project> candidate = space->project(point, nullptr);
        if (!candidate)
            continue;
        candidate->sweep = project.sweep; // the mapping drops the section; the project keeps it
        if (*candidate == project)
            return r;
    }
    return -1;
}

} // namespace kernelpad
