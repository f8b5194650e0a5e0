// `kernelpad-cli compile A --diff B` end to end: NVRTC compiles both (with ptxas -v), the class
// table and resource deltas print as text or JSON, --ptx adds the line diff, --sass compares
// the SASS of an nvdisasm found through CUDA_HOME (a script printing the SAXPY recording).

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace tst_compilediffcli {

namespace {

struct CliResult {
    int exitCode = -1;
    QString out;
    QString err;
};

const char* const kSaxpy = R"(extern "C" __global__
void saxpy(float a, float *x, float *y, float *out, size_t n)
{
    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < n) {
        out[tid] = a * x[tid] + y[tid];
    }
}
)";

} // namespace

class TestCompileDiffCli : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void textTableHasDeltas();
    void jsonHasFiguresAndRows();
    void sameFileHasNoChanges();
    void sassComparedWithNvdisasm();
    void badInputIsNamed_data();
    void badInputIsNamed();

private:
    CliResult run(const QStringList& args) const;
    QString write(const QString& name, const QString& text) const;

    QTemporaryDir m_dir;
    QString m_base;
    QString m_edited;
};

CliResult TestCompileDiffCli::run(const QStringList& args) const {
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("CUDA_HOME"), m_dir.filePath(QStringLiteral("cuda")));
    env.remove(QStringLiteral("CUDA_PATH"));
    env.insert(QStringLiteral("KERNELPAD_CACHE_DIR"), QStringLiteral("off"));
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(KERNELPAD_CLI_PATH), args);
    if (!process.waitForFinished(120'000))
        qFatal("kernelpad-cli did not finish");
    return {process.exitCode(), QString::fromUtf8(process.readAllStandardOutput()),
            QString::fromUtf8(process.readAllStandardError())};
}

QString TestCompileDiffCli::write(const QString& name, const QString& text) const {
    const QString path = m_dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text.toUtf8()) < 0)
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

