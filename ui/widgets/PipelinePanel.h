#pragma once
// The launch list of a pipeline project: its steps as an editable table,
// whether the sequence is also replayed as a CUDA graph, the problems the project's arguments
// give it, and after a run the per-step, stream and graph times.

#include "core/project/Pipeline.h"
#include "core/run/PipelineTiming.h"

#include <QWidget>

class QCheckBox;
class QLabel;
class QPushButton;
class QTableView;

namespace kernelpad {

class PipelineStepModel;

/// Edits a Pipeline. Child object names (for tests): pipelineSteps (the table), graphCheck,
/// addStep, removeStep, pipelineProblem, pipelineTiming.
class PipelinePanel : public QWidget {
    Q_OBJECT
public:
    explicit PipelinePanel(QWidget* parent = nullptr);

    void setPipeline(const Pipeline& pipeline);
    [[nodiscard]] Pipeline pipeline() const;
    /// What the project's arguments make of the steps (Pipeline::problemWith); empty: none.
    void setProblem(const QString& problem);
    /// The last run's times; an empty timing clears them.
    void showTiming(const PipelineTiming& timing);
    /// The step a new row copies when the list is empty: the project's own kernel and launch.
    void setTemplateStep(const PipelineStep& step) { m_template = step; }
    [[nodiscard]] PipelineStepModel* model() const { return m_model; }

signals:
    void changed();

private:
    void updateMessage();

    PipelineStepModel* m_model;
    QTableView* m_table;
    QCheckBox* m_graph;
    QPushButton* m_add;
    QPushButton* m_remove;
    QLabel* m_problem;
    QLabel* m_timing;
    QString m_projectProblem;
    PipelineStep m_template;
};

} // namespace kernelpad
