#include "ui/dialogs/TextureDialog.h"

#include "core/launch/TextureArgument.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <limits>

namespace kernelpad {
namespace {

const ScalarType kChannelTypes[] = {ScalarType::Float32, ScalarType::Float16, ScalarType::Int8,
                                    ScalarType::UInt8,   ScalarType::Int16,   ScalarType::UInt16,
                                    ScalarType::Int32,   ScalarType::UInt32};
const int kChannelCounts[] = {1, 2, 4};
const TextureFilter kFilters[] = {TextureFilter::Point, TextureFilter::Linear};
const TextureAddress kAddresses[] = {TextureAddress::Wrap, TextureAddress::Clamp,
                                     TextureAddress::Mirror, TextureAddress::Border};
const TextureReadMode kReadModes[] = {TextureReadMode::Element, TextureReadMode::NormalizedFloat};

QSpinBox* extentBox(QWidget* parent, int minimum, const char* name) {
    auto* box = new QSpinBox(parent);
    box->setRange(minimum, std::numeric_limits<int>::max());
    box->setObjectName(QLatin1String(name));
    if (minimum == 0)
        box->setSpecialValueText(QObject::tr("none"));
    return box;
}

QComboBox* combo(QWidget* parent, const QStringList& items, const char* name) {
    auto* box = new QComboBox(parent);
    box->addItems(items);
    box->setObjectName(QLatin1String(name));
    return box;
}

template <typename T, size_t N> int indexOf(const T (&values)[N], T value) {
    for (size_t i = 0; i < N; ++i)
        if (values[i] == value)
            return int(i);
    return 0;
}

} // namespace

TextureDialog::TextureDialog(const ArgumentSpec& arg, QWidget* parent)
    : QDialog(parent)
    , m_arg(arg)
    , m_surface(arg.kind == ArgumentSpec::Kind::Surface) {
    setObjectName(QStringLiteral("textureDialog"));
    setWindowTitle(m_surface ? tr("Surface '%1'").arg(arg.name) : tr("Texture '%1'").arg(arg.name));

    auto* form = new QFormLayout;
    auto* dims = new QHBoxLayout;
    m_dims = {extentBox(this, 1, "textureWidth"), extentBox(this, 0, "textureHeight"),
              extentBox(this, 0, "textureDepth")};
    for (QSpinBox* box : m_dims)
        dims->addWidget(box);
    form->addRow(tr("Width, height, depth"), dims);
    m_layers = extentBox(this, 0, "textureLayers");
    m_layers->setToolTip(tr("none: not layered; n: a layered array of n layers"));
    form->addRow(tr("Layers"), m_layers);
    m_cubemap = new QCheckBox(tr("Cubemap (6 square faces)"), this);
    m_cubemap->setObjectName(QStringLiteral("textureCubemap"));
    form->addRow(QString(), m_cubemap);

    QStringList types;
    for (ScalarType t : kChannelTypes)
        types << QLatin1String(scalarTypeInfo(t).numpyName);
    m_channelType = combo(this, types, "textureChannelType");
    m_channels = combo(this, {QStringLiteral("1"), QStringLiteral("2"), QStringLiteral("4")},
                       "textureChannels");
    auto* format = new QHBoxLayout;
    format->addWidget(m_channels);
    format->addWidget(new QLabel(QStringLiteral("×"), this));
    format->addWidget(m_channelType, 1);
    form->addRow(tr("Channels × type"), format);

    QStringList filters, addresses, readModes;
    for (TextureFilter f : kFilters)
        filters << textureFilterName(f);
    for (TextureAddress a : kAddresses)
        addresses << textureAddressName(a);
    for (TextureReadMode m : kReadModes)
        readModes << textureReadModeName(m);
    m_filter = combo(this, filters, "textureFilter");
    form->addRow(tr("Filter"), m_filter);
    auto* address = new QHBoxLayout;
    m_address = {combo(this, addresses, "textureAddressX"),
                 combo(this, addresses, "textureAddressY"),
                 combo(this, addresses, "textureAddressZ")};
    for (QComboBox* box : m_address)
        address->addWidget(box);
    form->addRow(tr("Address x, y, z"), address);
    m_normalized = new QCheckBox(tr("Normalized coordinates [0, 1)"), this);
    m_normalized->setObjectName(QStringLiteral("textureNormalized"));
    form->addRow(QString(), m_normalized);
    m_readMode = combo(this, readModes, "textureReadMode");
    form->addRow(tr("Read mode"), m_readMode);
    // A surface is read and written by coordinates: the sampler does not apply.
    for (QWidget* w : std::initializer_list<QWidget*>{m_filter, m_address[0], m_address[1],
                                                      m_address[2], m_normalized, m_readMode})
        w->setEnabled(!m_surface);

    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("textureSummary"));
    m_problem = new QLabel(this);
    m_problem->setObjectName(QStringLiteral("textureProblem"));
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("color: #b00020"));
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_summary);
    layout->addWidget(m_problem);
    layout->addWidget(m_buttons);

    showSpec(arg.texture);
    const auto changed = [this] { refresh(); };
    for (QSpinBox* box : {m_dims[0], m_dims[1], m_dims[2], m_layers})
        connect(box, &QSpinBox::valueChanged, this, changed);
    for (QComboBox* box : {m_channelType, m_channels, m_filter, m_address[0], m_address[1],
                           m_address[2], m_readMode})
        connect(box, &QComboBox::currentIndexChanged, this, changed);
    for (QCheckBox* box : {m_cubemap, m_normalized})
        connect(box, &QCheckBox::toggled, this, changed);
    refresh();
}

