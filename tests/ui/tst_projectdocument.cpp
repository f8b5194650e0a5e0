// ProjectDocument: path and dirty state, save/load through Project, the recovery file.

#include "../support/TestMain.h"
#include "ui/ProjectDocument.h"

#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

namespace tst_projectdocument {

using namespace kernelpad;

namespace {

Project
sampleProject(const QString& source = QStringLiteral("__global__ void k(int* p) { *p = 1; }\n")) {
    Project p;
    p.name = QStringLiteral("Sample");
    p.source = source;
    p.kernel = QStringLiteral("k");
    ArgumentSpec arg;
    arg.name = QStringLiteral("p");
    arg.kind = ArgumentSpec::Kind::Buffer;
    arg.buffer.elementType = ValueType::of(ScalarType::Int32);
    arg.buffer.count = QStringLiteral("1");
    arg.buffer.direction = Direction::Out;
    p.arguments = {arg};
    p.launch.block = {128, 1, 1};
    return p;
}

void clearRecoveryDirectory() {
    QDir(ProjectDocument::recoveryDirectory()).removeRecursively();
}

} // namespace

class TestProjectDocument : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void saveThenLoadRoundTrip();
    void loadFailures_data();
    void loadFailures();
    void saveFailureKeepsState();
    void dirtySignals();
    void autosaveOnlyWhenDirty();
    void autosaveTimer();
    void saveRemovesRecovery();
    void recoveryOfLiveDocumentIsNotOffered();
    void recoveryAfterTheDocumentIsGone_data();
    void recoveryAfterTheDocumentIsGone();
    void garbageRecoveryIsSkipped();
    void newestRecoveryFirst();
    void settersSignalOnlyChanges();
    void saveNamesAnUnnamedProject();

private:
    QTemporaryDir m_dir;
};

void TestProjectDocument::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
}

void TestProjectDocument::init() {
    clearRecoveryDirectory();
}

void TestProjectDocument::saveThenLoadRoundTrip() {
    ProjectDocument doc;
    const Project project = sampleProject();
    const QString path = m_dir.filePath(QStringLiteral("round.kpad"));
    QString error;
    doc.replace(project);
    QSignalSpy pathSpy(&doc, &ProjectDocument::pathChanged);
    QVERIFY2(doc.save(path, &error), qPrintable(error));
    QCOMPARE(doc.path(), QFileInfo(path).absoluteFilePath());
    QCOMPARE(doc.displayName(), QStringLiteral("round.kpad"));
    QCOMPARE(doc.directory(), m_dir.path());
    QCOMPARE(pathSpy.count(), 1);

    ProjectDocument other;
    QSignalSpy replaced(&other, &ProjectDocument::projectReplaced);
    QVERIFY2(other.open(path, &error), qPrintable(error));
    QVERIFY(other.project() == project);
    QCOMPARE(replaced.count(), 1);
    QVERIFY(!other.isDirty());
    QCOMPARE(other.path(), doc.path());
}

void TestProjectDocument::loadFailures_data() {
    QTest::addColumn<QByteArray>("contents");
    QTest::addColumn<QString>("errorMentions");
    QTest::newRow("not json") << QByteArray("{ nope") << QStringLiteral("round");
    QTest::newRow("missing kernel field")
        << QByteArray(R"({"format":"kernelpad-project","version":1,"source":"x"})")
        << QStringLiteral("kernel");
    QTest::newRow("bad launch block")
        << QByteArray(R"({"format":"kernelpad-project","version":1,"source":"x","kernel":"k",)"
                      R"("launch":{"grid":[1,1,1],"block":[0,1,1]}})")
        << QStringLiteral("launch");
}

