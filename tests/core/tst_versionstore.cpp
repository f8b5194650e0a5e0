// The versions of a project kept across restarts: a version made from a run keeps everything
// but the outputs, the store writes under its own data folder keyed by the project file's
// canonical path, keeps the newest within its bounds, and ignores a corrupt file with a
// message that names the file and the field.

#include "../support/TestMain.h"
#include "../support/TestProjects.h"
#include "core/run/VersionHistory.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

namespace tst_versionstore {

using namespace kernelpad;
using namespace kernelpad::test;

namespace {

RunResult run(double medianMs) {
    RunResult result;
    result.status = RunStatus::Ok;
    result.timing = computeStats({medianMs, medianMs * 1.1, medianMs * 0.9});
    result.device.name = QStringLiteral("Fake GPU");
    OutputBuffer output;
    output.name = QStringLiteral("out");
    result.outputs = {output};
    BufferVerification a;
    a.passed = true;
    BufferVerification b;
    b.passed = false;
    result.verification = {a, b};
    return result;
}

Version version(int number, double medianMs = 0.1) {
    const QDateTime at =
        QDateTime::fromString(QStringLiteral("2026-11-24T12:00:00.000"), Qt::ISODateWithMs)
            .addSecs(number);
    return Version::fromRun(number, at, fillProject(), run(medianMs),
                            QStringLiteral("block 256→128"), number % 2 == 0);
}

void writeFile(const QString& path, const QByteArray& bytes) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(bytes);
}

} // namespace

class TestVersionStore : public QObject {
    Q_OBJECT
private slots:
    void init();
    void fromRunKeepsAllButOutputs();
    void verdicts_data();
    void verdicts();
    void roundTrip();
    void missingFileIsEmpty();
    void keyedByCanonicalPath();
    void untitledKeepsNothing();
    void boundedToNewest();
    void corrupt_data();
    void corrupt();
    void clearRemovesTheFile();

private:
    std::unique_ptr<QTemporaryDir> m_data;
    std::unique_ptr<QTemporaryDir> m_projects;
    QString m_project;
};

void TestVersionStore::init() {
    m_data = std::make_unique<QTemporaryDir>();
    m_projects = std::make_unique<QTemporaryDir>();
    m_project = m_projects->filePath(QStringLiteral("fill.kpad"));
    QString error;
    QVERIFY2(fillProject().save(m_project, &error), qPrintable(error));
}

void TestVersionStore::fromRunKeepsAllButOutputs() {
    const Version v = version(3, 0.25);
    QCOMPARE(v.number, 3);
    QCOMPARE(v.project, fillProject());
    QCOMPARE(v.timing.medianMs, 0.25);
    QCOMPARE(v.timing.reps(), 3);
    QCOMPARE(v.buffersChecked, 2);
    QCOMPARE(v.buffersFailed, 1);
    QCOMPARE(v.device, QStringLiteral("Fake GPU"));
    QCOMPARE(v.changes, QStringLiteral("block 256→128"));
    QVERIFY(!v.profiled);
    QVERIFY(version(4).profiled);
    // Samples are capped.
    RunResult many = run(1);
    many.timing.timesMs.fill(1.0, Version::kMaxKeptSamples + 50);
    QCOMPARE(Version::fromRun(1, QDateTime::currentDateTime(), fillProject(), many, {}, false)
                 .timing.reps(),
             Version::kMaxKeptSamples);
}

