// The Resources tab without a driver: what the compile knows from its PTX
// and ptxas's report, and what only the driver adds, instead of "No kernel compiled".

#include "../support/TestMain.h"
#include "TestPaths.h"
#include "core/compile/CubinKernelInfo.h"
#include "core/compile/Program.h"
#include "core/run/OccupancyInputs.h"
#include "ui/widgets/OccupancyView.h"
#include "ui/widgets/ResourcesPanel.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QTest>

namespace tst_resourcespanel {

using namespace kernelpad;

namespace {

const char* const kPtx = R"(.version 8.0
.target sm_90
.address_size 64

.visible .entry _Z6reducePKfPfi(
	.param .u64 _Z6reducePKfPfi_param_0,
	.param .u64 _Z6reducePKfPfi_param_1,
	.param .u32 _Z6reducePKfPfi_param_2
)
.maxntid 256, 1, 1
{
	.local .align 4 .b8 	__local_depot0[40];
	.shared .align 4 .b8 _ZZ6reducePKfPfiE5cache[1024];
	ret;
}
)";

const char* const kPtxasLog = "ptxas info    : Compiling entry function '_Z6reducePKfPfi' for "
                              "'sm_90'\n"
                              "ptxas info    : Function properties for _Z6reducePKfPfi\n"
                              "    48 bytes stack frame, 8 bytes spill stores, 8 bytes spill "
                              "loads\n"
                              "ptxas info    : Used 40 registers, used 1 barriers, 1024 bytes "
                              "smem, 380 bytes cmem[0]\n";

CompileResult reduceCompile(bool withPtxasReport) {
    CompileResult r;
    r.ok = true;
    r.arch = QStringLiteral("sm_90");
    r.ptx = QString::fromLatin1(kPtx);
    r.log = withPtxasReport ? QString::fromLatin1(kPtxasLog) : QString();
    KernelInfo k;
    k.name = QStringLiteral("reduce");
    k.lowered = QStringLiteral("_Z6reducePKfPfi");
    k.maxntid = {256, 1, 1};
    r.kernels << k;
    return r;
}

} // namespace

class TestResourcesPanel : public QObject {
    Q_OBJECT
private slots:
    void compileFactsWithoutDriver();
    void ptxasReportAddsRegistersAndSpills();
    void failedCompileSaysSo();
    void agreesWithTheOccupancyTab_data();
    void agreesWithTheOccupancyTab();
};

void TestResourcesPanel::compileFactsWithoutDriver() {
    ResourcesPanel panel;
    panel.show();
    auto* title = panel.findChild<QLabel*>(QStringLiteral("resourcesTitle"));
    auto* note = panel.findChild<QLabel*>(QStringLiteral("driverNote"));
    QVERIFY(title && note);
    QVERIFY(note->isHidden());
    panel.showCompileInfo(reduceCompile(false), QStringLiteral("reduce"));
    QVERIFY2(!title->text().contains(QStringLiteral("No kernel compiled")),
             qPrintable(title->text()));
    QVERIFY2(title->text().contains(QStringLiteral("reduce")), qPrintable(title->text()));
    QVERIFY(panel.valueText(QStringLiteral("Launch bounds")).contains(QStringLiteral(".maxntid")));
    QVERIFY(panel.valueText(QStringLiteral("Launch bounds")).contains(QStringLiteral("256")));
    QVERIFY(panel.valueText(QStringLiteral("Static shared memory")).contains(QStringLiteral("1")));
    QVERIFY(!panel.valueText(QStringLiteral("Local memory per thread")).startsWith(u'0'));
    QCOMPARE(panel.valueText(QStringLiteral("Dynamic shared memory")), QStringLiteral("not used"));
    // Registers need ptxas's report: the panel says how to get it.
    QVERIFY(panel.valueText(QStringLiteral("Registers per thread"))
                .contains(QStringLiteral("-Xptxas -v")));
    // What only the driver adds is said once, plainly.
    QVERIFY(note->isVisible());
    QVERIFY(note->text().contains(QStringLiteral("occupancy")));
    QVERIFY(note->text().contains(QStringLiteral("driver")));
    panel.clear();
    QVERIFY(note->isHidden());
}

