#include "ui/widgets/ProfilePanel.h"

#include "ui/models/ProfileViewModel.h"
#include "ui/widgets/StallChart.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace kernelpad {

namespace {
/// Bars hold tenths of a percent, so 78.2 % draws as 78.2 and not 78.
constexpr int kBarScale = 10;
constexpr int kMaxBarValue = 100 * kBarScale;
/// A bar narrower than this no longer reads as a proportion.
constexpr int kMinBarWidth = 60;
/// NVIDIA's page on ERR_NVGPUCTRPERM, which says how to allow counters for every platform.
const char kCounterPermissionUrl[] = "https://developer.nvidia.com/ERR_NVGPUCTRPERM";
} // namespace

ProfilePanel::ProfilePanel(QWidget* parent)
    : QWidget(parent) {
    auto* left = new QWidget(this);
    m_history = new QComboBox(left);
    m_history->setObjectName(QStringLiteral("profileHistory"));
    m_history->setToolTip(tr("The profiled runs of this session: choose one to show its profile "
                             "here and in the editor's margin"));
    m_history->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_history->setMinimumContentsLength(24);
    connect(m_history, qOverload<int>(&QComboBox::activated), this,
            &ProfilePanel::historyEntryChosen);
    m_headline = new QLabel(left);
    m_headline->setObjectName(QStringLiteral("profileHeadline"));
    m_headline->setWordWrap(true);
    m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_stale = new QLabel(left);
    m_stale->setObjectName(QStringLiteral("profileStale"));
    m_stale->setWordWrap(true);
    m_stale->setStyleSheet(QStringLiteral("color: #b26a00;"));
    m_stale->hide();

    m_stack = new QStackedWidget(left);
    m_empty = new QLabel(tr("No profile yet. Build ▸ Profile (Ctrl+Alt+P) runs the kernel "
                            "once under Nsight Compute: this tab then shows how close it came "
                            "to the device's peaks and why its warps stalled, the editor's "
                            "margin shows which lines stalled most and which access memory "
                            "badly, and the roofline shows every profiled run in order."),
                         m_stack);
    m_empty->setObjectName(QStringLiteral("profileEmptyState"));
    m_empty->setWordWrap(true);
    m_empty->setAlignment(Qt::AlignCenter);
    m_error = new QLabel(m_stack);
    m_error->setObjectName(QStringLiteral("profileError"));
    m_error->setWordWrap(true);
    m_error->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_error->setTextInteractionFlags(Qt::TextBrowserInteraction);
    m_error->setOpenExternalLinks(true);
    m_error->setMargin(8);

    m_content = new QWidget(m_stack);
    auto* columns = new QHBoxLayout;
    // No scroll area of its own: the column's minimum width (its widest value) reaches the
    // splitter, and the tab's own scroll area scrolls before any value is cut.
    QWidget* speedOfLight = makeSpeedOfLight(m_content);
    m_stalls = new StallChart(m_content);
    columns->addWidget(speedOfLight, 1);
    columns->addWidget(m_stalls, 1);
    auto* advice = new QGroupBox(tr("Nsight Compute's advice"), m_content);
    m_advice = new ProfileAdviceList(advice);
    auto* adviceLayout = new QVBoxLayout(advice);
    adviceLayout->addWidget(m_advice);
    auto* contentLayout = new QVBoxLayout(m_content);
    contentLayout->setContentsMargins(0, 0, 0, 0);
    auto* against = new QGroupBox(tr("Against another profiled run"), m_content);
    m_comparison = new ProfileComparisonPane(against);
    auto* againstLayout = new QVBoxLayout(against);
    againstLayout->addWidget(m_comparison);
    contentLayout->addLayout(columns, 3);
    contentLayout->addWidget(advice, 2);
    contentLayout->addWidget(against, 2);
    m_stack->addWidget(m_empty);
    m_stack->addWidget(m_error);
    m_stack->addWidget(m_content);

    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Profile:"), left));
    top->addWidget(m_history, 1);
    leftLayout->addLayout(top);
    leftLayout->addWidget(m_headline);
    leftLayout->addWidget(m_stale);
    leftLayout->addWidget(m_stack, 1);

    m_roofline = new RooflineChart(this);
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(left);
    splitter->addWidget(m_roofline);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    // The result tabs share one minimum width: scroll rather than widen the window beyond
    // 1280 pixels (tst_windowlayout).
    auto* area = new QScrollArea(this);
    area->setWidget(splitter);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(area);
    showEmpty();
}

