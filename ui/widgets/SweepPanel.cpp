// SweepPanel: the form that edits the project's sweep section, validated as it is typed and
// written back into the document when it reads.

#include "ui/widgets/SweepPanel.h"

#include "core/engine/Engine.h"
#include "core/sweep/SweepForm.h"
#include "core/sweep/SweepSpace.h"
#include "ui/ProjectDocument.h"
#include "ui/SettingsHistory.h"
#include "ui/models/SweepResultsModel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>
#include <iterator>

namespace kernelpad {

namespace {

/// What "at most … ms" offers first: a fifth of the project's default least time, enough
/// for a few hundred launches of a 20 µs kernel.
constexpr int kSweepDefaultTimingBudgetMs = 50;

// The role column's choices, in this order.
const char* const kRoles[] = {"block x", "block y", "block z", "define", "scalar", "parameter"};
const char* const kBlockNames[] = {"bx", "by", "bz"};

int roleIndex(const SweepTunable& t) {
    switch (t.role) {
    case SweepTunable::Role::Block:
        return t.axis;
    case SweepTunable::Role::Define:
        return 3;
    case SweepTunable::Role::Scalar:
        return 4;
    case SweepTunable::Role::Parameter:
        return 5;
    }
    return 5;
}

} // namespace

SweepPanel::SweepPanel(QWidget* parent)
    : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_splitter = new QSplitter(Qt::Vertical, this);
    // The form scrolls, so that its height never squeezes the results, which take the space
    // the dock gains (two thirds to start with).
    auto* formScroll = new QScrollArea(m_splitter);
    formScroll->setObjectName(QStringLiteral("sweepFormScroll"));
    formScroll->setWidgetResizable(true);
    formScroll->setFrameShape(QFrame::NoFrame);
    formScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    formScroll->setWidget(buildForm());
    m_splitter->addWidget(formScroll);
    m_splitter->addWidget(buildResults());
    m_splitter->setStretchFactor(0, 1);
    m_splitter->setStretchFactor(1, 2);
    m_splitter->setSizes({1, 2});
    layout->addWidget(m_splitter);
    setUpResultsFile();
    updateButtons();
}

SweepPanel::~SweepPanel() {
    // The sweep belongs to the Engine; one nobody shows is stopped.
    if (m_engine && m_sweepId != 0)
        m_engine->cancelSweep(m_sweepId);
}

