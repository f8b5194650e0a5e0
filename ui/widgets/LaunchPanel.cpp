#include "ui/widgets/LaunchPanel.h"

#include "core/launch/BufferInit.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QScrollArea>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

#include <climits>
#include <cmath>

namespace kernelpad {

namespace {

/// Spin boxes accept more than any device allows so that validateLaunch(), not the widget,
/// says what the limit is and why.
constexpr int kMaxBlockDimInput = 1 << 20;
constexpr int kMaxWarmupLaunches = 10000;
constexpr int kMaxRepetitions = 1000000;
constexpr int kMinTimeLimitMs = 100;
constexpr int kMaxTimeLimitMs = 24 * 3600 * 1000;
constexpr int kMaxTimeBudgetMs = 3600 * 1000;
// Target noise in percent: 0.01 % is below what CUDA events resolve for short kernels, 50 %
// would stop any measurement at once.
constexpr double kMinNoisePercent = 0.01;
constexpr double kMaxNoisePercent = 50.0;

QSpinBox* makeSpin(QWidget* parent, int min, int max, const QString& objectName) {
    auto* spin = new QSpinBox(parent);
    spin->setRange(min, max);
    spin->setObjectName(objectName);
    spin->setGroupSeparatorShown(true);
    spin->setAccelerated(true);
    return spin;
}

} // namespace

LaunchPanel::LaunchPanel(QWidget* parent)
    : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(createLaunchBox());
    layout->addWidget(createTimingBox());
    layout->addStretch();

    for (QSpinBox* spin : {m_grid[0], m_grid[1], m_grid[2], m_block[0], m_block[1], m_block[2],
                           m_shared, m_warmup, m_repetitions, m_timeLimit, m_maxTime})
        connect(spin, &QSpinBox::valueChanged, this, &LaunchPanel::onEdited);
    connect(m_targetNoise, &QDoubleSpinBox::valueChanged, this, &LaunchPanel::onEdited);
    connect(m_mode, &QComboBox::currentIndexChanged, this, &LaunchPanel::onEdited);
    connect(m_adaptive, &QCheckBox::toggled, this, &LaunchPanel::onEdited);
    connect(m_blocking, &QCheckBox::toggled, this, &LaunchPanel::onEdited);
    for (QLineEdit* edit : {m_bytesOverride, m_flops})
        connect(edit, &QLineEdit::textEdited, this, &LaunchPanel::onEdited);
    connect(m_coverButton, &QPushButton::clicked, this, &LaunchPanel::coverElements);
    connect(m_coverCount, &QLineEdit::returnPressed, this, &LaunchPanel::coverElements);
    connect(m_coverCount, &QLineEdit::textChanged, this, [this] {
        QString why;
        const std::optional<qint64> n = coverCount(&why);
        m_coverButton->setEnabled(n && *n > 0);
        m_coverButton->setToolTip(n ? tr("Set grid.x to ceil(%1 / block.x): one thread per "
                                         "element")
                                          .arg(*n)
                                    : why);
        updateSummary();
    });

    setTiming(TimingSpec{});
    m_coverButton->setEnabled(false);
    updateSummary();
}

