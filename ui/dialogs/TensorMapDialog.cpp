#include "ui/dialogs/TensorMapDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <optional>

namespace kernelpad {
namespace {

/// Spin boxes reach past the driver's limits, so a value it refuses shows its rule.
constexpr int kSpinLimit = 1 << 20;

QSpinBox* mapSpin(QWidget* parent, const QString& name) {
    auto* box = new QSpinBox(parent);
    box->setRange(0, kSpinLimit);
    box->setObjectName(name);
    return box;
}

QComboBox* mapCombo(QWidget* parent, const QStringList& items, const char* name) {
    auto* box = new QComboBox(parent);
    box->addItems(items);
    box->setObjectName(QLatin1String(name));
    return box;
}

QLineEdit* mapLine(QWidget* parent, const QString& name) {
    auto* line = new QLineEdit(parent);
    line->setObjectName(name);
    return line;
}

/// "-1, 0" as whole numbers; nullopt when a part is not one.
std::optional<QVector<int>> parseCorner(const QString& text) {
    QVector<int> values;
    for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const int v = part.trimmed().toInt(&ok);
        if (!ok)
            return std::nullopt;
        values << v;
    }
    return values;
}

QString cornerText(const QVector<int>& values) {
    QStringList parts;
    for (int v : values)
        parts << QString::number(v);
    return parts.join(QStringLiteral(", "));
}

} // namespace

TensorMapDialog::TensorMapDialog(const QVector<ArgumentSpec>& arguments, int row, QWidget* parent)
    : QDialog(parent)
    , m_arguments(arguments)
    , m_row(row) {
    const ArgumentSpec& arg = m_arguments.at(row);
    setObjectName(QStringLiteral("tensorMapDialog"));
    setWindowTitle(tr("Tensor map '%1'").arg(arg.name));

    auto* form = new QFormLayout;
    m_buffer = new QComboBox(this);
    m_buffer->setObjectName(QStringLiteral("tensorMapBuffer"));
    m_buffer->setEditable(true); // a name that is no buffer yet stays as typed
    for (const ArgumentSpec& a : m_arguments)
        if (a.isBuffer())
            m_buffer->addItem(a.name);
    form->addRow(tr("Buffer"), m_buffer);
    m_mode = mapCombo(this, tensorMapModeNames(), "tensorMapMode");
    form->addRow(tr("Mode"), m_mode);
    m_rank = mapSpin(this, QStringLiteral("tensorMapRank"));
    m_rank->setRange(1, kTensorMapMaxRank);
    form->addRow(tr("Rank"), m_rank);

    auto* grid = new QGridLayout;
    const QStringList headings{tr("Dimension"), tr("Extent (elements)"), tr("Stride (bytes)"),
                               tr("Box"), tr("Element stride")};
    for (int c = 0; c < headings.size(); ++c)
        grid->addWidget(new QLabel(headings[c], this), 0, c);
    for (int i = 0; i < kTensorMapMaxRank; ++i) {
        const size_t d = size_t(i);
        m_dims[d] = mapLine(this, QStringLiteral("tensorMapDim%1").arg(i));
        m_strides[d] = mapLine(this, QStringLiteral("tensorMapStride%1").arg(i));
        m_box[d] = mapSpin(this, QStringLiteral("tensorMapBox%1").arg(i));
        m_elementStrides[d] = mapSpin(this, QStringLiteral("tensorMapElementStride%1").arg(i));
        grid->addWidget(new QLabel(QString::number(i), this), i + 1, 0);
        grid->addWidget(m_dims[d], i + 1, 1);
        grid->addWidget(m_strides[d], i + 1, 2);
        grid->addWidget(m_box[d], i + 1, 3);
        grid->addWidget(m_elementStrides[d], i + 1, 4);
    }
    m_strides[0]->setPlaceholderText(tr("contiguous"));
    form->addRow(grid);

    m_interleave = mapCombo(this, tensorMapInterleaveNames(), "tensorMapInterleave");
    m_swizzle = mapCombo(this, tensorMapSwizzleNames(), "tensorMapSwizzle");
    m_promotion = mapCombo(this, tensorMapL2PromotionNames(), "tensorMapL2Promotion");
    m_oobFill = mapCombo(this, tensorMapOobFillNames(), "tensorMapOobFill");
    form->addRow(tr("Interleave"), m_interleave);
    form->addRow(tr("Swizzle"), m_swizzle);
    form->addRow(tr("L2 promotion"), m_promotion);
    form->addRow(tr("Out-of-bounds fill"), m_oobFill);
    m_lowerCorner = mapLine(this, QStringLiteral("tensorMapLowerCorner"));
    m_upperCorner = mapLine(this, QStringLiteral("tensorMapUpperCorner"));
    m_channels = mapSpin(this, QStringLiteral("tensorMapChannelsPerPixel"));
    m_pixels = mapSpin(this, QStringLiteral("tensorMapPixelsPerColumn"));
    form->addRow(tr("Im2col lower corner"), m_lowerCorner);
    form->addRow(tr("Im2col upper corner"), m_upperCorner);
    form->addRow(tr("Channels per pixel"), m_channels);
    form->addRow(tr("Pixels per column"), m_pixels);

    m_problem = new QLabel(this);
    m_problem->setObjectName(QStringLiteral("tensorMapProblem"));
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("color: #b00020"));
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_problem);
    layout->addWidget(m_buttons);

    showSpec(arg.tensorMap);
    const auto changed = [this] { refresh(); };
    connect(m_buffer, &QComboBox::currentTextChanged, this, changed);
    for (QComboBox* box : {m_mode, m_interleave, m_swizzle, m_promotion, m_oobFill})
        connect(box, &QComboBox::currentIndexChanged, this, changed);
    for (QSpinBox* box : {m_rank, m_channels, m_pixels})
        connect(box, &QSpinBox::valueChanged, this, changed);
    for (size_t d = 0; d < m_dims.size(); ++d) {
        connect(m_dims[d], &QLineEdit::textChanged, this, changed);
        connect(m_strides[d], &QLineEdit::textChanged, this, changed);
        connect(m_box[d], &QSpinBox::valueChanged, this, changed);
        connect(m_elementStrides[d], &QSpinBox::valueChanged, this, changed);
    }
    for (QLineEdit* line : {m_lowerCorner, m_upperCorner})
        connect(line, &QLineEdit::textChanged, this, changed);
    refresh();
}

