// `kernelpad-cli profile` without a GPU: ncu replaced by a script (KERNELPAD_NCU) that records
// its arguments, writes what the real ncu writes to its log, and starts the runner it was
// given, so the whole path runs: ncu's command line, the runner under it speaking the
// protocol, the log read back, and the exit codes.
#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace tst_profilecli {

namespace {

/// Records its arguments to $FAKE_NCU_ARGS (one a line), writes $FAKE_NCU_LOG's text to the
/// --log-file, and runs what follows `-o REPORT` (the runner) as ncu does.
constexpr const char* kFakeNcu = R"(#!/bin/bash
printf '%s\n' "$@" > "$FAKE_NCU_ARGS"
log=""
args=("$@")
i=0
while [ $i -lt ${#args[@]} ]; do
  case "${args[$i]}" in
    --log-file) log="${args[$((i+1))]}"; i=$((i+2));;
    -o) i=$((i+2)); break;;
    *) i=$((i+1));;
  esac
done
printf '%s\n' "$FAKE_NCU_LOG" > "$log"
exec "${args[@]:$i}"
)";

struct CliRun {
    int exitCode = -1;
    QJsonObject json;
    QString out;
};

} // namespace

class TestProfileCli : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void counterPermissionSaysHowToAllowIt();
    void runnerFailureIsTheRunnersMessage();
    void compileErrorExitsOne();
    void aBadBaselineIsRefusedBeforeAnyProfile();

private:
    CliRun profile(const QString& kpad, const QString& log, const QStringList& extra = {});

    QTemporaryDir m_dir;
    QString m_ncu;
    QString m_argsFile;
};

void TestProfileCli::initTestCase() {
    QVERIFY(m_dir.isValid());
    m_ncu = m_dir.filePath(QStringLiteral("ncu"));
    QFile f(m_ncu);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(kFakeNcu);
    f.close();
    QVERIFY(
        f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner));
    m_argsFile = m_dir.filePath(QStringLiteral("args.txt"));
}

CliRun TestProfileCli::profile(const QString& kpad, const QString& log, const QStringList& extra) {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("KERNELPAD_NCU"), m_ncu);
    env.insert(QStringLiteral("FAKE_NCU_ARGS"), m_argsFile);
    env.insert(QStringLiteral("FAKE_NCU_LOG"), log);
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(KERNELPAD_CLI_PATH),
            QStringList{QStringLiteral("profile"), kpad, QStringLiteral("--json")} + extra);
    CliRun r;
    if (!p.waitForFinished(120000)) {
        p.kill();
        p.waitForFinished(5000);
        r.out = QStringLiteral("kernelpad-cli profile did not finish in 120 s");
        return r;
    }
    r.exitCode = p.exitCode();
    const QByteArray out = p.readAllStandardOutput();
    r.out = QString::fromUtf8(out) + QString::fromUtf8(p.readAllStandardError());
    r.json = QJsonDocument::fromJson(out).object();
    return r;
}

void TestProfileCli::counterPermissionSaysHowToAllowIt() {
    const CliRun r =
        profile(QStringLiteral(KERNELPAD_TEST_DATA_DIR "/ncu/read_strided.kpad"),
                QStringLiteral("==PROF== Connected to process 1 (kernelpad-cli)\n"
                               "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to "
                               "access NVIDIA GPU Performance Counters on the target device 0."));
    QCOMPARE(r.exitCode, 3);
    QCOMPARE(r.json.value(QStringLiteral("status")).toString(),
             QStringLiteral("counter-permission"));
    const QString error = r.json.value(QStringLiteral("error")).toString();
    QVERIFY2(error.contains(QStringLiteral("NVreg_RestrictProfilingToAdminUsers=0")),
             qPrintable(r.out));
    QVERIFY2(error.contains(QStringLiteral("https://developer.nvidia.com/ERR_NVGPUCTRPERM")),
             qPrintable(error));

    // ncu was asked for one launch of the kernel's lowered name, the basic set with the
    // sections the margin needs, its output kept off the runner's stdout, then the runner.
    QFile args(m_argsFile);
    QVERIFY(args.open(QIODevice::ReadOnly));
    const QString joined =
        QString::fromUtf8(args.readAll()).trimmed().replace(QLatin1Char('\n'), QLatin1Char(' '));
    QVERIFY2(joined.startsWith(QStringLiteral(
                 "--kernel-name-base mangled -k regex:^read_strided$ -c 1 --set basic")),
             qPrintable(joined));
    QVERIFY2(joined.contains(QStringLiteral("--section SourceCounters --section WarpStateStats")),
             qPrintable(joined));
    QVERIFY2(joined.contains(QStringLiteral("--log-file ")), qPrintable(joined));
    QVERIFY2(joined.endsWith(QStringLiteral("kernelpad-cli serve")), qPrintable(joined));
}

