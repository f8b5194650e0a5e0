// makeSassReport and SassCache with NVRTC compiling for real and nvdisasm a script in CUDA_HOME
// that logs each start and prints the listing recorded on the GPU machine: one process per
// CUBIN for all its kernels and their lines, none when the cache has the CUBIN, the text handed
// out before the map is built, failures not kept.

#include "../support/TestMain.h"
#include "../support/TestProjects.h"
#include "TestPaths.h"
#include "core/compile/SassCache.h"
#include "core/compile/SassReport.h"
#include "core/run/ExecutionSession.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

namespace tst_sasscache {

using namespace kernelpad;

namespace {

QString recorded(const QString& name) {
    QFile file(QStringLiteral(KERNELPAD_TEST_DATA_DIR "/sass/") + name);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(file.fileName()));
    return QString::fromUtf8(file.readAll());
}

} // namespace

class TestSassCache : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void oneProcessPerCubin();
    void cacheHitRunsNoProcess();
    void otherSourceNameRebuildsOnlyTheMap();
    void failureIsNotKept();
    void leastRecentlyUsedGoes();

private:
    /// How many times nvdisasm was started since init().
    [[nodiscard]] int starts() const;
    [[nodiscard]] CompileResult compileTranspose() const;

    QTemporaryDir m_dir;
    QString m_log;
};

