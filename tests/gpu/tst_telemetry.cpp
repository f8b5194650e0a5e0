// Telemetry on a real run (core/run/Telemetry.h): NVML's clocks, power and temperature with
// every chunk of samples, the energy per launch within the device's power limit, a short run
// reported as too short for energy, and Lock Clocks where the machine allows it. Every figure
// is printed, so one run on the GPU machine says what to fix.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/cuda/Device.h"
#include "core/cuda/Nvml.h"
#include "core/run/ExecutionSession.h"
#include "core/run/TelemetryClockLock.h"

#include <QTest>

namespace tst_telemetry {

using namespace kernelpad;

namespace {

/// One line per chunk and the run's totals, for the log of the GPU machine.
void printTelemetry(const char* what, const TimingStats& timing) {
    const Telemetry& t = timing.telemetry;
    qInfo("%s: %d samples, median %.4f ms, %lld chunks, SM max %d default %d MHz, memory max %d "
          "default %d MHz, power limit %d mW, locked by KernelPad %d, lock state %d (0 unknown, 1 "
          "locked, 2 not), reasons seen 0x%llx (%s), instability '%s'",
          what, timing.reps(), timing.medianMs, qint64(t.chunks.size()), t.smClockMaxMHz,
          t.smClockDefaultMHz, t.memClockMaxMHz, t.memClockDefaultMHz, t.powerLimitMw,
          int(t.lockedByKernelPad), int(t.clockLock()), (unsigned long long)t.reasonsSeen(),
          qPrintable(clockEventNames(t.reasonsSeen()).join(QStringLiteral(", "))),
          qPrintable(t.instability()));
    for (qsizetype i = 0; i < t.chunks.size(); ++i) {
        const ChunkTelemetry& c = t.chunks[i];
        qInfo("  chunk %lld: %d samples, SM %d MHz, memory %d MHz, %d mW, %d C, reasons %s",
              qint64(i), c.samples, c.smClockMHz, c.memClockMHz, c.powerMw, c.temperatureC,
              c.clockEventReasons
                  ? qPrintable(QStringLiteral("0x%1").arg(*c.clockEventReasons, 0, 16))
                  : "unread");
    }
    qInfo("  energy: %s mJ over %.1f ms (%d launches): %.6g J per launch, %.1f W average; %s",
          t.energyMj ? qPrintable(QString::number(*t.energyMj)) : "none", t.energyIntervalMs,
          t.energyLaunches, t.energyPerLaunchJ(), t.averagePowerW(), qPrintable(t.energyNote()));
}

} // namespace

class TestTelemetry : public QObject {
    Q_OBJECT

private:
    CompileCache m_cache;
    std::unique_ptr<ExecutionSession> m_session;
    std::atomic_bool m_cancel{false};

    /// SAXPY timed adaptively for at least `minTimeMs` of GPU time, or `reps` fixed samples.
    RunResult runSaxpy(int minTimeMs, std::optional<int> reps = std::nullopt,
                       bool lockClocks = false) {
        Project p = test::loadExample(QStringLiteral("saxpy.kpad"));
        p.timing.adaptive = true;
        p.timing.minTimeMs = minTimeMs;
        p.timing.maxTimeMs = std::max(minTimeMs * 2, p.timing.maxTimeMs);
        RunRequest r;
        r.project = p;
        r.projectDir = test::examplesDir();
        r.repetitions = reps;
        r.lockClocks = lockClocks;
        return m_session->run(r, m_cancel);
    }

private slots:
    void initTestCase() {
        KERNELPAD_REQUIRE_DRIVER();
        if (!Nvml::instance())
            QSKIP("needs NVML (libnvidia-ml.so.1, installed with the driver)");
        m_session = std::make_unique<ExecutionSession>(&m_cache);
    }

