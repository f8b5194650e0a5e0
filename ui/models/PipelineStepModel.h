#pragma once
// The steps of a project's pipeline as a table: kernel, grid, block,
// dynamic shared memory, repeat count, arguments and swaps, edited as text; after a run each
// step's median time.

#include "core/project/Pipeline.h"
#include "core/run/PipelineTiming.h"

#include <QAbstractTableModel>

namespace kernelpad {

/// One row per PipelineStep. Dimensions read "256" or "256,1,1"; arguments "in, partials,
/// n=256" (a scalar's value of the step's own after '='); swaps "a:b, c:d".
class PipelineStepModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Kernel, Grid, Block, Shared, Repeat, Arguments, Swaps, Time, ColumnCount };

    explicit PipelineStepModel(QObject* parent = nullptr);

    void setSteps(const QVector<PipelineStep>& steps);
    [[nodiscard]] const QVector<PipelineStep>& steps() const { return m_steps; }
    /// Each step's median time from the last run; cleared by a change of the steps' count.
    void setTiming(const PipelineTiming& timing);

    void appendStep(const PipelineStep& step);
    void removeStep(int row);

    /// Why the last setData() refused its text, naming the column; empty after a good edit.
    [[nodiscard]] QString lastError() const { return m_lastError; }

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role) const override;
    [[nodiscard]] Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role) override;

    /// The text of a column and back; nullopt with `error` when the text does not parse.
    [[nodiscard]] static QString dimsText(const std::array<int, 3>& dims);
    [[nodiscard]] static std::optional<std::array<int, 3>> parseDims(const QString& text,
                                                                     QString* error);
    [[nodiscard]] static QString argumentsText(const QVector<PipelineBinding>& args);
    [[nodiscard]] static std::optional<QVector<PipelineBinding>> parseArguments(const QString& text,
                                                                                QString* error);
    [[nodiscard]] static QString swapsText(const QVector<BufferSwap>& swaps);
    [[nodiscard]] static std::optional<QVector<BufferSwap>> parseSwaps(const QString& text,
                                                                       QString* error);

signals:
    /// A cell was edited, or a step added or removed: steps() holds the new list.
    void stepsEdited();

private:
    QVector<PipelineStep> m_steps;
    PipelineTiming m_timing;
    QString m_lastError;
};

} // namespace kernelpad
