// NVRTC and nvJitLink are loaded at run time: here, with the toolkit installed, both
// load from the default search and compile; and neither program names them in its ELF dynamic
// section, so a computer without the toolkit can start KernelPad (a return to load-time linking
// fails here).

#include "core/compile/NvrtcApi.h"
#include "core/compile/Program.h"
#include "core/compile/PtxAssembler.h"
#include "core/project/RunnerSpec.h"

#include "../support/ElfDynamic.h"
#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QFile>
#include <QFileInfo>
#include <QtTest>

#include <optional>

namespace tst_nvrtcapi {

using namespace kernelpad;

using kernelpad::test::ElfDynamic;
using kernelpad::test::readElfDynamic;

class TestNvrtcApi : public QObject {
    Q_OBJECT
private slots:
    void nvrtcLoadsFromTheDefaultSearch();
    void nvJitLinkLoadsFromTheDefaultSearch();
    void compilesThroughTheLoadedLibraries();
    void programsDoNotNeedTheToolkitToStart_data();
    void programsDoNotNeedTheToolkitToStart();
};

void TestNvrtcApi::nvrtcLoadsFromTheDefaultSearch() {
    if (!qEnvironmentVariableIsEmpty("KERNELPAD_NVRTC_LIBRARY"))
        QSKIP("$KERNELPAD_NVRTC_LIBRARY is set: this test is of the default search");
    QString error;
    const NvrtcApi* api = NvrtcApi::load(&error);
    QVERIFY2(api, qPrintable(error));
    QVERIFY2(QFileInfo(api->path).fileName().startsWith(QLatin1String("libnvrtc.so.")),
             qPrintable(api->path));
    QVERIFY2(QFileInfo::exists(api->path), qPrintable(api->path));
    int major = 0;
    int minor = -1;
    QCOMPARE(api->nvrtcVersion(&major, &minor), NVRTC_SUCCESS);
    QVERIFY2(major >= 12 && minor >= 0, qPrintable(QStringLiteral("%1.%2").arg(major).arg(minor)));
    QCOMPARE(Program::nvrtcVersion(), QStringLiteral("%1.%2").arg(major).arg(minor));
    QCOMPARE(QString::fromUtf8(api->nvrtcGetErrorString(NVRTC_ERROR_INVALID_OPTION)),
             QStringLiteral("NVRTC_ERROR_INVALID_OPTION"));
    QCOMPARE(NvrtcApi::load(), api); // loaded once
    QVERIFY(!nvrtcUnavailableHere() ||
            qEnvironmentVariable("KERNELPAD_NO_NVRTC") == QLatin1String("1"));
}

void TestNvrtcApi::nvJitLinkLoadsFromTheDefaultSearch() {
    if (!qEnvironmentVariableIsEmpty("KERNELPAD_NVJITLINK_LIBRARY"))
        QSKIP("$KERNELPAD_NVJITLINK_LIBRARY is set: this test is of the default search");
    QString error;
    const NvJitLinkApi* api = NvJitLinkApi::load(&error);
    QVERIFY2(api, qPrintable(error));
    QVERIFY2(QFileInfo(api->path).fileName().startsWith(QLatin1String("libnvJitLink.so.")),
             qPrintable(api->path));
    unsigned major = 0;
    unsigned minor = 0;
    QCOMPARE(api->version(&major, &minor), NVJITLINK_SUCCESS);
    QVERIFY(major >= 13);
    QCOMPARE(nvJitLinkVersion(), QStringLiteral("%1.%2").arg(major).arg(minor));
    QCOMPARE(Program::compilerOf(SourceLanguage::Ptx),
             QStringLiteral("nvJitLink ") + nvJitLinkVersion());
}

void TestNvrtcApi::compilesThroughTheLoadedLibraries() {
    const CompileResult cuda =
        Program(QStringLiteral("extern \"C\" __global__ void k(float* p) { p[0] = 1.0f; }"),
                QStringLiteral("k.cu"), {})
            .compile(QStringLiteral("sm_90"));
    QVERIFY2(cuda.ok, qPrintable(cuda.log + cuda.error));
    QVERIFY(!cuda.compilerMissing);
    QVERIFY(!cuda.cubin.isEmpty());
    // The PTX NVRTC gave, assembled again by nvJitLink.
    const CompileResult ptx =
        Program(cuda.ptx, QStringLiteral("k.ptx"), {}, {}, SourceLanguage::Ptx)
            .compile(QStringLiteral("sm_90"));
    QVERIFY2(ptx.ok, qPrintable(ptx.log + ptx.error));
    QVERIFY(!ptx.cubin.isEmpty());
    QVERIFY(ptx.findKernel(QStringLiteral("k")));
}

void TestNvrtcApi::programsDoNotNeedTheToolkitToStart_data() {
    QTest::addColumn<QString>("path");
    const QString cli = QStringLiteral(KERNELPAD_CLI_PATH);
    QTest::newRow("kernelpad-cli") << cli;
    QTest::newRow("kernelpad") << QFileInfo(cli).absolutePath() + QStringLiteral("/kernelpad");
}

void TestNvrtcApi::programsDoNotNeedTheToolkitToStart() {
    QFETCH(QString, path);
    if (!QFileInfo::exists(path) && !path.endsWith(QLatin1String("-cli")))
        QSKIP("built without the window (KERNELPAD_GUI=OFF)");
    QString error;
    const std::optional<ElfDynamic> dynamic = readElfDynamic(path, &error);
    QVERIFY2(dynamic, qPrintable(path + QStringLiteral(": ") + error));
    const QStringList* needed = &dynamic->needed;
    // The reader works: Qt is linked at load time, as it should be.
    QVERIFY2(needed->contains(QStringLiteral("libQt6Core.so.6")),
             qPrintable(needed->join(QStringLiteral(", "))));
    for (const QString& library : *needed) {
        QVERIFY2(!library.startsWith(QLatin1String("libnvrtc")) &&
                     !library.startsWith(QLatin1String("libnvJitLink")) &&
                     !library.startsWith(QLatin1String("libnvvm")) &&
                     !library.startsWith(QLatin1String("libcuda")),
                 qPrintable(QStringLiteral("%1 needs %2 at load time: a computer without the CUDA "
                                           "toolkit could not start it")
                                .arg(QFileInfo(path).fileName(), library)));
    }
}

KERNELPAD_TEST_GUILESS_MAIN(TestNvrtcApi)
} // namespace tst_nvrtcapi
#include "tst_nvrtcapi.moc"
