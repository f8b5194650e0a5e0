// The project templates (resources/templates): listed in teaching order, each loads, compiles
// with NVRTC without a warning, and names kernels that the compiled program has.

#include "core/compile/CompileResult.h"
#include "core/project/Examples.h"
#include "core/project/Project.h"
#include "core/run/ExecutionSession.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include "../support/TestMain.h"
#include "TestPaths.h"

namespace tst_templates {

using namespace kernelpad;

namespace {
const QString kTemplates = QStringLiteral(KERNELPAD_SOURCE_DIR "/resources/templates");
// The GPU machine's architecture (an H100): the templates must build for what they run on.
const QString kArch = QStringLiteral("sm_90");
} // namespace

class TestTemplates : public QObject {
    Q_OBJECT

private slots:
    void listedInTeachingOrder() {
        const QVector<ExampleInfo> templates = listTemplates(kTemplates);
        QStringList names;
        for (const ExampleInfo& info : templates) {
            names.append(info.name);
            QVERIFY2(!info.description.trimmed().isEmpty(), qPrintable(info.path));
        }
        QCOMPARE(names, (QStringList{QStringLiteral("Empty kernel"), QStringLiteral("1D map"),
                                     QStringLiteral("2D map over an image"),
                                     QStringLiteral("Reduction")}));
    }

    void othersFollowByName() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        // A copy of the empty kernel under names the teaching order does not know.
        for (const QString& name :
             {QStringLiteral("zeta"), QStringLiteral("alpha"), QStringLiteral("reduction")}) {
            std::optional<Project> p =
                Project::load(kTemplates + QStringLiteral("/empty_kernel.kpad"), nullptr);
            QVERIFY(p);
            p->name = name;
            QString error;
            QVERIFY2(p->save(dir.filePath(name + QStringLiteral(".kpad")), &error),
                     qPrintable(error));
        }
        QStringList names;
        for (const ExampleInfo& info : listTemplates(dir.path()))
            names.append(info.name);
        QCOMPARE(names, (QStringList{QStringLiteral("reduction"), QStringLiteral("alpha"),
                                     QStringLiteral("zeta")}));
    }

    void directoryFromEnvironment() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        qputenv("KERNELPAD_TEMPLATES", dir.path().toLocal8Bit());
        QCOMPARE(templatesDirectory(), QFileInfo(dir.path()).canonicalFilePath());
        qunsetenv("KERNELPAD_TEMPLATES");
        QCOMPARE(templatesDirectory(), QFileInfo(kTemplates).canonicalFilePath());
    }

    void compiles_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QStringList>("kernels"); // the entry and its reference kernels
        QTest::newRow("empty kernel") << "empty_kernel.kpad" << QStringList{"kernel"};
        QTest::newRow("1D map, grid-stride") << "map_1d.kpad" << QStringList{"map"};
        QTest::newRow("2D map with a reference kernel")
            << "map_2d.kpad" << QStringList{"fade", "fade_reference"};
        QTest::newRow("reduction") << "reduction.kpad" << QStringList{"block_sum"};
    }
    void compiles() {
        QFETCH(QString, file);
        QFETCH(QStringList, kernels);
        QString error;
        const std::optional<Project> p =
            Project::load(kTemplates + QLatin1Char('/') + file, &error);
        QVERIFY2(p, qPrintable(error));
        QCOMPARE(p->kernel, kernels.first());
        const CompileResult r = compileProject(*p, kTemplates, kArch, nullptr);
        QVERIFY2(r.ok, qPrintable(r.log));
        // A first project shows no warning: its log must be clean.
        QVERIFY2(r.diagnostics.isEmpty(), qPrintable(r.log));
        for (const QString& kernel : kernels) {
            const KernelInfo* k = r.findKernel(kernel);
            QVERIFY2(k, qPrintable(kernel));
            QCOMPARE(k->params.size(), p->arguments.size());
        }
        // Every output is checked by something, so a first run says whether it is right.
        int verified = 0;
        for (const ArgumentSpec& argument : p->arguments)
            if (argument.isBuffer() && argument.buffer.verify.kind != VerifySpec::Kind::None)
                ++verified;
        QCOMPARE(verified, 1);
    }

    void everyExampleHasATopic() {
        const QVector<ExampleInfo> examples = listExamples(QStringLiteral(KERNELPAD_EXAMPLES_DIR));
        QVERIFY(!examples.isEmpty());
        for (const ExampleInfo& info : examples) {
            QCOMPARE(info.topic, exampleTopic(info.path));
            QVERIFY2(info.topic != QStringLiteral("More examples"),
                     qPrintable(QFileInfo(info.path).fileName() +
                                QStringLiteral(" has no topic in exampleTopic()")));
        }
        QCOMPARE(exampleTopic(QStringLiteral("/x/saxpy.kpad")), QStringLiteral("Basics"));
        QCOMPARE(exampleTopic(QStringLiteral("/x/unknown.kpad")), QStringLiteral("More examples"));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestTemplates)
} // namespace tst_templates
#include "tst_templates.moc"