void TestVersionStore::verdicts_data() {
    QTest::addColumn<int>("status");
    QTest::addColumn<int>("faultCode");
    QTest::addColumn<int>("failed");
    QTest::addColumn<QString>("expected");
    QTest::newRow("ok, all passed") << int(RunStatus::Ok) << 0 << 0 << QStringLiteral("passed");
    QTest::newRow("ok, one failed") << int(RunStatus::Ok) << 0 << 1 << QStringLiteral("failed");
    QTest::newRow("verification failed")
        << int(RunStatus::VerificationFailed) << 0 << 1 << QStringLiteral("failed");
    QTest::newRow("illegal address")
        << int(RunStatus::CudaError) << 700 << 0 << QStringLiteral("fault");
    QTest::newRow("compile error")
        << int(RunStatus::CompileError) << 0 << 0 << QStringLiteral("error");
    QTest::newRow("cancelled") << int(RunStatus::Cancelled) << 0 << 0
                               << QStringLiteral("cancelled");
}

void TestVersionStore::verdicts() {
    QFETCH(int, status);
    QFETCH(int, faultCode);
    QFETCH(int, failed);
    QFETCH(QString, expected);
    Version v;
    v.status = RunStatus(status);
    v.faultCode = faultCode;
    v.buffersChecked = 2;
    v.buffersFailed = failed;
    QCOMPARE(versionVerdictName(v.verdict()), expected);
}

