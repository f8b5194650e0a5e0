// Without nvdisasm the source still maps to the PTX: the PTX's own .loc lines give the colours
// and links between the source and PTX views, and the SASS side says what is missing and
// where KernelPad looked.

#include "../support/TestMain.h"
#include "core/compile/Program.h"
#include "core/compile/SassReport.h"
#include "core/compile/Toolkit.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

namespace tst_ptxlinemap {

using namespace kernelpad;

namespace {

const QString kSaxpy =
    QStringLiteral("extern \"C\" __global__ void saxpy(float a, const float* x,\n"
                   "                                 float* y, int n) {\n"
                   "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "    if (i < n)\n"
                   "        y[i] = a * x[i] + y[i];\n"
                   "}\n");

/// Sets an environment variable for the lifetime of the object, then puts it back.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const QByteArray& value)
        : m_name(name)
        , m_had(qEnvironmentVariableIsSet(name))
        , m_old(qgetenv(name)) {
        qputenv(name, value);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;
    ~ScopedEnv() {
        if (m_had)
            qputenv(m_name, m_old);
        else
            qunsetenv(m_name);
    }

private:
    const char* m_name;
    bool m_had;
    QByteArray m_old;
};

} // namespace

class TestPtxLineMap : public QObject {
    Q_OBJECT

private slots:
    void sourceMapsToPtxWithoutNvdisasm();
};

void TestPtxLineMap::sourceMapsToPtxWithoutNvdisasm() {
    if (Program::nvrtcVersion().isEmpty() || cudaToolkitRoot().isEmpty())
        QSKIP("NVRTC or the CUDA headers are not here");
    ProgramOptions options;
    options.lineInfo = true;
    const CompileResult compile =
        Program(kSaxpy, QStringLiteral("saxpy.cu"), options).compile(QStringLiteral("sm_90"));
    QVERIFY2(compile.ok, qPrintable(compile.log));
    QVERIFY(compile.ptx.contains(QLatin1String(".loc")));

    // A toolkit root without bin/ (it has the header that makes it one) and a PATH of
    // nowhere: nvdisasm cannot be found, whatever this machine has installed.
    QTemporaryDir fake;
    QVERIFY(fake.isValid());
    QVERIFY(QDir().mkpath(fake.filePath(QStringLiteral("include"))));
    QFile header(fake.filePath(QStringLiteral("include/cuda_fp16.h")));
    QVERIFY(header.open(QIODevice::WriteOnly));
    header.close();
    const ScopedEnv home("CUDA_HOME", QFile::encodeName(fake.path()));
    const ScopedEnv cudaPath("CUDA_PATH", QFile::encodeName(fake.path()));
    const ScopedEnv path("PATH", QFile::encodeName(fake.filePath(QStringLiteral("nowhere"))));

    const SassReport report = makeSassReport(compile, QStringLiteral("saxpy.cu"), {}, nullptr);
    QVERIFY(!report.sass.ok);
    QVERIFY2(report.sass.error.startsWith(
                 QLatin1String("nvdisasm not found (install the CUDA toolkit's binary "
                               "utilities; looked in ")),
             qPrintable(report.sass.error));
    QVERIFY2(report.sass.error.contains(fake.filePath(QStringLiteral("bin/nvdisasm"))),
             qPrintable(report.sass.error));
    QVERIFY2(!report.sass.error.contains(QLatin1String("set CUDA_HOME")),
             qPrintable(report.sass.error));

    // Line 5 (y[i] = a * x[i] + y[i]) became PTX, and that PTX leads back to line 5.
    QVERIFY(!report.lines.isEmpty());
    QVERIFY(report.lines.sourceLines().contains(5));
    const QVector<int> ptxLines = report.lines.ptxLines(5);
    QVERIFY(!ptxLines.isEmpty());
    for (int ptxLine : ptxLines)
        QCOMPARE(report.lines.sourceLineOfPtx(ptxLine), 5);
    const QStringList ptx = compile.ptx.split(u'\n');
    const bool memoryOrMath = std::any_of(ptxLines.cbegin(), ptxLines.cend(), [&](int line) {
        const QString& text = ptx.value(line - 1);
        return text.contains(QLatin1String("ld.global")) || text.contains(QLatin1String("fma")) ||
               text.contains(QLatin1String("st.global"));
    });
    QVERIFY2(memoryOrMath, "line 5's PTX holds none of its loads, multiply-adds or stores");
    QVERIFY(report.lines.sassInstructions(5).isEmpty());
}

KERNELPAD_TEST_GUILESS_MAIN(TestPtxLineMap)
} // namespace tst_ptxlinemap
#include "tst_ptxlinemap.moc"
