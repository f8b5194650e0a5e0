// The pipeline's launch list: the step table's text parses and refuses with the column named,
// an edit in the panel changes the document (and only a good edit does), a step naming a
// missing argument is shown, adding and removing steps, the graph switch, and the per-step
// times of a run.

#include "core/engine/Engine.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/models/PipelineStepModel.h"
#include "ui/widgets/PipelinePanel.h"
#include "ui/windows/PanelBindings.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

namespace tst_pipelinepanel {

using namespace kernelpad;

namespace {

Project example() {
    QString error;
    std::optional<Project> p =
        Project::load(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/reduction_pipeline.kpad"), &error);
    if (!p)
        qFatal("%s", qPrintable(error));
    return *p;
}

} // namespace

class TestPipelinePanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void textParses_data() {
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("shownBack"); // empty: refused
        QTest::addColumn<QString>("error");
        QTest::newRow("grid as one number") << int(PipelineStepModel::Grid) << "64"
                                            << "64"
                                            << "";
        QTest::newRow("block in 2D") << int(PipelineStepModel::Block) << "16, 16"
                                     << "16,16,1"
                                     << "";
        QTest::newRow("grid of 0")
            << int(PipelineStepModel::Grid) << "0"
            << ""
            << "Grid: each dimension must be a whole number >= 1 (got \"0\")";
        QTest::newRow("4 dimensions") << int(PipelineStepModel::Block) << "1,1,1,1"
                                      << ""
                                      << "Block: expected 1 to 3 whole numbers";
        QTest::newRow("arguments with a step value")
            << int(PipelineStepModel::Arguments) << "partials,out , n = 128"
            << "partials, out, n=128"
            << "";
        QTest::newRow("a value without a name")
            << int(PipelineStepModel::Arguments) << "partials, =3"
            << ""
            << "Arguments: \"=3\" is not an argument name or name=value";
        QTest::newRow("swaps") << int(PipelineStepModel::Swaps) << "a:b, c : d"
                               << "a:b, c:d"
                               << "";
        QTest::newRow("a swap without a partner") << int(PipelineStepModel::Swaps) << "a"
                                                  << ""
                                                  << "Swaps: \"a\" is not a pair of buffers a:b";
        QTest::newRow("repeat 0") << int(PipelineStepModel::Repeat) << "0"
                                  << ""
                                  << "Repeat: must be a whole number from 1 to 100000";
        QTest::newRow("no kernel") << int(PipelineStepModel::Kernel) << " "
                                   << ""
                                   << "Kernel: must name the kernel to launch";
    }
    void textParses() {
        QFETCH(int, column);
        QFETCH(QString, text);
        QFETCH(QString, shownBack);
        QFETCH(QString, error);
        PipelineStepModel model;
        QAbstractItemModelTester tester(&model);
        model.setSteps(example().pipeline.steps);
        QSignalSpy edited(&model, &PipelineStepModel::stepsEdited);
        const QModelIndex cell = model.index(1, column);
        const QString before = cell.data().toString();
        const bool ok = model.setData(cell, text, Qt::EditRole);
        QCOMPARE(ok, !shownBack.isEmpty());
        if (ok) {
            QCOMPARE(cell.data().toString(), shownBack);
            QCOMPARE(edited.count(), 1);
            QVERIFY(model.lastError().isEmpty());
        } else {
            QCOMPARE(cell.data().toString(), before);
            QCOMPARE(edited.count(), 0);
            QVERIFY2(model.lastError().startsWith(error), qPrintable(model.lastError()));
        }
        QVERIFY(!(model.flags(model.index(0, PipelineStepModel::Time)) & Qt::ItemIsEditable));
    }

