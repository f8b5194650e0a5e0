// The phases of one compile (core/compile/CompilePhases.h), as bench/compile --phases shows
// them: recorded only under a recorder, on the thread that compiles, the NVRTC thread's steps
// among them, and NVRTC's --time file read back.

#include "core/compile/CompilePhases.h"
#include "core/compile/Program.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include "../support/TestMain.h"

namespace tst_compilephases {

using namespace kernelpad;

namespace {

const char* const kKernel = R"(extern "C" __global__ void scale(float* data, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] *= 3.0f;
}
)";

QStringList namesOf(const QVector<CompilePhase>& phases) {
    QStringList names;
    for (const CompilePhase& phase : phases)
        names << phase.name.trimmed();
    return names;
}

} // namespace

class TestCompilePhases : public QObject {
    Q_OBJECT

private slots:
    void recordsEveryStepOfACompile() {
        if (Program::nvrtcVersion().isEmpty())
            QSKIP("NVRTC is not installed (the CUDA toolkit's libnvrtc)");
        CompilePhaseRecorder recorder;
        QCOMPARE(CompilePhaseRecorder::current(), &recorder);
        const CompileResult result =
            Program(QString::fromLatin1(kKernel), QStringLiteral("scale.cu"), {})
                .compile(QStringLiteral("sm_90"));
        QVERIFY2(result.ok, qPrintable(result.log));
        const QStringList names = namesOf(recorder.phases());
        for (const char* step :
             {"include scan (project headers read)", "NVRTC thread, started to joined",
              "nvrtcCreateProgram", "nvrtcCompileProgram", "nvrtcGetPTX", "nvrtcGetCUBIN",
              "nvrtcDestroyProgram", "PTX entries", "PTX globals"})
            QVERIFY2(names.contains(QString::fromLatin1(step)),
                     qPrintable(QStringLiteral("%1 missing from: %2")
                                    .arg(QString::fromLatin1(step), names.join(", "))));
        // NVRTC's call is the compile's bulk: nothing in the steps around it comes near.
        double compileMs = 0;
        for (const CompilePhase& phase : recorder.phases()) {
            QVERIFY2(phase.wallMs >= 0, qPrintable(phase.name));
            if (phase.name.trimmed() == QLatin1String("nvrtcCompileProgram"))
                compileMs = phase.wallMs;
        }
        QVERIFY(compileMs > 0);
    }

    void innermostRecorderCollects() {
        if (Program::nvrtcVersion().isEmpty())
            QSKIP("NVRTC is not installed (the CUDA toolkit's libnvrtc)");
        QVERIFY(!CompilePhaseRecorder::current());
        CompilePhaseRecorder outer;
        {
            CompilePhaseRecorder inner;
            QCOMPARE(CompilePhaseRecorder::current(), &inner);
            const CompileResult result =
                Program(QString::fromLatin1(kKernel), QStringLiteral("scale.cu"), {})
                    .compile(QStringLiteral("sm_90"));
            QVERIFY(result.ok);
            QVERIFY(!inner.phases().isEmpty());
        }
        QCOMPARE(CompilePhaseRecorder::current(), &outer);
        QVERIFY(outer.phases().isEmpty()); // the innermost recorder collected them
    }

    void addsNvrtcsOwnPhases() {
        if (Program::nvrtcVersion().isEmpty())
            QSKIP("NVRTC is not installed (the CUDA toolkit's libnvrtc)");
        CompilePhaseRecorder recorder(true);
        QVERIFY(recorder.nvrtcTimes());
        const CompileResult result =
            Program(QString::fromLatin1(kKernel), QStringLiteral("scale.cu"), {})
                .compile(QStringLiteral("sm_90"));
        QVERIFY2(result.ok, qPrintable(result.log));
        QVERIFY2(namesOf(recorder.phases()).contains(QStringLiteral("NVRTC: CUDA C++ Frontend")),
                 qPrintable(namesOf(recorder.phases()).join(", ")));
        // --time is the bench's, never the result's: the flags are what the project asked for.
        QVERIFY(!result.flags.join(' ').contains(QLatin1String("--time")));
    }

    /// Timing a compile changes nothing it makes: the same PTX and CUBIN bytes, with and
    /// without a recorder and NVRTC's --time, through the automatic PCH alike.
    void sameBytesWhenTimed() {
        if (Program::nvrtcVersion().isEmpty())
            QSKIP("NVRTC is not installed (the CUDA toolkit's libnvrtc)");
        QTemporaryDir cache;
        qputenv("KERNELPAD_CACHE_DIR", QFile::encodeName(cache.path()));
        const QString source =
            QStringLiteral("#include <cuda_fp16.h>\n") + QString::fromLatin1(kKernel);
        const auto compile = [&] {
            return Program(source, QStringLiteral("scale.cu"), {}).compile(QStringLiteral("sm_90"));
        };
        const CompileResult plain = compile();
        CompileResult timed;
        {
            CompilePhaseRecorder recorder(true);
            timed = compile();
        }
        const CompileResult again = compile();
        qunsetenv("KERNELPAD_CACHE_DIR");
        QVERIFY2(plain.ok && timed.ok && again.ok, qPrintable(plain.log + timed.log + again.log));
        QVERIFY(!plain.cubin.isEmpty());
        QCOMPARE(timed.ptx, plain.ptx);
        QCOMPARE(timed.cubin, plain.cubin);
        QCOMPARE(again.ptx, plain.ptx);
        QCOMPARE(again.cubin, plain.cubin);
        QCOMPARE(timed.log, plain.log);
    }

    void readsNvrtcTimeFile() {
        QTemporaryDir dir;
        QFile file(dir.filePath(QStringLiteral("time.csv")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("File name, phase name, metric, unit\n"
                   "heavy.cu, CUDA C++ Frontend, 172, ms\n"
                   "heavy.cu, NVVM Optimizer, 41.5, ms\n"
                   "broken line\n");
        file.close();
        const QVector<CompilePhase> phases = readNvrtcTimeFile(file.fileName());
        QCOMPARE(phases.size(), 2);
        QCOMPARE(phases[0].name, QStringLiteral("NVRTC: CUDA C++ Frontend"));
        QCOMPARE(phases[0].wallMs, 172.0);
        QCOMPARE(phases[1].wallMs, 41.5);
        QVERIFY(readNvrtcTimeFile(dir.filePath(QStringLiteral("missing.csv"))).isEmpty());
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestCompilePhases)
} // namespace tst_compilephases
#include "tst_compilephases.moc"
