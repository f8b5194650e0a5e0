// NVRTC's automatic precompiled headers (core/compile/PrecompiledHeaders.h) with the real NVRTC
// (no driver needed): the same PTX and CUBIN as without, diagnostics at their lines, a broken
// PCH file ignored and rebuilt, the heap grown on demand, folders of dead processes deleted,
// two kernelpad-cli processes at once, and no PCH flag from a project.

#include "core/compile/NvrtcApi.h"
#include "core/compile/PrecompiledHeaders.h"
#include "core/compile/Program.h"

#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

#include "../support/TestMain.h"
#include "TestPaths.h"

namespace tst_precompiledheaders {

using namespace kernelpad;

namespace {

// cuda_bf16.h: a heavy header whose PCH (about 7 MB) is quick to make on a loaded machine.
const char* const kBf16 = R"(#include <cuda_bf16.h>

// scales bf16 values
extern "C" __global__ void scale(__nv_bfloat16* data, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] = __float2bfloat16(__bfloat162float(data[i]) * SCALE);
}
)";

constexpr int kCliLimitMs = 300'000; // two NVRTC compiles on a loaded 2-core machine

CompileResult compileBf16(const QString& scale) {
    QString source = QString::fromLatin1(kBf16);
    source.replace(QStringLiteral("SCALE"), scale);
    return Program(source, QStringLiteral("scale.cu"), ProgramOptions{})
        .compile(QStringLiteral("sm_90"));
}

/// Every PCH file under `directory`.
QStringList pchFiles(const QString& directory) {
    QStringList files;
    QDirIterator it(directory, {QStringLiteral("*.pch")}, QDir::Files,
                    QDirIterator::Subdirectories);
    while (it.hasNext())
        files << it.next();
    return files;
}

QString allLog(const CompileResult& result) {
    return result.log;
}

} // namespace

class TestPrecompiledHeaders : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanupTestCase();
    void sameCodeAsWithout();
    void editedProjectHeaderIsSeen();
    void diagnosticKeepsItsLine();
    void standardHeaderKeepsPch();
    void truncatedFileFallsBackOnce();
    void foreignFileIgnored();
    void heapGrowsWhenTooSmall();
    void folderSizeBounded();
    void nothingIncludedNoPch_data();
    void nothingIncludedNoPch();
    void deadProcessFolderDeleted();
    void twoProcessesAtOnce();
    void projectMayNotAskForPch_data();
    void projectMayNotAskForPch();

private:
    QTemporaryDir m_cache;
    bool m_nvrtc = false;
};

void TestPrecompiledHeaders::initTestCase() {
    QVERIFY(m_cache.isValid());
    qputenv("KERNELPAD_CACHE_DIR", QFile::encodeName(m_cache.path()));
    const NvrtcApi* api = NvrtcApi::load();
    m_nvrtc = api && api->nvrtcGetPCHCreateStatus;
}

void TestPrecompiledHeaders::init() {
    if (!m_nvrtc && QString::fromLatin1(QTest::currentTestFunction()) !=
                        QLatin1String("projectMayNotAskForPch"))
        QSKIP("needs NVRTC 12.8 or later (the CUDA toolkit's libnvrtc)");
    setAutomaticPch(true);
}

void TestPrecompiledHeaders::cleanupTestCase() {
    setAutomaticPch(true);
    qunsetenv("KERNELPAD_CACHE_DIR");
}

void TestPrecompiledHeaders::sameCodeAsWithout() {
    setAutomaticPch(false);
    const CompileResult plain = compileBf16(QStringLiteral("3.0f"));
    QVERIFY2(plain.ok, qPrintable(plain.log));
    setAutomaticPch(true);
    const PchCounters before = pchCounters();
    const CompileResult created = compileBf16(QStringLiteral("3.0f"));
    QVERIFY2(created.ok, qPrintable(created.log));
    QCOMPARE(pchCounters().created, before.created + 1);
    const CompileResult used = compileBf16(QStringLiteral("3.0f"));
    QVERIFY2(used.ok, qPrintable(used.log));
    QCOMPARE(pchCounters().used, before.used + 1);
    // NVRTC's messages about the PCH are not the user's log, nor are the flags.
    QVERIFY2(!allLog(used).contains(QLatin1String("precompiled")), qPrintable(used.log));
    QVERIFY(!used.flags.join(QLatin1Char(' ')).contains(QLatin1String("pch")));
    QCOMPARE(created.ptx, plain.ptx);
    QCOMPARE(used.ptx, plain.ptx);
    QVERIFY(!plain.cubin.isEmpty());
    QCOMPARE(created.cubin, plain.cubin);
    QCOMPARE(used.cubin, plain.cubin);
}