QWidget* LaunchPanel::createLaunchBox() {
    const char* axes[] = {"X", "Y", "Z"};
    auto* dims = new QGridLayout;
    dims->addWidget(new QLabel(tr("x"), this), 0, 1, Qt::AlignCenter);
    dims->addWidget(new QLabel(tr("y"), this), 0, 2, Qt::AlignCenter);
    dims->addWidget(new QLabel(tr("z"), this), 0, 3, Qt::AlignCenter);
    dims->addWidget(new QLabel(tr("Grid (blocks)"), this), 1, 0);
    dims->addWidget(new QLabel(tr("Block (threads)"), this), 2, 0);
    // Created row by row, since creation order is the Tab order: Grid x → y → z, then
    // Block x → y → z, not down the columns.
    for (int i = 0; i < 3; ++i) {
        m_grid[i] =
            makeSpin(this, 1, INT_MAX, QStringLiteral("grid%1").arg(QLatin1String(axes[i])));
        dims->addWidget(m_grid[i], 1, i + 1);
    }
    for (int i = 0; i < 3; ++i) {
        m_block[i] = makeSpin(this, 1, kMaxBlockDimInput,
                              QStringLiteral("block%1").arg(QLatin1String(axes[i])));
        dims->addWidget(m_block[i], 2, i + 1);
    }
    m_block[0]->setValue(256);

    m_shared = makeSpin(this, 0, INT_MAX, QStringLiteral("sharedBytes"));
    m_shared->setSuffix(tr(" bytes"));
    m_shared->setToolTip(tr("Dynamic shared memory per block (extern __shared__)"));

    m_coverCount = new QLineEdit(this);
    m_coverCount->setObjectName(QStringLiteral("coverCount"));
    // Counts as buffers take them: a number or an expression over integer scalars ("n/2").
    m_coverCount->setPlaceholderText(tr("elements, e.g. n or n/2"));
    m_coverButton = new QPushButton(tr("Cover"), this);
    m_coverButton->setObjectName(QStringLiteral("coverButton"));
    m_coverButton->setToolTip(tr("Set grid.x to ceil(N / block.x): one thread per element"));
    auto* cover = new QHBoxLayout;
    cover->addWidget(m_coverCount, 1);
    cover->addWidget(m_coverButton);

    m_totalThreads = new QLabel(this);
    m_totalThreads->setObjectName(QStringLiteral("totalThreads"));
    m_problem = new QLabel(this);
    m_problem->setObjectName(QStringLiteral("problemLabel"));
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("color: #c62828;"));

    auto* launchForm = new QFormLayout;
    launchForm->addRow(tr("Shared memory"), m_shared);
    launchForm->addRow(tr("Cover N elements"), cover);
    launchForm->addRow(tr("Total threads"), m_totalThreads);

    auto* launchBox = new QGroupBox(tr("Launch"), this);
    auto* launchLayout = new QVBoxLayout(launchBox);
    launchLayout->addLayout(dims);
    // Right below the sizes it is about, not below the form: at 1280x800 the dock shows the
    // top of the Launch box, and a refusal (a block over __launch_bounds__) must be seen there.
    launchLayout->addWidget(m_problem);
    launchLayout->addLayout(launchForm);
    return launchBox;
}

