// kernelpad-cli test (app/cli/CliTest.h) without a GPU: its exit codes and messages for bad
// input and for no CUDA device, a stand-in runner's failing cases as text, JSON and JUnit
// XML, and the JUnit XML validated against tests/data/junit/junit.xsd with xmllint, with
// hostile text (markup, quotes, control characters) in the messages.

#include "../support/StandInRunner.h"
#include "core/compile/NvrtcApi.h"
#include "core/cuda/DriverApi.h"
#include "core/run/RunTypes.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QtTest>

namespace tst_testcli {

using namespace kernelpad;

namespace {

struct CliResult {
    int exitCode = -1;
    QString out;
    QString err;
};

CliResult runCli(const QStringList& args) {
    QProcess process;
    process.start(QStringLiteral(KERNELPAD_CLI_PATH), QStringList{QStringLiteral("test")} + args);
    if (!process.waitForFinished(120'000))
        qFatal("kernelpad-cli test did not finish");
    return {process.exitCode(), QString::fromUtf8(process.readAllStandardOutput()),
            QString::fromUtf8(process.readAllStandardError())};
}

const QString kSaxpy = QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad");

bool haveDevice() {
    QString why;
    return DriverApi::load(&why);
}

/// saxpy.kpad with `tests`, written into `dir`; its path.
QString saxpyWithTests(const QTemporaryDir& dir, const QJsonValue& tests) {
    QFile in(kSaxpy);
    if (!in.open(QIODevice::ReadOnly))
        qFatal("cannot read saxpy.kpad");
    QJsonObject json = QJsonDocument::fromJson(in.readAll()).object();
    if (!tests.isUndefined())
        json.insert(QStringLiteral("tests"), tests);
    const QString path = dir.filePath(QStringLiteral("saxpy.kpad"));
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(path));
    out.write(QJsonDocument(json).toJson());
    return path;
}

/// xmllint's verdict on `xml` against the schema: empty when valid, else its output; null
/// when xmllint is missing.
std::optional<QString> validate(const QString& xmlPath) {
    const QString xmllint = QStandardPaths::findExecutable(QStringLiteral("xmllint"));
    if (xmllint.isEmpty())
        return std::nullopt;
    QProcess process;
    process.start(xmllint, {QStringLiteral("--noout"), QStringLiteral("--schema"),
                            QStringLiteral(KERNELPAD_TEST_DATA_DIR "/junit/junit.xsd"), xmlPath});
    process.waitForFinished(60'000);
    const QString output =
        QString::fromUtf8(process.readAllStandardOutput() + process.readAllStandardError());
    return process.exitCode() == 0 ? QString() : output;
}

/// The result a stand-in runner answers every run with: verification failed, with markup,
/// quotes and control characters in the buffer's name and messages.
RunResult hostileResult() {
    RunResult r;
    r.status = RunStatus::VerificationFailed;
    r.device.name = QStringLiteral("Fake H100");
    r.device.ccMajor = 9;
    BufferVerification v;
    v.buffer = QStringLiteral("out");
    v.method = QStringLiteral("expression a*x+y");
    v.checked = 33;
    v.mismatches = 1;
    v.unwritten = 1;
    v.firstMismatches = {Mismatch{32, 0, 33}};
    v.error = QStringLiteral("bad <expr> & \"quote\" ]]> \x01\x1b[31m end");
    r.verification = {v};
    return r;
}

} // namespace

class TestTestCli : public QObject {
    Q_OBJECT
private slots:
    void refusesBadInput_data();
    void refusesBadInput();
    void noDeviceGivesCudaError();
    void compileErrorGivesOneWithTheLine();
    void standInFailuresAsJunit();
};

void TestTestCli::refusesBadInput_data() {
    QTest::addColumn<QJsonValue>("tests");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("message");
    QTest::newRow("bad case value")
        << QJsonValue(QJsonArray{QJsonObject{{"values", QJsonObject{{"n", 2.5}}}}}) << QStringList{}
        << "tests[0].values.n: not an integer (got 2.5";
    QTest::newRow("no such case") << QJsonValue(QJsonObject{{"generate", "tails"}})
                                  << QStringList{"--case", "n = 34"}
                                  << "--case: no case is named 'n = 34' (the cases: n = 1";
    QTest::newRow("option without value") << QJsonValue(QJsonValue::Undefined)
                                          << QStringList{"--case"} << "option --case needs a value";
}

void TestTestCli::refusesBadInput() {
    QFETCH(QJsonValue, tests);
    QFETCH(QStringList, extra);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const CliResult r = runCli(QStringList{saxpyWithTests(dir, tests)} + extra);
    QCOMPARE(r.exitCode, 4);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    // --json answers with the same message as JSON on stdout.
    const CliResult j = runCli(QStringList{saxpyWithTests(dir, tests), "--json"} + extra);
    QCOMPARE(j.exitCode, 4);
    const QJsonObject object = QJsonDocument::fromJson(j.out.toUtf8()).object();
    QVERIFY2(object.value("error").toString().contains(message), qPrintable(j.out));
}

void TestTestCli::noDeviceGivesCudaError() {
    if (haveDevice())
        QSKIP("this machine has a CUDA driver; tests/gpu/tst_gputests runs the cases on it");
    QTemporaryDir dir;
    const QString junit = dir.filePath(QStringLiteral("r.xml"));
    const CliResult r = runCli({kSaxpy, "--junit", junit});
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.out.contains(QStringLiteral("test stopped (driver-unavailable)")),
             qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("its own size is the single case")), qPrintable(r.out));
    const std::optional<QString> verdict = validate(junit);
    if (!verdict)
        QSKIP("xmllint is missing (apt-get install libxml2-utils)");
    QVERIFY2(verdict->isEmpty(), qPrintable(*verdict));
    QFile f(junit);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString xml = QString::fromUtf8(f.readAll());
    QVERIFY2(xml.contains(QStringLiteral("<error message=")) &&
                 xml.contains(QStringLiteral("type=\"driver-unavailable\"")),
             qPrintable(xml));
}

void TestTestCli::compileErrorGivesOneWithTheLine() {
    QString why;
    if (!NvrtcApi::load(&why))
        QSKIP(qPrintable(QStringLiteral("needs NVRTC: %1").arg(why)));
    QTemporaryDir dir;
    const QString path =
        saxpyWithTests(dir, QJsonArray{QJsonObject{{"values", QJsonObject{{"n", 33}}}}});
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QJsonObject json = QJsonDocument::fromJson(f.readAll()).object();
    f.close();
    json.insert("source", json.value("source").toString().replace("out[tid] =",
                                                                  "out[tid] = undefined_name +"));
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(QJsonDocument(json).toJson());
    f.close();
    const QString junit = dir.filePath(QStringLiteral("r.xml"));
    const CliResult r = runCli({path, "--junit", junit});
    QCOMPARE(r.exitCode, 1);
    // The compiler's line is in the report, not only a count of errors.
    QVERIFY2(r.out.contains(QStringLiteral("test stopped (compile-error)")) &&
                 r.out.contains(QStringLiteral("identifier \"undefined_name\" is undefined")),
             qPrintable(r.out));
    const std::optional<QString> verdict = validate(junit);
    if (!verdict)
        QSKIP("xmllint is missing (apt-get install libxml2-utils)");
    QVERIFY2(verdict->isEmpty(), qPrintable(*verdict));
}

void TestTestCli::standInFailuresAsJunit() {
    test::StandInRunner runner(QStringLiteral("stand-in"), QStringLiteral("Fake H100"));
    {
        // Every run answers with the hostile failure instead of the stand-in's Ok result.
        QFile ok(QFileInfo(runner.script()).dir().filePath(QStringLiteral("ok.json")));
        QVERIFY(ok.open(QIODevice::WriteOnly | QIODevice::Truncate));
        ok.write(QJsonDocument(hostileResult().toJson()).toJson(QJsonDocument::Compact));
    }
    QTemporaryDir dir;
    const QString project = saxpyWithTests(
        dir,
        QJsonArray{QJsonObject{{"values", QJsonObject{{"n", 33}}}},
                   QJsonObject{{"name", "tail <&> \"q\""}, {"values", QJsonObject{{"n", 65}}}}});
    const QString junit = dir.filePath(QStringLiteral("r.xml"));
    const QStringList runnerArgs{"--runner", "cmd:" + runner.spec().commandLine};
    const CliResult r = runCli(QStringList{project, "--junit", junit} + runnerArgs);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.out.contains(QStringLiteral("n = 33")) &&
                 r.out.contains(QStringLiteral("verify FAILED")),
             qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains(QStringLiteral("out: not verified: bad <expr> & \"quote\" ]]> "
                                           "\\u0001\\u001B[31m end")),
             qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("2 passed, 2 failed, 0 warnings, 4 skipped")),
             qPrintable(r.out));

    const std::optional<QString> verdict = validate(junit);
    if (!verdict)
        QSKIP("xmllint is missing (apt-get install libxml2-utils)");
    QVERIFY2(verdict->isEmpty(), qPrintable(*verdict));
    QFile f(junit);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString xml = QString::fromUtf8(f.readAll());
    // A testcase per case and check: 2 cases × (verify, canary, zeros, determinism).
    QCOMPARE(xml.count(QStringLiteral("<testcase ")), 8);
    QCOMPARE(xml.count(QStringLiteral("<failure ")), 2);
    QCOMPARE(xml.count(QStringLiteral("<skipped ")), 4);
    QVERIFY2(xml.contains(QStringLiteral("name=\"tail &lt;&amp;&gt; &quot;q&quot;: verify\"")),
             qPrintable(xml));
    QVERIFY2(!xml.contains(QChar(0x01)) && !xml.contains(QChar(0x1b)), qPrintable(xml));

    const CliResult j = runCli(QStringList{project, "--json"} + runnerArgs);
    QCOMPARE(j.exitCode, 2);
    const QJsonObject object = QJsonDocument::fromJson(j.out.toUtf8()).object();
    QCOMPARE(object.value("checks").toObject().value("failed").toInt(), 2);
    QCOMPARE(object.value("cases").toArray().size(), 2);
}

KERNELPAD_TEST_GUILESS_MAIN(TestTestCli)
} // namespace tst_testcli
#include "tst_testcli.moc"
