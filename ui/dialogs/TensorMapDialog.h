#pragma once
// Edits a tensorMap argument: the buffer it describes, mode, dims and strides (expressions
// over the scalars), box, element strides, interleave, swizzle, L2 promotion, out-of-bounds
// fill and im2col's corners; the map's problem against the project's arguments is shown as it
// is typed and OK waits until there is none. Fields past the rank keep what was typed.

#include "core/launch/ArgumentSpec.h"

#include <QDialog>
#include <QVector>

#include <array>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace kernelpad {

/// One form over ArgumentSpec::tensorMap of argument `row` of `arguments`.
class TensorMapDialog : public QDialog {
    Q_OBJECT
public:
    explicit TensorMapDialog(const QVector<ArgumentSpec>& arguments, int row,
                             QWidget* parent = nullptr);

    /// The argument with the form's settings.
    [[nodiscard]] ArgumentSpec argument() const;
    /// Why OK is disabled, naming the field; empty when the map can be encoded.
    [[nodiscard]] QString problem() const;

private:
    void showSpec(const TensorMapSpec& spec);
    void refresh();

    QVector<ArgumentSpec> m_arguments;
    int m_row = 0;
    QComboBox* m_buffer = nullptr;
    QComboBox* m_mode = nullptr;
    QSpinBox* m_rank = nullptr;
    std::array<QLineEdit*, kTensorMapMaxRank> m_dims{};
    std::array<QLineEdit*, kTensorMapMaxRank> m_strides{}; ///< [0] unused: dim 0 is contiguous
    std::array<QSpinBox*, kTensorMapMaxRank> m_box{};
    std::array<QSpinBox*, kTensorMapMaxRank> m_elementStrides{};
    QComboBox* m_interleave = nullptr;
    QComboBox* m_swizzle = nullptr;
    QComboBox* m_promotion = nullptr;
    QComboBox* m_oobFill = nullptr;
    QLineEdit* m_lowerCorner = nullptr;
    QLineEdit* m_upperCorner = nullptr;
    QSpinBox* m_channels = nullptr;
    QSpinBox* m_pixels = nullptr;
    QLabel* m_problem = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
};

} // namespace kernelpad