void TestVersionStore::roundTrip() {
    const VersionStore store(m_project, m_data->path());
    QVERIFY(store.isValid());
    QVERIFY(store.filePath().startsWith(m_data->path() + QStringLiteral("/versions/")));
    Version memcheck = version(2);
    memcheck.sanitizer = SanitizerTool::Memcheck;
    memcheck.sanitizerErrors = 3;
    memcheck.error = QStringLiteral("an error");
    memcheck.faultCode = 700;
    Version kept = version(3);
    kept.kept = true;
    const QVector<Version> written = {version(1, 0.5), memcheck, kept};
    QString error;
    QVERIFY2(store.save(written, &error), qPrintable(error));

    const QVector<Version> read = VersionStore(m_project, m_data->path()).load(&error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(read.size(), 3);
    for (int i = 0; i < read.size(); ++i) {
        QCOMPARE(read[i].number, written[i].number);
        QCOMPARE(read[i].finishedAt, written[i].finishedAt);
        QCOMPARE(read[i].project, written[i].project);
        QCOMPARE(read[i].changes, written[i].changes);
        QCOMPARE(read[i].status, written[i].status);
        QCOMPARE(read[i].error, written[i].error);
        QCOMPARE(read[i].faultCode, written[i].faultCode);
        QCOMPARE(read[i].buffersChecked, written[i].buffersChecked);
        QCOMPARE(read[i].buffersFailed, written[i].buffersFailed);
        QCOMPARE(read[i].timing.timesMs, written[i].timing.timesMs);
        QCOMPARE(read[i].timing.medianMs, written[i].timing.medianMs);
        QCOMPARE(read[i].device, written[i].device);
        QCOMPARE(read[i].sanitizer, written[i].sanitizer);
        QCOMPARE(read[i].sanitizerErrors, written[i].sanitizerErrors);
        QCOMPARE(read[i].profiled, written[i].profiled);
        QCOMPARE(read[i].kept, written[i].kept);
    }
    // Nothing was written beside the project.
    QCOMPARE(QDir(m_projects->path()).entryList(QDir::Files),
             QStringList{QStringLiteral("fill.kpad")});
}

void TestVersionStore::missingFileIsEmpty() {
    QString error;
    QVERIFY(VersionStore(m_project, m_data->path()).load(&error).isEmpty());
    QVERIFY(error.isEmpty());
}

void TestVersionStore::keyedByCanonicalPath() {
    const QString link = m_projects->filePath(QStringLiteral("link.kpad"));
    QVERIFY(QFile::link(m_project, link));
    const QString dotted = m_projects->path() + QStringLiteral("/./fill.kpad");
    QCOMPARE(VersionStore(link, m_data->path()).filePath(),
             VersionStore(m_project, m_data->path()).filePath());
    QCOMPARE(VersionStore(dotted, m_data->path()).filePath(),
             VersionStore(m_project, m_data->path()).filePath());
    const QString other = m_projects->filePath(QStringLiteral("other.kpad"));
    QString error;
    QVERIFY(fillProject().save(other, &error));
    QVERIFY(VersionStore(other, m_data->path()).filePath() !=
            VersionStore(m_project, m_data->path()).filePath());
}

void TestVersionStore::untitledKeepsNothing() {
    const VersionStore store(QString(), m_data->path());
    QVERIFY(!store.isValid());
    QString error;
    QVERIFY(store.save({version(1)}, &error));
    QVERIFY(store.load(&error).isEmpty());
    QVERIFY(QDir(m_data->path()).isEmpty());
}

void TestVersionStore::boundedToNewest() {
    const VersionStore store(m_project, m_data->path());
    QVector<Version> many;
    for (int i = 1; i <= VersionStore::kMaxVersions + 5; ++i)
        many << version(i);
    QString error;
    QVERIFY2(store.save(many, &error), qPrintable(error));
    const QVector<Version> read = store.load(&error);
    QCOMPARE(read.size(), VersionStore::kMaxVersions);
    QCOMPARE(read.first().number, 6);
    QCOMPARE(read.last().number, VersionStore::kMaxVersions + 5);

    // The size cap: a version with a large source takes the room of many.
    Version big = version(1000);
    big.project.source = QString(int(VersionStore::kMaxFileBytes / 2), QLatin1Char('x'));
    Version big2 = big;
    big2.number = 1001;
    QVERIFY2(store.save({version(1), big, big2}, &error), qPrintable(error));
    QVERIFY(QFileInfo(store.filePath()).size() <= VersionStore::kMaxFileBytes);
    const QVector<Version> capped = store.load(&error);
    QCOMPARE(capped.size(), 1);
    QCOMPARE(capped.first().number, 1001);
}

void TestVersionStore::corrupt_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");
    QTest::newRow("not JSON") << QByteArray("{\"version\":1,") << QStringLiteral("not JSON");
    QTest::newRow("an array") << QByteArray("[]") << QStringLiteral("expected an object");
    QTest::newRow("another format version") << QByteArray("{\"version\":7,\"versions\":[]}")
                                            << QStringLiteral("version: expected 1, got 7");
    QTest::newRow("number a string")
        << QByteArray("{\"version\":1,\"versions\":[{\"number\":\"one\"}]}")
        << QStringLiteral("versions[0].number: expected a whole number, got a string");
    QTest::newRow("a project field wrong")
        << QByteArray("{\"version\":1,\"versions\":[{\"number\":1,\"finishedAt\":"
                      "\"2026-11-24T12:00:00.000\",\"status\":\"ok\",\"timing\":{},"
                      "\"project\":{\"version\":1,\"kernel\":5}}]}")
        << QStringLiteral("versions[0].project.");
    QTest::newRow("binary garbage")
        << QByteArray("\x00\xff\xfe garbage", 12) << QStringLiteral("not JSON");
}

void TestVersionStore::corrupt() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    const VersionStore store(m_project, m_data->path());
    writeFile(store.filePath(), bytes);
    if (QTest::currentTestFailed())
        return;
    QString error;
    QVERIFY(store.load(&error).isEmpty());
    QVERIFY2(error.contains(expected), qPrintable(error));
    QVERIFY2(error.contains(store.filePath()), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("ignored")), qPrintable(error));
}

void TestVersionStore::clearRemovesTheFile() {
    const VersionStore store(m_project, m_data->path());
    QString error;
    QVERIFY(store.save({version(1)}, &error));
    QVERIFY(QFile::exists(store.filePath()));
    QVERIFY(store.clear(&error));
    QVERIFY(!QFile::exists(store.filePath()));
    QVERIFY(store.clear(&error)); // nothing to clear is fine
}

KERNELPAD_TEST_GUILESS_MAIN(TestVersionStore)
} // namespace tst_versionstore
#include "tst_versionstore.moc"
