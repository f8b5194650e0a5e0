#pragma once
// What the driver says about the compiled kernel: registers, memory, limits and occupancy;
// without a driver, what the compile itself knows.

#include "core/compile/CompileResult.h"
#include "core/cuda/DeviceInfo.h"
#include "core/launch/ArgumentSpec.h"
#include "core/run/RunTypes.h"

#include <QHash>
#include <QWidget>

class QFormLayout;
class QLabel;

namespace kernelpad {

/// A form of the kernel's resources and its theoretical occupancy at the chosen block.
/// Child object names: resourcesTitle, driverNote.
class ResourcesPanel : public QWidget {
    Q_OBJECT
public:
    explicit ResourcesPanel(QWidget* parent = nullptr);

    /// The driver's figures for the loaded kernel on `device`.
    void showResources(const QString& kernel, const KernelResources& resources,
                       const DeviceInfo& device, const LaunchConfig& launch);
    /// Without a driver: what `result` knows about `kernel` (a name or name expression of
    /// the compile) from its PTX and, with -Xptxas -v, ptxas's report in the log, and a note
    /// of what only the driver adds.
    void showCompileInfo(const CompileResult& result, const QString& kernel);
    void clear();
    /// The text shown for the row `label` ("Registers per thread"), for tests.
    [[nodiscard]] QString valueText(const QString& label) const;

private:
    void setRow(const QString& label, const QString& value, const QString& toolTip = {});

    QLabel* m_title = nullptr;
    QLabel* m_driverNote = nullptr; ///< what only the driver adds, under compile-only figures
    QFormLayout* m_form = nullptr;
    QHash<QString, QLabel*> m_values; ///< row label -> value label
};

} // namespace kernelpad
