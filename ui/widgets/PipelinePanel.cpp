#include "ui/widgets/PipelinePanel.h"

#include "core/run/Summary.h"
#include "ui/models/PipelineStepModel.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace kernelpad {

PipelinePanel::PipelinePanel(QWidget* parent)
    : QWidget(parent)
    , m_model(new PipelineStepModel(this))
    , m_table(new QTableView(this))
    , m_graph(new QCheckBox(tr("Also replay the sequence as a CUDA graph"), this))
    , m_add(new QPushButton(tr("Add step"), this))
    , m_remove(new QPushButton(tr("Remove step"), this))
    , m_problem(new QLabel(this))
    , m_timing(new QLabel(this)) {
    m_table->setObjectName(QStringLiteral("pipelineSteps"));
    m_graph->setObjectName(QStringLiteral("graphCheck"));
    m_add->setObjectName(QStringLiteral("addStep"));
    m_remove->setObjectName(QStringLiteral("removeStep"));
    m_problem->setObjectName(QStringLiteral("pipelineProblem"));
    m_timing->setObjectName(QStringLiteral("pipelineTiming"));
    m_table->setModel(m_model);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_graph->setToolTip(tr("Capture the whole sequence with stream capture, instantiate it "
                           "once and time its replay beside the launches on the stream"));
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("color: #c0392b"));
    m_timing->setWordWrap(true);
    m_timing->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_graph, 1);
    buttons->addWidget(m_add);
    buttons->addWidget(m_remove);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->addLayout(buttons);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_problem);
    layout->addWidget(m_timing);

    connect(m_model, &PipelineStepModel::stepsEdited, this, [this] {
        updateMessage();
        emit changed();
    });
    // A refused cell keeps its old text; the reason is shown under the table.
    connect(m_model, &PipelineStepModel::dataChanged, this, [this] { updateMessage(); });
    connect(m_table->itemDelegate(), &QAbstractItemDelegate::closeEditor, this,
            [this] { updateMessage(); });
    connect(m_graph, &QCheckBox::toggled, this, [this] { emit changed(); });
    connect(m_add, &QPushButton::clicked, this, [this] {
        m_model->appendStep(m_model->steps().isEmpty() ? m_template : m_model->steps().last());
    });
    connect(m_remove, &QPushButton::clicked, this, [this] {
        const QModelIndex current = m_table->currentIndex();
        m_model->removeStep(current.isValid() ? current.row() : m_model->rowCount() - 1);
    });
    updateMessage();
}

void PipelinePanel::setPipeline(const Pipeline& pipeline) {
    const QSignalBlocker block(m_graph);
    m_graph->setChecked(pipeline.graph);
    m_model->setSteps(pipeline.steps);
    m_remove->setEnabled(!pipeline.steps.isEmpty());
}

Pipeline PipelinePanel::pipeline() const {
    Pipeline p;
    p.steps = m_model->steps();
    p.graph = m_graph->isChecked() && !p.steps.isEmpty();
    return p;
}

void PipelinePanel::setProblem(const QString& problem) {
    m_projectProblem = problem;
    updateMessage();
}

void PipelinePanel::updateMessage() {
    const QString edit = m_model->lastError();
    m_problem->setText(!edit.isEmpty() ? edit : m_projectProblem);
    m_problem->setVisible(!m_problem->text().isEmpty());
    m_remove->setEnabled(m_model->rowCount() > 0);
    if (m_model->rowCount() == 0)
        m_timing->setText(tr("No steps: the project runs its single launch. Add a step to run "
                             "a sequence of launches instead."));
}

void PipelinePanel::showTiming(const PipelineTiming& timing) {
    m_model->setTiming(timing);
    if (timing.isEmpty()) {
        updateMessage();
        if (m_model->rowCount() > 0)
            m_timing->clear();
        return;
    }
    const auto ms = [](double milliseconds) { return formatDuration(milliseconds / 1e3); };
    QString text = tr("%1 launches per pass; on the stream %2")
                       .arg(timing.launches)
                       .arg(ms(timing.sequence.medianMs));
    if (timing.graph)
        text += tr(", as a CUDA graph %1: saved %2 (%3 %)")
                    .arg(ms(timing.graphReplay.medianMs), ms(timing.savedMs()))
                    .arg(timing.sequence.medianMs > 0
                             ? 100.0 * timing.savedMs() / timing.sequence.medianMs
                             : 0.0,
                         0, 'f', 1);
    m_timing->setText(text);
}

} // namespace kernelpad