QWidget* LaunchPanel::createTimingBox() {
    m_mode = new QComboBox(this);
    m_mode->setObjectName(QStringLiteral("timingMode"));
    m_mode->addItem(tr("hot (back-to-back)"), int(TimingSpec::Mode::Hot));
    m_mode->addItem(tr("cold (L2 flushed)"), int(TimingSpec::Mode::Cold));
    m_mode->setToolTip(tr("Hot: launches follow each other with warm caches. Cold: the L2 "
                          "cache is flushed before every timed launch."));
    m_adaptive = new QCheckBox(tr("until the noise target"), this);
    m_adaptive->setObjectName(QStringLiteral("adaptive"));
    m_adaptive->setToolTip(tr("On: keep measuring until the noise is under the target or the "
                              "time budget is spent. Off: exactly the repetitions given."));
    m_blocking = new QCheckBox(tr("queue behind a blocking kernel"), this);
    m_blocking->setObjectName(QStringLiteral("blockingKernel"));
    m_blocking->setToolTip(tr("On (nvbench's way): each chunk of samples waits behind a kernel "
                              "until the host has queued all of it, then runs back to back, so "
                              "a kernel shorter than a launch (a few µs) is timed alone. Off: "
                              "the GPU runs launches as the host issues them, as an "
                              "application's launch loop would."));
    m_targetNoise = new QDoubleSpinBox(this);
    m_targetNoise->setObjectName(QStringLiteral("targetNoise"));
    m_targetNoise->setRange(kMinNoisePercent, kMaxNoisePercent);
    m_targetNoise->setDecimals(2);
    m_targetNoise->setSingleStep(0.1);
    m_targetNoise->setSuffix(tr(" %"));
    m_targetNoise->setToolTip(tr("Relative standard deviation at which an adaptive "
                                 "measurement stops"));
    m_maxTime = makeSpin(this, 1, kMaxTimeBudgetMs, QStringLiteral("maxTimeMs"));
    m_maxTime->setSuffix(tr(" ms"));
    m_maxTime->setToolTip(tr("An adaptive measurement stops after this much timing"));
    m_warmup = makeSpin(this, 0, kMaxWarmupLaunches, QStringLiteral("warmup"));
    m_warmup->setToolTip(tr("Untimed launches first: module load, caches and clocks settle"));
    m_repetitions = makeSpin(this, 1, kMaxRepetitions, QStringLiteral("repetitions"));
    m_timeLimit = makeSpin(this, kMinTimeLimitMs, kMaxTimeLimitMs, QStringLiteral("timeLimitMs"));
    m_timeLimit->setSuffix(tr(" ms"));
    m_timeLimit->setToolTip(tr("The watchdog stops a run that takes longer than this"));
    const auto digits =
        new QRegularExpressionValidator(QRegularExpression(QStringLiteral("\\d{0,18}")), this);
    m_bytesOverride = new QLineEdit(this);
    m_bytesOverride->setObjectName(QStringLiteral("bytesPerLaunch"));
    m_bytesOverride->setValidator(digits);
    m_bytesOverride->setPlaceholderText(tr("estimate from the buffers"));
    m_flops = new QLineEdit(this);
    m_flops->setObjectName(QStringLiteral("flopsPerLaunch"));
    m_flops->setValidator(new QRegularExpressionValidator(
        QRegularExpression(QStringLiteral("[0-9.eE+]{0,24}")), this));
    m_flops->setPlaceholderText(tr("none (no GFLOP/s)"));

    auto* timingBox = new QGroupBox(tr("Timing"), this);
    auto* timingForm = new QFormLayout(timingBox);
    timingForm->addRow(tr("Mode"), m_mode);
    timingForm->addRow(tr("Warm-up launches"), m_warmup);
    timingForm->addRow(tr("Repetitions"), m_repetitions);
    timingForm->addRow(tr("Adaptive"), m_adaptive);
    timingForm->addRow(tr("Launch queue"), m_blocking);
    timingForm->addRow(tr("Target noise"), m_targetNoise);
    timingForm->addRow(tr("Time budget"), m_maxTime);
    timingForm->addRow(tr("Time limit"), m_timeLimit);
    timingForm->addRow(tr("Bytes per launch"), m_bytesOverride);
    timingForm->addRow(tr("FLOPs per launch"), m_flops);

    return timingBox;
}

void LaunchPanel::onEdited() {
    updateSummary();
    updateTimingEnabled();
    if (!m_updating)
        emit changed();
}

void LaunchPanel::setConfig(const LaunchConfig& config) {
    m_updating = true;
    for (int i = 0; i < 3; ++i) {
        m_grid[i]->setValue(config.grid[i]);
        m_block[i]->setValue(config.block[i]);
    }
    m_shared->setValue(config.sharedMemBytes);
    m_updating = false;
    updateSummary();
}

LaunchConfig LaunchPanel::config() const {
    LaunchConfig c;
    for (int i = 0; i < 3; ++i) {
        c.grid[i] = m_grid[i]->value();
        c.block[i] = m_block[i]->value();
    }
    c.sharedMemBytes = m_shared->value();
    return c;
}

void LaunchPanel::setLimits(const LaunchLimits& limits) {
    m_limits = limits;
    updateSummary();
}

void LaunchPanel::setCoverCount(qint64 elements) {
    m_coverCount->setText(elements > 0 ? QString::number(elements) : QString());
}

void LaunchPanel::setCoverArguments(const QVector<ArgumentSpec>& arguments) {
    m_coverArguments = arguments;
}

std::optional<qint64> LaunchPanel::coverCount(QString* error) const {
    const QString text = m_coverCount->text().trimmed();
    if (text.isEmpty()) {
        if (error)
            *error = tr("Type the number of elements to cover");
        return std::nullopt;
    }
    QString why;
    const std::optional<qint64> n = resolveCount(text, m_coverArguments, &why);
    if (!n && error)
        *error = why;
    return n;
}

QString LaunchPanel::problem() const {
    return validateLaunch(config(), m_limits);
}

