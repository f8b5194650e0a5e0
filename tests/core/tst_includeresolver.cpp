// KernelPad resolves and reads every header itself and hands them to NVRTC in memory: every
// spelling of an include directive NVRTC reads is found (a FIFO behind any of them is refused,
// never opened), nothing outside the project folder and the toolkit is read or shown, a
// project folder cannot shadow a toolkit header, and ordinary projects with headers compile.

#include "../support/TestMain.h"
#include "core/compile/CompileCache.h"
#include "core/compile/Program.h"
#include "core/compile/Toolkit.h"

#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

#include <chrono>
#include <future>
#include <memory>
#include <thread>

namespace tst_includeresolver {

using namespace kernelpad;

namespace {

// Long enough for NVRTC on a loaded 2-core machine, short against "for ever".
constexpr int kHangLimitSeconds = 60;

const QByteArray kSecret("-----BEGIN KERNELPAD TEST SECRET-----");
const QString kKernel = QStringLiteral("__global__ void k(float* x) { x[0] = 1; }\n");

/// `work()` on a detached thread, or nothing if it has not returned within kHangLimitSeconds
/// (NVRTC opening a FIFO, a read of /proc/self/pagemap).
template <typename T> std::optional<T> within(std::function<T()> work) {
    auto task = std::make_shared<std::packaged_task<T()>>(std::move(work));
    std::future<T> result = task->get_future();
    std::thread([task] { (*task)(); }).detach();
    if (result.wait_for(std::chrono::seconds(kHangLimitSeconds)) != std::future_status::ready)
        return std::nullopt;
    return result.get();
}

std::optional<CompileResult> compileWithin(const Program& program) {
    return within<CompileResult>([program] { return program.compile(QStringLiteral("sm_90")); });
}

bool writeFile(const QString& path, const QByteArray& bytes) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

/// Everything a user sees of a compile: the log, the diagnostics, the JSON result.
QString everythingShown(const CompileResult& result) {
    QString shown = result.log + result.error;
    for (const Diagnostic& d : result.diagnostics)
        shown += d.file + d.message;
    return shown + QString::fromUtf8(QJsonDocument(result.toJson()).toJson());
}

} // namespace

class TestIncludeResolver : public QObject {
    Q_OBJECT

private slots:
    void init();
    void fifoBehindEverySpelling_data();
    void fifoBehindEverySpelling();
    void outsideTheProjectRefused_data();
    void outsideTheProjectRefused();
    void includeDirOutsideTheProjectRefused();
    void toolkitHeaderNotShadowed();
    void quotedProjectHeaderUsedAsOnDisk();
    void projectWithHeadersCompiles();
    void errorInHeaderNamesItsPath();
    void proseMentioningIncludeCompiles();
    void fingerprintIsBoundedAndFollowsTheBytes();

private:
    std::unique_ptr<QTemporaryDir> m_root; ///< holds proj/ and outside/
    QString m_project;
    QString m_outside;
};

void TestIncludeResolver::init() {
    m_root = std::make_unique<QTemporaryDir>();
    QVERIFY(m_root->isValid());
    m_project = m_root->filePath(QStringLiteral("proj"));
    m_outside = m_root->filePath(QStringLiteral("outside"));
    QVERIFY(QDir().mkpath(m_project + QStringLiteral("/inc")));
    QVERIFY(writeFile(m_outside + QStringLiteral("/secret.h"), kSecret + "\nint leaked;\n"));
}

void TestIncludeResolver::fifoBehindEverySpelling_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("standard"); // empty: NVRTC's default
    const QString after = QStringLiteral("\n") + kKernel;
    QTest::newRow("#include") << "#include \"special.cuh\"" + after << QString();
    QTest::newRow("# include") << "  #   include \"special.cuh\"" + after << QString();
    QTest::newRow("%:include digraph") << "%:include \"special.cuh\"" + after << QString();
    QTest::newRow("%: include digraph, spaced") << "%: include <special.cuh>" + after << QString();
    QTest::newRow("trigraph include, c++14")
        << "?\?=include \"special.cuh\"" + after << QStringLiteral("c++14");
    QTest::newRow("# then a comment over lines, then include")
        << "#/* one\n two\n */include \"special.cuh\"" + after << QString();
    QTest::newRow("a comment over lines before the name")
        << "#include /* one\n two */ \"special.cuh\"" + after << QString();
    QTest::newRow("a directive after a comment's end")
        << "/* x\n*/ #include \"special.cuh\"" + after << QString();
    QTest::newRow("a splice inside the keyword")
        << "#inc\\\nlude \"special.cuh\"" + after << QString();
    QTest::newRow("a splice with blanks after the backslash")
        << "#include \\  \n\"special.cuh\"" + after << QString();
    QTest::newRow("trigraph splice, c++14")
        << "#inc?\?/\nlude \"special.cuh\"" + after << QStringLiteral("c++14");
    QTest::newRow("__has_include")
        << "#if __has_include(\"special.cuh\")\n#endif" + after << QString();
    QTest::newRow("__has_include angled, spaced")
        << "#if __has_include ( <special.cuh> )\n#endif" + after << QString();
    QTest::newRow("#include_next") << "#include_next <special.cuh>" + after << QString();
    QTest::newRow("#import") << "#import \"special.cuh\"" + after << QString();
    QTest::newRow("after a byte order mark")
        << QString(QChar(0xFEFF)) + "#include \"special.cuh\"" + after << QString();
    QTest::newRow("commented out by a block comment")
        << "/*\n#include \"special.cuh\"\n*/" + after << QString();
}

