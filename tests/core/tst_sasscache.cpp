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

#include <algorithm>

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
    void liveRangesAreJoinedAndCached();
    void listingIsNotLaterThanTheLiveRanges();
    void leastRecentlyUsedGoes();

private:
    /// How many times nvdisasm was started since init() (with arguments starting `prefix`).
    [[nodiscard]] int starts(const QByteArray& prefix = {}) const;
    [[nodiscard]] CompileResult compileTranspose() const;
    [[nodiscard]] CompileResult compileExample(const QString& example, const QString& kernel) const;

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
    // Logs its arguments, insists on a CUBIN, fails when KERNELPAD_FAKE_NVDISASM_FAIL is set,
    // prints the recorded listing of $KERNELPAD_FAKE_NVDISASM_EXAMPLE (transpose by default) or,
    // asked for life ranges, its life-range listing (unrolled's where none was recorded). With
    // KERNELPAD_FAKE_NVDISASM_HANDSHAKE=DIR the listing's process prints only once the
    // life-range process has started (DIR/life-started), and that one only once the listing
    // was handed out (DIR/listed), each giving up after 10 s.
    const QByteArray data(KERNELPAD_TEST_DATA_DIR "/sass/");
    script.write("#!/bin/sh\necho \"$@\" >> '" + m_log.toUtf8() +
                 "'\n"
                 "for f; do :; done\n"
                 "head -c 4 \"$f\" | grep -q ELF || { echo 'not a CUBIN' >&2; exit 3; }\n"
                 "[ -n \"$KERNELPAD_FAKE_NVDISASM_FAIL\" ] && { echo 'bad CUBIN' >&2; exit 2; }\n"
                 "ex=${KERNELPAD_FAKE_NVDISASM_EXAMPLE:-transpose}\n"
                 "hs=$KERNELPAD_FAKE_NVDISASM_HANDSHAKE\n"
                 "await() { [ -z \"$hs\" ] && return 0; n=0; while [ ! -f \"$hs/$1\" ]; do\n"
                 "  n=$((n+1)); [ $n -gt 200 ] && return 1; sleep 0.05; done; }\n"
                 "case \" $* \" in *' --print-life-ranges '*)\n"
                 "  [ -n \"$hs\" ] && touch \"$hs/life-started\"\n"
                 "  await listed || { echo 'the listing was not handed out' >&2; exit 6; }\n"
                 "  l='" +
                 data + "'$ex.sass-life-count.txt; [ -f \"$l\" ] || l='" + data +
                 "unrolled.sass-life-count.txt'\n"
                 "  cat \"$l\";;\n"
                 "*) await life-started || { echo 'no life-range process beside' >&2; exit 5; }\n"
                 "  cat '" +
                 data + "'$ex.sass-gi.txt;;\nesac\n");
    script.close();
    QVERIFY(script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    qputenv("CUDA_HOME", m_dir.filePath(QStringLiteral("cuda")).toUtf8());
    qunsetenv("CUDA_PATH");
    qunsetenv("KERNELPAD_FAKE_NVDISASM_FAIL");
}

void TestSassCache::init() {
    QFile::remove(m_log);
    qunsetenv("KERNELPAD_FAKE_NVDISASM_FAIL");
    qunsetenv("KERNELPAD_FAKE_NVDISASM_EXAMPLE");
    qunsetenv("KERNELPAD_FAKE_NVDISASM_HANDSHAKE");
}

int TestSassCache::starts(const QByteArray& prefix) const {
    QFile file(m_log);
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    const QList<QByteArray> lines = file.readAll().split('\n');
    return int(std::count_if(lines.cbegin(), lines.cend(), [&](const QByteArray& line) {
        return !line.isEmpty() && line.startsWith(prefix);
    }));
}

CompileResult TestSassCache::compileTranspose() const {
    return compileExample(QStringLiteral("transpose"), QStringLiteral("transpose_naive"));
}

CompileResult TestSassCache::compileExample(const QString& example, const QString& kernel) const {
    Project project = test::fillProject(recorded(example + QStringLiteral(".cu")));
    project.sourceName = example + QStringLiteral(".cu");
    project.kernel = kernel;
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
    // The listing with its lines, and the life ranges (which ignore -gi) beside it.
    QCOMPARE(starts(), 2);
    QCOMPARE(report.sass.processes, 2);
    QVERIFY(!report.sass.cacheHit);
    QCOMPARE(report.sass.listing.functions.size(), 2);
    QVERIFY(!report.lines.isEmpty());
    QVERIFY(report.sass.processMs > 0);
    QFile log(m_log);
    QVERIFY(log.open(QIODevice::ReadOnly));
    const QList<QByteArray> started = log.readAll().split('\n');
    QVERIFY(std::any_of(started.cbegin(), started.cend(),
                        [](const QByteArray& a) { return a.startsWith("-c -gi -ndf "); }));
    QVERIFY(std::any_of(started.cbegin(), started.cend(), [](const QByteArray& a) {
        return a.startsWith("-c --print-life-ranges --life-range-mode=count ");
    }));
    // The fake's life ranges are another kernel's: the SASS stays, and says why it has none.
    QVERIFY(!report.sass.liveRanges);
    QVERIFY2(report.sass.liveRangeError.contains(QStringLiteral("printed no live-register")),
             qPrintable(report.sass.liveRangeError));
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
    QCOMPARE(starts(), 2);
    int listedCalls = 0;
    const SassReport again = makeSassReport(
        compile, QStringLiteral("transpose.cu"), [&](const SassReport&) { ++listedCalls; }, &cache);
    QVERIFY(again.ok());
    QCOMPARE(starts(), 2);
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
    QCOMPARE(starts(), 4);
}

