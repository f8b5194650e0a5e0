#pragma once
// The runners part of Edit ▸ Preferences: this computer (always there, first) and runners
// elsewhere (ssh hosts, commands such as a Slurm srun), which one kernels run in, and a test
// of the selected one that shows the devices it found or why it could not be reached.

#include "core/cuda/DeviceInfo.h"
#include "core/engine/Runners.h"

#include <QGroupBox>
#include <QVector>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace kernelpad {

class RunnerProbe;

/// Child object names: runnerChoice, runnerList, newRunner, newRunnerName, addRunner,
/// removeRunner, testRunner, runnerStatus; the selected runner's limits: runnerHelloLimit
/// (seconds; empty: the kind's default) and runnerKeepLimit (MiB of a streamed output kept on
/// the runner; empty: 64).
class RunnersEditor : public QGroupBox {
    Q_OBJECT
public:
    explicit RunnersEditor(QWidget* parent = nullptr);

    void setRunners(const QVector<RunnerSpec>& runners, const QString& chosen);
    [[nodiscard]] const QVector<RunnerSpec>& runners() const { return m_runners; }
    /// The chosen runner's display name; empty: this computer.
    [[nodiscard]] QString chosen() const;
    /// What the status line says now (the last error or test).
    [[nodiscard]] QString status() const;

    /// One device as the Device menu names it: "gpu-box: NVIDIA H100 80GB HBM3, sm_90".
    [[nodiscard]] static QString deviceLabel(const RunnerSpec& runner, const DeviceInfo& device);

    /// Adds a runner from the CLI syntax (ssh:..., cmd:...) under `name` (empty: its host or
    /// command); false with the reason on the status line.
    bool addRunner(const QString& text, const QString& name);
    void removeSelected();
    /// Starts the selected runner and asks for its devices; the answer arrives on the status
    /// line (the window never waits for it).
    void testSelected();
    /// Reads the limit fields into the selected runner; false with the reason, naming the
    /// field, on the status line (the runner keeps its limits then). Called when either field
    /// is left.
    bool applyLimits();

signals:
    /// A test has answered (the status line says how).
    void tested();

private:
    void refill(const QString& chosen);
    void showStatus(const QString& text);
    void showLimits(int row);

    QVector<RunnerSpec> m_runners;
    QComboBox* m_choice;
    QListWidget* m_list;
    QLineEdit* m_newSpec;
    QLineEdit* m_newName;
    QPushButton* m_add;
    QPushButton* m_remove;
    QPushButton* m_test;
    QLineEdit* m_helloLimit;
    QLineEdit* m_keepLimit;
    QLabel* m_status;
    RunnerProbe* m_probe = nullptr; ///< asks the runner under test, a child
    RunnerSpec m_testing;           ///< the runner under test
};

} // namespace kernelpad
