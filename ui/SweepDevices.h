#pragma once
// The devices behind each choice of the Sweep dock's "Devices:": the chosen
// device on the chosen runner (the Workbench's), every device of this computer, and every device
// of every runner in Preferences, found by the Engine's RunnerProbe when a choice needs them and
// again when the runners change. Never waits for a runner: the panel shows "asking…" meanwhile.

#include "core/engine/Runners.h"
#include "ui/widgets/SweepPanel.h"

#include <QObject>
#include <QPointer>
#include <QVector>

namespace kernelpad {

class RunnerProbe;

class SweepDevices : public QObject {
    Q_OBJECT
public:
    /// Feeds `panel` (its child, gone with it).
    explicit SweepDevices(SweepPanel* panel);

    /// The runner kernels run on and the device chosen there (`name` empty while unknown).
    void setChosen(const RunnerSpec& runner, int device, const QString& name);
    /// Preferences' runners besides this computer; the devices are asked again when the
    /// panel's choice needs them.
    void setRunners(const QVector<RunnerSpec>& runners);
    /// Asks every runner for its devices now if the panel's choice needs them and they are not
    /// known for the current runners.
    void refresh();
    /// Whether the runners are being asked.
    [[nodiscard]] bool isAsking() const;

signals:
    /// The runners answered and the panel has their devices.
    void surveyed();

private:
    void onSurveyed();

    QPointer<SweepPanel> m_panel;
    RunnerProbe* m_survey;
    QVector<RunnerSpec> m_runners;
    bool m_known = false; ///< the survey answered for m_runners
};

} // namespace kernelpad