QWidget* ProfilePanel::addBar(const QString& key, QWidget* parent) {
    // The value sits beside its bar, as a label that is never narrower than its text: drawn
    // inside a narrow bar, "not collected by the basic set" or even "78.2 %" was cut.
    auto* row = new QWidget(parent);
    auto* bar = new QProgressBar(row);
    bar->setObjectName(QStringLiteral("sol.") + key);
    bar->setRange(0, kMaxBarValue);
    bar->setTextVisible(false);
    bar->setMinimumWidth(kMinBarWidth);
    auto* value = new QLabel(row);
    value->setObjectName(QStringLiteral("solValue.") + key);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(bar, 1);
    layout->addWidget(value);
    m_bars.insert(key, bar);
    m_values.insert(key, value);
    return row;
}

QList<QLabel*> ProfilePanel::valueLabels() const {
    return m_values.values();
}

QWidget* ProfilePanel::makeSpeedOfLight(QWidget* parent) {
    auto* page = new QWidget(parent);
    auto* throughput = new QGroupBox(tr("Speed of light (% of peak)"), page);
    auto* throughputForm = new QFormLayout(throughput);
    throughputForm->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    for (const PercentRow& row : throughputRows(SpeedOfLight()))
        throughputForm->addRow(row.label, addBar(row.key, throughput));
    auto* occupancy = new QGroupBox(tr("Occupancy (% of the SM's warps)"), page);
    auto* occupancyForm = new QFormLayout(occupancy);
    occupancyForm->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    for (const PercentRow& row : occupancyRows(SpeedOfLight()))
        occupancyForm->addRow(row.label, addBar(row.key, occupancy));

    const QVector<MemoryRow> rows = memoryRows(SpeedOfLight());
    m_memory = new QTableWidget(int(rows.size()), MemoryColumns, page);
    m_memory->setObjectName(QStringLiteral("profileMemory"));
    m_memory->setHorizontalHeaderLabels({tr("Level"), tr("Bytes"), tr("Hit rate")});
    m_memory->verticalHeader()->hide();
    m_memory->horizontalHeader()->setStretchLastSection(true);
    m_memory->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_memory->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_memory->setFixedHeight(m_memory->horizontalHeader()->sizeHint().height() +
                             int(rows.size()) * (fontMetrics().height() + 6) + 4);
    m_warnings = new QLabel(page);
    m_warnings->setObjectName(QStringLiteral("profileWarnings"));
    m_warnings->setWordWrap(true);
    m_warnings->hide();

    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(throughput);
    layout->addWidget(occupancy);
    layout->addWidget(new QLabel(tr("Memory traffic"), page));
    layout->addWidget(m_memory);
    layout->addWidget(m_warnings);
    layout->addStretch(1);
    return page;
}

void ProfilePanel::showEmpty() {
    m_state = State::Empty;
    m_headline->clear();
    m_headline->hide();
    m_stack->setCurrentWidget(m_empty);
}

QString ProfilePanel::errorTitle(ProfileStatus status) {
    switch (status) {
    case ProfileStatus::NcuMissing:
        return tr("Nsight Compute (ncu) was not found");
    case ProfileStatus::CounterPermission:
        return tr("The GPU's performance counters are not permitted to this user");
    case ProfileStatus::NoKernelProfiled:
        return tr("No launch of the kernel was profiled");
    case ProfileStatus::KernelFailed:
        return tr("The kernel did not run to the end under the profiler");
    case ProfileStatus::Timeout:
        return tr("The profile took too long and was stopped");
    case ProfileStatus::Cancelled:
        return tr("The profile was cancelled");
    case ProfileStatus::Ok:
    case ProfileStatus::Failed:
        break;
    }
    return tr("The profile failed");
}

