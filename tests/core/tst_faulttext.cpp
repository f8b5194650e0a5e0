// Kernel faults explain themselves: every error a faulting kernel can end
// with has one plain explanation, a wild write reads the same whichever code the address
// produced, and what a memcheck re-run found ends with the line, thread and block.

#include "../support/TestMain.h"
#include "core/run/ErrorText.h"
#include "core/run/RunResult.h"

#include <QtTest>

namespace tst_faulttext {

using namespace kernelpad;

namespace {

/// Past the largest CUresult in cuda.h (CUDA_ERROR_UNKNOWN = 999).
constexpr int kLastCuresult = 1000;

CudaError faultError(CUresult code, const char* name, const char* description) {
    return CudaError(code, QString::fromLatin1(name), QString::fromLatin1(description),
                     QStringLiteral("cuStreamSynchronize after the verified launch"));
}

/// The result of a memcheck run of a kernel whose last block writes past `out`.
RunResult memcheckRunOfWildWrite() {
    RunResult r;
    r.status = RunStatus::CudaError;
    r.sanitizerTool = SanitizerTool::Memcheck;
    r.sanitizerErrors = 64;
    SanitizerReport report;
    report.kind = QStringLiteral("Invalid __global__ write of size 4 bytes");
    report.kernel = QStringLiteral("saxpy");
    report.file = QStringLiteral("saxpy.cu");
    report.line = 6;
    report.thread = SanitizerReport::Dim3{192, 0, 0};
    report.block = SanitizerReport::Dim3{4095, 0, 0};
    report.address = QStringLiteral("0x7f2a3e400000");
    report.detail = QStringLiteral("out of bounds");
    report.count = 64;
    r.sanitizer << report;
    return r;
}

} // namespace

class TestFaultText : public QObject {
    Q_OBJECT

private slots:
    void everyKernelFaultCodeHasAnExplanation();
    void theBriefsCodesAreNamed_data();
    void theBriefsCodesAreNamed();
    void wildWriteReadsTheSameWhicheverCode();
    void illegalAddressMessage();
    void misalignedAddressMessage();
    void otherErrorsKeepTheirOwnText();
    void memcheckIsOfferedForFaultsItCanPlace();
    void memcheckFindingEndsWithLineThreadAndBlock();
    void memcheckFindingWithoutReports();
    void faultCodeTravelsInJson();
};

// Every sticky error but a destroyed context is something a kernel did: each must have an
// explanation, and nothing else may claim one.
void TestFaultText::everyKernelFaultCodeHasAnExplanation() {
    int explained = 0;
    for (int code = 0; code <= kLastCuresult; ++code) {
        const CUresult c = CUresult(code);
        const bool kernelFault =
            CudaError::isStickyError(c) && c != CUDA_ERROR_CONTEXT_IS_DESTROYED;
        const std::optional<FaultExplanation> e = explainFault(c);
        QVERIFY2(kernelFault == e.has_value(), qPrintable(QString::number(code)));
        if (!e)
            continue;
        ++explained;
        QCOMPARE(int(e->code), code);
        QVERIFY(e->name.startsWith(QLatin1String("CUDA_ERROR_")));
        QCOMPARE(faultCodeName(code), e->name);
        QVERIFY2(!e->headline.isEmpty() && !e->causes.isEmpty() && !e->check.isEmpty(),
                 qPrintable(e->name));
        QVERIFY(kernelFaultCodes().contains(c));
    }
    QCOMPARE(explained, kernelFaultCodes().size());
    QCOMPARE(faultCodeName(1), QStringLiteral("CUresult 1"));
}

void TestFaultText::theBriefsCodesAreNamed_data() {
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("memcheckLocates");
    const auto row = [](CUresult code, const char* name, bool locates) {
        QTest::newRow(name) << int(code) << QString::fromLatin1(name) << locates;
    };
    row(CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", true);
    row(CUDA_ERROR_INVALID_ADDRESS_SPACE, "CUDA_ERROR_INVALID_ADDRESS_SPACE", true);
    row(CUDA_ERROR_MISALIGNED_ADDRESS, "CUDA_ERROR_MISALIGNED_ADDRESS", true);
    row(CUDA_ERROR_ILLEGAL_INSTRUCTION, "CUDA_ERROR_ILLEGAL_INSTRUCTION", true);
    row(CUDA_ERROR_INVALID_PC, "CUDA_ERROR_INVALID_PC", true);
    row(CUDA_ERROR_HARDWARE_STACK_ERROR, "CUDA_ERROR_HARDWARE_STACK_ERROR", true);
    row(CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", true);
    row(CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT", false);
    row(CUDA_ERROR_ASSERT, "CUDA_ERROR_ASSERT", false);
    row(CUDA_ERROR_ECC_UNCORRECTABLE, "CUDA_ERROR_ECC_UNCORRECTABLE", false);
    row(CUDA_ERROR_NVLINK_UNCORRECTABLE, "CUDA_ERROR_NVLINK_UNCORRECTABLE", false);
    row(CUDA_ERROR_CONTAINED, "CUDA_ERROR_CONTAINED", false);
    row(CUDA_ERROR_TENSOR_MEMORY_LEAK, "CUDA_ERROR_TENSOR_MEMORY_LEAK", false);
    row(CUDA_ERROR_EXTERNAL_DEVICE, "CUDA_ERROR_EXTERNAL_DEVICE", false);
}

void TestFaultText::theBriefsCodesAreNamed() {
    QFETCH(int, code);
    QFETCH(QString, name);
    QFETCH(bool, memcheckLocates);
    const std::optional<FaultExplanation> e = explainFault(CUresult(code));
    QVERIFY(e);
    QCOMPARE(e->name, name);
    QCOMPARE(e->memcheckLocates, memcheckLocates);
}

// The H100 reported one wild-write kernel as ILLEGAL_ADDRESS in one run and
// INVALID_ADDRESS_SPACE in another: the user reads the same explanation either way.
void TestFaultText::wildWriteReadsTheSameWhicheverCode() {
    const auto illegal = explainFault(CUDA_ERROR_ILLEGAL_ADDRESS);
    const auto space = explainFault(CUDA_ERROR_INVALID_ADDRESS_SPACE);
    const auto failed = explainFault(CUDA_ERROR_LAUNCH_FAILED);
    QVERIFY(illegal && space && failed);
    QCOMPARE(space->headline, illegal->headline);
    QCOMPARE(space->causes, illegal->causes);
    QCOMPARE(failed->causes, illegal->causes);
    QVERIFY(illegal->causes.contains(QLatin1String("CUDA_ERROR_INVALID_ADDRESS_SPACE")));
    QVERIFY(explainFault(CUDA_ERROR_MISALIGNED_ADDRESS)->causes != illegal->causes);
}

void TestFaultText::illegalAddressMessage() {
    const QString text =
        explainCudaError(faultError(CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
                                    "an illegal memory access was encountered"),
                         QStringLiteral("saxpy"));
    QCOMPARE(
        text,
        QStringLiteral(
            "The kernel 'saxpy' made a bad memory access (CUDA_ERROR_ILLEGAL_ADDRESS: an illegal "
            "memory access was encountered): it read or wrote through an address that is in no "
            "buffer it may use. Usually an index past the end of a buffer (a missing or wrong "
            "`if (i < n)` test, a grid larger than the data, a 2D index computed with the wrong "
            "pitch), a pointer argument bound to the wrong or a too-small buffer, or a pointer "
            "to shared or local memory used after its block or thread ended. Which error the "
            "driver reports depends only on where the bad address lands: the same bug shows as "
            "CUDA_ERROR_ILLEGAL_ADDRESS in one run and CUDA_ERROR_INVALID_ADDRESS_SPACE or "
            "CUDA_ERROR_LAUNCH_FAILED in another. Check the bounds test in front of every load "
            "and store, the grid and block against the buffer sizes in the argument table, and "
            "index arithmetic that can overflow an int. The GPU context cannot be used again in "
            "this process; the runner must be restarted. Your source is unchanged. One run "
            "under memcheck (compute-sanitizer) names the faulting line, thread and block."));
}

void TestFaultText::misalignedAddressMessage() {
    const QString text =
        explainCudaError(faultError(CUDA_ERROR_MISALIGNED_ADDRESS, "CUDA_ERROR_MISALIGNED_ADDRESS",
                                    "misaligned address"),
                         QString());
    QVERIFY2(text.startsWith(QLatin1String("The kernel accessed memory at a misaligned address "
                                           "(CUDA_ERROR_MISALIGNED_ADDRESS: misaligned "
                                           "address): a load or store at an address")),
             qPrintable(text));
    QVERIFY(text.contains(QLatin1String("reinterpret_cast<float4*>")));
    QVERIFY(text.contains(QLatin1String("runner must be restarted")));
    QVERIFY(text.endsWith(QLatin1String("names the faulting line, thread and block.")));

    // A timeout cannot be placed by memcheck: the message does not promise it.
    const QString timeout = explainCudaError(
        faultError(CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out"),
        QStringLiteral("spin"));
    QVERIFY2(timeout.startsWith(QLatin1String("The kernel 'spin' ran longer than the display "
                                              "watchdog allows")),
             qPrintable(timeout));
    QVERIFY(!timeout.contains(QLatin1String("memcheck")));
}

void TestFaultText::otherErrorsKeepTheirOwnText() {
    const QString oom = explainCudaError(
        CudaError(CUDA_ERROR_OUT_OF_MEMORY, QStringLiteral("CUDA_ERROR_OUT_OF_MEMORY"),
                  QStringLiteral("out of memory"),
                  QStringLiteral("cuMemAlloc of 100 GiB for buffer 'x'")),
        QStringLiteral("saxpy"));
    QCOMPARE(oom, QStringLiteral("The GPU ran out of memory while cuMemAlloc of 100 GiB for "
                                 "buffer 'x' (CUDA_ERROR_OUT_OF_MEMORY). Reduce the buffer "
                                 "sizes."));
    const QString destroyed = explainCudaError(
        CudaError(CUDA_ERROR_CONTEXT_IS_DESTROYED,
                  QStringLiteral("CUDA_ERROR_CONTEXT_IS_DESTROYED"),
                  QStringLiteral("context is destroyed"), QStringLiteral("cuMemAlloc")),
        QStringLiteral("saxpy"));
    QVERIFY2(destroyed.contains(QLatin1String("restarted")), qPrintable(destroyed));
    QVERIFY(!destroyed.contains(QLatin1String("memcheck")));
}

void TestFaultText::memcheckIsOfferedForFaultsItCanPlace() {
    RunResult r;
    r.status = RunStatus::CudaError;
    r.faultCode = CUDA_ERROR_INVALID_ADDRESS_SPACE;
    QVERIFY(memcheckCanLocateFault(r));
    r.faultCode = CUDA_ERROR_LAUNCH_TIMEOUT;
    QVERIFY(!memcheckCanLocateFault(r));
    r.faultCode = 0; // a CUDA error that is no fault (out of memory)
    QVERIFY(!memcheckCanLocateFault(r));
    r.faultCode = CUDA_ERROR_ILLEGAL_ADDRESS;
    r.sanitizerTool = SanitizerTool::Memcheck; // already the memcheck run: no second one
    QVERIFY(!memcheckCanLocateFault(r));
    r.sanitizerTool = SanitizerTool::None;
    r.status = RunStatus::Ok;
    QVERIFY(!memcheckCanLocateFault(r));
}

void TestFaultText::memcheckFindingEndsWithLineThreadAndBlock() {
    const QString finding = memcheckFinding(memcheckRunOfWildWrite());
    QCOMPARE(finding, QStringLiteral("memcheck found it: Invalid __global__ write of size 4 bytes "
                                     "(address 0x7f2a3e400000 is out of bounds) in 'saxpy' at "
                                     "saxpy.cu:6, thread (192,0,0), block (4095,0,0)."));
}

void TestFaultText::memcheckFindingWithoutReports() {
    RunResult clean;
    clean.status = RunStatus::Ok;
    clean.sanitizerTool = SanitizerTool::Memcheck;
    QVERIFY(memcheckFinding(clean).contains(QLatin1String("saw no bad access")));

    RunResult missing;
    missing.status = RunStatus::BadInput;
    missing.sanitizerTool = SanitizerTool::Memcheck;
    missing.error = QStringLiteral("compute-sanitizer was not found");
    QCOMPARE(memcheckFinding(missing), QStringLiteral("The memcheck run could not place the "
                                                      "fault: compute-sanitizer was not found"));
}

void TestFaultText::faultCodeTravelsInJson() {
    RunResult r;
    r.status = RunStatus::CudaError;
    r.error = QStringLiteral("The kernel 'saxpy' made a bad memory access");
    r.faultCode = CUDA_ERROR_INVALID_ADDRESS_SPACE;
    const QJsonObject json = r.toJson(false);
    QCOMPARE(json.value(QStringLiteral("faultCode")).toInt(),
             int(CUDA_ERROR_INVALID_ADDRESS_SPACE));
    QString error;
    const std::optional<RunResult> back = RunResult::fromJson(json, &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->faultCode, int(CUDA_ERROR_INVALID_ADDRESS_SPACE));
    RunResult ok;
    QVERIFY(!ok.toJson(false).contains(QStringLiteral("faultCode")));
    const std::optional<RunResult> okBack = RunResult::fromJson(ok.toJson(false), &error);
    QVERIFY2(okBack, qPrintable(error));
    QCOMPARE(okBack->faultCode, 0);
}

KERNELPAD_TEST_GUILESS_MAIN(TestFaultText)
} // namespace tst_faulttext
#include "tst_faulttext.moc"
