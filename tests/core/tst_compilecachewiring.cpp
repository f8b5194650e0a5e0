// compileProject through a CompileCache with a disk tier: a second compile in a fresh
// cache (a new process) is a disk hit with identical PTX and CUBIN, a corrupt entry is
// recompiled, and every input in the key (options, arch, name expressions, included files)
// changes it; the project folder counts only through what resolves in it.

#include "../support/TestMain.h"
#include "TestPaths.h"
#include "core/compile/CompileCache.h"
#include "core/run/BlockingKernel.h"
#include "core/run/ExecutionSession.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

namespace tst_compilecachewiring {

using namespace kernelpad;

namespace {

const char* kSaxpy = R"(#include "scale.cuh"
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = SCALE * a * x[i] + y[i];
}
template <typename T> __global__ void fill(T* p, T v) { p[threadIdx.x] = v; }
)";

Project saxpyProject() {
    Project p;
    p.source = QString::fromLatin1(kSaxpy);
    p.sourceName = QStringLiteral("saxpy.cu");
    p.kernel = QStringLiteral("saxpy");
    p.options.includeDirs = {QStringLiteral(".")}; // resolved against the project directory
    return p;
}

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(bytes), bytes.size());
}

QStringList entries(const QString& dir) {
    return QDir(dir).entryList(QDir::Files | QDir::NoDotAndDotDot);
}

} // namespace

class TestCompileCacheWiring : public QObject {
    Q_OBJECT

private slots:
    void init() {
        QVERIFY(m_projectDir.isValid());
        QVERIFY(m_cacheDir.isValid());
        writeFile(m_projectDir.filePath(QStringLiteral("scale.cuh")), "#define SCALE 1.0f\n");
        if (QTest::currentTestFailed())
            return;
        for (const QString& name : entries(m_cacheDir.path()))
            QVERIFY(QFile::remove(m_cacheDir.filePath(name)));
    }

    void secondProcessHitsTheDiskCache() {
        CompileResult first;
        {
            CompileCache cache(CompileCache::kDefaultCapacity, m_cacheDir.path());
            first = compileProject(saxpyProject(), m_projectDir.path(), QStringLiteral("sm_90"),
                                   &cache);
            QVERIFY2(first.ok, qPrintable(first.log + first.error));
            QVERIFY(!first.cacheHit);
            QCOMPARE(first.fromCache, CompileResult::CacheTier::None);
            QVERIFY(first.nvrtcMs > 0);
            const CompileResult again = compileProject(saxpyProject(), m_projectDir.path(),
                                                       QStringLiteral("sm_90"), &cache);
            QCOMPARE(again.fromCache, CompileResult::CacheTier::Memory);
        }
        QCOMPARE(entries(m_cacheDir.path()).size(), 1);

        CompileCache fresh(CompileCache::kDefaultCapacity, m_cacheDir.path()); // a new process
        const CompileResult hit =
            compileProject(saxpyProject(), m_projectDir.path(), QStringLiteral("sm_90"), &fresh);
        QVERIFY(hit.ok);
        QVERIFY(hit.cacheHit);
        QCOMPARE(hit.fromCache, CompileResult::CacheTier::Disk);
        QCOMPARE(hit.ptx, first.ptx);
        QCOMPARE(hit.cubin, first.cubin);
        QCOMPARE(hit.kernels.size(), first.kernels.size());
        QCOMPARE(hit.nvrtcMs, first.nvrtcMs);
        QVERIFY(hit.compileMs >= 0);
        QCOMPARE(hit.toJson().value(QStringLiteral("fromCache")).toString(),
                 QStringLiteral("disk"));
        QString error;
        const std::optional<CompileResult> sent = CompileResult::fromJson(hit.toJson(), &error);
        QVERIFY2(sent, qPrintable(error));
        QCOMPARE(sent->fromCache, CompileResult::CacheTier::Disk);
        // The disk hit is promoted into memory.
        QCOMPARE(
            compileProject(saxpyProject(), m_projectDir.path(), QStringLiteral("sm_90"), &fresh)
                .fromCache,
            CompileResult::CacheTier::Memory);
    }