void TestIncludeResolver::fifoBehindEverySpelling() {
    QFETCH(QString, source);
    QFETCH(QString, standard);
    const QString fifo = m_project + QStringLiteral("/inc/special.cuh");
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    ProgramOptions options;
    options.includeDirs = QStringList{QStringLiteral("inc")};
    if (!standard.isEmpty())
        options.cppStandard = standard;
    const std::optional<CompileResult> result =
        compileWithin(Program(source, QStringLiteral("main.cu"), options, m_project));
    QVERIFY2(result, "the compile hung on the FIFO");
    QVERIFY(!result->ok);
    QVERIFY(result->log.isEmpty()); // refused before NVRTC ran
    QCOMPARE(result->errorCount(), 1);
    const Diagnostic& d = result->diagnostics.first();
    QCOMPARE(d.file, QStringLiteral("main.cu"));
    QVERIFY2(d.message.contains(QLatin1String("not a regular file")) && d.message.contains(fifo),
             qPrintable(d.message));
}

void TestIncludeResolver::outsideTheProjectRefused_data() {
    QTest::addColumn<QString>("source"); // %1: the outside folder
    QTest::addColumn<QString>("why");
    QTest::newRow("absolute path")
        << "#include \"%1/secret.h\"\n" + kKernel << QStringLiteral("absolute path");
    QTest::newRow("absolute path, angled")
        << "#include <%1/secret.h>\n" + kKernel << QStringLiteral("absolute path");
    QTest::newRow("/proc/self/pagemap")
        << "#include \"/proc/self/pagemap\"\n" + kKernel << QStringLiteral("absolute path");
    QTest::newRow(".. out of the project")
        << "#include \"../outside/secret.h\"\n" + kKernel << QStringLiteral("outside the project");
    QTest::newRow("a link out of the project")
        << "#include \"link.h\"\n" + kKernel << QStringLiteral("outside the project");
    QTest::newRow("__has_include of an absolute path")
        << "#if __has_include(\"%1/secret.h\")\n#endif\n" + kKernel
        << QStringLiteral("absolute path");
    QTest::newRow("angled .. past the toolkit")
        << "#include <../../../../../../../../%1/secret.h>\n" + kKernel
        << QStringLiteral("toolkit");
}