/// A project header included before the code is in NVRTC's precompiled part: an edit of it
/// between two compiles in one process must reach the code, as a fresh compile's would.
void TestPrecompiledHeaders::editedProjectHeaderIsSeen() {
    QTemporaryDir project;
    const QString header = project.filePath(QStringLiteral("factor.cuh"));
    const auto writeHeader = [&](const QByteArray& factor) {
        QFile file(header);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write("#include <cuda_bf16.h>\n#define FACTOR " + factor + "\n");
    };
    const QString source = QStringLiteral(
        "#include \"factor.cuh\"\n"
        "extern \"C\" __global__ void scale(__nv_bfloat16* data, int n)\n{\n"
        "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n)\n"
        "        data[i] = __float2bfloat16(__bfloat162float(data[i]) * FACTOR);\n}\n");
    const auto compile = [&] {
        return Program(source, QStringLiteral("scale.cu"), ProgramOptions{}, project.path())
            .compile(QStringLiteral("sm_90"));
    };
    writeHeader("3.0f");
    const PchCounters before = pchCounters();
    const CompileResult three = compile();
    QVERIFY2(three.ok, qPrintable(three.log));
    QVERIFY(compile().ok); // the header unchanged: NVRTC's PCH serves it
    QVERIFY2(pchCounters().used > before.used, "the unchanged header did not use the PCH");
    writeHeader("5.0f");
    const CompileResult five = compile();
    QVERIFY2(five.ok, qPrintable(five.log));
    setAutomaticPch(false);
    const CompileResult fiveWithout = compile();
    setAutomaticPch(true);
    QVERIFY2(fiveWithout.ok, qPrintable(fiveWithout.log));
    QVERIFY2(three.ptx.contains(QLatin1String("0f40400000")), qPrintable(three.ptx.right(1500)));
    QVERIFY2(fiveWithout.ptx.contains(QLatin1String("0f40A00000")),
             qPrintable(fiveWithout.ptx.right(1500)));
    QCOMPARE(five.ptx, fiveWithout.ptx);
    QCOMPARE(five.cubin, fiveWithout.cubin);
    // 5.0f is 0x40A00000 in the PTX, 3.0f 0x40400000.
    QVERIFY2(five.ptx.contains(QLatin1String("0f40A00000")), qPrintable(five.ptx.right(2000)));
}

void TestPrecompiledHeaders::diagnosticKeepsItsLine() {
    QVERIFY(compileBf16(QStringLiteral("2.0f")).ok); // makes (or finds) the PCH
    const PchCounters before = pchCounters();
    const CompileResult bad = compileBf16(QStringLiteral("undefinedScale"));
    QVERIFY(!bad.ok);
    QCOMPARE(pchCounters().used, before.used + 1);
    QCOMPARE(bad.errorCount(), 1);
    const Diagnostic& error = bad.diagnostics.constFirst();
    QCOMPARE(error.line, 8); // the line of SCALE in kBf16, below the include
    QVERIFY2(error.file.endsWith(QLatin1String("scale.cu")), qPrintable(error.file));
    QVERIFY2(error.message.contains(QLatin1String("undefinedScale")), qPrintable(error.message));
}

void TestPrecompiledHeaders::standardHeaderKeepsPch() {
    // <cstdint> is KernelPad's own header, handed to NVRTC in memory (StandardHeaders.h): the
    // same bytes each time, so NVRTC's check of the headers before the code still matches.
    QString source = QString::fromLatin1(kBf16);
    source.replace(QStringLiteral("SCALE"), QStringLiteral("std::int32_t(3)"));
    source.prepend(QStringLiteral("#include <cstdint>\n"));
    const PchCounters before = pchCounters();
    for (int i = 0; i < 2; ++i) {
        const CompileResult result = Program(source, QStringLiteral("scale.cu"), ProgramOptions{})
                                         .compile(QStringLiteral("sm_90"));
        QVERIFY2(result.ok, qPrintable(result.log));
    }
    QCOMPARE(pchCounters().created, before.created + 1);
    QCOMPARE(pchCounters().used, before.used + 1);
}

void TestPrecompiledHeaders::truncatedFileFallsBackOnce() {
    QVERIFY(compileBf16(QStringLiteral("4.0f")).ok);
    const QString folder = pchProcessDirectory(m_cache.path());
    const QStringList files = pchFiles(folder);
    QVERIFY2(!files.isEmpty(), qPrintable(folder));
    for (const QString& file : files)
        QVERIFY(QFile::resize(file, 1000)); // what a full disk or a crash mid-write leaves
    const PchCounters before = pchCounters();
    const CompileResult again = compileBf16(QStringLiteral("5.0f"));
    QVERIFY2(again.ok, qPrintable(again.log));
    QCOMPARE(pchCounters().fallbacks, before.fallbacks + 1);
    QVERIFY2(again.log.contains(QLatin1String("without precompiled headers")),
             qPrintable(again.log));
    QCOMPARE(again.errorCount(), 0);
    // The broken file is gone: the next compile makes a new one and the one after uses it.
    const CompileResult remade = compileBf16(QStringLiteral("6.0f"));
    QVERIFY2(remade.ok, qPrintable(remade.log));
    QCOMPARE(pchCounters().created, before.created + 1);
    QVERIFY2(!remade.log.contains(QLatin1String("precompiled")), qPrintable(remade.log));
    QVERIFY(compileBf16(QStringLiteral("7.0f")).ok);
    QCOMPARE(pchCounters().used, before.used + 1);
}