    void corruptEntryIsRecompiled_data() {
        QTest::addColumn<int>("damage");
        QTest::newRow("flipped payload byte") << 0;
        QTest::newRow("truncated") << 1;
        QTest::newRow("garbage") << 2;
    }

    void corruptEntryIsRecompiled() {
        QFETCH(int, damage);
        CompileResult first;
        {
            CompileCache cache(CompileCache::kDefaultCapacity, m_cacheDir.path());
            first = compileProject(saxpyProject(), m_projectDir.path(), QStringLiteral("sm_90"),
                                   &cache);
            QVERIFY(first.ok);
        }
        const QStringList files = entries(m_cacheDir.path());
        QCOMPARE(files.size(), 1);
        const QString path = m_cacheDir.filePath(files.first());
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QByteArray bytes = f.readAll();
        f.close();
        if (damage == 0)
            bytes[bytes.size() - 10] = char(bytes[bytes.size() - 10] ^ 0x5a);
        else if (damage == 1)
            bytes.truncate(bytes.size() / 2);
        else
            bytes = QByteArray(bytes.size(), 'x');
        writeFile(path, bytes);
        if (QTest::currentTestFailed())
            return;

        CompileCache fresh(CompileCache::kDefaultCapacity, m_cacheDir.path());
        const CompileResult again =
            compileProject(saxpyProject(), m_projectDir.path(), QStringLiteral("sm_90"), &fresh);
        QVERIFY(again.ok);
        QVERIFY(!again.cacheHit); // NVRTC ran: the damaged entry was not trusted
        QCOMPARE(again.cubin, first.cubin);
        // ... and rewritten whole, so a third process hits it.
        CompileCache third(CompileCache::kDefaultCapacity, m_cacheDir.path());
        QCOMPARE(
            compileProject(saxpyProject(), m_projectDir.path(), QStringLiteral("sm_90"), &third)
                .fromCache,
            CompileResult::CacheTier::Disk);
    }

    void everyInputChangesTheKey_data() {
        QTest::addColumn<QString>("change");
        QTest::newRow("source") << "source";
        QTest::newRow("option") << "option";
        QTest::newRow("arch") << "arch";
        QTest::newRow("name expression") << "expression";
        QTest::newRow("included file") << "include";
    }

    void everyInputChangesTheKey() {
        QFETCH(QString, change);
        CompileCache cache(CompileCache::kDefaultCapacity, m_cacheDir.path());
        QVERIFY(compileProject(saxpyProject(), m_projectDir.path(), QStringLiteral("sm_90"), &cache)
                    .ok);
        Project p = saxpyProject();
        QString arch = QStringLiteral("sm_90");
        if (change == QLatin1String("source"))
            p.source += QStringLiteral("\n// edited\n");
        else if (change == QLatin1String("option"))
            p.options.fmad = false;
        else if (change == QLatin1String("arch"))
            arch = QStringLiteral("sm_80");
        else if (change == QLatin1String("expression"))
            p.kernel = QStringLiteral("fill<int>");
        else
            writeFile(m_projectDir.filePath(QStringLiteral("scale.cuh")), "#define SCALE 2.0f\n");
        if (QTest::currentTestFailed())
            return;
        const CompileResult r = compileProject(p, m_projectDir.path(), arch, &cache);
        QVERIFY2(r.ok, qPrintable(r.log));
        QVERIFY(!r.cacheHit);
        QCOMPARE(r.fromCache, CompileResult::CacheTier::None);
    }