// The map also reads the PTX and the source name: another name rebuilds it, without nvdisasm.
void TestSassCache::otherSourceNameRebuildsOnlyTheMap() {
    const CompileResult compile = compileTranspose();
    QVERIFY2(compile.ok, qPrintable(compile.error));
    SassCache cache;
    const SassReport first = makeSassReport(compile, QStringLiteral("transpose.cu"), {}, &cache);
    QVERIFY(!first.lines.isEmpty());
    const SassReport other = makeSassReport(compile, QStringLiteral("other.cu"), {}, &cache);
    QCOMPARE(starts(), 2);
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
    QCOMPARE(starts("-c -gi"), 2); // the failed life-range process may be stopped unlogged
}

// The unrolled kernel's life ranges joined into its SASS, kept with it in the cache: a second
// request (switching tabs) has the counts without a process.
void TestSassCache::liveRangesAreJoinedAndCached() {
    qputenv("KERNELPAD_FAKE_NVDISASM_EXAMPLE", "unrolled");
    const CompileResult compile =
        compileExample(QStringLiteral("unrolled"), QStringLiteral("unrolled"));
    QVERIFY2(compile.ok, qPrintable(compile.error));
    SassCache cache;
    SassReport listed;
    const SassReport first = makeSassReport(
        compile, QStringLiteral("unrolled.cu"), [&](const SassReport& r) { listed = r; }, &cache);
    qunsetenv("KERNELPAD_FAKE_NVDISASM_EXAMPLE");
    QVERIFY2(first.ok(), qPrintable(first.sass.error));
    QVERIFY2(first.sass.liveRanges, qPrintable(first.sass.liveRangeError));
    QVERIFY(first.sass.liveRangeProcessMs > 0);
    QVERIFY(first.sass.processMs >= first.sass.liveRangeProcessMs);
    const SassFunction* f = first.sass.listing.findFunction(QStringLiteral("unrolled"));
    QVERIFY(f);
    const int isetp = f->indexOfAddress(0x60);
    QVERIFY(isetp >= 0 && f->instructions[isetp].live);
    QCOMPARE(f->instructions[isetp].live->predicates, 1);
    // The text went out before the life ranges were read.
    QVERIFY(!listed.sass.liveRanges);
    QCOMPARE(listed.sass.listing.instructionCount(), first.sass.listing.instructionCount());
    QCOMPARE(starts(), 2);
    const SassReport again = makeSassReport(compile, QStringLiteral("unrolled.cu"), {}, &cache);
    QCOMPARE(starts(), 2);
    QVERIFY(again.sass.cacheHit);
    QVERIFY(again.sass.liveRanges);
    QCOMPARE(again.sass.listing.findFunction(QStringLiteral("unrolled"))->instructions[isetp].live,
             f->instructions[isetp].live);
}

// The life-range process runs beside the listing's, and the listing is handed out while it
// still runs: the fake's listing prints only once the life-range process has started, and that
// one only once the listing was handed out; either order broken fails one of them.
void TestSassCache::listingIsNotLaterThanTheLiveRanges() {
    QTemporaryDir handshake;
    QVERIFY(handshake.isValid());
    qputenv("KERNELPAD_FAKE_NVDISASM_EXAMPLE", "unrolled");
    qputenv("KERNELPAD_FAKE_NVDISASM_HANDSHAKE", handshake.path().toUtf8());
    const CompileResult compile =
        compileExample(QStringLiteral("unrolled"), QStringLiteral("unrolled"));
    QVERIFY2(compile.ok, qPrintable(compile.error));
    const SassReport report = makeSassReport(
        compile, QStringLiteral("unrolled.cu"),
        [&](const SassReport&) {
            QFile flag(handshake.filePath(QStringLiteral("listed")));
            QVERIFY(flag.open(QIODevice::WriteOnly));
        },
        nullptr);
    qunsetenv("KERNELPAD_FAKE_NVDISASM_EXAMPLE");
    qunsetenv("KERNELPAD_FAKE_NVDISASM_HANDSHAKE");
    QVERIFY2(report.ok(), qPrintable(report.sass.error));
    QVERIFY2(report.sass.liveRanges, qPrintable(report.sass.liveRangeError));
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
