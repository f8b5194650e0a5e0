// DiskCompileCache: round trips, corrupt and foreign entries, the size bound, concurrent
// writers and a directory that cannot be written. Real NVRTC output where a CUBIN matters.

#include "../support/TestMain.h"
#include "TestPaths.h"
#include "core/compile/CompileCache.h"
#include "core/compile/DiskCompileCache.h"
#include "core/compile/Program.h"
#include "core/io/SafeFile.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <thread>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

namespace tst_diskcompilecache {

using namespace kernelpad;

namespace {

const char* const kSaxpy = R"(extern "C" __global__
void saxpy(float a, float* x, float* y, float* out, size_t n)
{
    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < n)
        out[tid] = a * x[tid] + y[tid];
}
template <typename T> __global__ void scale(T* v, T s) { v[threadIdx.x] *= s; }
)";

/// One real compile, shared by the tests (NVRTC takes a few hundred ms).
const CompileResult& saxpyCompiled() {
    static const CompileResult result =
        Program(QString::fromLatin1(kSaxpy), QStringLiteral("saxpy.cu"), ProgramOptions{})
            .compile(QStringLiteral("sm_90"), {QStringLiteral("scale<float>")});
    return result;
}

/// A small ok result whose CUBIN is `bytes` bytes of a pattern (for size tests).
CompileResult fakeResult(int bytes, char fill) {
    CompileResult r;
    r.ok = true;
    r.arch = QStringLiteral("sm_90");
    r.cubin = QByteArray(bytes, fill);
    return r;
}

QByteArray keyFor(const QString& text) {
    return CompileCache::key(text, QStringLiteral("k.cu"), {QStringLiteral("-arch=sm_90")}, {},
                             QStringLiteral("13.0"));
}

void setAge(const QString& path, int secondsAgo) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadWrite));
    QVERIFY(f.setFileTime(QDateTime::currentDateTimeUtc().addSecs(-secondsAgo),
                          QFileDevice::FileModificationTime));
}

qint64 directoryBytes(const QString& dir) {
    qint64 total = 0;
    for (const QFileInfo& info : QDir(dir).entryInfoList(QDir::Files | QDir::Hidden))
        total += info.size();
    return total;
}

} // namespace

