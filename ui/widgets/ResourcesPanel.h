#pragma once
// What the driver says about the compiled kernel: registers, memory, limits and occupancy.

#include "core/cuda/DeviceInfo.h"
#include "core/launch/ArgumentSpec.h"
#include "core/run/RunTypes.h"

#include <QHash>
#include <QWidget>

class QFormLayout;
class QLabel;

namespace kernelpad {

/// A form of the kernel's resources and its theoretical occupancy at the chosen block.
class ResourcesPanel : public QWidget {
    Q_OBJECT
public:
    explicit ResourcesPanel(QWidget* parent = nullptr);

    void showResources(const QString& kernel, const KernelResources& resources,
                       const DeviceInfo& device, const LaunchConfig& launch);
    void clear();
    /// The text shown for the row `label` ("Registers per thread"), for tests.
    [[nodiscard]] QString valueText(const QString& label) const;

private:
    void setRow(const QString& label, const QString& value, const QString& toolTip = {});

    QLabel* m_title = nullptr;
    QFormLayout* m_form = nullptr;
    QHash<QString, QLabel*> m_values; ///< row label -> value label
};

} // namespace kernelpad
