// `kernelpad-cli compile FILE` and `--diff FILE` read their files as bounded regular files: a
// FIFO, /dev/zero and /proc/self/pagemap are refused at once with the path named, never read.

#include "../support/TestMain.h"
#include "TestPaths.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

namespace tst_clisourcefiles {

namespace {

/// Far past a refusal, far below "for ever" (a FIFO with no writer, /dev/zero).
constexpr int kFinishLimitMs = 60'000;

const char* const kSaxpy = R"(extern "C" __global__ void saxpy(float a, float* x, int n)
{
    if (threadIdx.x < n) x[threadIdx.x] *= a;
}
)";

} // namespace

class TestCliSourceFiles : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void specialFileRefused_data();
    void specialFileRefused();

private:
    QTemporaryDir m_dir;
    QString m_fifo;
    QString m_saxpy;
};

void TestCliSourceFiles::initTestCase() {
    QVERIFY(m_dir.isValid());
    m_fifo = m_dir.filePath(QStringLiteral("fifo.cu"));
    QCOMPARE(::mkfifo(QFile::encodeName(m_fifo).constData(), 0600), 0);
    m_saxpy = m_dir.filePath(QStringLiteral("saxpy.cu"));
    QFile file(m_saxpy);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QVERIFY(file.write(kSaxpy) > 0);
}

void TestCliSourceFiles::specialFileRefused_data() {
    QTest::addColumn<QStringList>("args"); // %fifo and %saxpy stand for the files
    QTest::addColumn<QString>("named");    // the path the message names; empty: the FIFO
    QTest::newRow("compile a FIFO") << QStringList{"compile", "%fifo"} << QString();
    QTest::newRow("compile a FIFO, --json")
        << QStringList{"compile", "%fifo", "--json"} << QString();
    QTest::newRow("compile /dev/zero")
        << QStringList{"compile", "/dev/zero"} << QStringLiteral("/dev/zero");
    QTest::newRow("compile /proc/self/pagemap")
        << QStringList{"compile", "/proc/self/pagemap"} << QStringLiteral("/proc/self/pagemap");
    QTest::newRow("--diff a FIFO")
        << QStringList{"compile", "%saxpy", "--diff", "%fifo"} << QString();
    QTest::newRow("--diff against /dev/zero")
        << QStringList{"compile", "/dev/zero", "--diff", "%saxpy"} << QStringLiteral("/dev/zero");
}

void TestCliSourceFiles::specialFileRefused() {
    QFETCH(QStringList, args);
    QFETCH(QString, named);
    for (QString& arg : args)
        arg.replace(QLatin1String("%fifo"), m_fifo).replace(QLatin1String("%saxpy"), m_saxpy);
    QProcess cli;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("KERNELPAD_CACHE_DIR"), QStringLiteral("off"));
    cli.setProcessEnvironment(env);
    cli.start(QStringLiteral(KERNELPAD_CLI_PATH), args);
    const bool finished = cli.waitForFinished(kFinishLimitMs);
    if (!finished) {
        cli.kill();
        cli.waitForFinished();
    }
    QVERIFY2(finished, "kernelpad-cli hung reading the file");
    QCOMPARE(cli.exitStatus(), QProcess::NormalExit);
    QVERIFY(cli.exitCode() != 0);
    const QString said =
        QString::fromUtf8(cli.readAllStandardError() + cli.readAllStandardOutput());
    qInfo("%s", qPrintable(said.trimmed()));
    QVERIFY2(said.contains(named.isEmpty() ? m_fifo : named), qPrintable(said));
    QVERIFY2(said.contains(QLatin1String("cannot read")), qPrintable(said));
}

KERNELPAD_TEST_GUILESS_MAIN(TestCliSourceFiles)
} // namespace tst_clisourcefiles
#include "tst_clisourcefiles.moc"
