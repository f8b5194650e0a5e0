// The blocking kernel (core/run/BlockingKernel.h) compiles with NVRTC for every arch
// KernelPad targets, with the entry and parameters BlockingKernel::block() launches with,
// and it reads the GPU's global timer (its timeout) and the flag at every turn.

#include "../support/TestMain.h"
#include "core/compile/Program.h"
#include "core/cuda/CudaError.h"
#include "core/cuda/DriverApi.h"
#include "core/run/BlockingKernel.h"

#include <QtTest>

namespace tst_blockingkernel {

using namespace kernelpad;

class TestBlockingKernel : public QObject {
    Q_OBJECT

private slots:
    void compilesWithTheLaunchedSignature_data() {
        QTest::addColumn<QString>("arch");
        for (const char* arch : {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90"})
            QTest::newRow(arch) << QString::fromLatin1(arch);
    }
    void compilesWithTheLaunchedSignature() {
        QFETCH(QString, arch);
        const CompileResult compiled = blockingKernelProgram().compile(arch);
        QVERIFY2(compiled.ok, qPrintable(compiled.log + compiled.error));
        QVERIFY(!compiled.cubin.isEmpty());
        const QString entry = QLatin1String(kBlockingKernelName);
        const KernelInfo* kernel = compiled.findKernel(entry);
        QVERIFY2(kernel, qPrintable(QStringLiteral("no entry %1").arg(entry)));
        QCOMPARE(kernel->lowered, entry); // extern "C": block() looks it up by this name
        // flag pointer and timeout, as block() packs them: two 8-byte values.
        QCOMPARE(kernel->params.size(), 2);
        QCOMPARE(kernel->params[0].ptxType, QStringLiteral(".u64"));
        QCOMPARE(kernel->params[0].sizeBytes, 8);
        QCOMPARE(kernel->params[1].ptxType, QStringLiteral(".u64"));
        QCOMPARE(kernel->params[1].sizeBytes, 8);
    }

    void spinsOnVolatileLoadsAndTheGlobalTimer() {
        const CompileResult compiled = blockingKernelProgram().compile(QStringLiteral("sm_90"));
        QVERIFY(compiled.ok);
        // The timeout reads %globaltimer inside the loop; a hoisted (non-volatile) load of
        // the flag would spin forever, so every turn must load it again (ld.volatile).
        QVERIFY2(compiled.ptx.count(QStringLiteral("%globaltimer")) >= 2, qPrintable(compiled.ptx));
        QVERIFY2(compiled.ptx.contains(QStringLiteral("ld.volatile")), qPrintable(compiled.ptx));
        QVERIFY2(compiled.ptx.contains(QStringLiteral("st.volatile")), qPrintable(compiled.ptx));
    }

    void withoutADriverPrepareNeverSucceeds() {
        if (DriverApi::load())
            QSKIP("a CUDA driver is present: tests/gpu/tst_gpurun covers preparing it there");
        BlockingKernel blocker;
        QString error;
        QVERIFY_THROWS_EXCEPTION(DriverUnavailable,
                                 blocker.prepare(QStringLiteral("sm_90"), &error));
        QVERIFY(!blocker.timedOut());
        blocker.release(); // nothing blocked: harmless
    }
};

KERNELPAD_TEST_MAIN(TestBlockingKernel)
} // namespace tst_blockingkernel
#include "tst_blockingkernel.moc"
