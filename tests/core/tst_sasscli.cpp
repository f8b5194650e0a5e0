// `kernelpad-cli compile --sass` and `kernelpad-cli sass --registers` end to end: NVRTC's CUBIN
// goes to an nvdisasm found through CUDA_HOME (here a script that checks it got an ELF file and
// prints the listing recorded on the GPU machine), and the missing-tool message names every place
// looked.

#include "core/compile/Toolkit.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

namespace tst_sasscli {

using namespace kernelpad;

namespace {

const QString kData = QStringLiteral(KERNELPAD_TEST_DATA_DIR "/sass/");

struct CliResult {
    int exitCode = -1;
    QString out;
    QString err;
};

CliResult runCli(const QStringList& args, const QProcessEnvironment& env) {
    QProcess process;
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(KERNELPAD_CLI_PATH), args);
    if (!process.waitForFinished(120'000))
        qFatal("kernelpad-cli did not finish");
    return {process.exitCode(), QString::fromUtf8(process.readAllStandardOutput()),
            QString::fromUtf8(process.readAllStandardError())};
}

/// A CUDA_HOME whose bin/nvdisasm is `script`.
bool writeFakeToolkit(const QString& root, const QByteArray& script) {
    if (!QDir().mkpath(root + QStringLiteral("/bin")))
        return false;
    QFile file(root + QStringLiteral("/bin/nvdisasm"));
    if (!file.open(QIODevice::WriteOnly) || file.write(script) != script.size())
        return false;
    file.close();
    return file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
}

QProcessEnvironment environmentWith(const QString& cudaHome) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("CUDA_HOME"), cudaHome);
    env.remove(QStringLiteral("CUDA_PATH"));
    env.insert(QStringLiteral("KERNELPAD_CACHE_DIR"), QStringLiteral("off"));
    return env;
}

} // namespace

class TestSassCli : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void printsSassWithSourceLines();
    void jsonHasInstructionsAndLines();
    void failingToolIsReported();
    void missingToolNamesEveryPlace();
    void virtualArchHasNoCubin();
    void registersPerSourceLine();
    void registersJsonAndSpills();
    void registersNeedTheSass();

private:
    QTemporaryDir m_dir;
    QString m_fakeHome;
    QString m_lifeHome; ///< prints $FAKE_EXAMPLE's listing and, asked, its life ranges
};

void TestSassCli::initTestCase() {
    QVERIFY(m_dir.isValid());
    m_fakeHome = m_dir.filePath(QStringLiteral("cuda"));
    // Checks what KernelPad passes (-c -gi -ndf and a CUBIN, an ELF file) before printing the
    // listing nvdisasm printed for the same source on the GPU machine.
    const QByteArray script =
        "#!/bin/sh\n"
        "[ \"$1\" = -c ] && [ \"$2\" = -gi ] && [ \"$3\" = -ndf ] && [ -s \"$4\" ] || "
        "{ echo \"fake nvdisasm: unexpected arguments: $*\" >&2; exit 2; }\n"
        "head -c 4 \"$4\" | grep -q ELF || "
        "{ echo \"fake nvdisasm: $4 is not an ELF file\" >&2; exit 3; }\n"
        "cat '" +
        (kData + QStringLiteral("saxpy.sass-gi.txt")).toUtf8() + "'\n";
    QVERIFY(writeFakeToolkit(m_fakeHome, script));
    m_lifeHome = m_dir.filePath(QStringLiteral("cuda-life"));
    const QByteArray data = kData.toUtf8();
    QVERIFY(writeFakeToolkit(m_lifeHome, "#!/bin/sh\nfor f; do :; done\n"
                                         "head -c 4 \"$f\" | grep -q ELF || exit 3\n"
                                         "case \" $* \" in *' --print-life-ranges --life-range-"
                                         "mode=count '*) cat '" +
                                             data +
                                             "'$FAKE_EXAMPLE.sass-life-count.txt;;\n"
                                             "*) cat '" +
                                             data + "'$FAKE_EXAMPLE.sass-gi.txt;;\nesac\n"));
}

void TestSassCli::printsSassWithSourceLines() {
    const CliResult r =
        runCli({QStringLiteral("compile"), kData + QStringLiteral("saxpy.cu"),
                QStringLiteral("--arch"), QStringLiteral("sm_90"), QStringLiteral("--sass")},
               environmentWith(m_fakeHome));
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains(QStringLiteral("SASS (%1/bin/nvdisasm -c -gi -ndf):").arg(m_fakeHome)),
             qPrintable(r.out));
    QVERIFY(r.out.contains(QLatin1String("\nsaxpy: 40 instructions\n")));
    // Line 6's comment comes right before its first instruction, and the FFMA is under it.
    const QString line6 = QStringLiteral("        // saxpy.cu:6: out[tid] = a * x[tid] + y[tid];\n "
                                         " 00a0  ULDC.64 UR6, c[0x0][0x220]\n");
    QVERIFY2(r.out.contains(line6), qPrintable(r.out));
    const qsizetype ffma = r.out.indexOf(QLatin1String("  0180  FFMA R9, R2, UR6, R5\n"));
    QVERIFY(ffma > r.out.indexOf(line6));
    QVERIFY(r.out.indexOf(QLatin1String("// saxpy.cu:8: }")) > ffma);
    QVERIFY(r.out.contains(QLatin1String("  0080  @P0 EXIT\n")));
}

