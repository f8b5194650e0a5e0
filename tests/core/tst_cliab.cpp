// kernelpad-cli ab's command line (app/cli/CliAbArgs.cpp) without a GPU: the usage errors, the
// options, and B taken from the versions the window keeps.

#include "../support/TestMain.h"
#include "TestPaths.h"
#include "app/cli/CliAb.h"
#include "core/run/VersionHistory.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

namespace tst_cliab {

using namespace kernelpad;
using namespace kernelpad::cli;

namespace {

const QString kSaxpy = QStringLiteral(KERNELPAD_SOURCE_DIR "/resources/examples/saxpy.kpad");

} // namespace

class TestCliAb : public QObject {
    Q_OBJECT
private slots:
    void usageErrors_data();
    void usageErrors();
    void optionsAreRead();
    void twoProjects();
    void missingProjectIsNamed();
    void versionFromTheStore();
    void missingVersionListsTheKeptOnes();
};

void TestCliAb::usageErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QString usage = QStringLiteral("ab: ab takes A.kpad B.kpad, or P.kpad --version N");
    QTest::addRow("nothing") << QStringList{} << usage;
    QTest::addRow("one project, no version") << QStringList{"a.kpad"} << usage;
    QTest::addRow("two projects and a version")
        << QStringList{"a.kpad", "b.kpad", "--version", "2"} << usage;
    QTest::addRow("three projects") << QStringList{"a.kpad", "b.kpad", "c.kpad"} << usage;
    QTest::addRow("not a project")
        << QStringList{"a.kpad", "b.cu"} << QStringLiteral("ab: b.cu is not a project (.kpad)");
    QTest::addRow("budget too small") << QStringList{"a.kpad", "b.kpad", "--budget-ms", "50"}
                                      << QStringLiteral("ab: --budget-ms takes an integer >= 100 "
                                                        "(got '50')");
    QTest::addRow("version 0") << QStringList{"a.kpad", "--version", "0"}
                               << QStringLiteral("ab: --version takes an integer >= 1 (got '0')");
    QTest::addRow("target 0") << QStringList{"a.kpad", "b.kpad", "--target-percent", "0"}
                              << QStringLiteral("ab: --target-percent takes a number above 0");
    QTest::addRow("value missing") << QStringList{"a.kpad", "b.kpad", "--device"}
                                   << QStringLiteral("ab: --device needs a value");
    QTest::addRow("unknown option") << QStringList{"a.kpad", "b.kpad", "--budget", "5"}
                                    << QStringLiteral("ab: unknown option --budget");
}

void TestCliAb::usageErrors() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QString error;
    QVERIFY(!parseAbCommandLine(args, &error));
    QVERIFY2(error.startsWith(message), qPrintable(error));
}

void TestCliAb::optionsAreRead() {
    QString error;
    const std::optional<AbCommandLine> line =
        parseAbCommandLine({"--json", "a.kpad", "--budget-ms", "2500", "b.kpad", "--target-percent",
                            "0.25", "--seed", "9", "--device", "1"},
                           &error);
    QVERIFY2(line, qPrintable(error));
    QCOMPARE(line->pathA, QStringLiteral("a.kpad"));
    QCOMPARE(line->pathB, QStringLiteral("b.kpad"));
    QVERIFY(line->json);
    QCOMPARE(line->settings.budgetMs, 2500);
    QCOMPARE(line->settings.targetHalfWidthPercent, 0.25);
    QCOMPARE(line->settings.seed, quint64(9));
    QCOMPARE(line->device, 1);
    QVERIFY(!line->version);
    const std::optional<AbCommandLine> version =
        parseAbCommandLine({"p.kpad", "--version", "3"}, &error);
    QVERIFY2(version, qPrintable(error));
    QCOMPARE(version->version.value_or(0), 3);
    QVERIFY(version->pathB.isEmpty());
}

void TestCliAb::twoProjects() {
    QString error;
    AbCommandLine line;
    line.pathA = kSaxpy;
    line.pathB = kSaxpy;
    line.device = 2;
    const std::optional<AbOrder> order = abOrderOf(line, &error);
    QVERIFY2(order, qPrintable(error));
    QCOMPARE(order->labelA, QStringLiteral("saxpy.kpad"));
    QCOMPARE(order->labelB, kSaxpy); // the same name twice: B by its path
    QCOMPARE(order->a.device, 2);
    QCOMPARE(order->b.project, order->a.project);
    QVERIFY(!order->a.keepOutputs);
}

void TestCliAb::missingProjectIsNamed() {
    QString error;
    AbCommandLine line;
    line.pathA = kSaxpy;
    line.pathB = QStringLiteral("/nonexistent/b.kpad");
    QVERIFY(!abOrderOf(line, &error));
    QVERIFY2(error.contains(QStringLiteral("/nonexistent/b.kpad")), qPrintable(error));
}

void TestCliAb::versionFromTheStore() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("saxpy.kpad"));
    QVERIFY(QFile::copy(kSaxpy, path));
    QString error;
    const std::optional<Project> project = Project::load(path, &error);
    QVERIFY2(project, qPrintable(error));
    Version older;
    older.number = 1;
    older.finishedAt = QDateTime::currentDateTimeUtc();
    older.project = *project;
    older.project.source += QStringLiteral("\n// version one\n");
    Version kept = older;
    kept.number = 2;
    kept.kept = true; // a restore's copy, not a run: not a version to compare with
    const VersionStore store(path, dir.filePath(QStringLiteral("data")));
    QVERIFY2(store.save({older, kept}, &error), qPrintable(error));

    AbCommandLine line;
    line.pathA = path;
    line.version = 1;
    line.versionsDir = dir.filePath(QStringLiteral("data"));
    const std::optional<AbOrder> order = abOrderOf(line, &error);
    QVERIFY2(order, qPrintable(error));
    QCOMPARE(order->labelB, QStringLiteral("version 1"));
    QCOMPARE(order->b.project.source, older.project.source);
    QCOMPARE(order->a.project.source, project->source);
    QCOMPARE(order->b.projectDir, order->a.projectDir);
}

void TestCliAb::missingVersionListsTheKeptOnes() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("saxpy.kpad"));
    QVERIFY(QFile::copy(kSaxpy, path));
    QString error;
    AbCommandLine line;
    line.pathA = path;
    line.version = 7;
    line.versionsDir = dir.filePath(QStringLiteral("data"));
    QVERIFY(!abOrderOf(line, &error));
    QVERIFY2(error.contains(QStringLiteral("--version 7: the window has kept no versions")),
             qPrintable(error));
    Version v;
    v.number = 4;
    v.finishedAt = QDateTime::currentDateTimeUtc();
    v.project = *Project::load(path, &error);
    QVERIFY(VersionStore(path, line.versionsDir).save({v}, &error));
    QVERIFY(!abOrderOf(line, &error));
    QVERIFY2(error.endsWith(QStringLiteral("--version 7: no such version (kept: 4)")),
             qPrintable(error));
}

KERNELPAD_TEST_GUILESS_MAIN(TestCliAb)
} // namespace tst_cliab
#include "tst_cliab.moc"