void TestProjectDocument::loadFailures() {
    QFETCH(QByteArray, contents);
    QFETCH(QString, errorMentions);
    const QString path = m_dir.filePath(QStringLiteral("round-broken.kpad"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(contents);
    file.close();

    ProjectDocument doc;
    const QString good = m_dir.filePath(QStringLiteral("good.kpad"));
    QString error;
    doc.replace(sampleProject());
    QVERIFY(doc.save(good, &error));
    doc.setSource(QStringLiteral("typed, not saved"));
    QVERIFY(!doc.open(path, &error));
    QVERIFY2(error.contains(errorMentions), qPrintable(error));
    // The document still describes the project that is open, edits and all.
    QCOMPARE(doc.path(), QFileInfo(good).absoluteFilePath());
    QVERIFY(doc.isDirty());
    QCOMPARE(doc.project().source, QStringLiteral("typed, not saved"));
}

void TestProjectDocument::saveFailureKeepsState() {
    ProjectDocument doc;
    doc.replace(sampleProject());
    doc.markChanged();
    QString error;
    const QString impossible = m_dir.filePath(QStringLiteral("no/such/folder/x.kpad"));
    QVERIFY(!doc.save(impossible, &error));
    QVERIFY(!error.isEmpty());
    QVERIFY(doc.isDirty());
    QVERIFY(doc.isUntitled());
}

void TestProjectDocument::dirtySignals() {
    ProjectDocument doc;
    doc.replace(sampleProject());
    QSignalSpy spy(&doc, &ProjectDocument::dirtyChanged);
    doc.markChanged();
    doc.markChanged();
    QCOMPARE(spy.count(), 1); // only the transition is signalled
    QCOMPARE(spy.at(0).at(0).toBool(), true);
    QString error;
    QVERIFY(doc.save(m_dir.filePath(QStringLiteral("d.kpad")), &error));
    QCOMPARE(spy.count(), 2);
    QCOMPARE(spy.at(1).at(0).toBool(), false);
}

void TestProjectDocument::autosaveOnlyWhenDirty() {
    ProjectDocument doc;
    doc.replace(sampleProject(QStringLiteral("typed text")));
    QVERIFY(!doc.autosaveNow());
    QVERIFY(!doc.hasRecoveryFile());
    doc.markChanged();
    QVERIFY(doc.autosaveNow());
    QVERIFY(doc.hasRecoveryFile());
    QVERIFY(doc.recoveryPath().startsWith(ProjectDocument::recoveryDirectory()));
    QString error;
    const std::optional<RecoveryEntry> entry =
        ProjectDocument::readRecovery(doc.recoveryPath(), &error);
    QVERIFY2(entry, qPrintable(error));
    QCOMPARE(entry->project.source, QStringLiteral("typed text"));
    QVERIFY(entry->originalPath.isEmpty());
}

void TestProjectDocument::autosaveTimer() {
    ProjectDocument doc;
    QCOMPARE(doc.autosaveIntervalMs(), ProjectDocument::kAutosaveIntervalMs);
    doc.setAutosaveIntervalMs(20);
    doc.replace(sampleProject());
    doc.markChanged();
    QTRY_VERIFY(doc.hasRecoveryFile());
}

void TestProjectDocument::saveRemovesRecovery() {
    ProjectDocument doc;
    doc.replace(sampleProject());
    doc.markChanged();
    QVERIFY(doc.autosaveNow());
    const QString recovery = doc.recoveryPath();
    QString error;
    QVERIFY(doc.save(m_dir.filePath(QStringLiteral("s.kpad")), &error));
    QVERIFY(!QFileInfo::exists(recovery));
}

void TestProjectDocument::recoveryOfLiveDocumentIsNotOffered() {
    ProjectDocument doc;
    doc.replace(sampleProject());
    doc.markChanged();
    QVERIFY(doc.autosaveNow());
    // The document is still open (its lock is held): nothing to recover.
    QVERIFY(ProjectDocument::findRecoveryFiles().isEmpty());
}

void TestProjectDocument::recoveryAfterTheDocumentIsGone_data() {
    QTest::addColumn<QString>("kernel");
    QTest::newRow("valid project") << QStringLiteral("k");
    // No kernel chosen yet is not a valid .kpad; the typed source must come back anyway.
    QTest::newRow("half-finished project") << QString();
}

void TestProjectDocument::recoveryAfterTheDocumentIsGone() {
    QFETCH(QString, kernel);
    const QString path = m_dir.filePath(QStringLiteral("orig.kpad"));
    QString recovery;
    {
        auto doc = std::make_unique<ProjectDocument>();
        QString error;
        doc->replace(sampleProject());
        QVERIFY(doc->save(path, &error));
        doc->setSource(QStringLiteral("unsaved edit"));
        doc->setKernel(kernel);
        QVERIFY(doc->autosaveNow());
        recovery = doc->recoveryPath();
    } // destroyed without removeRecovery(): what a crash leaves behind
    QVERIFY(QFileInfo::exists(recovery));
    const QVector<RecoveryEntry> entries = ProjectDocument::findRecoveryFiles();
    QCOMPARE(entries.size(), 1);
    QCOMPARE(entries.first().project.source, QStringLiteral("unsaved edit"));
    QCOMPARE(entries.first().originalPath, QFileInfo(path).absoluteFilePath());

    ProjectDocument restored;
    QSignalSpy replaced(&restored, &ProjectDocument::projectReplaced);
    restored.adoptRecovery(entries.first());
    QCOMPARE(replaced.count(), 1);
    QCOMPARE(restored.project().source, QStringLiteral("unsaved edit"));
    QVERIFY(restored.isDirty());
    QCOMPARE(restored.path(), QFileInfo(path).absoluteFilePath());
    QCOMPARE(restored.recoveryPath(), entries.first().recoveryPath);
    // Now held again: not offered twice.
    QVERIFY(ProjectDocument::findRecoveryFiles().isEmpty());
    restored.removeRecovery();
    QVERIFY(!QFileInfo::exists(recovery));
}

void TestProjectDocument::garbageRecoveryIsSkipped() {
    QVERIFY(QDir().mkpath(ProjectDocument::recoveryDirectory()));
    QFile junk(QDir(ProjectDocument::recoveryDirectory()).filePath(QStringLiteral("junk.json")));
    QVERIFY(junk.open(QIODevice::WriteOnly));
    junk.write("{\"format\":\"something-else\"}");
    junk.close();
    QString error;
    QVERIFY(!ProjectDocument::readRecovery(junk.fileName(), &error));
    QVERIFY(error.contains(QStringLiteral("recovery")));
    QVERIFY(ProjectDocument::findRecoveryFiles().isEmpty());
    QVERIFY(junk.exists()); // never deleted behind the user's back
}

void TestProjectDocument::newestRecoveryFirst() {
    for (const QString& text : {QStringLiteral("older"), QStringLiteral("newer")}) {
        ProjectDocument doc;
        doc.replace(sampleProject(text));
        doc.markChanged();
        QVERIFY(doc.autosaveNow());
        QTest::qWait(5); // distinct timestamps (milliseconds are stored)
    }
    const QVector<RecoveryEntry> entries = ProjectDocument::findRecoveryFiles();
    QCOMPARE(entries.size(), 2);
    QCOMPARE(entries.at(0).project.source, QStringLiteral("newer"));
    QCOMPARE(entries.at(1).project.source, QStringLiteral("older"));
}

void TestProjectDocument::settersSignalOnlyChanges() {
    ProjectDocument doc;
    doc.replace(sampleProject());
    QVERIFY(!doc.isDirty());
    QSignalSpy source(&doc, &ProjectDocument::sourceChanged);
    QSignalSpy kernel(&doc, &ProjectDocument::kernelChanged);
    QSignalSpy launch(&doc, &ProjectDocument::launchChanged);
    QSignalSpy edited(&doc, &ProjectDocument::edited);

    // The value already held: nothing happens, so a panel echoing the document is harmless.
    doc.setSource(doc.project().source);
    doc.setKernel(QStringLiteral("  ") + doc.project().kernel + QStringLiteral(" "));
    doc.setLaunch(doc.project().launch);
    doc.setArguments(doc.project().arguments);
    QCOMPARE(edited.count(), 0);
    QVERIFY(!doc.isDirty());

    LaunchConfig bigger = doc.project().launch;
    bigger.block[0] *= 2;
    doc.setLaunch(bigger);
    QCOMPARE(launch.count(), 1);
    QCOMPARE(edited.count(), 1);
    QCOMPARE(source.count(), 0);
    QVERIFY(doc.isDirty());
    QVERIFY(doc.project().launch == bigger);

    doc.setSource(QStringLiteral("// new text"));
    doc.setKernel(QStringLiteral("other"));
    QCOMPARE(source.count(), 1);
    QCOMPARE(kernel.count(), 1);
    QCOMPARE(edited.count(), 3);
    QCOMPARE(doc.project().kernel, QStringLiteral("other"));
}

void TestProjectDocument::saveNamesAnUnnamedProject() {
    ProjectDocument doc;
    Project unnamed = sampleProject(QStringLiteral("__global__ void scale(float* x) {}"));
    unnamed.name.clear();
    unnamed.kernel.clear();
    doc.replace(unnamed);
    QCOMPARE(doc.displayName(), QStringLiteral("Untitled"));
    QSignalSpy kernel(&doc, &ProjectDocument::kernelChanged);
    QString error;
    // No suffix: .kpad is added; the format needs a name and a kernel, so both are filled.
    QVERIFY2(doc.save(m_dir.filePath(QStringLiteral("named")), &error), qPrintable(error));
    QCOMPARE(doc.displayName(), QStringLiteral("named.kpad"));
    QCOMPARE(doc.project().name, QStringLiteral("named"));
    QCOMPARE(doc.project().kernel, QStringLiteral("scale"));
    QCOMPARE(kernel.count(), 1);
    QVERIFY(!doc.isDirty());
    const std::optional<Project> reread = ProjectDocument::read(doc.path(), &error);
    QVERIFY2(reread, qPrintable(error));
    QCOMPARE(reread->kernel, QStringLiteral("scale"));
}

KERNELPAD_TEST_MAIN(TestProjectDocument)
} // namespace tst_projectdocument
#include "tst_projectdocument.moc"