    void everyChunkHasTelemetry() {
        const RunResult r = runSaxpy(1000);
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
        printTelemetry("saxpy, 1 s", r.timing);
        const Telemetry& t = r.timing.telemetry;
        QVERIFY(t.available);
        QVERIFY2(t.chunks.size() >= 5, "a second of samples comes in chunks of about 100 ms");
        int samples = 0;
        for (const ChunkTelemetry& c : t.chunks) {
            QVERIFY2(c.smClockMHz > 0 && c.memClockMHz > 0, "every chunk has both clocks");
            QVERIFY2(c.powerMw > 0, "every chunk has a power reading");
            QVERIFY2(c.temperatureC >= 10 && c.temperatureC <= 110,
                     qPrintable(QStringLiteral("temperature %1 C").arg(c.temperatureC)));
            QVERIFY2(c.clockEventReasons.has_value(), "NVML gives the clock-event reasons");
            samples += c.samples;
        }
        QCOMPARE(samples, r.timing.reps());
        QVERIFY(t.smClockMaxMHz > 0 && t.powerLimitMw > 0);
    }

    void energyPerLaunchWithinThePowerLimit() {
        const RunResult r = runSaxpy(1000);
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
        printTelemetry("saxpy energy", r.timing);
        const Telemetry& t = r.timing.telemetry;
        QVERIFY2(t.energyMeasured(), qPrintable(t.energyNote()));
        QCOMPARE(t.energyLaunches, r.timing.reps());
        QVERIFY(t.energyPerLaunchJ() > 0);
        const double limitW = t.powerLimitMw / 1000.0;
        // Idle draws tens of watts; the limit holds over a second (power capping).
        QVERIFY2(
            t.averagePowerW() > 10 && t.averagePowerW() <= limitW * 1.05,
            qPrintable(
                QStringLiteral("average %1 W, limit %2 W").arg(t.averagePowerW()).arg(limitW)));
    }

    void shortRunIsTooShortForEnergy() {
        const RunResult r = runSaxpy(250, 10); // ten launches of ~70 us: under a millisecond
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
        printTelemetry("saxpy, 10 launches", r.timing);
        QVERIFY(!r.timing.telemetry.energyMeasured());
        QVERIFY2(r.timing.telemetry.energyNote().startsWith(QStringLiteral("too short")),
                 qPrintable(r.timing.telemetry.energyNote()));
    }

    void lockClocksHoldsTheClock() {
        const QVector<DeviceInfo> devices = Device::all();
        QVERIFY(!devices.isEmpty());
        const QString bus = devices.first().pciBusId;
        const ClockLockResult lock = lockClocksToBase(bus);
        if (!lock.error.isEmpty()) {
            qInfo("lock refused: %s", qPrintable(lock.error));
            QVERIFY2(lock.error.contains(QStringLiteral("nvidia-smi --lock-gpu-clocks=")),
                     "a refusal says how to lock them by hand");
            QSKIP("locking clocks needs root here (the refusal is checked above)");
        }
        // The run asks for the lock as Device > Lock Clocks does: a run without the request
        // releases a lock KernelPad holds before timing.
        const RunResult r = runSaxpy(1000, std::nullopt, true);
        QVERIFY2(r.timing.telemetry.lockError.isEmpty(), qPrintable(r.timing.telemetry.lockError));
        const QString undone = unlockClocks(bus);
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
        printTelemetry(
            qPrintable(QStringLiteral("locked at %1/%2 MHz").arg(lock.smMHz).arg(lock.memMHz)),
            r.timing);
        QVERIFY2(undone.isEmpty(), qPrintable(undone));
        QVERIFY(!clocksLockedByKernelPad(bus));
        QVERIFY(r.timing.telemetry.lockedByKernelPad);
        QCOMPARE(r.timing.telemetry.clockLock(), ClockLock::Locked);
        for (const ChunkTelemetry& c : r.timing.telemetry.chunks)
            QVERIFY2(std::abs(c.smClockMHz - lock.smMHz) <= lock.smMHz / 50,
                     qPrintable(QStringLiteral("SM clock %1 MHz while locked at %2")
                                    .arg(c.smClockMHz)
                                    .arg(lock.smMHz)));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestTelemetry)
} // namespace tst_telemetry
#include "tst_telemetry.moc"