    void editsReachTheDocument() {
        Engine engine;
        ProjectDocument document;
        Workbench workbench(&engine, &document);
        PipelinePanel panel;
        bind::pipeline(&workbench, &panel);
        document.replace(example());
        PipelineStepModel* model = panel.model();
        QCOMPARE(model->rowCount(), 2);
        QCOMPARE(model->index(0, PipelineStepModel::Kernel).data().toString(),
                 QStringLiteral("reduce_partials"));
        QCOMPARE(model->index(1, PipelineStepModel::Arguments).data().toString(),
                 QStringLiteral("partials, out, n=256"));

        QSignalSpy changed(&document, &ProjectDocument::pipelineChanged);
        QVERIFY(model->setData(model->index(0, PipelineStepModel::Repeat), "4", Qt::EditRole));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(document.project().pipeline.steps[0].repeat, 4);
        QVERIFY(document.isDirty());

        // A refused edit changes nothing and says why under the table.
        auto* problem = panel.findChild<QLabel*>(QStringLiteral("pipelineProblem"));
        QVERIFY(problem);
        QVERIFY(!model->setData(model->index(0, PipelineStepModel::Grid), "x", Qt::EditRole));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(document.project().pipeline.steps[0].launch.grid[0], 256);

        // A step naming a buffer the project does not have: kept, and named in the panel.
        QVERIFY(model->setData(model->index(1, PipelineStepModel::Arguments), "tmp, out, n",
                               Qt::EditRole));
        QCOMPARE(document.project().pipeline.steps[1].args[0].argument, QStringLiteral("tmp"));
        QVERIFY2(problem->text().startsWith(QStringLiteral(
                     "pipeline.steps[1].args[0]: no argument named 'tmp' in the project")),
                 qPrintable(problem->text()));
        QVERIFY(model->setData(model->index(1, PipelineStepModel::Arguments), "partials, out, n",
                               Qt::EditRole));
        QVERIFY(problem->text().isEmpty());

        auto* graph = panel.findChild<QCheckBox*>(QStringLiteral("graphCheck"));
        QVERIFY(graph && graph->isChecked());
        graph->setChecked(false);
        QVERIFY(!document.project().pipeline.graph);

        panel.findChild<QPushButton*>(QStringLiteral("addStep"))->click();
        QCOMPARE(document.project().pipeline.steps.size(), 3);
        QCOMPARE(document.project().pipeline.steps[2].kernel, QStringLiteral("reduce_final"));
        panel.findChild<QPushButton*>(QStringLiteral("removeStep"))->click();
        panel.findChild<QPushButton*>(QStringLiteral("removeStep"))->click();
        panel.findChild<QPushButton*>(QStringLiteral("removeStep"))->click();
        QVERIFY(document.project().pipeline.isEmpty());
        QVERIFY(!document.project().toJson().contains(QStringLiteral("pipeline")));
        // An empty list starts again from the project's own kernel and all its arguments.
        panel.findChild<QPushButton*>(QStringLiteral("addStep"))->click();
        QCOMPARE(document.project().pipeline.steps.size(), 1);
        QCOMPARE(document.project().pipeline.steps[0].kernel, QStringLiteral("sum_reference"));
        QCOMPARE(document.project().pipeline.steps[0].args.size(), 4);
    }

    void documentEditsReachThePanel() {
        Engine engine;
        ProjectDocument document;
        Workbench workbench(&engine, &document);
        PipelinePanel panel;
        bind::pipeline(&workbench, &panel);
        document.replace(example());
        Pipeline p = document.project().pipeline;
        p.steps[0].launch.block = {128, 1, 1};
        document.setPipeline(p);
        QCOMPARE(panel.model()->index(0, PipelineStepModel::Block).data().toString(),
                 QStringLiteral("128"));
        // Removing an argument a step uses is shown at once.
        QVector<ArgumentSpec> args = document.project().arguments;
        args.removeAt(1);
        document.setArguments(args);
        QVERIFY(panel.findChild<QLabel*>(QStringLiteral("pipelineProblem"))
                    ->text()
                    .contains(QStringLiteral("no argument named 'partials'")));
    }

    void showsTheRunsTimes() {
        PipelinePanel panel;
        panel.setPipeline(example().pipeline);
        PipelineTiming t;
        t.launches = 2;
        t.steps = {StepTiming{QStringLiteral("reduce_partials"), 1, computeStats({0.012})},
                   StepTiming{QStringLiteral("reduce_final"), 1, computeStats({0.004})}};
        t.sequence = computeStats({0.040});
        t.graph = true;
        t.graphReplay = computeStats({0.025});
        panel.showTiming(t);
        QCOMPARE(panel.model()->index(0, PipelineStepModel::Time).data().toString(),
                 QStringLiteral("12.0 µs"));
        QCOMPARE(panel.model()->index(1, PipelineStepModel::Time).data().toString(),
                 QStringLiteral("4.00 µs"));
        const QString text = panel.findChild<QLabel*>(QStringLiteral("pipelineTiming"))->text();
        QVERIFY2(text.contains(QStringLiteral("saved 15.0 µs (37.5 %)")), qPrintable(text));
        panel.showTiming({});
        QCOMPARE(panel.model()->index(0, PipelineStepModel::Time).data().toString(),
                 QStringLiteral("-"));
    }
};

KERNELPAD_TEST_MAIN(TestPipelinePanel)
} // namespace tst_pipelinepanel
#include "tst_pipelinepanel.moc"