void TestIncludeResolver::outsideTheProjectRefused() {
    QFETCH(QString, source);
    QFETCH(QString, why);
    QVERIFY(QFile::link(m_outside + QStringLiteral("/secret.h"),
                        m_project + QStringLiteral("/link.h")));
    const std::optional<CompileResult> result =
        compileWithin(Program(source.contains(QLatin1String("%1")) ? source.arg(m_outside) : source,
                              QStringLiteral("main.cu"), ProgramOptions{}, m_project));
    QVERIFY2(result, "the compile hung");
    QVERIFY(!result->ok);
    QCOMPARE(result->errorCount(), 1);
    const Diagnostic& d = result->diagnostics.first();
    qInfo("%s:%d: %s", qPrintable(d.file), d.line, qPrintable(d.message));
    QCOMPARE(d.file, QStringLiteral("main.cu"));
    QVERIFY(d.line >= 1);
    QVERIFY2(d.message.contains(why), qPrintable(d.message));
    QVERIFY2(!everythingShown(*result).contains(QString::fromUtf8(kSecret)),
             "the file's contents reached the log or the result");
}

void TestIncludeResolver::includeDirOutsideTheProjectRefused() {
    ProgramOptions options;
    options.includeDirs = QStringList{m_outside};
    const CompileResult result =
        Program("#include \"secret.h\"\n" + kKernel, QStringLiteral("main.cu"), options, m_project)
            .compile(QStringLiteral("sm_90"));
    QVERIFY(!result.ok);
    QCOMPARE(result.errorCount(), 1);
    const QString message = result.diagnostics.first().message;
    QVERIFY2(message.contains(QLatin1String("include dir")) && message.contains(m_outside) &&
                 message.contains(QLatin1String("outside the project folder")),
             qPrintable(message));
    QVERIFY(!everythingShown(result).contains(QString::fromUtf8(kSecret)));
}

void TestIncludeResolver::toolkitHeaderNotShadowed() {
    if (cudaToolkitIncludeDirs().isEmpty())
        QSKIP("no CUDA toolkit headers here");
    // The toolkit's own <cuda/std/...> headers include this name; a project include dir
    // holding it must not take their place.
    QVERIFY(writeFile(m_project + QStringLiteral("/inc/cuda/std/detail/__config"),
                      "#error the project's __config was used\n"));
    ProgramOptions options;
    options.includeDirs = QStringList{QStringLiteral("inc")};
    const std::optional<CompileResult> result = compileWithin(
        Program("#include <cuda/std/cstdint>\n__global__ void k(int* x) { x[0] = 1; }\n",
                QStringLiteral("main.cu"), options, m_project));
    QVERIFY2(result, "the compile hung");
    QVERIFY2(result->ok, qPrintable(result->log + result->diagnostics.value(0).message));
}

void TestIncludeResolver::quotedProjectHeaderUsedAsOnDisk() {
    if (cudaToolkitIncludeDirs().isEmpty())
        QSKIP("no CUDA toolkit headers here");
    // A quoted name finds the project's file first, as on disk; the toolkit's own includes of
    // the same name still find the toolkit's.
    QVERIFY(writeFile(m_project + QStringLiteral("/cuda_fp16.h"),
                      "#pragma once\n#define PROJECT_FP16 1\n"));
    const std::optional<CompileResult> result = compileWithin(
        Program("#include \"cuda_fp16.h\"\n#include <cuda_bf16.h>\n#if !PROJECT_FP16\n#error "
                "the toolkit's header was used\n#endif\n" +
                    kKernel,
                QStringLiteral("main.cu"), ProgramOptions{}, m_project));
    QVERIFY2(result, "the compile hung");
    QVERIFY2(result->ok, qPrintable(result->log + result->diagnostics.value(0).message));
}