void TestCompileDiffCli::initTestCase() {
    QVERIFY(m_dir.isValid());
    m_base = write(QStringLiteral("saxpy.cu"), QString::fromLatin1(kSaxpy));
    // One more add: one more PTX arithmetic instruction and one more load.
    m_edited = write(QStringLiteral("saxpy_plus.cu"),
                     QString::fromLatin1(kSaxpy).replace("+ y[tid];", "+ y[tid] + x[tid + 1];"));
    const QString bin = m_dir.filePath(QStringLiteral("cuda/bin"));
    QVERIFY(QDir().mkpath(bin));
    QFile script(bin + QStringLiteral("/nvdisasm"));
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write("#!/bin/sh\nfor f; do :; done\nhead -c 4 \"$f\" | grep -q ELF || exit 3\ncat '" +
                 QByteArray(KERNELPAD_TEST_DATA_DIR "/sass/saxpy.sass-gi.txt") + "'\n");
    script.close();
    QVERIFY(script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
}

void TestCompileDiffCli::textTableHasDeltas() {
    const CliResult r = run({"compile", m_edited, "--diff", m_base, "--ptx"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    QVERIFY(r.out.contains("before: " + m_base));
    QVERIFY(r.out.contains("after:  " + m_edited));
    QVERIFY(r.out.contains("kernel saxpy\n"));
    const QRegularExpression arithmetic(
        QStringLiteral("PTX arithmetic +(\\d+) -> (\\d+) \\(\\+1\\)"));
    QVERIFY2(arithmetic.match(r.out).hasMatch(), qPrintable(r.out));
    const QRegularExpression memory(QStringLiteral("PTX memory +(\\d+) -> (\\d+) \\(\\+1\\)"));
    QVERIFY2(memory.match(r.out).hasMatch(), qPrintable(r.out));
    QVERIFY(QRegularExpression(QStringLiteral("PTX control +2 -> 2\n")).match(r.out).hasMatch());
    QVERIFY(QRegularExpression(QStringLiteral("registers +\\d+ -> \\d+")).match(r.out).hasMatch());
    QVERIFY(r.out.contains(QRegularExpression(QStringLiteral("spill stores \\(bytes\\) +0 -> 0"))));
    QVERIFY(!r.out.contains("SASS"));
    // The kernel's verdict: no time (nothing ran), the registers only where they changed.
    const QRegularExpressionMatch registers =
        QRegularExpression(QStringLiteral("registers +(\\d+) -> (\\d+)")).match(r.out);
    const QRegularExpressionMatch verdict =
        QRegularExpression(QStringLiteral("\n  verdict: ([^\n]+)\n")).match(r.out);
    QVERIFY2(verdict.hasMatch(), qPrintable(r.out));
    QCOMPARE(verdict.captured(1).contains(QStringLiteral("register")),
             registers.captured(1) != registers.captured(2));
    QVERIFY2(!verdict.captured(1).contains(QStringLiteral("slower")) &&
                 !verdict.captured(1).contains(QStringLiteral("faster")),
             qPrintable(verdict.captured(1)));
    // --ptx: the line diff, the added load among its "+" lines.
    QVERIFY(r.out.contains(QRegularExpression(QStringLiteral("\n\\+ ld\\.global(\\.nc)?\\.f32"))));
    QVERIFY(r.out.contains(QRegularExpression(QStringLiteral("PTX: \\d+ changed, \\d+ added"))));
}

void TestCompileDiffCli::jsonHasFiguresAndRows() {
    const CliResult r = run({"compile", m_edited, "--diff", m_base, "--json", "--ptx"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    const QJsonObject json = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(json["before"].toString(), m_base);
    const QJsonArray kernels = json["kernels"].toArray();
    QCOMPARE(kernels.size(), 1);
    const QJsonObject saxpy = kernels.at(0).toObject();
    QCOMPARE(saxpy["name"].toString(), QStringLiteral("saxpy"));
    QVERIFY(saxpy["inBefore"].toBool() && saxpy["inAfter"].toBool());
    const QJsonObject figures = saxpy["figures"].toObject();
    QCOMPARE(figures["ptx.arithmetic"].toObject()["delta"].toInt(), 1);
    QCOMPARE(figures["ptx.memory"].toObject()["delta"].toInt(), 1);
    QVERIFY(figures["registers"].toObject()["before"].toInt() > 0);
    QVERIFY(!figures.contains("sass.total"));
    const QJsonObject verdict = saxpy["verdict"].toObject();
    QCOMPARE(verdict["significance"].toString(), QStringLiteral("not timed"));
    QVERIFY(!verdict.contains("time"));
    QVERIFY(!verdict["sentence"].toString().isEmpty());
    QCOMPARE(verdict["sentence"].toString().contains(QStringLiteral("register")),
             figures["registers"].toObject()["delta"].toInt() != 0);
    const QJsonObject ptx = json["ptx"].toObject();
    QVERIFY(!ptx["identical"].toBool());
    QVERIFY(!ptx["rows"].toArray().isEmpty());
    QVERIFY(!json.contains("sass"));
}

void TestCompileDiffCli::sameFileHasNoChanges() {
    const CliResult r = run({"compile", m_base, "--diff", m_base});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    QVERIFY(r.out.contains("PTX: no changes\n"));
    QVERIFY2(!r.out.contains(" (+") && !r.out.contains(" (-"), qPrintable(r.out));
}

void TestCompileDiffCli::sassComparedWithNvdisasm() {
    const CliResult r = run({"compile", m_edited, "--diff", m_base, "--sass", "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    const QJsonObject json = QJsonDocument::fromJson(r.out.toUtf8()).object();
    // The script prints the same recording for both: counted by hand, 40 instructions.
    const QJsonObject figures = json["kernels"].toArray().at(0).toObject()["figures"].toObject();
    QCOMPARE(figures["sass.total"].toObject()["before"].toInt(), 40);
    QCOMPARE(figures["sass.total"].toObject()["delta"].toInt(), 0);
    QCOMPARE(figures["sass.arithmetic"].toObject()["after"].toInt(), 12);
    QVERIFY(json["sass"].toObject()["identical"].toBool());
    // The same SASS on both sides: no opcode named in the verdict.
    const QJsonArray causes =
        json["kernels"].toArray().at(0).toObject()["verdict"].toObject()["causes"].toArray();
    for (const QJsonValue& cause : causes)
        QVERIFY(cause.toObject()["kind"].toString() != QStringLiteral("sass"));
    const CliResult text = run({"compile", m_edited, "--diff", m_base, "--sass"});
    QVERIFY(text.out.contains("SASS: no changes\n"));
    QVERIFY(text.out.contains(QRegularExpression(QStringLiteral("SASS total +40 -> 40\n"))));
}

void TestCompileDiffCli::badInputIsNamed_data() {
    QTest::addColumn<QString>("base");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    QTest::newRow("missing --diff file")
        << "nowhere.cu" << QStringList{} << 4 << "--diff: cannot read";
    QTest::newRow("base does not compile")
        << "broken.cu" << QStringList{} << 1 << "does not compile";
    QTest::newRow("unknown kernel") << "saxpy.cu" << QStringList{"--kernel", "nope"} << 4
                                    << "--kernel: 'nope' is in neither compile";
}

void TestCompileDiffCli::badInputIsNamed() {
    QFETCH(QString, base);
    QFETCH(QStringList, extra);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    write(QStringLiteral("broken.cu"), QStringLiteral("__global__ void k() { int x = ; }\n"));
    const CliResult r =
        run(QStringList{"compile", m_edited, "--diff", m_dir.filePath(base)} + extra);
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
}

KERNELPAD_TEST_GUILESS_MAIN(TestCompileDiffCli)
} // namespace tst_compilediffcli
#include "tst_compilediffcli.moc"