void TestSassCli::jsonHasInstructionsAndLines() {
    const CliResult r = runCli({QStringLiteral("compile"), kData + QStringLiteral("saxpy.cu"),
                                QStringLiteral("--arch"), QStringLiteral("sm_90"),
                                QStringLiteral("--sass"), QStringLiteral("--json")},
                               environmentWith(m_fakeHome));
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    const QJsonObject json = QJsonDocument::fromJson(r.out.toUtf8()).object();
    // --sass compiles with -lineinfo, which the line annotations need.
    QVERIFY(json.value("flags").toArray().contains(QStringLiteral("-lineinfo")));
    const QJsonArray functions = json.value("sass").toArray();
    QCOMPARE(functions.size(), 1);
    const QJsonObject saxpy = functions.first().toObject();
    QCOMPARE(saxpy.value("name").toString(), QStringLiteral("saxpy"));
    QCOMPARE(saxpy.value("kernel").toString(), QStringLiteral("saxpy"));
    const QJsonArray instructions = saxpy.value("instructions").toArray();
    QCOMPARE(instructions.size(), 40);
    const QJsonObject ffma = instructions.at(24).toObject();
    QCOMPARE(ffma.value("address").toInt(), 0x180);
    QCOMPARE(ffma.value("opcode").toString(), QStringLiteral("FFMA"));
    QCOMPARE(ffma.value("operands").toString(), QStringLiteral("R9, R2, UR6, R5"));
    QCOMPARE(ffma.value("line").toInt(), 6);
    QCOMPARE(instructions.at(8).toObject().value("predicate").toString(), QStringLiteral("@P0"));
    QCOMPARE(instructions.at(8).toObject().value("line").toInt(), 5);
}

void TestSassCli::failingToolIsReported() {
    const QString home = m_dir.filePath(QStringLiteral("broken"));
    QVERIFY(writeFakeToolkit(home, "#!/bin/sh\necho 'nvdisasm fatal : not a CUBIN' >&2\nexit 1\n"));
    const CliResult r =
        runCli({QStringLiteral("compile"), kData + QStringLiteral("saxpy.cu"),
                QStringLiteral("--arch"), QStringLiteral("sm_90"), QStringLiteral("--sass")},
               environmentWith(home));
    QCOMPARE(r.exitCode, 4);
    QVERIFY2(r.err.contains(QStringLiteral("%1/bin/nvdisasm failed (exit code 1): nvdisasm "
                                           "fatal : not a CUBIN")
                                .arg(home)),
             qPrintable(r.err));
    // The compile itself still printed.
    QVERIFY(r.out.startsWith(QLatin1String("Compiled for sm_90")));
}

void TestSassCli::missingToolNamesEveryPlace() {
    const QString toolkit = cudaToolkitRoot();
    if (!toolkit.isEmpty() && QFileInfo(toolkit + QStringLiteral("/bin/nvdisasm")).isExecutable())
        QSKIP("this machine's toolkit has nvdisasm, which is always looked in");
    const QString home = m_dir.filePath(QStringLiteral("empty-cuda"));
    const QString pathDir = m_dir.filePath(QStringLiteral("empty-path"));
    QVERIFY(QDir().mkpath(home) && QDir().mkpath(pathDir));
    QProcessEnvironment env = environmentWith(home);
    env.insert(QStringLiteral("PATH"), pathDir);
    const CliResult r =
        runCli({QStringLiteral("compile"), kData + QStringLiteral("saxpy.cu"),
                QStringLiteral("--arch"), QStringLiteral("sm_90"), QStringLiteral("--sass")},
               env);
    QCOMPARE(r.exitCode, 4);
    QVERIFY2(r.err.contains(QLatin1String("nvdisasm not found")), qPrintable(r.err));
    QVERIFY(r.err.contains(home + QStringLiteral("/bin/nvdisasm")));
    QVERIFY(r.err.contains(pathDir + QStringLiteral("/nvdisasm")));
    if (!toolkit.isEmpty())
        QVERIFY(r.err.contains(toolkit + QStringLiteral("/bin/nvdisasm")));
}