void TestPrecompiledHeaders::foreignFileIgnored() {
    QVERIFY(compileBf16(QStringLiteral("8.0f")).ok);
    const QStringList files = pchFiles(pchProcessDirectory(m_cache.path()));
    QVERIFY(!files.isEmpty());
    for (const QString& path : files) { // another version's file, or garbage
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QByteArray noise(1 << 20, '\0');
        QRandomGenerator(7).fillRange(reinterpret_cast<quint32*>(noise.data()),
                                      noise.size() / int(sizeof(quint32)));
        QVERIFY(file.write(noise) == noise.size());
    }
    const PchCounters before = pchCounters();
    const CompileResult again = compileBf16(QStringLiteral("9.0f"));
    QVERIFY2(again.ok, qPrintable(again.log));
    QVERIFY2(again.log.trimmed().isEmpty(), qPrintable(again.log)); // no warning about it
    QCOMPARE(pchCounters().fallbacks, before.fallbacks);
    QCOMPARE(pchCounters().created, before.created + 1); // a new one beside it
}

void TestPrecompiledHeaders::heapGrowsWhenTooSmall() {
    const NvrtcApi* api = NvrtcApi::load();
    size_t original = 0;
    QCOMPARE(api->nvrtcGetPCHHeapSize(&original), NVRTC_SUCCESS);
    QCOMPARE(api->nvrtcSetPCHHeapSize(size_t(1) << 20), NVRTC_SUCCESS); // below cuda_bf16.h's
    const PchCounters before = pchCounters();
    const CompileResult small = compileBf16(QStringLiteral("10.0f"));
    QVERIFY2(small.ok, qPrintable(small.log));
    QVERIFY2(small.log.trimmed().isEmpty(), qPrintable(small.log)); // warning 639 is ours
    QCOMPARE(pchCounters().created, before.created);
    const CompileResult grown = compileBf16(QStringLiteral("11.0f"));
    QVERIFY2(grown.ok, qPrintable(grown.log));
    QCOMPARE(pchCounters().created, before.created + 1);
    size_t now = 0;
    QCOMPARE(api->nvrtcGetPCHHeapSize(&now), NVRTC_SUCCESS);
    QVERIFY2(now > (size_t(4) << 20), qPrintable(QString::number(now)));
    QCOMPARE(api->nvrtcSetPCHHeapSize(original), NVRTC_SUCCESS);
}

void TestPrecompiledHeaders::folderSizeBounded() {
    QVERIFY(compileBf16(QStringLiteral("13.0f")).ok);
    const QString folder = pchProcessDirectory(m_cache.path());
    const QString option = QFileInfo(pchFiles(folder).constFirst()).absolutePath();
    // Two old files of 600 MB each (sparse: no disk is used) put the folder past its bound.
    const qint64 big = qint64(600) << 20;
    const QString oldest = option + QStringLiteral("/old_0.pch");
    const QString older = option + QStringLiteral("/old_1.pch");
    int age = 2;
    for (const QString& path : {oldest, older}) {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QVERIFY(file.resize(big));
        QVERIFY(file.setFileTime(QDateTime::currentDateTime().addSecs(-3600 * age--),
                                 QFileDevice::FileModificationTime));
    }
    const PchCounters before = pchCounters();
    QString source = QString::fromLatin1(kBf16);
    source.replace(QStringLiteral("SCALE"), QStringLiteral("14.0f"));
    source.prepend(QStringLiteral("#define ANOTHER_HEADER_SET 1\n")); // a new PCH is made
    const CompileResult result = Program(source, QStringLiteral("scale.cu"), ProgramOptions{})
                                     .compile(QStringLiteral("sm_90"));
    QVERIFY2(result.ok, qPrintable(result.log));
    QCOMPARE(pchCounters().created, before.created + 1);
    QVERIFY(!QFileInfo::exists(oldest));
    QVERIFY(QFileInfo::exists(older));
    qint64 total = 0;
    for (const QString& file : pchFiles(folder))
        total += QFileInfo(file).size();
    QVERIFY2(total <= kMaxPchBytesPerProcess, qPrintable(QString::number(total)));
    QFile::remove(older);
}

