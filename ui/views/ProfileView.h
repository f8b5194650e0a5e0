#pragma once
// The Profile tab, the editor's profile margin and the roofline show the Workbench's profiles.
// Each profile is kept with its run (RunRecord::profile); the tab's list picks the run whose
// profile is shown, and the margin is marked stale, its markers following their lines, while
// the editor's source differs from the one that run profiled.

#include "ui/ResultView.h"

#include <QPointer>

namespace kernelpad {

class ProfileMargin;
class ProfilePanel;

class ProfileView : public ResultView {
    Q_OBJECT
public:
    explicit ProfileView(const ViewContext& context);
    [[nodiscard]] QWidget* widget() const override;

    void workbenchCleared(const Workbench&) override { forget(); }
    void historyCleared(const Workbench&) override { forget(); }
    void runFinished(const Workbench& workbench, const RunRecord& run) override;
    void profileFinished(const Workbench& workbench, const RunRecord* run) override;

private:
    void forget();
    void show(quint64 serial);
    /// The comparison of the shown profile with m_baseline's.
    void updateComparison(const QStringList& entries);
    void updateStale();
    /// Every profiled run as a point in order; the roofs of the newest profile's device.
    void updateRoofline(const Workbench& workbench);

    Workbench* m_workbench;
    ProfilePanel* m_panel;
    QPointer<ProfileMargin> m_margin;
    QVector<quint64> m_serials; ///< the profiled runs, oldest first, as the tab lists them
    quint64 m_shown = 0;        ///< the run whose profile is shown, 0 for none
    quint64 m_baseline = 0;     ///< the run it is compared with, 0 for none
};

} // namespace kernelpad
