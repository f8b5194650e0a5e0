// The window's buffer viewer on an output kept on the runner, on a real GPU: with streamed
// buffers and a 1 MiB keep limit, SAXPY's 64 MiB output stays on the runner; the viewer says
// so, a jump to its end fetches the last rows (and only a small part of the output), and they
// equal the same project's output read through files; the heat map fetches and draws its
// window. gpu-labelled; without a driver every test skips with the reason.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/engine/OutputRangeReader.h"
#include "core/launch/BufferInit.h"
#include "core/runner/RunnerClient.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/models/BufferTableModel.h"
#include "ui/widgets/BufferViewer.h"
#include "ui/widgets/HeatMapView.h"
#include "ui/windows/MainWindow.h"

#include <QSignalSpy>
#include <QTableView>
#include <QTest>

#include <algorithm>
#include <cstring>

namespace tst_guikeptbuffer {

using namespace kernelpad;

namespace {

// Device discovery starts the runner process; a run includes compile, upload and teardown.
constexpr int kDevicesTimeoutMs = 60000;
constexpr int kRunTimeoutMs = 120000;
constexpr qint64 kKeepBeyondBytes = qint64(1) << 20;

bool waitForDevices(Engine& engine, MainWindow& window, QString* driverError) {
    QSignalSpy devices(&engine, &Engine::devicesChanged);
    window.show();
    if (devices.isEmpty() && !devices.wait(kDevicesTimeoutMs))
        return false;
    *driverError = devices.last().at(1).toString();
    return driverError->isEmpty();
}

/// The project's output through output files (no streaming), for comparison.
QByteArray outputThroughFiles(const Project& project, QString* error) {
    RunnerClient files;
    files.setStreamBuffers(false);
    QSignalSpy finished(&files, &RunnerClient::runFinished);
    RunRequest r;
    r.project = project;
    r.projectDir = test::examplesDir();
    files.run(1, r);
    if (!finished.wait(kRunTimeoutMs)) {
        *error = QStringLiteral("the file run did not answer");
        return {};
    }
    const RunResult result = finished.first().at(1).value<RunResult>();
    for (const OutputBuffer& b : result.outputs)
        if (b.name == QLatin1String("out") && !b.isKept())
            return b.data;
    *error = QStringLiteral("the file run returned no 'out': %1").arg(result.error);
    return {};
}

} // namespace

class TestGuiKeptBuffer : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        KERNELPAD_REQUIRE_DRIVER();
        // Read when the Engine's runner connection is made.
        qputenv("KERNELPAD_STREAM_BUFFERS", "1");
        qputenv("KERNELPAD_STREAM_KEEP_BYTES", QByteArray::number(kKeepBeyondBytes));
    }

    void keptOutputIsFetchedAsTheViewerScrolls() {
        Engine engine;
        MainWindow window(&engine);
        window.setPromptsEnabled(false);
        window.resize(1280, 800);
        QString driverError;
        if (!waitForDevices(engine, window, &driverError))
            QSKIP(qPrintable(QStringLiteral("the engine found no device: %1").arg(driverError)));
        QVERIFY2(window.openProject(test::examplesDir() + QStringLiteral("/saxpy.kpad")),
                 qPrintable(window.lastError()));
        QTRY_VERIFY2_WITH_TIMEOUT(window.workbench()->runBlockedReason().isEmpty(),
                                  qPrintable(window.workbench()->runBlockedReason()),
                                  kDevicesTimeoutMs);

        QSignalSpy shown(window.workbench(), &Workbench::runShown);
        window.run();
        QVERIFY(shown.wait(kRunTimeoutMs));
        const RunResult result = shown.first().first().value<RunResult>();
        QVERIFY2(result.status == RunStatus::Ok && result.verified(),
                 qPrintable(runStatusName(result.status) + QStringLiteral(": ") + result.error));
        QCOMPARE(result.outputs.size(), 1);
        const OutputBuffer& kept = result.outputs.first();
        QVERIFY(kept.isKept());
        QVERIFY(kept.data.isEmpty());
        const qint64 n = kept.count;
        QCOMPARE(kept.sizeBytes(), n * 4);
        QVERIFY(kept.sizeBytes() > kKeepBeyondBytes);

        auto* viewer = window.findChild<BufferViewer*>();
        QVERIFY(viewer);
        QVERIFY2(viewer->keptNote().startsWith("kept on ") &&
                     viewer->keptNote().endsWith("rows fetched as you scroll"),
                 qPrintable(viewer->keptNote()));
        BufferTableModel* model = viewer->model();
        QCOMPARE(model->elementCount(), n);

        // To the end: the last rows arrive (read through the model, as the table would).
        QVERIFY(viewer->goToIndex(n - 1));
        const auto text = [&](qint64 element) {
            return model->data(model->indexOfElement(element)).toString();
        };
        const QString fetching = QString::fromUtf8(BufferTableModel::kFetchingText);
        QTRY_VERIFY_WITH_TIMEOUT(text(n - 1) != fetching && text(n - 64) != fetching, 60000);
        QVERIFY2(model->reader()->error().isEmpty(), qPrintable(model->reader()->error()));

        QString error;
        const QByteArray expected = outputThroughFiles(window.document()->project(), &error);
        QVERIFY2(!expected.isEmpty(), qPrintable(error));
        QCOMPARE(expected.size(), qsizetype(n * 4));
        const ValueType f32 = ValueType::of(ScalarType::Float32);
        for (qint64 i = n - 64; i < n; ++i)
            QCOMPARE(text(i), elementToString(f32, expected.constData(), i));
        const qint64 fetched = model->reader()->fetchedBytes();
        QVERIFY2(fetched < kept.sizeBytes() / 16, qPrintable(QString::number(fetched)));
        qInfo("the last rows of the %lld-byte output equal the file run's; the viewer fetched "
              "%lld bytes",
              kept.sizeBytes(), fetched);

        // The heat map draws the window at the table's rows once it has fetched it.
        HeatMapView* heat = viewer->heatMap();
        QTRY_VERIFY_WITH_TIMEOUT(!heat->render(QSize(128, 128)).isNull() &&
                                     !heat->keptCaption().contains(QStringLiteral("fetching")),
                                 60000);
        QVERIFY2(model->reader()->error().isEmpty(), qPrintable(model->reader()->error()));
        const qint64 first = heat->windowRow() * heat->dataWidth();
        const qint64 last = std::min(n, first + heat->windowRows() * heat->dataWidth());
        QVERIFY(first < n - 1);
        double lo = 1e300, hi = -1e300;
        for (qint64 i = first; i < last; ++i) {
            const double v = elementAsDouble(f32, expected.constData(), i);
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        QVERIFY(heat->rangeMin() >= lo && heat->rangeMax() <= hi);
        QVERIFY(heat->rangeMin() < heat->rangeMax());
        qInfo("heat map: %s, values %g..%g", qPrintable(heat->keptCaption()), heat->rangeMin(),
              heat->rangeMax());
    }
};

KERNELPAD_TEST_MAIN(TestGuiKeptBuffer)
} // namespace tst_guikeptbuffer
#include "tst_guikeptbuffer.moc"
