#pragma once
// NVRTC options of the project: arch, C++ standard, math flags, debug info, registers,
// defines and include directories.

#include "core/compile/ProgramOptions.h"
#include "core/compile/SourceLanguage.h"

#include <QVector>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QFormLayout;
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
    /// The project's source language: options the compiler of a PTX or NVVM IR source
    /// ignores (the C++ standard, defines, include dirs, extra flags; for PTX also the math
    /// flags) are greyed with a tooltip saying why. Their values are kept, not cleared.
    void setLanguage(SourceLanguage language);
    /// Whether the option edited by the child named `objectName` applies to the language.
    [[nodiscard]] bool isOptionLive(const QString& objectName) const;

signals:
    void changed();

private:
    void emitChanged();

    /// The option's field and its tooltip when live.
    struct LanguageBound {
        QWidget* field;
        QString liveToolTip;
        bool cudaOnly; ///< false: also live for NVVM IR (math flags, which libNVVM takes)
    };

    ProgramOptions m_loaded;
    SourceLanguage m_language = SourceLanguage::Cuda;
    QFormLayout* m_form = nullptr;
    QVector<LanguageBound>
        m_languageBound; ///< what setOptions() gave: keeps explicit "false" values
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
