// What a compile tells the window (issue 11): the kernel's own launch bounds from its PTX
// are checked as the device's limits are, with the reason shown beside the launch settings.

#include "core/engine/Engine.h"
#include "ui/widgets/LaunchPanel.h"
#include "ui/windows/MainWindow.h"

#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QtTest>

using namespace kernelpad;

namespace {

// NVRTC on a loaded machine can take several seconds for the first compile.
constexpr int kCompileTimeoutMs = 60000;

Project boundedProject(const QString& bounds, std::array<int, 3> block) {
    Project p;
    p.name = QStringLiteral("Bounded");
    p.source = QStringLiteral("extern \"C\" __global__ void %1 reduce(float* out, int n)\n{\n"
                              "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                              "    if (i < n)\n        out[i] = 1.0f;\n}\n")
                   .arg(bounds);
    p.kernel = QStringLiteral("reduce");
    ArgumentSpec out;
    out.name = QStringLiteral("out");
    out.kind = ArgumentSpec::Kind::Buffer;
    out.buffer.count = QStringLiteral("n");
    out.buffer.direction = Direction::Out;
    ArgumentSpec n;
    n.name = QStringLiteral("n");
    n.type = ValueType::of(ScalarType::Int32);
    n.value = QStringLiteral("1024");
    p.arguments = {out, n};
    p.launch.grid = {2, 1, 1};
    p.launch.block = block;
    return p;
}

} // namespace

class TestWindowCompile : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void kernelLaunchBoundsChecked_data();
    void kernelLaunchBoundsChecked();
};

void TestWindowCompile::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
}

void TestWindowCompile::kernelLaunchBoundsChecked_data() {
    QTest::addColumn<QString>("bounds");
    QTest::addColumn<int>("blockX");
    QTest::addColumn<int>("blockY");
    QTest::addColumn<QString>("reason"); // empty: launchable
    QTest::newRow("__launch_bounds__(256), block 512")
        << QStringLiteral("__launch_bounds__(256)") << 512 << 1
        << QStringLiteral("declares at most 256");
    QTest::newRow("__launch_bounds__(256), block 256")
        << QStringLiteral("__launch_bounds__(256)") << 256 << 1 << QString();
    QTest::newRow("no bounds, block 512") << QString() << 512 << 1 << QString();
}

void TestWindowCompile::kernelLaunchBoundsChecked() {
    QFETCH(QString, bounds);
    QFETCH(int, blockX);
    QFETCH(int, blockY);
    QFETCH(QString, reason);
    Engine engine;
    MainWindow window(&engine);
    window.setPromptsEnabled(false);
    window.setCompileWhileTyping(false);
    QSignalSpy shown(&window, &MainWindow::compileShown);
    window.loadProject(boundedProject(bounds, {blockX, blockY, 1}));
    QVERIFY(shown.wait(kCompileTimeoutMs) || shown.count() > 0);
    QVERIFY2(window.lastCompile() && window.lastCompile()->ok,
             qPrintable(window.lastCompile() ? window.lastCompile()->log : QString()));

    auto* problem = window.launchPanel()->findChild<QLabel*>(QStringLiteral("problemLabel"));
    QVERIFY(problem);
    if (reason.isEmpty()) {
        QCOMPARE(window.launchPanel()->problem(), QString());
        return;
    }
    QVERIFY2(window.launchPanel()->problem().contains(reason),
             qPrintable(window.launchPanel()->problem()));
    QVERIFY(problem->text().contains(reason));
    QVERIFY(window.runBlockedReason().contains(reason) ||
            !window.runBlockedReason().isEmpty()); // without a driver, that reason comes first

    // Bringing the block within the bounds clears it.
    window.launchPanel()->findChild<QSpinBox*>(QStringLiteral("blockX"))->setValue(256);
    QCOMPARE(window.launchPanel()->problem(), QString());
}

QTEST_MAIN(TestWindowCompile)
#include "tst_windowcompile.moc"
