#pragma once
// Picks the CUDA device to compile for and run on, listing every attribute of each.

#include "core/cuda/DeviceInfo.h"
#include "core/engine/Runners.h"

#include <QDialog>

class QComboBox;
class QLabel;
class QTableWidget;

namespace kernelpad {

/// A device selector above a two-column table of the selected device's attributes
/// (DeviceInfo::describe()); without a driver it says why and lists nothing.
class DeviceDialog : public QDialog {
    Q_OBJECT
public:
    DeviceDialog(const QVector<DeviceInfo>& devices, int currentIndex, const QString& driverError,
                 QWidget* parent = nullptr);

    /// Names each device after the runner it belongs to ("gpu-box: NVIDIA H100 80GB HBM3,
    /// sm_90") when that runner is not this computer's.
    void setRunner(const RunnerSpec& runner);
    /// Index into the device list of the chosen device, -1 when there is none.
    [[nodiscard]] int selectedIndex() const;
    /// The attribute rows currently shown, for tests.
    [[nodiscard]] int attributeCount() const;

private:
    void showDevice(int index);

    QVector<DeviceInfo> m_devices;
    QComboBox* m_selector;
    QTableWidget* m_table;
    QLabel* m_message;
};

} // namespace kernelpad