QWidget* SweepPanel::buildForm() {
    auto* form = new QWidget(this);
    m_tunables = new QTableWidget(0, 3, form);
    m_tunables->setObjectName(QStringLiteral("sweepTunables"));
    m_tunables->setHorizontalHeaderLabels({tr("Name"), tr("Role"), tr("Values")});
    m_tunables->horizontalHeader()->setSectionResizeMode(ValuesColumn, QHeaderView::Stretch);
    m_tunables->verticalHeader()->hide();
    m_tunables->setToolTip(tr("Values: \"8, 16, 32\", \"1..64 step 8\", \"powers 2^5..2^10\""));
    connect(m_tunables, &QTableWidget::itemChanged, this, [this] { onFormEdited(); });

    auto* add = new QPushButton(tr("Add Tunable"), form);
    auto* remove = new QPushButton(tr("Remove Tunable"), form);
    connect(add, &QPushButton::clicked, this, [this] {
        SweepTunable t;
        t.role = SweepTunable::Role::Define;
        t.name = QStringLiteral("NAME");
        t.values.list = {1};
        addTunableRow(t);
        onFormEdited();
    });
    connect(remove, &QPushButton::clicked, this, [this] {
        const int row = m_tunables->currentRow();
        if (row < 0)
            return;
        m_tunables->removeRow(row);
        onFormEdited();
    });
    auto* tunableButtons = new QHBoxLayout;
    tunableButtons->addWidget(add);
    tunableButtons->addWidget(remove);
    tunableButtons->addStretch(1);

    auto* gridRow = new QHBoxLayout;
    for (int axis = 0; axis < 3; ++axis) {
        m_grid[axis] = new QLineEdit(form);
        m_grid[axis]->setPlaceholderText(tr("project's"));
        connect(m_grid[axis], &QLineEdit::textEdited, this, [this] { onFormEdited(); });
        gridRow->addWidget(m_grid[axis]);
    }
    m_shared = new QLineEdit(form);
    m_shared->setPlaceholderText(tr("project's (e.g. TILE * (TILE + 1) * 4)"));
    m_kernel = new QLineEdit(form);
    m_kernel->setPlaceholderText(tr("project's (e.g. transpose<{TILE}>)"));
    m_restrictions = new QPlainTextEdit(form);
    m_restrictions->setObjectName(QStringLiteral("sweepRestrictions"));
    m_restrictions->setPlaceholderText(tr("one per line: bx*by <= 1024"));
    m_restrictions->setMaximumHeight(60);
    for (QLineEdit* edit : {m_shared, m_kernel})
        connect(edit, &QLineEdit::textEdited, this, [this] { onFormEdited(); });
    connect(m_restrictions, &QPlainTextEdit::textChanged, this, [this] { onFormEdited(); });

    m_strategy = new QComboBox(form);
    m_strategy->addItems({tr("every configuration"), tr("random sample"), tr("local search")});
    m_budget = new QSpinBox(form);
    m_budget->setRange(0, int(SweepSpace::kMaxConfigurations));
    m_budget->setSpecialValueText(tr("all"));
    m_budget->setPrefix(tr("budget "));
    m_seed = new QSpinBox(form);
    m_seed->setRange(0, 999999);
    m_seed->setPrefix(tr("seed "));
    m_objective = new QComboBox(form);
    // In SweepObjective's order: the index is the objective.
    m_objective->addItems({tr("lowest time"), tr("highest bandwidth"),
                           tr("highest ratio to the baseline"), tr("least energy per launch"),
                           tr("lowest energy x time")});
    for (QComboBox* box : {m_strategy, m_objective})
        connect(box, &QComboBox::currentIndexChanged, this, [this] { onFormEdited(); });
    for (QSpinBox* box : {m_budget, m_seed})
        connect(box, &QSpinBox::valueChanged, this, [this] { onFormEdited(); });
    auto* strategyRow = new QHBoxLayout;
    strategyRow->addWidget(m_budget, 1);
    strategyRow->addWidget(m_seed, 1);

    m_count = new QLabel(form);
    m_count->setObjectName(QStringLiteral("sweepCount"));
    m_count->setWordWrap(true);
    m_message = new QLabel(form);
    m_message->setObjectName(QStringLiteral("sweepMessage"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    createUndoApply(form);
    auto* messageRow = new QHBoxLayout;
    messageRow->addWidget(m_message, 1);
    messageRow->addWidget(m_undoApply, 0, Qt::AlignTop);

    auto* fields = new QFormLayout;
    fields->addRow(tr("Grid:"), gridRow);
    fields->setRowWrapPolicy(QFormLayout::WrapLongRows);
    fields->addRow(tr("Shared memory:"), m_shared);
    fields->addRow(tr("Kernel:"), m_kernel);
    fields->addRow(tr("Restrictions:"), m_restrictions);
    fields->addRow(tr("Strategy:"), m_strategy);
    fields->addRow(QString(), strategyRow);
    fields->addRow(tr("Best is:"), m_objective);
    fields->addRow(tr("Timing:"), buildTimingRow(form));

    auto* layout = new QVBoxLayout(form);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tunables, 1);
    layout->addLayout(tunableButtons);
    layout->addLayout(fields);
    layout->addWidget(m_count);
    layout->addLayout(messageRow);
    return form;
}

void SweepPanel::setDocument(ProjectDocument* document) {
    if (m_document) {
        disconnect(m_document, nullptr, this, nullptr);
        disconnect(m_document->settingsHistory()->stack(), nullptr, this, nullptr);
    }
    m_document = document;
    if (document) {
        connect(document->settingsHistory()->stack(), &QUndoStack::indexChanged, this,
                &SweepPanel::updateUndoApply);
        connect(document, &ProjectDocument::projectReplaced, this, [this] {
            if (isRunning())
                cancel();
            loadFromDocument();
            m_model->reset({}, {}, SweepObjective::Time);
            m_shownPath.clear();
            m_file->clear();
            emitRecords();
            scheduleResultsLookup();
        });
        // Any field may change the results file's hash; the path its folder and name.
        connect(document, &ProjectDocument::edited, this, &SweepPanel::scheduleResultsLookup);
        connect(document, &ProjectDocument::pathChanged, this, &SweepPanel::scheduleResultsLookup);
        connect(document, &ProjectDocument::sweepChanged, this, [this] {
            if (!m_loading && !(formSpec(nullptr) == std::optional(m_document->project().sweep)))
                loadFromDocument();
        });
        // A scalar argument added or renamed changes what the sweep may name.
        connect(document, &ProjectDocument::argumentsChanged, this, [this] {
            if (!m_loading)
                onFormEdited();
        });
    }
    loadFromDocument();
    scheduleResultsLookup();
}

void SweepPanel::addTunableRow(const SweepTunable& tunable) {
    const bool loading = m_loading;
    m_loading = true;
    const int row = m_tunables->rowCount();
    m_tunables->insertRow(row);
    m_tunables->setItem(row, NameColumn, new QTableWidgetItem(tunable.name));
    m_tunables->setItem(row, ValuesColumn, new QTableWidgetItem(sweepValuesText(tunable.values)));
    auto* role = new QComboBox(m_tunables);
    for (const char* name : kRoles)
        role->addItem(tr(name));
    role->setCurrentIndex(roleIndex(tunable));
    connect(role, &QComboBox::currentIndexChanged, this, [this, role](int index) {
        // A block tunable is named by its axis in formulas and keys.
        for (int r = 0; r < m_tunables->rowCount(); ++r)
            if (m_tunables->cellWidget(r, RoleColumn) == role && index < 3 &&
                m_tunables->item(r, NameColumn)) {
                const bool wasLoading = m_loading;
                m_loading = true;
                m_tunables->item(r, NameColumn)->setText(QString::fromLatin1(kBlockNames[index]));
                m_loading = wasLoading;
            }
        onFormEdited();
    });
    m_tunables->setCellWidget(row, RoleColumn, role);
    m_loading = loading;
}

QLayout* SweepPanel::buildTimingRow(QWidget* form) {
    // In SweepTimingBudget::Kind's order: the index is the kind.
    m_timing = new QComboBox(form);
    m_timing->setObjectName(QStringLiteral("sweepTimingBudget"));
    m_timing->addItems({tr("accurate (the project's timing)"),
                        tr("fast (%1 samples each)").arg(SweepTimingBudget::kFastRepetitions),
                        tr("at most")});
    m_timing->setToolTip(tr("How long each configuration is timed. A fast or limited sweep "
                            "times its best configuration again with the project's timing at "
                            "the end."));
    m_timingMs = new QSpinBox(form);
    m_timingMs->setObjectName(QStringLiteral("sweepTimingBudgetMs"));
    m_timingMs->setRange(1, SweepTimingBudget::kMaxMs);
    m_timingMs->setValue(kSweepDefaultTimingBudgetMs);
    m_timingMs->setSuffix(tr(" ms per configuration"));
    connect(m_timing, &QComboBox::currentIndexChanged, this, [this] { onFormEdited(); });
    connect(m_timingMs, &QSpinBox::valueChanged, this, [this] { onFormEdited(); });
    auto* row = new QHBoxLayout;
    row->addWidget(m_timing, 1);
    row->addWidget(m_timingMs, 1);
    return row;
}

void SweepPanel::loadFromDocument() {
    m_loading = true;
    const SweepSpec spec = m_document ? m_document->project().sweep : SweepSpec();
    m_tunables->setRowCount(0);
    for (const SweepTunable& t : spec.tunables)
        addTunableRow(t);
    for (int axis = 0; axis < 3; ++axis)
        m_grid[axis]->setText(spec.grid ? (*spec.grid)[size_t(axis)] : QString());
    m_shared->setText(spec.sharedMemBytes);
    m_kernel->setText(spec.kernel);
    m_restrictions->setPlainText(spec.restrictions.join(QLatin1Char('\n')));
    m_strategy->setCurrentIndex(int(spec.strategy.kind));
    m_budget->setValue(spec.strategy.budget);
    m_seed->setValue(int(spec.strategy.seed));
    m_objective->setCurrentIndex(int(spec.objective));
    m_timing->setCurrentIndex(int(spec.timingBudget.kind));
    if (spec.timingBudget.kind == SweepTimingBudget::Kind::Milliseconds)
        m_timingMs->setValue(spec.timingBudget.ms);
    m_loading = false;
    onFormEdited();
}

std::optional<SweepSpec> SweepPanel::formSpec(QString* error) const {
    const auto fail = [error](const QString& why) -> std::optional<SweepSpec> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    SweepSpec spec;
    QStringList seen;
    for (int row = 0; row < m_tunables->rowCount(); ++row) {
        SweepTunable t;
        const auto* role = qobject_cast<QComboBox*>(m_tunables->cellWidget(row, RoleColumn));
        const int r = role ? role->currentIndex() : 5;
        t.role = r < 3    ? SweepTunable::Role::Block
                 : r == 3 ? SweepTunable::Role::Define
                 : r == 4 ? SweepTunable::Role::Scalar
                          : SweepTunable::Role::Parameter;
        t.axis = r < 3 ? r : 0;
        const QTableWidgetItem* nameItem = m_tunables->item(row, NameColumn);
        t.name = r < 3 ? QString::fromLatin1(kBlockNames[r])
                       : (nameItem ? nameItem->text().trimmed() : QString());
        if (t.name.isEmpty())
            return fail(tr("Tunable %1: the name is empty").arg(row + 1));
        if (seen.contains(t.name))
            return fail(tr("Tunable %1 (%2): the name is used twice").arg(row + 1).arg(t.name));
        seen.append(t.name);
        const QTableWidgetItem* valuesItem = m_tunables->item(row, ValuesColumn);
        QString why;
        std::optional<SweepValues> values =
            sweepValuesFromText(valuesItem ? valuesItem->text() : QString(), &why);
        if (!values)
            return fail(tr("Tunable %1 values: %2").arg(t.name, why));
        t.values = *values;
        spec.tunables.append(t);
    }
    const bool anyGrid = std::any_of(std::begin(m_grid), std::end(m_grid),
                                     [](QLineEdit* e) { return !e->text().trimmed().isEmpty(); });
    if (anyGrid) {
        std::array<QString, 3> grid;
        for (int axis = 0; axis < 3; ++axis) {
            grid[size_t(axis)] = m_grid[axis]->text().trimmed();
            if (grid[size_t(axis)].isEmpty())
                return fail(tr("sweep.grid[%1]: empty (give all three formulas, or none to "
                               "keep the project's grid)")
                                .arg(axis));
        }
        spec.grid = grid;
    }
    spec.sharedMemBytes = m_shared->text().trimmed();
    spec.kernel = m_kernel->text().trimmed();
    for (const QString& line : m_restrictions->toPlainText().split(QLatin1Char('\n')))
        if (!line.trimmed().isEmpty())
            spec.restrictions.append(line.trimmed());
    spec.strategy.kind = SweepStrategySpec::Kind(m_strategy->currentIndex());
    spec.strategy.budget = m_budget->value();
    spec.strategy.seed = quint64(m_seed->value());
    spec.objective = SweepObjective(m_objective->currentIndex());
    spec.timingBudget.kind = SweepTimingBudget::Kind(m_timing->currentIndex());
    if (spec.timingBudget.kind == SweepTimingBudget::Kind::Milliseconds)
        spec.timingBudget.ms = m_timingMs->value();
    if (spec.isEmpty())
        return spec;
    // The file's reader checks what the form cannot (a scalar that is not an argument).
    QString why;
    const QVector<ArgumentSpec> arguments =
        m_document ? m_document->project().arguments : QVector<ArgumentSpec>();
    if (!SweepSpec::fromJson(spec.toJson(), arguments, &why))
        return fail(why);
    return spec;
}

void SweepPanel::onFormEdited() {
    m_timingMs->setEnabled(m_timing->currentIndex() == int(SweepTimingBudget::Kind::Milliseconds));
    if (m_loading)
        return;
    QString error;
    const std::optional<SweepSpec> spec = formSpec(&error);
    m_countText.clear();
    if (!spec) {
        m_count->clear();
        showMessage(error, true);
        updateButtons();
        return;
    }
    if (spec->isEmpty()) {
        m_count->setText(tr("No tunables: add one to sweep it."));
    } else if (m_document) {
        Project project = m_document->project();
        project.sweep = *spec;
        std::unique_ptr<SweepSpace> space = SweepSpace::create(project, &error);
        if (!space) {
            m_count->clear();
            showMessage(error, true);
            updateButtons();
            return;
        }
        QStringList removed;
        for (const RestrictionCount& c : space->restrictionCounts())
            removed.append(tr("\"%1\" removes %2").arg(c.restriction).arg(c.removed));
        m_countText =
            space->size() == 1 ? tr("1 configuration") : tr("%1 configurations").arg(space->size());
        if (space->fullSize() != space->size())
            m_countText += tr(" of %1 combinations; %2")
                               .arg(space->fullSize())
                               .arg(removed.join(QStringLiteral(", ")));
        m_count->setText(m_countText);
    }
    showMessage({}, false);
    if (m_document) {
        m_loading = true;
        m_document->setSweep(*spec);
        m_loading = false;
    }
    updateButtons();
}

void SweepPanel::showMessage(const QString& text, bool error) {
    m_message->setText(text);
    m_message->setStyleSheet(error ? QStringLiteral("color: #c62828;") : QString());
}

QString SweepPanel::message() const {
    return m_message->text();
}

QString SweepPanel::countText() const {
    return m_countText;
}

} // namespace kernelpad