void TestSassCache::initTestCase() {
    QVERIFY(m_dir.isValid());
    const QString bin = m_dir.filePath(QStringLiteral("cuda/bin"));
    QVERIFY(QDir().mkpath(bin));
    m_log = m_dir.filePath(QStringLiteral("starts.log"));
    QFile script(bin + QStringLiteral("/nvdisasm"));
    QVERIFY(script.open(QIODevice::WriteOnly));
    // Logs its arguments, insists on a CUBIN, fails when KERNELPAD_FAKE_NVDISASM_FAIL is set.
    script.write("#!/bin/sh\necho \"$@\" >> '" + m_log.toUtf8() +
                 "'\n"
                 "for f; do :; done\n"
                 "head -c 4 \"$f\" | grep -q ELF || { echo 'not a CUBIN' >&2; exit 3; }\n"
                 "[ -n \"$KERNELPAD_FAKE_NVDISASM_FAIL\" ] && { echo 'bad CUBIN' >&2; exit 2; }\n"
                 "cat '" +
                 QByteArray(KERNELPAD_TEST_DATA_DIR "/sass/transpose.sass-gi.txt") + "'\n");
    script.close();
    QVERIFY(script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    qputenv("CUDA_HOME", m_dir.filePath(QStringLiteral("cuda")).toUtf8());
    qunsetenv("CUDA_PATH");
    qunsetenv("KERNELPAD_FAKE_NVDISASM_FAIL");
}

void TestSassCache::init() {
    QFile::remove(m_log);
    qunsetenv("KERNELPAD_FAKE_NVDISASM_FAIL");
}

int TestSassCache::starts() const {
    QFile file(m_log);
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    return int(file.readAll().count('\n'));
}

CompileResult TestSassCache::compileTranspose() const {
    Project project = test::fillProject(recorded(QStringLiteral("transpose.cu")));
    project.sourceName = QStringLiteral("transpose.cu");
    project.kernel = QStringLiteral("transpose_naive");
    project.options.lineInfo = true;
    project.options.arch = QStringLiteral("sm_90");
    return compileProject(project, QString(), QStringLiteral("sm_90"), nullptr);
}

// Two kernels, their SASS and their lines: one nvdisasm, -c -gi, on the one CUBIN.
void TestSassCache::oneProcessPerCubin() {
    const CompileResult compile = compileTranspose();
    QVERIFY2(compile.ok, qPrintable(compile.error));
    SassCache cache;
    int listedCalls = 0;
    SassReport listed;
    const SassReport report = makeSassReport(
        compile, QStringLiteral("transpose.cu"),
        [&](const SassReport& r) {
            ++listedCalls;
            listed = r;
        },
        &cache);
    QVERIFY2(report.ok(), qPrintable(report.sass.error));
    QCOMPARE(starts(), 1);
    QCOMPARE(report.sass.processes, 1);
    QVERIFY(!report.sass.cacheHit);
    QCOMPARE(report.sass.listing.functions.size(), 2);
    QVERIFY(!report.lines.isEmpty());
    QVERIFY(report.sass.processMs > 0);
    QFile log(m_log);
    QVERIFY(log.open(QIODevice::ReadOnly));
    QVERIFY(log.readAll().startsWith("-c -gi "));
    // The text went out once, before the map: the same listing, no lines yet.
    QCOMPARE(listedCalls, 1);
    QVERIFY(listed.lines.isEmpty());
    QCOMPARE(listed.sass.listing.text, report.sass.listing.text);
    QCOMPARE(cache.size(), 1);
}

// The same CUBIN again (the Diff tab after the SASS tab, a recompile of the same code): the
// same report, and nvdisasm does not start.
void TestSassCache::cacheHitRunsNoProcess() {
    const CompileResult compile = compileTranspose();
    QVERIFY2(compile.ok, qPrintable(compile.error));
    SassCache cache;
    const SassReport first = makeSassReport(compile, QStringLiteral("transpose.cu"), {}, &cache);
    QVERIFY2(first.ok(), qPrintable(first.sass.error));
    QCOMPARE(starts(), 1);
    int listedCalls = 0;
    const SassReport again = makeSassReport(
        compile, QStringLiteral("transpose.cu"), [&](const SassReport&) { ++listedCalls; }, &cache);
    QVERIFY(again.ok());
    QCOMPARE(starts(), 1);
    QVERIFY(again.sass.cacheHit);
    QCOMPARE(again.sass.processes, 0);
    QCOMPARE(again.sass.listing.text, first.sass.listing.text);
    QCOMPARE(again.lines.sourceLines(), first.lines.sourceLines());
    QCOMPARE(again.mapMs, 0.0);
    QCOMPARE(listedCalls, 0); // the whole report is there at once
    // Without a cache, each asks nvdisasm.
    const SassReport uncached =
        makeSassReport(compile, QStringLiteral("transpose.cu"), {}, nullptr);
    QVERIFY(uncached.ok());
    QCOMPARE(starts(), 2);
}

// The map also reads the PTX and the source name: another name rebuilds it, without nvdisasm.
void TestSassCache::otherSourceNameRebuildsOnlyTheMap() {
    const CompileResult compile = compileTranspose();
    QVERIFY2(compile.ok, qPrintable(compile.error));
    SassCache cache;
    const SassReport first = makeSassReport(compile, QStringLiteral("transpose.cu"), {}, &cache);
    QVERIFY(!first.lines.isEmpty());
    const SassReport other = makeSassReport(compile, QStringLiteral("other.cu"), {}, &cache);
    QCOMPARE(starts(), 1);
    QVERIFY(other.sass.cacheHit);
    QVERIFY(other.lines.isEmpty()); // no line of other.cu in the SASS
    QCOMPARE(other.sourceName, QStringLiteral("other.cu"));
}

// A failed nvdisasm is not remembered: the next request tries again.
void TestSassCache::failureIsNotKept() {
    const CompileResult compile = compileTranspose();
    QVERIFY2(compile.ok, qPrintable(compile.error));
    SassCache cache;
    qputenv("KERNELPAD_FAKE_NVDISASM_FAIL", "1");
    const SassReport failed = makeSassReport(compile, QStringLiteral("transpose.cu"), {}, &cache);
    QVERIFY(!failed.ok());
    QVERIFY2(failed.sass.error.contains(QStringLiteral("bad CUBIN")),
             qPrintable(failed.sass.error));
    QCOMPARE(cache.size(), 0);
    qunsetenv("KERNELPAD_FAKE_NVDISASM_FAIL");
    const SassReport ok = makeSassReport(compile, QStringLiteral("transpose.cu"), {}, &cache);
    QVERIFY(ok.ok());
    QCOMPARE(starts(), 2);
}

void TestSassCache::leastRecentlyUsedGoes() {
    SassCache cache(2);
    const auto entry = [](const char* key) {
        SassCache::Entry e;
        e.key = key;
        e.sass.ok = true;
        return e;
    };
    cache.insert(entry("a"));
    cache.insert(entry("b"));
    QVERIFY(cache.find("a")); // now the most recent
    cache.insert(entry("c"));
    QCOMPARE(cache.size(), 2);
    QVERIFY(cache.find("a"));
    QVERIFY(!cache.find("b"));
    QVERIFY(cache.find("c"));
    QVERIFY(SassCache::key("x", QStringLiteral("/a/nvdisasm")) !=
            SassCache::key("x", QStringLiteral("/b/nvdisasm")));
}

KERNELPAD_TEST_MAIN(TestSassCache)
} // namespace tst_sasscache
#include "tst_sasscache.moc"