void TestResourcesPanel::ptxasReportAddsRegistersAndSpills() {
    ResourcesPanel panel;
    panel.showCompileInfo(reduceCompile(true), QStringLiteral("reduce"));
    QCOMPARE(panel.valueText(QStringLiteral("Registers per thread")),
             QStringLiteral("40 (from ptxas -v)"));
    const QString spills = panel.valueText(QStringLiteral("Register spills"));
    QVERIFY2(spills.contains(QStringLiteral("stored")) && spills.contains(QStringLiteral("8")),
             qPrintable(spills));
    QVERIFY(panel.valueText(QStringLiteral("Local memory per thread"))
                .contains(QStringLiteral("stack frame")));
    QVERIFY(!panel.valueText(QStringLiteral("Constant memory")).isEmpty());
}

void TestResourcesPanel::failedCompileSaysSo() {
    ResourcesPanel panel;
    CompileResult failed;
    failed.ok = false;
    panel.showCompileInfo(failed, QStringLiteral("reduce"));
    auto* title = panel.findChild<QLabel*>(QStringLiteral("resourcesTitle"));
    QVERIFY(title->text().contains(QStringLiteral("does not compile")));
    QVERIFY(panel.valueText(QStringLiteral("Registers per thread")).isEmpty());
}

void TestResourcesPanel::agreesWithTheOccupancyTab_data() {
    QTest::addColumn<QString>("example");
    QTest::addColumn<int>("language");
    QTest::newRow("saxpy (CUDA C++, NVRTC)") << "saxpy.kpad" << int(SourceLanguage::Cuda);
    QTest::newRow("ptx_saxpy (PTX, nvJitLink)") << "ptx_saxpy.kpad" << int(SourceLanguage::Ptx);
}

void TestResourcesPanel::agreesWithTheOccupancyTab() {
    // The Resources tab asked for -Xptxas -v while the Occupancy tab showed the CUBIN's
    // registers; for a PTX project that advice only produced a warning.
    QFETCH(QString, example);
    QFETCH(int, language);
    QFile file(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/") + example);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject project = QJsonDocument::fromJson(file.readAll()).object();
    const QString kernel = project.value(QStringLiteral("kernel")).toString();
    const auto sourceLanguage = SourceLanguage(language);
    if (sourceLanguage == SourceLanguage::Cuda && Program::nvrtcVersion().isEmpty())
        QSKIP("NVRTC cannot be loaded");
    const CompileResult result = Program(project.value(QStringLiteral("source")).toString(),
                                         project.value(QStringLiteral("sourceName")).toString(),
                                         ProgramOptions{}, {}, sourceLanguage)
                                     .compile(QStringLiteral("sm_90"));
    if (!result.ok && result.compiler.contains(QLatin1String("not found")))
        QSKIP(qPrintable(result.compiler));
    QVERIFY2(result.ok, qPrintable(result.log + result.error));
    const CubinKernelInfo cubin = cubinKernelInfo(result.cubin, result.loweredName(kernel));
    QVERIFY(cubin.found && cubin.registers > 0);

    ResourcesPanel panel;
    panel.showCompileInfo(result, kernel);
    const QString registers = panel.valueText(QStringLiteral("Registers per thread"));
    QCOMPARE(registers, QStringLiteral("%1 (from the CUBIN)").arg(cubin.registers));
    const QString local = panel.valueText(QStringLiteral("Local memory per thread"));
    QVERIFY2(local.contains(QLatin1String("stack frame (from the CUBIN)")), qPrintable(local));
    OccupancyView view;
    view.showReport(occupancyReport(result, kernel, nullptr, nullptr, 256, 0), kernel, {});
    QVERIFY2(
        view.titleText().contains(QStringLiteral("%1 registers per thread").arg(cubin.registers)),
        qPrintable(view.titleText()));
    QVERIFY2(view.titleText().contains(QLatin1String("(from the CUBIN)")),
             qPrintable(view.titleText()));

    // Nowhere is ptxas's flag advised once the figure is known, nor for a compute_ arch.
    for (const QString& row :
         {QStringLiteral("Registers per thread"), QStringLiteral("Local memory per thread")})
        QVERIFY2(!panel.valueText(row).contains(QLatin1String("Xptxas")), qPrintable(row));
    CompileResult ptxOnly = result;
    ptxOnly.cubin.clear();
    ptxOnly.arch = QStringLiteral("compute_90");
    panel.showCompileInfo(ptxOnly, kernel);
    QVERIFY2(
        !panel.valueText(QStringLiteral("Registers per thread")).contains(QLatin1String("Xptxas")),
        qPrintable(panel.valueText(QStringLiteral("Registers per thread"))));
}

KERNELPAD_TEST_MAIN(TestResourcesPanel)
} // namespace tst_resourcespanel
#include "tst_resourcespanel.moc"