void ProfilePanel::showError(ProfileStatus status, const QString& error) {
    m_state = State::Error;
    QString html =
        QStringLiteral("<p><b>%1</b></p><p>%2</p>")
            .arg(errorTitle(status).toHtmlEscaped(),
                 error.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")));
    if (status == ProfileStatus::CounterPermission)
        html += tr("<p>NVIDIA's instructions for every platform: <a href=\"%1\">%1</a></p>")
                    .arg(QLatin1String(kCounterPermissionUrl));
    m_error->setText(html);
    m_stack->setCurrentWidget(m_error);
}

QString ProfilePanel::errorText() const {
    return m_state == State::Error ? m_error->text() : QString();
}

void ProfilePanel::showReport(const ProfileReport& report) {
    m_state = State::Report;
    m_headline->setText(profileHeadline(report));
    m_headline->show();
    const SpeedOfLight& sol = report.speedOfLight;
    QVector<PercentRow> rows = throughputRows(sol);
    rows += occupancyRows(sol);
    for (const PercentRow& row : rows) {
        QProgressBar* bar = m_bars.value(row.key);
        if (!bar)
            continue;
        bar->setToolTip(row.toolTip);
        if (row.percent) {
            bar->setValue(int(std::lround(std::clamp(*row.percent, 0.0, 100.0) * kBarScale)));
            bar->setFormat(QStringLiteral("%1 %").arg(*row.percent, 0, 'f', 1));
        } else {
            bar->setValue(0);
            bar->setFormat(tr("not collected by the %1 set").arg(report.set));
        }
        if (QLabel* value = m_values.value(row.key)) {
            value->setText(bar->text());
            value->setToolTip(row.toolTip);
            // Never narrower than the text, whatever the splitter or the window asks.
            value->setMinimumWidth(value->sizeHint().width());
        }
    }
    m_advice->setAdvice(profileAdvice(report));
    const QVector<MemoryRow> memory = memoryRows(sol);
    for (int r = 0; r < memory.size(); ++r) {
        const MemoryRow& row = memory.at(r);
        const QString bytes = row.bytes ? formatBytes(*row.bytes) : tr("not collected");
        const QString hit = row.level == QLatin1String("DRAM") ? tr("—")
                            : row.hitRatePercent
                                ? QStringLiteral("%1 %").arg(*row.hitRatePercent, 0, 'f', 1)
                                : tr("not collected");
        const QStringList cells = {row.level, bytes, hit};
        for (int c = 0; c < MemoryColumns; ++c) {
            auto* item = m_memory->item(r, c);
            if (!item) {
                item = new QTableWidgetItem;
                m_memory->setItem(r, c, item);
            }
            item->setText(cells.at(c));
        }
    }
    m_warnings->setVisible(!report.warnings.isEmpty());
    m_warnings->setText(tr("Nsight Compute said: %1").arg(report.warnings.join(QLatin1Char('\n'))));
    m_memory->resizeColumnsToContents();
    m_memory->setMinimumWidth(m_memory->horizontalHeader()->length() + 2 * m_memory->frameWidth());
    m_stalls->setStalls(stallBars(report));
    m_stack->setCurrentWidget(m_content);
}

void ProfilePanel::setHistory(const QStringList& entries, int current) {
    const QSignalBlocker block(m_history);
    m_history->clear();
    m_history->addItems(entries);
    m_history->setCurrentIndex(current);
    m_history->setEnabled(entries.size() > 1);
}

void ProfilePanel::setStaleNote(const QString& note) {
    m_stale->setText(note);
    m_stale->setVisible(!note.isEmpty());
}

} // namespace kernelpad
