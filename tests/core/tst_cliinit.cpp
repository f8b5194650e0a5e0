// kernelpad-cli init: a .kpad from a kernel's source that loads and compiles, and clear
// refusals. Runs the built CLI.

#include "core/project/Project.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace tst_cliinit {

using namespace kernelpad;

namespace {

const char* const kSaxpy = R"(// several kernels; init takes the first unless told
extern "C" __global__ void saxpy(float a, const float* __restrict__ x, float* y, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

extern "C" __global__ void fill(double* out, unsigned int count, double value)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        out[i] = value;
}

// Narrow integers: 1024 does not fit a char, and a char is no size for the buffer.
extern "C" __global__ void narrow(signed char shift, float* data, int n, char tag)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] = float(shift + tag);
}

// No integer of 32 bits: the buffers keep a count of their own.
extern "C" __global__ void bytes(unsigned char level, short width, unsigned char* out)
{
    out[threadIdx.x] = level + width;
}

// The size is the first integer wide enough, not the short before it.
extern "C" __global__ void wide(short h, long long n, float* out)
{
    const long long i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = h;
}
)";

struct CliRun {
    int exitCode = -1;
    QString out;
    QString err;
};

CliRun runCli(const QStringList& args) {
    QProcess process;
    process.start(QStringLiteral(KERNELPAD_CLI_PATH), args);
    CliRun run;
    if (!process.waitForFinished(120000))
        return run;
    run.exitCode = process.exitCode();
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

bool writeText(const QString& path, const QByteArray& text) {
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
}

/// "name:kind:type[:direction]=value-or-count" of every argument.
QString describe(const QVector<ArgumentSpec>& args) {
    QStringList parts;
    for (const ArgumentSpec& a : args) {
        parts
            << (a.isBuffer()
                    ? QStringLiteral("%1:buffer:%2:%3=%4")
                          .arg(a.name, a.buffer.elementType.displayName(),
                               directionName(a.buffer.direction), a.buffer.count)
                    : QStringLiteral("%1:scalar:%2=%3").arg(a.name, a.type.displayName(), a.value));
    }
    return parts.join(QLatin1Char(','));
}

} // namespace

class TestCliInit : public QObject {
    Q_OBJECT
private slots:
    void writesLoadableProject_data();
    void writesLoadableProject();
    void refuses_data();
    void refuses();
    void forceReplaces();
};

void TestCliInit::writesLoadableProject_data() {
    QTest::addColumn<QStringList>("options");
    QTest::addColumn<QString>("kernel");
    QTest::addColumn<QString>("arguments");
    QTest::addColumn<int>("grid");

    QTest::newRow("first kernel by default")
        << QStringList{} << "saxpy"
        << "a:scalar:float32=1,x:buffer:float32:in=n,y:buffer:float32:inout=n,"
           "n:scalar:int32=1024"
        << 4;
    QTest::newRow("kernel by name")
        << QStringList{"--kernel", "fill"} << "fill"
        << "out:buffer:float64:inout=count,count:scalar:uint32=1024,value:scalar:float64=1" << 4;
    QTest::newRow("int8 scalars hold their largest value, the int sizes the buffer")
        << QStringList{"--kernel", "narrow"} << "narrow"
        << "shift:scalar:int8=127,data:buffer:float32:inout=n,n:scalar:int32=1024,"
           "tag:scalar:int8=127"
        << 4;
    QTest::newRow("no 32-bit integer: a uint8 is no size, buffers keep 1024")
        << QStringList{"--kernel", "bytes"} << "bytes"
        << "level:scalar:uint8=255,width:scalar:int16=1024,out:buffer:uint8:inout=1024" << 4;
    QTest::newRow("a short before the size is skipped")
        << QStringList{"--kernel", "wide"} << "wide"
        << "h:scalar:int16=1024,n:scalar:int64=1024,out:buffer:float32:inout=n" << 4;
}

void TestCliInit::writesLoadableProject() {
    QFETCH(QStringList, options);
    QFETCH(QString, kernel);
    QFETCH(QString, arguments);
    QFETCH(int, grid);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString source = dir.filePath(QStringLiteral("kernels.cu"));
    QVERIFY(writeText(source, kSaxpy));
    const QString out = dir.filePath(QStringLiteral("out.kpad"));
    const CliRun init = runCli(QStringList{"init", source, "-o", out} + options);
    QVERIFY2(init.exitCode == 0, qPrintable(init.err));

    QString error;
    const std::optional<Project> project = Project::load(out, &error);
    QVERIFY2(project, qPrintable(error));
    QCOMPARE(project->kernel, kernel);
    QCOMPARE(project->sourceName, QStringLiteral("kernels.cu"));
    QCOMPARE(describe(project->arguments), arguments);
    QCOMPARE(project->launch.grid[0], grid);
    QCOMPARE(project->launch.block[0], 256);

    // NVRTC only: no GPU needed, but the toolkit must be there.
    const CliRun compile = runCli({"compile", out});
    QVERIFY2(compile.exitCode == 0, qPrintable(compile.out + compile.err));
}

void TestCliInit::refuses_data() {
    QTest::addColumn<QByteArray>("source"); ///< empty: the file is not created
    QTest::addColumn<QStringList>("options");
    QTest::addColumn<QString>("message");

    QTest::newRow("no kernel in the source")
        << QByteArray("__device__ int twice(int x) { return 2 * x; }\n") << QStringList{}
        << "no __global__ kernel";
    QTest::newRow("named kernel not found")
        << QByteArray(kSaxpy) << QStringList{"--kernel", "scale"} << "kernel 'scale' is not in";
    QTest::newRow("source unreadable") << QByteArray() << QStringList{} << "cannot read";
    QTest::newRow("output exists")
        << QByteArray(kSaxpy) << QStringList{"-o", "EXISTING"} << "exists; pass --force";
    QTest::newRow("unknown option")
        << QByteArray(kSaxpy) << QStringList{"--kernal", "saxpy"} << "unknown option --kernal";
}

void TestCliInit::refuses() {
    QFETCH(QByteArray, source);
    QFETCH(QStringList, options);
    QFETCH(QString, message);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("k.cu"));
    if (!source.isEmpty())
        QVERIFY(writeText(path, source));
    const QString existing = dir.filePath(QStringLiteral("existing.kpad"));
    QVERIFY(writeText(existing, "{}"));
    options.replaceInStrings(QStringLiteral("EXISTING"), existing);
    const CliRun init = runCli(QStringList{"init", path} + options);
    QCOMPARE(init.exitCode, 4);
    QVERIFY2(init.err.contains(message), qPrintable(init.err));
    // Nothing written beside the source, and the existing file untouched.
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("k.kpad"))));
    QFile kept(existing);
    QVERIFY(kept.open(QIODevice::ReadOnly));
    QCOMPARE(kept.readAll(), QByteArray("{}"));
}

void TestCliInit::forceReplaces() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString source = dir.filePath(QStringLiteral("saxpy.cu"));
    QVERIFY(writeText(source, kSaxpy));
    const QString out = dir.filePath(QStringLiteral("saxpy.kpad")); // the default name
    QVERIFY(writeText(out, "{}"));
    QCOMPARE(runCli({"init", source}).exitCode, 4);
    const CliRun forced = runCli({"init", source, "--force"});
    QVERIFY2(forced.exitCode == 0, qPrintable(forced.err));
    QString error;
    QVERIFY2(Project::load(out, &error), qPrintable(error));
}

KERNELPAD_TEST_GUILESS_MAIN(TestCliInit)
} // namespace tst_cliinit
#include "tst_cliinit.moc"
