#pragma once
// NVRTC options of the project: arch, C++ standard, math flags, debug info, registers,
// defines and include directories.

#include "core/compile/ProgramOptions.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QSpinBox;

namespace kernelpad {

/// Edits a ProgramOptions; unset fields stay unset (only what the user sets becomes a flag).
class CompileOptionsPanel : public QWidget {
    Q_OBJECT
public:
    explicit CompileOptionsPanel(QWidget* parent = nullptr);

    void setOptions(const ProgramOptions& options);
    [[nodiscard]] ProgramOptions options() const;
    /// The current device's arch, shown in the "device default" entry.
    void setDeviceArch(const QString& arch);

signals:
    void changed();

private:
    void emitChanged();

    ProgramOptions m_loaded; ///< what setOptions() gave: keeps explicit "false" values
    QString m_deviceArch;
    bool m_updating = false;
    QComboBox* m_arch = nullptr;
    QComboBox* m_std = nullptr;
    QCheckBox* m_fastMath = nullptr;
    QComboBox* m_fmad = nullptr;
    QCheckBox* m_lineInfo = nullptr;
    QCheckBox* m_deviceDebug = nullptr;
    QSpinBox* m_maxRegisters = nullptr;
    QLineEdit* m_defines = nullptr;
    QLineEdit* m_includeDirs = nullptr;
    QLineEdit* m_extraFlags = nullptr;
};

} // namespace kernelpad