void TestProfileCli::runnerFailureIsTheRunnersMessage() {
    // No driver here (or, on a GPU machine, a report this script never writes): the run under
    // "ncu" ends without a profile, and the message is the runner's or says no report came.
    const CliRun r = profile(QStringLiteral(KERNELPAD_TEST_DATA_DIR "/ncu/read_strided.kpad"),
                             QStringLiteral("==PROF== Disconnected from process 1"));
    QCOMPARE(r.exitCode, 3);
    const QString status = r.json.value(QStringLiteral("status")).toString();
    QVERIFY2(status == QLatin1String("kernel-failed") || status == QLatin1String("failed"),
             qPrintable(r.out));
    QVERIFY2(!r.json.value(QStringLiteral("error")).toString().isEmpty(), qPrintable(r.out));
}

void TestProfileCli::compileErrorExitsOne() {
    QFile original(QStringLiteral(KERNELPAD_TEST_DATA_DIR "/ncu/read_strided.kpad"));
    QVERIFY(original.open(QIODevice::ReadOnly));
    QJsonObject project = QJsonDocument::fromJson(original.readAll()).object();
    project.insert(QStringLiteral("source"),
                   QStringLiteral("extern \"C\" __global__ void read_strided(const float *in, "
                                  "float *out, int n) { out[0] = undeclared; }\n"));
    const QString path = m_dir.filePath(QStringLiteral("broken.kpad"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QJsonDocument(project).toJson());
    f.close();
    const CliRun r = profile(path, QString());
    QCOMPARE(r.exitCode, 1);
    QCOMPARE(r.json.value(QStringLiteral("status")).toString(), QStringLiteral("kernel-failed"));
    QVERIFY2(
        r.json.value(QStringLiteral("error")).toString().contains(QStringLiteral("undeclared")),
        qPrintable(r.out));
}

// --baseline names a project or a saved profile; a saved one that is missing or not a profile
// is refused with its name before ncu is started (no profile is spent on a typo).
void TestProfileCli::aBadBaselineIsRefusedBeforeAnyProfile() {
    const QString kpad = QStringLiteral(KERNELPAD_TEST_DATA_DIR "/ncu/read_strided.kpad");
    const QString notAProfile = m_dir.filePath(QStringLiteral("settings.json"));
    QFile f(notAProfile);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"theme\": \"dark\"}");
    f.close();
    const struct {
        QString baseline;
        QString message;
    } cases[] = {
        {QStringLiteral("notes.txt"), QStringLiteral("--baseline takes a FILE.kpad")},
        {m_dir.filePath(QStringLiteral("missing.json")), QStringLiteral("does not exist")},
        {notAProfile, QStringLiteral("not a saved profile")},
    };
    for (const auto& c : cases) {
        QFile::remove(m_argsFile);
        const CliRun r = profile(kpad, QString(), {QStringLiteral("--baseline"), c.baseline});
        QCOMPARE(r.exitCode, 4);
        QCOMPARE(r.json.value(QStringLiteral("status")).toString(), QStringLiteral("bad-input"));
        const QString error = r.json.value(QStringLiteral("error")).toString();
        QVERIFY2(error.contains(c.message), qPrintable(r.out));
        QVERIFY2(!QFile::exists(m_argsFile), qPrintable(c.baseline)); // ncu never started
    }
}

KERNELPAD_TEST_GUILESS_MAIN(TestProfileCli)
} // namespace tst_profilecli
#include "tst_profilecli.moc"
