#pragma once
// Grid, block, dynamic shared memory and timing settings of a launch, checked live against
// the device's and the kernel's limits.

#include "core/launch/LaunchValidation.h"
#include "core/run/Timing.h"

#include <QWidget>

#include <array>
#include <optional>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace kernelpad {

/// Edits a LaunchConfig and a TimingSpec. Child object names (for tests and styling):
/// gridX/Y/Z, blockX/Y/Z, sharedBytes, coverCount, coverButton, totalThreads, problemLabel,
/// timingMode, warmup, repetitions, adaptive, targetNoise, maxTimeMs, timeLimitMs,
/// bytesPerLaunch, flopsPerLaunch.
class LaunchPanel : public QWidget {
    Q_OBJECT
public:
    explicit LaunchPanel(QWidget* parent = nullptr);

    void setConfig(const LaunchConfig& config);
    [[nodiscard]] LaunchConfig config() const;
    void setLimits(const LaunchLimits& limits);
    /// The N of the "cover N elements" helper (e.g. the first buffer's element count).
    void setCoverCount(qint64 elements);
    /// The arguments a count expression in the cover field may name ("n", "n/2", "rows*cols").
    void setCoverArguments(const QVector<ArgumentSpec>& arguments);
    /// The cover field's value: a number or an expression over integer scalars; nothing, with
    /// `*error`, when it does not resolve.
    [[nodiscard]] std::optional<qint64> coverCount(QString* error = nullptr) const;
    /// Empty when the configuration can be launched, else why not.
    [[nodiscard]] QString problem() const;
    void setTiming(const TimingSpec& timing);
    [[nodiscard]] TimingSpec timing() const;

signals:
    void changed();

private:
    /// The grid and block sizes, the refusal below them, shared memory and the cover helper.
    [[nodiscard]] QWidget* createLaunchBox();
    /// How the run is timed: mode, warm-up, repetitions, adaptive stop, limits.
    [[nodiscard]] QWidget* createTimingBox();
    /// Scrolls the scroll area around the panel (the Launch dock) to the refusal.
    void revealProblem();
    void coverElements();
    void updateSummary();
    void onEdited();
    void updateTimingEnabled();

    LaunchLimits m_limits = genericLaunchLimits();
    TimingSpec m_timing; ///< keeps the fields this panel does not show
    bool m_updating = false;
    std::array<QSpinBox*, 3> m_grid{};
    std::array<QSpinBox*, 3> m_block{};
    QSpinBox* m_shared = nullptr;
    QLineEdit* m_coverCount = nullptr;
    QVector<ArgumentSpec> m_coverArguments; ///< what a count expression may name
    QPushButton* m_coverButton = nullptr;
    QLabel* m_totalThreads = nullptr;
    QLabel* m_problem = nullptr;
    QComboBox* m_mode = nullptr;
    QCheckBox* m_adaptive = nullptr;
    QCheckBox* m_blocking = nullptr;
    QDoubleSpinBox* m_targetNoise = nullptr; ///< percent, TimingSpec keeps a fraction
    QSpinBox* m_maxTime = nullptr;
    QSpinBox* m_warmup = nullptr;
    QSpinBox* m_repetitions = nullptr;
    QSpinBox* m_timeLimit = nullptr;
    QLineEdit* m_bytesOverride = nullptr;
    QLineEdit* m_flops = nullptr;
};

} // namespace kernelpad