void LaunchPanel::coverElements() {
    const std::optional<qint64> count = coverCount();
    if (!count || *count <= 0)
        return;
    const qint64 n = *count;
    const qint64 blocks = gridToCover(n, m_block[0]->value());
    // Beyond INT_MAX blocks the value cannot be a grid.x: clamp, and validateLaunch says so.
    m_grid[0]->setValue(int(std::min<qint64>(blocks, INT_MAX)));
}

void LaunchPanel::updateSummary() {
    const LaunchConfig c = config();
    const QLocale locale;
    m_totalThreads->setText(tr("%1  (%2 blocks × %3 threads)")
                                .arg(locale.toString(c.totalThreads()),
                                     locale.toString(qint64(c.grid[0]) * c.grid[1] * c.grid[2]),
                                     locale.toString(c.threadsPerBlock())));
    const QString message = validateLaunch(c, m_limits);
    const bool appeared = !message.isEmpty() && message != m_problem->text();
    m_problem->setText(message);
    m_problem->setVisible(!message.isEmpty());
    if (appeared)
        revealProblem();
    if (const std::optional<qint64> n = m_coverCount ? coverCount() : std::nullopt; n && *n > 0) {
        m_totalThreads->setToolTip(c.totalThreads() < n
                                       ? tr("Fewer threads than the %1 elements to cover").arg(*n)
                                       : QString());
    }
}

void LaunchPanel::revealProblem() {
    // A dock scrolled down to the timing settings would hide a new refusal: bring it into view
    // once the label has its wrapped height.
    QTimer::singleShot(0, this, [this] {
        for (QWidget* w = parentWidget(); w; w = w->parentWidget())
            if (auto* area = qobject_cast<QScrollArea*>(w)) {
                if (m_problem->isVisible())
                    area->ensureWidgetVisible(m_problem);
                return;
            }
    });
}

void LaunchPanel::updateTimingEnabled() {
    // The noise target and the budget only steer an adaptive measurement.
    m_targetNoise->setEnabled(m_adaptive->isChecked());
    m_maxTime->setEnabled(m_adaptive->isChecked());
    m_repetitions->setPrefix(m_adaptive->isChecked() ? tr("at least ") : QString());
}

void LaunchPanel::setTiming(const TimingSpec& timing) {
    m_updating = true;
    m_timing = timing;
    m_mode->setCurrentIndex(m_mode->findData(int(timing.mode)));
    m_adaptive->setChecked(timing.adaptive);
    m_blocking->setChecked(timing.blockingKernel);
    m_targetNoise->setValue(timing.targetNoise * 100.0);
    m_maxTime->setValue(timing.maxTimeMs);
    m_warmup->setValue(timing.warmupLaunches);
    m_repetitions->setValue(timing.repetitions);
    m_timeLimit->setValue(timing.timeLimitMs);
    m_bytesOverride->setText(timing.bytesOverride ? QString::number(*timing.bytesOverride)
                                                  : QString());
    m_flops->setText(timing.flopsPerLaunch ? QString::number(*timing.flopsPerLaunch, 'g', 15)
                                           : QString());
    updateTimingEnabled();
    m_updating = false;
}

TimingSpec LaunchPanel::timing() const {
    TimingSpec t = m_timing;
    t.mode = TimingSpec::Mode(m_mode->currentData().toInt());
    t.adaptive = m_adaptive->isChecked();
    t.blockingKernel = m_blocking->isChecked();
    // The spin box rounds to 0.01 %: keep the project's exact value unless it was edited.
    if (std::abs(m_targetNoise->value() - m_timing.targetNoise * 100.0) > 0.005)
        t.targetNoise = m_targetNoise->value() / 100.0;
    t.maxTimeMs = m_maxTime->value();
    t.warmupLaunches = m_warmup->value();
    t.repetitions = m_repetitions->value();
    t.timeLimitMs = m_timeLimit->value();
    bool ok = false;
    const qint64 bytes = m_bytesOverride->text().toLongLong(&ok);
    t.bytesOverride = ok && bytes > 0 ? std::optional<qint64>(bytes) : std::nullopt;
    const double flops = m_flops->text().toDouble(&ok);
    t.flopsPerLaunch = ok && flops > 0 ? std::optional<double>(flops) : std::nullopt;
    return t;
}

} // namespace kernelpad
