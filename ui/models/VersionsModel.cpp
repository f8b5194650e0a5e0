#include "ui/models/VersionsModel.h"

#include "core/run/Summary.h"

#include <QBrush>
#include <QColor>
#include <QLocale>

#include <algorithm>

namespace kernelpad {

VersionsModel::VersionsModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void VersionsModel::setVersions(const QVector<Version>& versions) {
    beginResetModel();
    m_editVerdicts.clear();
    m_versions = versions;
    endResetModel();
}

void VersionsModel::append(const Version& version) {
    // The newest is row 0.
    beginInsertRows({}, 0, 0);
    m_versions.append(version);
    endInsertRows();
}

bool VersionsModel::update(const Version& version) {
    const int row = rowOf(version.number);
    if (row < 0)
        return false;
    m_versions[int(m_versions.size()) - 1 - row] = version;
    // Its verdict and the next version's (it may be that one's base) are made again.
    m_editVerdicts.remove(version.number);
    if (row > 0) {
        if (const Version* newer = at(row - 1))
            m_editVerdicts.remove(newer->number);
        emit dataChanged(index(row - 1, EditColumn), index(row - 1, EditColumn));
    }
    emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    return true;
}

bool VersionsModel::setSassOpcodes(int number, const QMap<QString, int>& counts) {
    const int row = rowOf(number);
    if (row < 0)
        return false;
    m_versions[int(m_versions.size()) - 1 - row].sassOpcodes = counts;
    // Its own verdict, and those of the newer versions that are compared with it: each up to
    // and including the first newer one that ran and passed (verdictBase()).
    int newest = row;
    for (int newer = row - 1; newer >= 0; --newer) {
        const Version* v = at(newer);
        m_editVerdicts.remove(v->number);
        newest = newer;
        if (v->hasTiming() && v->verdict() == VersionVerdict::Passed)
            break;
    }
    m_editVerdicts.remove(number);
    emit dataChanged(index(newest, EditColumn), index(row, EditColumn));
    return true;
}

void VersionsModel::clear() {
    setVersions({});
}

const Version* VersionsModel::find(int number) const {
    const int row = rowOf(number);
    return row < 0 ? nullptr : at(row);
}

int VersionsModel::rowOf(int number) const {
    for (int i = 0; i < m_versions.size(); ++i)
        if (m_versions.at(i).number == number)
            return int(m_versions.size()) - 1 - i;
    return -1;
}

const Version* VersionsModel::at(int row) const {
    if (row < 0 || row >= m_versions.size())
        return nullptr;
    return &m_versions.at(int(m_versions.size()) - 1 - row);
}

int VersionsModel::nextNumber() const {
    int most = 0;
    for (const Version& v : m_versions)
        most = std::max(most, v.number);
    return most + 1;
}

void VersionsModel::setSideExtras(SideExtras extras) {
    m_extras = std::move(extras);
    m_editVerdicts.clear();
    if (rowCount() > 0)
        emit dataChanged(index(0, EditColumn), index(rowCount() - 1, EditColumn));
}

VerdictSide VersionsModel::verdictSideOf(const Version& v) {
    VerdictSide side;
    if (!v.hasTiming() || v.verdict() != VersionVerdict::Passed)
        return side;
    side.timing = v.timing;
    side.resources = v.resources;
    side.sassOpcodes = v.sassOpcodes;
    return side;
}

const Version* VersionsModel::verdictBase(int number) const {
    const int row = rowOf(number);
    const Version* v = at(row);
    if (!v || !v->hasTiming() || v->verdict() != VersionVerdict::Passed)
        return nullptr;
    for (int older = row + 1; older < rowCount(); ++older)
        if (const Version* o = at(older); o->hasTiming() && o->verdict() == VersionVerdict::Passed)
            return o;
    return nullptr;
}

EditVerdict VersionsModel::editVerdictOf(const Version& before, const Version& after) const {
    VerdictSide sideBefore = verdictSideOf(before);
    VerdictSide sideAfter = verdictSideOf(after);
    if (m_extras) {
        m_extras(before, &sideBefore);
        m_extras(after, &sideAfter);
    }
    return editVerdict(sideBefore, sideAfter);
}

QString VersionsModel::editVerdictText(int number) const {
    if (const auto it = m_editVerdicts.constFind(number); it != m_editVerdicts.cend())
        return *it;
    const Version* after = find(number);
    const Version* before = verdictBase(number);
    const QString text = after && before ? editVerdictOf(*before, *after).sentence : QString();
    m_editVerdicts.insert(number, text);
    return text;
}

QString VersionsModel::verdictText(const Version& v) {
    if (v.kept)
        return tr("not run");
    switch (v.verdict()) {
    case VersionVerdict::Passed:
        return v.buffersChecked > 0 ? tr("passed") : tr("ran (nothing checked)");
    case VersionVerdict::Failed:
        return v.buffersChecked > 0
                   ? tr("failed: %1 of %2 buffers").arg(v.buffersFailed).arg(v.buffersChecked)
                   : tr("failed");
    case VersionVerdict::Fault:
        return tr("fault");
    case VersionVerdict::Error:
        return tr("error: %1").arg(v.error.isEmpty() ? runStatusName(v.status) : v.error);
    case VersionVerdict::Cancelled:
        return tr("cancelled");
    }
    return {};
}

namespace {

/// `value` formatted as summarize() formats its entries of `hint` (Summary.h).
QString versionFigure(SummaryHint hint, double value) {
    Summary summary;
    summary.hint = hint;
    summary.value = value;
    return formatSummaryValue(summary);
}

} // namespace

QString VersionsModel::energyText(const Version& v) {
    if (v.kept || !v.timing.telemetry.energyMeasured())
        return {};
    return versionFigure(SummaryHint::Energy, v.timing.telemetry.energyPerLaunchJ());
}

QString VersionsModel::efficiencyText(const Version& v) {
    if (energyText(v).isEmpty())
        return {};
    const double joules = v.timing.telemetry.energyPerLaunchJ();
    QStringList parts;
    if (v.timing.bytesMoved > 0)
        parts << versionFigure(SummaryHint::ByteEnergy, double(v.timing.bytesMoved) / joules);
    if (v.timing.flopsPerLaunch > 0)
        parts << versionFigure(SummaryHint::FlopEnergy, v.timing.flopsPerLaunch / joules);
    return parts.join(QStringLiteral(", "));
}

QString VersionsModel::marksText(const Version& v) {
    QStringList marks;
    if (v.sanitizer != SanitizerTool::None)
        marks << (v.sanitizerErrors == 0 ? tr("%1: clean").arg(sanitizerToolName(v.sanitizer))
                                         : tr("%1: %2 errors")
                                               .arg(sanitizerToolName(v.sanitizer))
                                               .arg(v.sanitizerErrors));
    if (v.profiled)
        marks << tr("profiled");
    if (v.kept)
        marks << tr("kept before restore");
    return marks.join(QStringLiteral(", "));
}

int VersionsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_versions.size());
}

int VersionsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant VersionsModel::data(const QModelIndex& index, int role) const {
    const Version* v = index.isValid() ? at(index.row()) : nullptr;
    if (!v || index.column() < 0 || index.column() >= ColumnCount)
        return {};
    if (role == Qt::UserRole)
        return v->number;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case NumberColumn:
            return v->number;
        case TimeColumn:
            // The day only when it is not today's.
            return v->finishedAt.date() == QDate::currentDate()
                       ? v->finishedAt.toString(QStringLiteral("HH:mm:ss"))
                       : v->finishedAt.toString(QStringLiteral("yyyy-MM-dd HH:mm"));
        case KernelColumn:
            return v->project.kernel;
        case MedianColumn:
            return v->hasTiming() ? formatDurationMs(v->timing.medianMs) : QString();
        case EnergyColumn:
            return energyText(*v);
        case EfficiencyColumn:
            return efficiencyText(*v);
        case VerdictColumn:
            return verdictText(*v);
        case EditColumn:
            return editVerdictText(v->number);
        case ChangesColumn:
            return v->changes;
        case MarksColumn:
            return marksText(*v);
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        if (index.column() == VerdictColumn && !v->error.isEmpty())
            return v->error;
        if (index.column() == MedianColumn && v->hasTiming())
            return tr("%1 samples, min %2, max %3 (%4)")
                .arg(v->timing.reps())
                .arg(formatDurationMs(v->timing.minMs), formatDurationMs(v->timing.maxMs),
                     v->device);
        if (index.column() == EnergyColumn && !energyText(*v).isEmpty())
            return tr("%1 average over the timed launches")
                .arg(versionFigure(SummaryHint::Power, v->timing.telemetry.averagePowerW()));
        // Why a run that had NVML has no figure ("too short to measure energy (…)").
        if (index.column() == EnergyColumn && v->timing.telemetry.available)
            return v->timing.telemetry.energyNote();
        if (index.column() == ChangesColumn)
            return v->changes;
        if (index.column() == EditColumn) {
            const Version* base = verdictBase(v->number);
            return base ? tr("Against version %1: %2")
                              .arg(base->number)
                              .arg(editVerdictText(v->number))
                        : tr("No earlier version ran and passed to compare with.");
        }
        if (index.column() == TimeColumn)
            return QLocale().toString(v->finishedAt, QLocale::LongFormat);
    }
    if (role == Qt::ForegroundRole && index.column() == VerdictColumn && !v->kept) {
        switch (v->verdict()) {
        case VersionVerdict::Passed:
            return {};
        case VersionVerdict::Cancelled:
            return QBrush(QColor(0x80, 0x80, 0x80));
        default:
            return QBrush(QColor(0xc0, 0x20, 0x20));
        }
    }
    if (role == Qt::TextAlignmentRole &&
        (index.column() == NumberColumn || index.column() == MedianColumn ||
         index.column() == EnergyColumn || index.column() == EfficiencyColumn))
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant VersionsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NumberColumn:
        return tr("#");
    case TimeColumn:
        return tr("Time");
    case KernelColumn:
        return tr("Kernel");
    case MedianColumn:
        return tr("Median");
    case EnergyColumn:
        return tr("Energy");
    case EfficiencyColumn:
        return tr("Per joule");
    case VerdictColumn:
        return tr("Verification");
    case EditColumn:
        return tr("Verdict");
    case ChangesColumn:
        return tr("What changed");
    case MarksColumn:
        return tr("Marks");
    default:
        return {};
    }
}

} // namespace kernelpad