void TensorMapDialog::showSpec(const TensorMapSpec& spec) {
    m_buffer->setCurrentText(spec.buffer);
    m_mode->setCurrentIndex(int(spec.mode));
    m_rank->setValue(spec.rank());
    for (int i = 0; i < kTensorMapMaxRank; ++i) {
        const size_t d = size_t(i);
        m_dims[d]->setText(spec.globalDims.value(i, QStringLiteral("1")));
        m_strides[d]->setText(i > 0 ? spec.globalStrides.value(i - 1) : QString());
        m_box[d]->setValue(spec.boxDims.value(i, 1));
        m_elementStrides[d]->setValue(spec.elementStrides.value(i, 1));
    }
    m_interleave->setCurrentIndex(int(spec.interleave));
    m_swizzle->setCurrentIndex(int(spec.swizzle));
    m_promotion->setCurrentIndex(int(spec.l2Promotion));
    m_oobFill->setCurrentIndex(int(spec.oobFill));
    m_lowerCorner->setText(cornerText(spec.lowerCorner));
    m_upperCorner->setText(cornerText(spec.upperCorner));
    m_channels->setValue(spec.channelsPerPixel);
    m_pixels->setValue(spec.pixelsPerColumn);
}

ArgumentSpec TensorMapDialog::argument() const {
    ArgumentSpec arg = m_arguments.at(m_row);
    TensorMapSpec& s = arg.tensorMap;
    s.buffer = m_buffer->currentText().trimmed();
    s.mode = TensorMapMode(m_mode->currentIndex());
    s.globalDims.clear();
    s.globalStrides.clear();
    s.boxDims.clear();
    s.elementStrides.clear();
    for (int i = 0; i < m_rank->value(); ++i) {
        const size_t d = size_t(i);
        s.globalDims << m_dims[d]->text().trimmed();
        if (i > 0)
            s.globalStrides << m_strides[d]->text().trimmed();
        s.boxDims << m_box[d]->value();
        s.elementStrides << m_elementStrides[d]->value();
    }
    s.interleave = TensorMapInterleave(m_interleave->currentIndex());
    s.swizzle = TensorMapSwizzle(m_swizzle->currentIndex());
    s.l2Promotion = TensorMapL2Promotion(m_promotion->currentIndex());
    s.oobFill = TensorMapOobFill(m_oobFill->currentIndex());
    s.lowerCorner = parseCorner(m_lowerCorner->text()).value_or(QVector<int>{});
    s.upperCorner = parseCorner(m_upperCorner->text()).value_or(QVector<int>{});
    s.channelsPerPixel = m_channels->value();
    s.pixelsPerColumn = m_pixels->value();
    return arg;
}

QString TensorMapDialog::problem() const {
    const bool im2col = m_mode->currentIndex() == int(TensorMapMode::Im2col);
    for (QLineEdit* line : {m_lowerCorner, m_upperCorner})
        if (im2col && !parseCorner(line->text()))
            return tr("%1: '%2' is not a list of whole numbers separated by commas")
                .arg(line == m_lowerCorner ? QStringLiteral("lowerCorner")
                                           : QStringLiteral("upperCorner"),
                     line->text());
    QVector<ArgumentSpec> arguments = m_arguments;
    arguments[m_row] = argument();
    QString error;
    return resolveTensorMap(arguments[m_row], arguments, &error) ? QString() : error;
}

void TensorMapDialog::refresh() {
    const int rank = m_rank->value();
    const bool tiled = m_mode->currentIndex() == int(TensorMapMode::Tiled);
    for (int i = 0; i < kTensorMapMaxRank; ++i) {
        const size_t d = size_t(i);
        m_dims[d]->setEnabled(i < rank);
        m_strides[d]->setEnabled(i > 0 && i < rank);
        m_box[d]->setEnabled(tiled && i < rank);
        m_elementStrides[d]->setEnabled(i < rank);
    }
    for (QWidget* w :
         std::initializer_list<QWidget*>{m_lowerCorner, m_upperCorner, m_channels, m_pixels})
        w->setEnabled(!tiled);
    const QString why = problem();
    m_problem->setText(why);
    m_problem->setVisible(!why.isEmpty());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(why.isEmpty());
}

} // namespace kernelpad