void TestPrecompiledHeaders::nothingIncludedNoPch_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<bool>("includes");
    QTest::newRow("no include") << QStringLiteral("__global__ void k() {}\n") << false;
    QTest::newRow("include after code")
        << QStringLiteral("int x;\n#include <cuda_bf16.h>\n") << false;
    QTest::newRow("include after comments and defines")
        << QStringLiteral("// a\n/* b\n c */\n#define N 4\n  #  include <cuda_bf16.h>\nint x;\n")
        << true;
    QTest::newRow("include in a comment")
        << QStringLiteral("/* #include <cuda_bf16.h> */ int x;\n") << false;
}

void TestPrecompiledHeaders::nothingIncludedNoPch() {
    QFETCH(QString, source);
    QFETCH(bool, includes);
    QCOMPARE(includesBeforeCode(source), includes);
    const NvrtcApi* api = NvrtcApi::load();
    const PchTicket ticket = takePchTicket(*api, {QStringLiteral("-arch=sm_90")}, source, {});
    QCOMPARE(ticket.active(), includes);
}

void TestPrecompiledHeaders::deadProcessFolderDeleted() {
    QTemporaryDir cache;
    QVERIFY(cache.isValid());
    const QString root = cache.path() + QStringLiteral("/pch/nvrtc-") + Program::nvrtcVersion();
    const QString dead = root + QStringLiteral("/2147480000-0123456789abcdef");
    QVERIFY(QDir().mkpath(dead));
    for (const char* name : {"/owner.lock", "/x.pch"}) { // a lock that nobody holds now
        QFile file(dead + QLatin1String(name));
        QVERIFY(file.open(QIODevice::WriteOnly));
        QVERIFY(file.write("x") == 1);
    }
    const QString mine = pchProcessDirectory(cache.path());
    QVERIFY(!mine.isEmpty());
    QVERIFY(QFileInfo(mine).isDir());
    QVERIFY2(!QFileInfo::exists(dead), qPrintable(dead));
    QCOMPARE(QFile::permissions(mine) & (QFile::ReadOther | QFile::WriteOther | QFile::WriteGroup),
             QFile::Permissions());
}

void TestPrecompiledHeaders::twoProcessesAtOnce() {
    QTemporaryDir work;
    QVERIFY(work.isValid());
    QString source = QString::fromLatin1(kBf16);
    source.replace(QStringLiteral("SCALE"), QStringLiteral("12.0f"));
    const QString path = work.filePath(QStringLiteral("scale.cu"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(source.toUtf8());
    file.close();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("KERNELPAD_CACHE_DIR"), work.filePath(QStringLiteral("cache")));
    QProcess first;
    QProcess second;
    for (QProcess* cli : {&first, &second}) {
        cli->setProcessEnvironment(env);
        cli->start(QStringLiteral(KERNELPAD_CLI_PATH),
                   {QStringLiteral("compile"), path, QStringLiteral("--ptx")});
    }
    for (QProcess* cli : {&first, &second}) {
        QVERIFY(cli->waitForFinished(kCliLimitMs));
        QCOMPARE(cli->exitStatus(), QProcess::NormalExit);
        QVERIFY2(cli->exitCode() == 0, cli->readAllStandardError().constData());
    }
    // After the first line, which says how long the compile took.
    const QByteArray one = first.readAllStandardOutput();
    const QByteArray two = second.readAllStandardOutput();
    QVERIFY(one.contains(".entry scale"));
    QCOMPARE(two.mid(two.indexOf('\n')), one.mid(one.indexOf('\n')));
    // Each process's folder, and NVRTC's files in it, went with the process.
    QCOMPARE(pchFiles(work.filePath(QStringLiteral("cache/pch"))), QStringList());
}

void TestPrecompiledHeaders::projectMayNotAskForPch_data() {
    QTest::addColumn<QString>("flag");
    for (const char* flag :
         {"-pch", "--pch", "--pch-dir=/tmp", "--create-pch=x.pch", "--use-pch=x.pch",
          "--pch-messages=false", "--pch-verbose=true", "--instantiate-templates-in-pch=false"})
        QTest::newRow(flag) << QString::fromLatin1(flag);
}

void TestPrecompiledHeaders::projectMayNotAskForPch() {
    QFETCH(QString, flag);
    ProgramOptions options;
    options.extraFlags = {flag};
    const QString problem = options.validate();
    QVERIFY2(problem.contains(QLatin1String("refused")), qPrintable(problem));
    QVERIFY(problem.contains(QLatin1String("extraFlags[0]")));
}

KERNELPAD_TEST_GUILESS_MAIN(TestPrecompiledHeaders)
} // namespace tst_precompiledheaders
#include "tst_precompiledheaders.moc"