void TextureDialog::showSpec(const TextureSpec& spec) {
    for (size_t i = 0; i < m_dims.size(); ++i)
        m_dims[i]->setValue(int(std::min<qint64>(spec.dims[i], std::numeric_limits<int>::max())));
    m_layers->setValue(spec.layers);
    m_cubemap->setChecked(spec.cubemap);
    m_channelType->setCurrentIndex(indexOf(kChannelTypes, spec.channelType));
    m_channels->setCurrentIndex(indexOf(kChannelCounts, spec.channels));
    m_filter->setCurrentIndex(indexOf(kFilters, spec.filter));
    for (size_t i = 0; i < m_address.size(); ++i)
        m_address[i]->setCurrentIndex(indexOf(kAddresses, spec.address[i]));
    m_normalized->setChecked(spec.normalizedCoords);
    m_readMode->setCurrentIndex(indexOf(kReadModes, spec.readMode));
}

TextureSpec TextureDialog::spec() const {
    TextureSpec s = m_arg.texture;
    for (size_t i = 0; i < m_dims.size(); ++i)
        s.dims[i] = m_dims[i]->value();
    s.layers = m_layers->value();
    s.cubemap = m_cubemap->isChecked();
    s.channelType = kChannelTypes[m_channelType->currentIndex()];
    s.channels = kChannelCounts[m_channels->currentIndex()];
    if (!m_surface) {
        s.filter = kFilters[m_filter->currentIndex()];
        for (size_t i = 0; i < m_address.size(); ++i)
            s.address[i] = kAddresses[m_address[i]->currentIndex()];
        s.normalizedCoords = m_normalized->isChecked();
        s.readMode = kReadModes[m_readMode->currentIndex()];
    }
    return s;
}

ArgumentSpec TextureDialog::argument() const {
    ArgumentSpec arg = m_arg;
    arg.texture = spec();
    syncTextureContents(arg);
    return arg;
}

QString TextureDialog::problem() const {
    return textureArgumentProblem(argument());
}

void TextureDialog::refresh() {
    // Depth only follows a height: TextureSpec's extents are leading ones.
    m_dims[2]->setEnabled(m_dims[1]->value() > 0 || m_dims[2]->value() > 0);
    const ArgumentSpec arg = argument();
    m_summary->setText(tr("%1: a %2 array of %3 texels, %4 values")
                           .arg(arg.texture.extentText(), arrayShapeName(arg.texture.shape()),
                                arg.texture.formatName())
                           .arg(arg.texture.elementCount()));
    const QString why = problem();
    m_problem->setText(why);
    m_problem->setVisible(!why.isEmpty());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(why.isEmpty());
}

} // namespace kernelpad
