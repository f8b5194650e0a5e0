#pragma once
// The Versions timeline as a table: one row per run of the project, newest first.

#include "core/engine/EditVerdict.h"
#include "core/run/VersionHistory.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QVector>

#include <functional>

namespace kernelpad {

/// Rows are the versions newest first (row 0 is the latest run); the columns are the number,
/// the time, the kernel, the median, the energy per launch and what it bought (GB/J, GFLOP/J),
/// the verification verdict, the edit's verdict against the version before it (EditVerdict.h),
/// what changed and the marks (memcheck, profiled, kept). UserRole of any cell is the version's
/// number.
class VersionsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        NumberColumn,
        TimeColumn,
        KernelColumn,
        MedianColumn,
        EnergyColumn,     ///< NVML's energy per launch; empty when the run had none
        EfficiencyColumn, ///< GB/J and GFLOP/J where bytes or FLOPs per launch are known
        VerdictColumn,
        EditColumn, ///< "1.8 % slower (significant): 2 more registers → ..." against the last run
        ChangesColumn,
        MarksColumn,
        ColumnCount
    };

    explicit VersionsModel(QObject* parent = nullptr);

    void setVersions(const QVector<Version>& versions);
    void append(const Version& version);
    /// Replaces the version with the same number (a profile arrived); false when none has it.
    bool update(const Version& version);
    /// Version `number`'s kernel was disassembled: its opcode counts join its verdict and that
    /// of each version compared with it, whose cells are made again (dataChanged). False when
    /// no version has that number.
    bool setSassOpcodes(int number, const QMap<QString, int>& counts);
    void clear();

    /// Oldest first, as kept.
    [[nodiscard]] const QVector<Version>& versions() const { return m_versions; }
    [[nodiscard]] const Version* find(int number) const;
    /// The row showing version `number`, or -1.
    [[nodiscard]] int rowOf(int number) const;
    [[nodiscard]] const Version* at(int row) const;
    [[nodiscard]] int nextNumber() const;

    /// Adds what a version's record holds beside the version (its profile, while this window
    /// still keeps its run) to its side of a verdict; called during editVerdictOf() only.
    using SideExtras = std::function<void(const Version& version, VerdictSide* side)>;
    void setSideExtras(SideExtras extras);
    /// The version the Verdict column compares `number` with: the newest older one that ran
    /// and passed; null when none did, or `number` itself did not.
    [[nodiscard]] const Version* verdictBase(int number) const;
    /// What a version gives to a verdict by itself: its timing, resources and SASS opcodes
    /// when it ran and passed, nothing otherwise (a failure is never called faster).
    [[nodiscard]] static VerdictSide verdictSideOf(const Version& version);
    /// `after` against `before` in one sentence (EditVerdict.h).
    [[nodiscard]] EditVerdict editVerdictOf(const Version& before, const Version& after) const;
    /// The Verdict column's sentence for `number`, empty without a base (kept across paints:
    /// each is a bootstrap of two runs' samples).
    [[nodiscard]] QString editVerdictText(int number) const;

    /// "passed", "failed: 1 of 2 buffers", "fault", "error: ...": the verdict column's text.
    [[nodiscard]] static QString verdictText(const Version& version);
    /// "1.23 mJ", "845 µJ": the energy per launch; empty when the run measured none (no NVML,
    /// too short, or a version recorded before energy was).
    [[nodiscard]] static QString energyText(const Version& version);
    /// "8.12 GB/J", "1.52 GFLOP/J" or both, from the energy and the bytes and FLOPs per launch;
    /// empty without energy or without either count.
    [[nodiscard]] static QString efficiencyText(const Version& version);
    /// "memcheck: 2 errors", "profiled", "kept before restore", joined by ", ".
    [[nodiscard]] static QString marksText(const Version& version);

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role) const override;

private:
    QVector<Version> m_versions; ///< oldest first
    SideExtras m_extras;
    mutable QHash<int, QString> m_editVerdicts; ///< editVerdictText() by version number
};

} // namespace kernelpad
