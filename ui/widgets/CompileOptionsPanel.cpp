#include "ui/widgets/CompileOptionsPanel.h"

#include "core/compile/NvrtcFlags.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSpinBox>

namespace kernelpad {

namespace {

/// Archs NVRTC 13 compiles for (Turing and later); the combo stays editable for others.
const QStringList& knownArchs() {
    static const QStringList archs{
        QStringLiteral("sm_75"),  QStringLiteral("sm_80"),  QStringLiteral("sm_86"),
        QStringLiteral("sm_87"),  QStringLiteral("sm_89"),  QStringLiteral("sm_90"),
        QStringLiteral("sm_90a"), QStringLiteral("sm_100"), QStringLiteral("sm_100a"),
        QStringLiteral("sm_103"), QStringLiteral("sm_120"), QStringLiteral("compute_90"),
    };
    return archs;
}

/// The largest --maxrregcount NVRTC accepts (255 registers per thread on every arch).
constexpr int kMaxRegistersPerThread = 255;

/// An explicit `false` the user loaded stays `false`; otherwise unchecked means "unset".
std::optional<bool> boolOption(const QCheckBox* box, const std::optional<bool>& loaded) {
    if (box->isChecked())
        return true;
    return loaded == false ? std::optional<bool>(false) : std::nullopt;
}

QStringList splitOn(const QString& text, const QRegularExpression& separator) {
    QStringList parts;
    for (const QString& p : text.split(separator, Qt::SkipEmptyParts)) {
        if (!p.trimmed().isEmpty())
            parts << p.trimmed();
    }
    return parts;
}

} // namespace

CompileOptionsPanel::CompileOptionsPanel(QWidget* parent)
    : QWidget(parent)
    , m_deviceArch(QString::fromLatin1(kDefaultArch)) {
    m_arch = new QComboBox(this);
    m_arch->setObjectName(QStringLiteral("arch"));
    m_arch->setEditable(true);
    m_arch->setInsertPolicy(QComboBox::NoInsert);
    m_arch->addItem(QString());
    m_arch->addItems(knownArchs());
    m_arch->setToolTip(tr("-arch: the GPU architecture to compile for (sm_XY compiles to a "
                          "binary, compute_XY to PTX only)"));

    m_std = new QComboBox(this);
    m_std->setObjectName(QStringLiteral("cppStandard"));
    m_std->addItem(tr("compiler default"), QString());
    for (const char* s : {"c++11", "c++14", "c++17", "c++20"})
        m_std->addItem(QString::fromLatin1(s), QString::fromLatin1(s));

    m_fastMath = new QCheckBox(tr("--use_fast_math"), this);
    m_fastMath->setObjectName(QStringLiteral("fastMath"));
    m_fastMath->setToolTip(tr("Fast, less accurate intrinsics; flushes denormals to zero"));
    m_fmad = new QComboBox(this);
    m_fmad->setObjectName(QStringLiteral("fmad"));
    m_fmad->addItem(tr("default (on)"));
    m_fmad->addItem(tr("on"));
    m_fmad->addItem(tr("off"));
    m_fmad->setToolTip(tr("--fmad: contract a*b+c into fused multiply-adds"));
    m_lineInfo = new QCheckBox(tr("-lineinfo"), this);
    m_lineInfo->setObjectName(QStringLiteral("lineInfo"));
    m_deviceDebug = new QCheckBox(tr("-G (device debug, slow)"), this);
    m_deviceDebug->setObjectName(QStringLiteral("deviceDebug"));

    m_maxRegisters = new QSpinBox(this);
    m_maxRegisters->setObjectName(QStringLiteral("maxRegisters"));
    m_maxRegisters->setRange(0, kMaxRegistersPerThread);
    m_maxRegisters->setSpecialValueText(tr("unset"));
    m_maxRegisters->setToolTip(tr("--maxrregcount: cap on registers per thread (0 = no cap)"));

    m_defines = new QLineEdit(this);
    m_defines->setObjectName(QStringLiteral("defines"));
    m_defines->setPlaceholderText(tr("N=256 USE_FAST (space-separated)"));
    m_includeDirs = new QLineEdit(this);
    m_includeDirs->setObjectName(QStringLiteral("includeDirs"));
    m_includeDirs->setPlaceholderText(tr("include;../common (semicolon-separated)"));
    m_extraFlags = new QLineEdit(this);
    m_extraFlags->setObjectName(QStringLiteral("extraFlags"));
    // Only flags that read and write no files pass; a refused one fails the compile with a
    // diagnostic naming it, and the text stays here to be fixed.
    m_extraFlags->setPlaceholderText(tr("-Xptxas -v --restrict ... (space-separated)"));
    m_extraFlags->setToolTip(
        tr("Further NVRTC flags; only those that read and write no files are accepted (%1)")
            .arg(allowedExtraFlagsSummary()));

    auto* flags = new QHBoxLayout;
    flags->addWidget(m_fastMath);
    flags->addWidget(m_lineInfo);
    flags->addWidget(m_deviceDebug);
    flags->addStretch();

    auto* form = new QFormLayout(this);
    m_form = form;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(tr("Architecture"), m_arch);
    form->addRow(tr("C++ standard"), m_std);
    form->addRow(tr("FMA contraction"), m_fmad);
    form->addRow(tr("Flags"), flags);
    form->addRow(tr("Max registers"), m_maxRegisters);
    form->addRow(tr("Defines"), m_defines);
    form->addRow(tr("Include dirs"), m_includeDirs);
    form->addRow(tr("Extra flags"), m_extraFlags);

    setDeviceArch(m_deviceArch);
    // What the PTX assembler and libNVVM ignore (core ignoredOptions()).
    for (QWidget* field :
         {static_cast<QWidget*>(m_std), static_cast<QWidget*>(m_defines),
          static_cast<QWidget*>(m_includeDirs), static_cast<QWidget*>(m_extraFlags)})
        m_languageBound.append({field, field->toolTip(), true});
    for (QWidget* field : {static_cast<QWidget*>(m_fastMath), static_cast<QWidget*>(m_fmad)})
        m_languageBound.append({field, field->toolTip(), false});

    connect(m_arch, &QComboBox::currentTextChanged, this, &CompileOptionsPanel::emitChanged);
    connect(m_std, &QComboBox::currentIndexChanged, this, &CompileOptionsPanel::emitChanged);
    connect(m_fmad, &QComboBox::currentIndexChanged, this, &CompileOptionsPanel::emitChanged);
    for (QCheckBox* box : {m_fastMath, m_lineInfo, m_deviceDebug})
        connect(box, &QCheckBox::toggled, this, &CompileOptionsPanel::emitChanged);
    connect(m_maxRegisters, &QSpinBox::valueChanged, this, &CompileOptionsPanel::emitChanged);
    for (QLineEdit* edit : {m_defines, m_includeDirs, m_extraFlags})
        connect(edit, &QLineEdit::textEdited, this, &CompileOptionsPanel::emitChanged);
}

void CompileOptionsPanel::emitChanged() {
    if (!m_updating)
        emit changed();
}

void CompileOptionsPanel::setDeviceArch(const QString& arch) {
    m_deviceArch = arch.isEmpty() ? QString::fromLatin1(kDefaultArch) : arch;
    const bool wasDefault = m_arch->currentIndex() == 0;
    m_updating = true;
    m_arch->setItemText(0, tr("device default (%1)").arg(m_deviceArch));
    if (wasDefault)
        m_arch->setCurrentIndex(0);
    m_updating = false;
}

void CompileOptionsPanel::setLanguage(SourceLanguage language) {
    m_language = language;
    for (const LanguageBound& bound : std::as_const(m_languageBound)) {
        const bool live = language == SourceLanguage::Cuda ||
                          (!bound.cudaOnly && language == SourceLanguage::Nvvm);
        bound.field->setEnabled(live);
        if (QWidget* label = m_form->labelForField(bound.field))
            label->setEnabled(live);
        bound.field->setToolTip(
            live ? bound.liveToolTip
                 : tr("CUDA C++ only: a %1 source is compiled without it (the value is kept for "
                      "when the project is C++ again)")
                       .arg(language == SourceLanguage::Ptx ? tr("PTX") : tr("NVVM IR")));
    }
}

bool CompileOptionsPanel::isOptionLive(const QString& objectName) const {
    const auto* field = findChild<QWidget*>(objectName);
    return field && field->isEnabled();
}

void CompileOptionsPanel::setOptions(const ProgramOptions& options) {
    m_updating = true;
    m_loaded = options;
    if (options.arch && !options.arch->isEmpty()) {
        // An index, not only the editable text: the text alone leaves index 0 current, and the
        // device's arrival (setDeviceArch) then put "device default" back over the project's
        // arch, so the next compile lost it (sm_90a's wgmma failed on sm_90).
        int index = m_arch->findText(*options.arch);
        if (index <= 0) {
            m_arch->addItem(*options.arch);
            index = m_arch->count() - 1;
        }
        m_arch->setCurrentIndex(index);
    } else {
        m_arch->setCurrentIndex(0);
    }
    const int std = options.cppStandard ? m_std->findData(*options.cppStandard) : 0;
    if (std < 0) {
        m_std->addItem(*options.cppStandard, *options.cppStandard);
        m_std->setCurrentIndex(m_std->count() - 1);
    } else {
        m_std->setCurrentIndex(std);
    }
    m_fastMath->setChecked(options.fastMath.value_or(false));
    m_fmad->setCurrentIndex(!options.fmad ? 0 : (*options.fmad ? 1 : 2));
    m_lineInfo->setChecked(options.lineInfo.value_or(false));
    m_deviceDebug->setChecked(options.deviceDebug.value_or(false));
    m_maxRegisters->setValue(options.maxRegisters.value_or(0));
    m_defines->setText(options.defines.join(QLatin1Char(' ')));
    m_includeDirs->setText(options.includeDirs.join(QLatin1Char(';')));
    m_extraFlags->setText(options.extraFlags.join(QLatin1Char(' ')));
    m_updating = false;
}

ProgramOptions CompileOptionsPanel::options() const {
    ProgramOptions o;
    const QString arch = m_arch->currentText().trimmed();
    if (!arch.isEmpty() && arch != m_arch->itemText(0))
        o.arch = arch;
    const QString std = m_std->currentData().toString();
    if (!std.isEmpty())
        o.cppStandard = std;
    o.fastMath = boolOption(m_fastMath, m_loaded.fastMath);
    if (m_fmad->currentIndex() > 0)
        o.fmad = m_fmad->currentIndex() == 1;
    o.lineInfo = boolOption(m_lineInfo, m_loaded.lineInfo);
    o.deviceDebug = boolOption(m_deviceDebug, m_loaded.deviceDebug);
    if (m_maxRegisters->value() > 0)
        o.maxRegisters = m_maxRegisters->value();
    static const QRegularExpression spaces(QStringLiteral("\\s+"));
    static const QRegularExpression semicolons(QStringLiteral(";"));
    o.defines = splitOn(m_defines->text(), spaces);
    o.includeDirs = splitOn(m_includeDirs->text(), semicolons);
    o.extraFlags = splitOn(m_extraFlags->text(), spaces);
    return o;
}

} // namespace kernelpad