    void theFolderCountsOnlyThroughWhatResolvesInIt() {
        // A streamed runner runs each request in a folder of its own: a source that finds no
        // header there compiles the same in any of them.
        QTemporaryDir a, b;
        Project p;
        // Quoted: the source's own folder is searched first, then the toolkit.
        p.source =
            QStringLiteral("#include \"cuda_bf16.h\"\nextern \"C\" __global__ void k() {}\n");
        p.sourceName = QStringLiteral("k.cu");
        const QString arch = QStringLiteral("sm_90");
        QCOMPARE(compileCacheKey(p, a.path(), arch), compileCacheKey(p, b.path(), arch));
        // A header of the folder's own shadows the toolkit's: that folder's key differs.
        writeFile(b.filePath(QStringLiteral("cuda_bf16.h")), "#pragma once\n");
        QVERIFY(compileCacheKey(p, a.path(), arch) != compileCacheKey(p, b.path(), arch));
        // A relative include dir resolves in the folder.
        QVERIFY(QFile::remove(b.filePath(QStringLiteral("cuda_bf16.h"))));
        QCOMPARE(compileCacheKey(p, a.path(), arch), compileCacheKey(p, b.path(), arch));
        p.options.includeDirs = {QStringLiteral("inc")};
        QVERIFY(compileCacheKey(p, a.path(), arch) != compileCacheKey(p, b.path(), arch));
        // A project header: the same bytes in two folders are still two headers.
        Project q = saxpyProject();
        q.options.includeDirs.clear();
        writeFile(a.filePath(QStringLiteral("scale.cuh")), "#define SCALE 1.0f\n");
        writeFile(b.filePath(QStringLiteral("scale.cuh")), "#define SCALE 1.0f\n");
        QVERIFY(compileCacheKey(q, a.path(), arch) != compileCacheKey(q, b.path(), arch));
    }

    void cacheOffMeansNoFiles() {
        CompileCache memoryOnly(CompileCache::kDefaultCapacity, QString());
        QVERIFY(memoryOnly.disk() == nullptr);
        QVERIFY(compileProject(saxpyProject(), m_projectDir.path(), QStringLiteral("sm_90"),
                               &memoryOnly)
                    .ok);
        QVERIFY(entries(m_cacheDir.path()).isEmpty());
        qputenv("KERNELPAD_CACHE_DIR", "off");
        QVERIFY(DiskCompileCache::defaultDirectory().isEmpty());
        QVERIFY(CompileCache().disk() == nullptr);
        qunsetenv("KERNELPAD_CACHE_DIR");
    }

    /// What GpuComparer, the blocking kernel and compileProject() go through: NVRTC runs
    /// once per key, and a failure is never served from the cache.
    void findOrCompileRunsTheCompilerOnlyOnAMiss() {
        CompileCache cache(CompileCache::kDefaultCapacity, QString());
        int compiles = 0;
        const auto good = [&] {
            ++compiles;
            return blockingKernelProgram().compile(QStringLiteral("sm_90"));
        };
        const CompileResult first = cache.findOrCompile("good", good);
        QVERIFY(first.ok);
        QVERIFY(!first.cacheHit);
        const CompileResult second = cache.findOrCompile("good", good);
        QCOMPARE(compiles, 1);
        QVERIFY(second.cacheHit);
        QCOMPARE(second.cubin, first.cubin);

        const auto broken = [&] {
            ++compiles;
            return Program(QStringLiteral("__global__ void k() { nope; }"),
                           QStringLiteral("broken.cu"), ProgramOptions{})
                .compile(QStringLiteral("sm_90"));
        };
        QVERIFY(!cache.findOrCompile("broken", broken).ok);
        QVERIFY(!cache.findOrCompile("broken", broken).cacheHit);
        QCOMPARE(compiles, 3);
    }

private:
    QTemporaryDir m_projectDir;
    QTemporaryDir m_cacheDir;
};

KERNELPAD_TEST_GUILESS_MAIN(TestCompileCacheWiring)
} // namespace tst_compilecachewiring
#include "tst_compilecachewiring.moc"