class TestDiskCompileCache : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QVERIFY2(saxpyCompiled().ok, qPrintable(saxpyCompiled().log));
        QVERIFY(!saxpyCompiled().cubin.isEmpty());
    }

    void roundTripKeepsEverything() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QByteArray key = keyFor(QStringLiteral("saxpy"));
        {
            DiskCompileCache writer(dir.path());
            QVERIFY(!writer.find(key)); // empty cache: a miss
            writer.insert(key, saxpyCompiled());
            QVERIFY(QFile::exists(writer.entryPath(key)));
            QVERIFY(writer.entryPath(key).endsWith(QString::fromLatin1(key.toHex())));
        }
        // A second object (a new process, in effect) reads what the first wrote.
        DiskCompileCache reader(dir.path());
        const std::optional<CompileResult> hit = reader.find(key);
        QVERIFY(hit);
        const CompileResult& original = saxpyCompiled();
        QVERIFY(hit->cacheHit);
        QVERIFY(!original.cacheHit);
        QCOMPARE(hit->cubin, original.cubin);
        QCOMPARE(hit->ptx, original.ptx);
        QCOMPARE(hit->arch, original.arch);
        QCOMPARE(hit->flags, original.flags);
        QCOMPARE(hit->nvrtcVersion, original.nvrtcVersion);
        QCOMPARE(hit->kernels.size(), original.kernels.size());
        for (qsizetype i = 0; i < original.kernels.size(); ++i) {
            QCOMPARE(hit->kernels[i].name, original.kernels[i].name);
            QCOMPARE(hit->kernels[i].lowered, original.kernels[i].lowered);
            QCOMPARE(hit->kernels[i].params.size(), original.kernels[i].params.size());
        }
        QCOMPARE(hit->loweredNames, original.loweredNames);
        QVERIFY(!reader.find(keyFor(QStringLiteral("another source"))));
    }

    void failedCompilesAreNotStored() {
        QTemporaryDir dir;
        DiskCompileCache cache(dir.path());
        CompileResult failed = fakeResult(16, 'x');
        failed.ok = false;
        const QByteArray key = keyFor(QStringLiteral("broken"));
        cache.insert(key, failed);
        QVERIFY(!QFile::exists(cache.entryPath(key)));
        QVERIFY(!cache.find(key));
    }

    void badEntryIsAMissAndRemoved_data() {
        QTest::addColumn<QString>("damage");
        QTest::newRow("flipped byte in the CUBIN") << "flip-last";
        QTest::newRow("flipped byte in the JSON") << "flip-json";
        QTest::newRow("flipped byte in the magic") << "flip-first";
        QTest::newRow("truncated payload") << "truncate-half";
        QTest::newRow("truncated header") << "truncate-header";
        QTest::newRow("empty file") << "empty";
        QTest::newRow("bytes appended") << "append";
        QTest::newRow("other format version") << "version";
    }

    void badEntryIsAMissAndRemoved() {
        QFETCH(QString, damage);
        QTemporaryDir dir;
        DiskCompileCache cache(dir.path());
        const QByteArray key = keyFor(QStringLiteral("saxpy"));
        cache.insert(key, saxpyCompiled());
        const QString path = cache.entryPath(key);
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QByteArray bytes = file.readAll();
        file.close();
        const int jsonStart = int(bytes.indexOf("{\"arch\"")); // the payload's JSON
        QVERIFY(jsonStart > 0);
        if (damage == "flip-last")
            bytes[bytes.size() - 1] = char(bytes[bytes.size() - 1] ^ 0x01);
        else if (damage == "flip-json")
            bytes[jsonStart + 5] = char(bytes[jsonStart + 5] ^ 0x20);
        else if (damage == "flip-first")
            bytes[0] = char(bytes[0] ^ 0x01);
        else if (damage == "truncate-half")
            bytes.truncate(bytes.size() / 2);
        else if (damage == "truncate-header")
            bytes.truncate(jsonStart / 2);
        else if (damage == "empty")
            bytes.clear();
        else if (damage == "append")
            bytes += "junk";
        else if (damage == "version")
            bytes = DiskCompileCache::encodeEntry(key, saxpyCompiled(),
                                                  DiskCompileCache::kFormatVersion + 1);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QCOMPARE(file.write(bytes), bytes.size());
        file.close();

        QVERIFY(!cache.find(key));
        QVERIFY2(!QFile::exists(path), "a bad entry must be deleted");
        // The next compile stores a good entry again.
        cache.insert(key, saxpyCompiled());
        QVERIFY(cache.find(key));
    }

    void evictionKeepsTheBoundAndDropsTheOldest() {
        QTemporaryDir dir;
        constexpr int kEntryBytes = 10 * 1024;
        constexpr qint64 kMaxBytes = 64 * 1024; // about six entries
        DiskCompileCache cache(dir.path(), kMaxBytes);
        QVector<QByteArray> keys;
        for (int i = 0; i < 5; ++i) {
            keys << keyFor(QStringLiteral("entry %1").arg(i));
            cache.insert(keys.last(), fakeResult(kEntryBytes, char('a' + i)));
            // Entry i is (10 - i) minutes old: entry 0 is the least recently used.
            setAge(cache.entryPath(keys.last()), (10 - i) * 60);
            if (QTest::currentTestFailed())
                return;
        }
        QVERIFY(directoryBytes(dir.path()) <= kMaxBytes);
        for (const QByteArray& k : keys)
            QVERIFY(QFile::exists(cache.entryPath(k)));
        // A hit makes entry 1 the most recently used, so it outlives entries 0 and 2.
        QVERIFY(cache.find(keys[1]));

        for (int i = 5; i < 8; ++i) {
            keys << keyFor(QStringLiteral("entry %1").arg(i));
            cache.insert(keys.last(), fakeResult(kEntryBytes, char('a' + i)));
            QVERIFY(directoryBytes(dir.path()) <= kMaxBytes);
        }
        QVERIFY(!QFile::exists(cache.entryPath(keys[0])));
        QVERIFY(!QFile::exists(cache.entryPath(keys[2])));
        QVERIFY(QFile::exists(cache.entryPath(keys[1])));
        QVERIFY(QFile::exists(cache.entryPath(keys.last())));
        QVERIFY(cache.find(keys.last()));
        QCOMPARE(cache.find(keys.last())->cubin, QByteArray(kEntryBytes, char('a' + 7)));
    }

    void anEntryLargerThanTheCacheIsNotStored() {
        QTemporaryDir dir;
        DiskCompileCache cache(dir.path(), 4096);
        const QByteArray key = keyFor(QStringLiteral("huge"));
        cache.insert(key, fakeResult(8192, 'h'));
        QVERIFY(!cache.find(key));
        QCOMPARE(directoryBytes(dir.path()), qint64(0));
    }

    void concurrentWritersLeaveAValidEntry() {
        QTemporaryDir dir;
        const QByteArray key = keyFor(QStringLiteral("saxpy"));
        constexpr int kThreads = 8;
        constexpr int kRounds = 20;
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t) {
            threads.emplace_back([&dir, &key] {
                DiskCompileCache cache(dir.path()); // one object per "process"
                for (int i = 0; i < kRounds; ++i) {
                    cache.insert(key, saxpyCompiled());
                    (void)cache.find(key); // readers race the writers too
                }
            });
        }
        for (std::thread& t : threads)
            t.join();
        DiskCompileCache cache(dir.path());
        const std::optional<CompileResult> hit = cache.find(key);
        QVERIFY(hit);
        QCOMPARE(hit->cubin, saxpyCompiled().cubin);
        // Only the entry is left: no temporary files from the writers.
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);
    }

    void unwritableDirectoryMeansNoCaching_data() {
        QTest::addColumn<QString>("kind");
        QTest::newRow("directory under a regular file") << "under-file";
        QTest::newRow("read-only directory") << "read-only";
        QTest::newRow("no directory configured") << "empty";
    }

    void unwritableDirectoryMeansNoCaching() {
        QFETCH(QString, kind);
        QTemporaryDir base;
        QString path;
        if (kind == "under-file") {
            QFile blocker(base.filePath(QStringLiteral("file")));
            QVERIFY(blocker.open(QIODevice::WriteOnly));
            path = blocker.fileName() + QStringLiteral("/cache");
        } else if (kind == "read-only") {
            path = base.filePath(QStringLiteral("ro"));
            QVERIFY(QDir().mkpath(path));
            QVERIFY(QFile::setPermissions(path, QFile::ReadOwner | QFile::ExeOwner));
            QFile probe(path + QStringLiteral("/probe"));
            if (probe.open(QIODevice::WriteOnly)) { // root ignores permissions
                probe.remove();
                QSKIP("running as root: a read-only directory is writable");
            }
        }
        DiskCompileCache cache(path);
        const QByteArray key = keyFor(QStringLiteral("saxpy"));
        if (kind != "empty")
            QTest::ignoreMessage(QtWarningMsg,
                                 QRegularExpression(QStringLiteral("compile cache .* disabled")));
        cache.insert(key, saxpyCompiled()); // must not throw or crash
        QVERIFY(!cache.isEnabled());
        QVERIFY(!cache.find(key));
        cache.insert(key, saxpyCompiled()); // warned once, then silent
        if (kind == "read-only")            // let QTemporaryDir remove it
            QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    }

    void untrustedEntryIsAMiss_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<bool>("removed"); // deleted: a regular file of ours
        // The attacker's entries: each was loaded, hung or followed before.
        QTest::newRow("another key's entry copied under this name") << "planted" << true;
        QTest::newRow("FIFO as the entry") << "fifo" << false;
        QTest::newRow("symbolic link to /dev/zero") << "dev-zero" << false;
        QTest::newRow("dangling symbolic link") << "dangling" << false;
        QTest::newRow("symbolic link to a valid entry elsewhere") << "link-to-entry" << false;
    }

    void untrustedEntryIsAMiss() {
        QFETCH(QString, kind);
        QFETCH(bool, removed);
        QTemporaryDir dir;
        QTemporaryDir elsewhere; // outside the cache folder
        QVERIFY(dir.isValid() && elsewhere.isValid());
        DiskCompileCache cache(dir.path());
        const QByteArray key = keyFor(QStringLiteral("saxpy"));
        const QString path = cache.entryPath(key);
        const QString outside = elsewhere.filePath(QStringLiteral("target"));
        if (kind == "planted") {
            // A valid entry of another program, its PTX changed, under SAXPY's name.
            CompileResult evil = saxpyCompiled();
            evil.ptx.replace(QStringLiteral("0f"), QStringLiteral("1337.0f"));
            const QByteArray evilKey = keyFor(QStringLiteral("evil"));
            cache.insert(evilKey, evil);
            QVERIFY(QFile::copy(cache.entryPath(evilKey), path));
            QVERIFY(cache.find(evilKey)); // intact under its own name
        } else if (kind == "fifo") {
            QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
        } else if (kind == "dev-zero") {
            QVERIFY(QFile::link(QStringLiteral("/dev/zero"), path));
        } else if (kind == "dangling") {
            QVERIFY(QFile::link(outside, path));
        } else if (kind == "link-to-entry") {
            QVERIFY(QFile::link(outside, path));
            QString why;
            QVERIFY2(writeFileAtomically(outside,
                                         DiskCompileCache::encodeEntry(key, saxpyCompiled()), &why),
                     qPrintable(why));
        }
        QVERIFY(!cache.find(key)); // a FIFO hung here, /dev/zero ran out of memory
        QFileInfo entry(path);
        QCOMPARE(!entry.exists() && !entry.isSymLink(), removed);

        // Storing the real result never writes through the name to somewhere else.
        const QByteArray outsideBefore = [&] {
            QFile f(outside);
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("absent");
        }();
        cache.insert(key, saxpyCompiled());
        QVERIFY(cache.isEnabled()); // a planted name costs one entry, not the whole cache
        QFile after(outside);
        QCOMPARE(after.open(QIODevice::ReadOnly) ? after.readAll() : QByteArray("absent"),
                 outsideBefore);
        entry.refresh();
        if (removed) {
            QVERIFY(entry.isFile() && !entry.isSymLink());
            const std::optional<CompileResult> hit = cache.find(key);
            QVERIFY(hit);
            QCOMPARE(hit->ptx, saxpyCompiled().ptx);
        } else {
            QVERIFY(!cache.find(key)); // left alone: not ours to replace
        }
    }

    void renameReplacesALinkNotItsTarget() {
        // What insert relies on should a link appear after its check: rename(2) over a
        // symbolic link replaces the link; the file it names is never created.
        QTemporaryDir dir;
        QTemporaryDir elsewhere;
        const QString link = dir.filePath(QStringLiteral("entry"));
        const QString target = elsewhere.filePath(QStringLiteral("created-here"));
        QVERIFY(QFile::link(target, link));
        QString why;
        QVERIFY2(writeFileAtomically(link, "bytes", &why), qPrintable(why));
        QVERIFY(!QFileInfo::exists(target));
        const QFileInfo entry(link);
        QVERIFY(entry.isFile() && !entry.isSymLink());
    }

    void refusedFolderIsNotUsedAndToldOnce_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<bool>("otherOwner");
        QTest::addColumn<QString>("reason");
        QTest::newRow("world-writable") << 0777 << false << "writable by others (mode 0777)";
        QTest::newRow("world-writable with the sticky bit, like /tmp")
            << 01777 << false << "writable by others (mode 1777)";
        QTest::newRow("group-writable") << 0770 << false << "writable by its group (mode 0770)";
        QTest::newRow("owned by another user") << 0700 << true << "belongs to user id 65534";
    }

    void refusedFolderIsNotUsedAndToldOnce() {
        QFETCH(int, mode);
        QFETCH(bool, otherOwner);
        QFETCH(QString, reason);
        if (otherOwner && ::geteuid() != 0)
            QSKIP("giving a folder to another user needs root");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QByteArray key = keyFor(QStringLiteral("saxpy"));
        {
            DiskCompileCache trusted(dir.path()); // a valid entry, written while it was private
            trusted.insert(key, saxpyCompiled());
            QVERIFY(trusted.find(key));
            QVERIFY(trusted.takeNotice().isEmpty());
        }
        const QByteArray folder = QFile::encodeName(dir.path());
        QCOMPARE(::chmod(folder.constData(), mode_t(mode)), 0);
        if (otherOwner)
            QCOMPARE(::chown(folder.constData(), 65534, 65534), 0);
        QVERIFY(DiskCompileCache::folderProblem(dir.path()).contains(reason));

        // Through CompileCache as the CLI and the window use it: the first result carries the
        // note, the next ones do not; the valid entry is not read, nothing is written.
        CompileCache cache(CompileCache::kDefaultCapacity, dir.path());
        int compiles = 0;
        const auto compile = [&] {
            ++compiles;
            return saxpyCompiled();
        };
        const CompileResult first = cache.findOrCompile(key, compile);
        QCOMPARE(first.fromCache, CompileResult::CacheTier::None); // the disk entry was not used
        QVERIFY2(first.log.contains(
                     QStringLiteral("note: the compile cache in %1 is not used: ").arg(dir.path())),
                 qPrintable(first.log));
        QVERIFY2(first.log.contains(reason), qPrintable(first.log));
        QVERIFY(!first.diagnostics.isEmpty());
        QCOMPARE(first.diagnostics.last().severity, Diagnostic::Severity::Note);
        QVERIFY(first.diagnostics.last().message.contains(reason));
        QVERIFY(!cache.disk()->isEnabled());

        const CompileResult second = cache.findOrCompile(keyFor(QStringLiteral("other")), compile);
        QVERIFY(!second.log.contains(QStringLiteral("compile cache")));
        QCOMPARE(second.diagnostics.size(), saxpyCompiled().diagnostics.size());
        const CompileResult again = cache.findOrCompile(key, compile); // memory tier
        QVERIFY(!again.log.contains(QStringLiteral("compile cache")));
        QCOMPARE(compiles, 2);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);

        if (otherOwner)
            QCOMPARE(::chown(folder.constData(), ::geteuid(), ::getegid()), 0);
        QCOMPARE(::chmod(folder.constData(), 0700), 0);
    }

    void createdFolderIsPrivate() {
        // With a umask of 002 (Debian's per-user groups) mkpath would make it group-writable,
        // and the cache would then refuse its own folder.
        QTemporaryDir base;
        const QString path = base.filePath(QStringLiteral("kernelpad/compile"));
        const mode_t oldMask = ::umask(002);
        DiskCompileCache cache(path);
        cache.insert(keyFor(QStringLiteral("saxpy")), saxpyCompiled());
        ::umask(oldMask);
        QVERIFY(cache.isEnabled());
        QVERIFY(cache.find(keyFor(QStringLiteral("saxpy"))));
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(path).constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, mode_t(0700));
        QVERIFY(cache.takeNotice().isEmpty());
    }

    void defaultDirectoryFollowsTheEnvironment() {
        const QByteArray saved = qgetenv("KERNELPAD_CACHE_DIR");
        qputenv("KERNELPAD_CACHE_DIR", "/tmp/kernelpad-cache-test");
        QCOMPARE(DiskCompileCache::defaultDirectory(), QStringLiteral("/tmp/kernelpad-cache-test"));
        qunsetenv("KERNELPAD_CACHE_DIR");
        QVERIFY(
            DiskCompileCache::defaultDirectory().endsWith(QStringLiteral("/kernelpad/compile")));
        if (!saved.isEmpty())
            qputenv("KERNELPAD_CACHE_DIR", saved);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestDiskCompileCache)
} // namespace tst_diskcompilecache
#include "tst_diskcompilecache.moc"