void TestIncludeResolver::projectWithHeadersCompiles() {
    // A .cuh beside the source, an include dir, a header reached by two names behind
    // #pragma once, and a toolkit header: as on disk.
    QVERIFY(writeFile(m_project + QStringLiteral("/helper.cuh"),
                      "#pragma once\n__device__ inline float helper(float x) { return x + 1; }\n"));
    QVERIFY(writeFile(m_project + QStringLiteral("/inc/a.cuh"),
                      "#pragma once\n#include \"sub/b.cuh\"\n#include <cuda_fp16.h>\n"
                      "__device__ inline float a(float x) { return b(x) + 1; }\n"));
    QVERIFY(writeFile(m_project + QStringLiteral("/inc/sub/b.cuh"),
                      "#pragma once\n#include \"../a.cuh\"\n#include \"../../helper.cuh\"\n"
                      "__device__ inline float b(float x) { return helper(2 * x); }\n"));
    ProgramOptions options;
    options.includeDirs = QStringList{QStringLiteral("inc")};
    const std::optional<CompileResult> result =
        compileWithin(Program("#include \"helper.cuh\"\n#include <a.cuh>\n"
                              "__global__ void k(float* x) { x[0] = a(helper(x[0])); }\n",
                              QStringLiteral("main.cu"), options, m_project));
    QVERIFY2(result, "the compile hung");
    QVERIFY2(result->ok, qPrintable(result->log + result->diagnostics.value(0).message));
    for (const QString& flag : std::as_const(result->flags))
        QVERIFY2(!flag.startsWith(QLatin1String("-I")) || !flag.contains(m_project),
                 qPrintable(flag)); // NVRTC is given no project folder
}

void TestIncludeResolver::errorInHeaderNamesItsPath() {
    QVERIFY(writeFile(m_project + QStringLiteral("/inc/sub/bad.cuh"),
                      "#pragma once\n\n__device__ float bad() { return nope; }\n"));
    const CompileResult result = Program("#include \"inc/sub/bad.cuh\"\n" + kKernel,
                                         QStringLiteral("main.cu"), ProgramOptions{}, m_project)
                                     .compile(QStringLiteral("sm_90"));
    QVERIFY(!result.ok);
    QCOMPARE(result.errorCount(), 1);
    const Diagnostic& d = result.diagnostics.first();
    QCOMPARE(d.file, m_project + QStringLiteral("/inc/sub/bad.cuh"));
    QCOMPARE(d.line, 3);
}

void TestIncludeResolver::proseMentioningIncludeCompiles() {
    // Comments and strings that talk about includes after other text are no directives.
    const CompileResult result = Program("// use #include to pull in a header\n"
                                         "/* write #include MACRO at your own risk */\n" +
                                             kKernel,
                                         QStringLiteral("main.cu"), ProgramOptions{}, m_project)
                                     .compile(QStringLiteral("sm_90"));
    QVERIFY2(result.ok, qPrintable(result.log + result.diagnostics.value(0).message));
}

void TestIncludeResolver::fingerprintIsBoundedAndFollowsTheBytes() {
    // The old fingerprint read every included file whole, /proc/self/pagemap included.
    const std::optional<QByteArray> pagemap = within<QByteArray>([this] {
        return CompileCache::includeFingerprint("#include \"/proc/self/pagemap\"\n", m_project, {});
    });
    QVERIFY2(pagemap, "the fingerprint read /proc/self/pagemap");
    const QString fifo = m_project + QStringLiteral("/fifo.cuh");
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    QVERIFY2(within<QByteArray>([this] {
                 return CompileCache::includeFingerprint("%:include \"fifo.cuh\"\n", m_project, {});
             }),
             "the fingerprint opened a FIFO");

    const QString source = QStringLiteral("#include \"h.cuh\"\n");
    QVERIFY(writeFile(m_project + QStringLiteral("/h.cuh"), "#define A 1\n"));
    const QByteArray first = CompileCache::includeFingerprint(source, m_project, {});
    QVERIFY(!first.isEmpty());
    QCOMPARE(CompileCache::includeFingerprint(source, m_project, {}), first);
    QVERIFY(writeFile(m_project + QStringLiteral("/h.cuh"), "#define A 2\n"));
    QVERIFY(CompileCache::includeFingerprint(source, m_project, {}) != first);
    QVERIFY(CompileCache::includeFingerprint(kKernel, m_project, {}).isEmpty());
}

KERNELPAD_TEST_GUILESS_MAIN(TestIncludeResolver)
} // namespace tst_includeresolver
#include "tst_includeresolver.moc"
