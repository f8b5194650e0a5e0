#pragma once
// Edits the array and sampler of a texture or surface argument: dims, layers, cubemap,
// channel format, filter, address modes, coordinates and read mode; the argument's problem
// is shown as it is typed and OK waits until there is none.

#include "core/launch/ArgumentSpec.h"

#include <QDialog>

#include <array>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QSpinBox;

namespace kernelpad {

/// One form over ArgumentSpec::texture; the contents (init, direction, verify) stay in the
/// argument table's own cells.
class TextureDialog : public QDialog {
    Q_OBJECT
public:
    /// `arg` must be a texture or surface argument; a surface shows no sampler settings.
    explicit TextureDialog(const ArgumentSpec& arg, QWidget* parent = nullptr);

    /// The argument with the form's settings, its contents' type and count following them.
    [[nodiscard]] ArgumentSpec argument() const;
    /// Why OK is disabled, naming the field; empty when the settings can be used.
    [[nodiscard]] QString problem() const;

private:
    void showSpec(const TextureSpec& spec);
    [[nodiscard]] TextureSpec spec() const;
    void refresh();

    ArgumentSpec m_arg;
    bool m_surface = false;
    std::array<QSpinBox*, 3> m_dims{};
    QSpinBox* m_layers = nullptr;
    QCheckBox* m_cubemap = nullptr;
    QComboBox* m_channelType = nullptr;
    QComboBox* m_channels = nullptr;
    QComboBox* m_filter = nullptr;
    std::array<QComboBox*, 3> m_address{};
    QCheckBox* m_normalized = nullptr;
    QComboBox* m_readMode = nullptr;
    QLabel* m_summary = nullptr;
    QLabel* m_problem = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
};

} // namespace kernelpad