void TestSassCli::virtualArchHasNoCubin() {
    // A compute_ arch has no CUBIN: said so, not sent to nvdisasm.
    const CliResult ptxOnly =
        runCli({QStringLiteral("compile"), kData + QStringLiteral("saxpy.cu"),
                QStringLiteral("--arch"), QStringLiteral("compute_90"), QStringLiteral("--sass")},
               environmentWith(m_fakeHome));
    QCOMPARE(ptxOnly.exitCode, 4);
    QVERIFY2(ptxOnly.err.contains(QLatin1String("no CUBIN to disassemble")),
             qPrintable(ptxOnly.err));
}

// unrolled.cu: the peak per source line, on the loads of its unrolled loop (line 10), beside
// the kernel's register count; each instruction of `sass` carries its live counts.
void TestSassCli::registersPerSourceLine() {
    QProcessEnvironment env = environmentWith(m_lifeHome);
    env.insert(QStringLiteral("FAKE_EXAMPLE"), QStringLiteral("unrolled"));
    const CliResult r =
        runCli({QStringLiteral("sass"), kData + QStringLiteral("unrolled.cu"),
                QStringLiteral("--arch"), QStringLiteral("sm_90"), QStringLiteral("--registers")},
               env);
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains(QLatin1String("Registers per source line of unrolled.cu")),
             qPrintable(r.out));
    QVERIFY2(r.out.contains(QRegularExpression(
                 QStringLiteral("\nunrolled: \\d+ registers per thread, at most 45 live; no "
                                "local-memory instructions"))),
             qPrintable(r.out));
    QVERIFY2(r.out.contains(QLatin1String("     10    45     7     2")), qPrintable(r.out));
    QVERIFY(r.out.contains(QLatin1String("acc[k] = in[(i + k * 977) % n];")));
    QVERIFY(!r.out.contains(QLatin1String("ISETP"))); // the table instead of the SASS
    // Without --registers: the SASS, each instruction with the registers live there.
    const CliResult sass = runCli({QStringLiteral("sass"), kData + QStringLiteral("unrolled.cu"),
                                   QStringLiteral("--arch"), QStringLiteral("sm_90")},
                                  env);
    QVERIFY2(sass.exitCode == 0, qPrintable(sass.out + sass.err));
    QVERIFY2(
        sass.out.contains(QLatin1String("  0060    3 1  0  ISETP.GE.AND P0, PT, R2, R41, PT\n")),
        qPrintable(sass.out));
}

void TestSassCli::registersJsonAndSpills() {
    QProcessEnvironment env = environmentWith(m_lifeHome);
    env.insert(QStringLiteral("FAKE_EXAMPLE"), QStringLiteral("spill"));
    const CliResult r = runCli({QStringLiteral("sass"), kData + QStringLiteral("spill.cu"),
                                QStringLiteral("--arch"), QStringLiteral("sm_90"),
                                QStringLiteral("--registers"), QStringLiteral("--json")},
                               env);
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    const QJsonObject json = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QVERIFY2(!json.contains("sass") && !json.contains("liveRangeError"), qPrintable(r.out));
    const QJsonArray functions = json.value("registers").toArray();
    QCOMPARE(functions.size(), 1);
    const QJsonObject spill = functions.first().toObject();
    QCOMPARE(spill.value("kernel").toString(), QStringLiteral("spill"));
    QCOMPARE(spill.value("spillStores").toInt(), 128);
    QCOMPARE(spill.value("spillLoads").toInt(), 122);
    QVERIFY(spill.value("peakRegisters").toInt() <= 32);
    int spilling = 0;
    for (const QJsonValue& value : spill.value("lines").toArray()) {
        const QJsonObject line = value.toObject();
        if (line.value("spillStores").toInt() + line.value("spillLoads").toInt() > 0)
            ++spilling;
        if (line.value("line").toInt() == 14) {
            QCOMPARE(line.value("spillStores").toInt(), 12);
            QCOMPARE(line.value("spillLoads").toInt(), 29);
        }
    }
    QCOMPARE(spilling, 3);
    // The text marks the lines in words.
    const CliResult text =
        runCli({QStringLiteral("sass"), kData + QStringLiteral("spill.cu"),
                QStringLiteral("--arch"), QStringLiteral("sm_90"), QStringLiteral("--registers")},
               env);
    QVERIFY2(text.out.contains(QLatin1String("spill: 12 stores, 29 loads")), qPrintable(text.out));
}

void TestSassCli::registersNeedTheSass() {
    const CliResult r = runCli({QStringLiteral("compile"), kData + QStringLiteral("saxpy.cu"),
                                QStringLiteral("--registers")},
                               environmentWith(m_fakeHome));
    QCOMPARE(r.exitCode, 4);
    QVERIFY2(r.err.contains(QLatin1String("--registers")) &&
                 r.err.contains(QLatin1String("--sass")),
             qPrintable(r.err));
}

KERNELPAD_TEST_GUILESS_MAIN(TestSassCli)
} // namespace tst_sasscli
#include "tst_sasscli.moc"
