// The runner's progress stages, stop reasons and message types are enums with one spelling
// each, and RunnerConnection's watchdog keys on the stage: every stage in which the user's
// kernel runs counts against its time limit. The pipeline's "timing the pipeline" once did not
// (the watchdog compared English labels and knew only three), so a pipeline that hung while
// timed was stopped only by the preparation limit. No GPU needed: the runners are shell
// scripts that report one stage and then hang.

#include "core/project/Project.h"
#include "core/run/RunStage.h"
#include "core/runner/Protocol.h"
#include "core/runner/RunnerConnection.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>

#include "../support/TestMain.h"
#include "TestPaths.h"

namespace tst_runnerstages {

using namespace kernelpad;

namespace {

/// Far beyond the kernel's limit below: a run stopped before this was stopped by the kernel's
/// own clock.
constexpr int kPreparationLimitMs = 20000;
constexpr int kKernelLimitMs = 300;

RunRequest saxpy() {
    QString error;
    std::optional<Project> p =
        Project::load(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad"), &error);
    if (!p)
        qFatal("%s", qPrintable(error));
    RunRequest r;
    r.project = *p;
    r.project.timing.timeLimitMs = kKernelLimitMs;
    r.projectDir = QStringLiteral(KERNELPAD_EXAMPLES_DIR);
    return r;
}

/// A runner that says hello, answers the first request with progress in `stage` and then
/// hangs (as a kernel that never returns would) until it is killed.
QStringList hangsIn(const QString& stage) {
    return {QStringLiteral("-c"),
            QStringLiteral(
                "d=$(mktemp -d /tmp/kernelpad-runner-XXXXXX); "
                "printf '{\"type\":\"hello\",\"version\":%1,\"pid\":1,\"outputDir\":\"%s\"}\\n' "
                "\"$d\"; read line; id=${line#'{\"id\":'}; id=${id%%,*}; "
                "printf '{\"type\":\"progress\",\"id\":%s,\"stage\":\"%2\",\"done\":0,"
                "\"total\":1}\\n' \"$id\"; exec cat > /dev/null")
                .arg(kRunnerProtocolVersion)
                .arg(stage)};
}

} // namespace

class TestRunnerStages : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { qRegisterMetaType<kernelpad::RunResult>(); }

    void stagesSpellOnce() {
        for (int i = 0; i <= int(RunStage::ReadingProfile); ++i) {
            const auto stage = RunStage(i);
            QVERIFY(!toString(stage).isEmpty());
            QVERIFY(runStageFromString(toString(stage)) == stage);
        }
        QVERIFY(!runStageFromString(QStringLiteral("Timing")));
    }

    void messageTypesSpellOnce() {
        for (int i = 0; i <= int(MessageType::Error); ++i) {
            const auto type = MessageType(i);
            QVERIFY(messageTypeFromString(toString(type)) == type);
            QString error;
            const std::optional<RunnerMessage> back =
                decodeRunnerMessage(encodeRunnerMessage(RunnerMessage::make(type, 3)), &error);
            QVERIFY2(back, qPrintable(error));
            QVERIFY(back->type == type);
        }
        QVERIFY(!messageTypeFromString(QStringLiteral("Run")));
    }

    void kernelStagesAreWatched_data() {
        QTest::addColumn<RunStage>("stage");
        QTest::addColumn<bool>("watched");
        QTest::newRow("verifying launch") << RunStage::VerifyingLaunch << true;
        QTest::newRow("warming up") << RunStage::WarmingUp << true;
        QTest::newRow("timing") << RunStage::Timing << true;
        // The bug: the pipeline's timed launches were not counted as the kernel's time.
        QTest::newRow("timing the pipeline (was unwatched)") << RunStage::TimingPipeline << true;
        QTest::newRow("verifying (the host checks)") << RunStage::Verifying << false;
        QTest::newRow("compiling") << RunStage::Compiling << false;
    }

    void kernelStagesAreWatched() {
        QFETCH(RunStage, stage);
        QFETCH(bool, watched);
        RunnerConnection connection;
        connection.setCommand(QStringLiteral("/bin/sh"), hangsIn(toString(stage)));
        connection.setPreparationLimitMs(kPreparationLimitMs);
        QSignalSpy progress(&connection, &RunnerConnection::runProgress);
        QSignalSpy finished(&connection, &RunnerConnection::runFinished);
        QSignalSpy killed(&connection, &RunnerConnection::killed);
        QElapsedTimer clock;
        clock.start();
        connection.run(1, saxpy());
        QTRY_COMPARE_WITH_TIMEOUT(progress.count(), 1, 5000);
        QCOMPARE(progress.at(0).at(1).toString(), toString(stage));
        // The kernel's limit, its slack and a loaded machine's delay, well short of the
        // preparation limit.
        constexpr int kWaitMs = 4000;
        if (!watched) {
            QVERIFY2(!finished.wait(kWaitMs), "a host stage was counted as the kernel's time");
            return;
        }
        QVERIFY2(finished.count() == 1 || finished.wait(kWaitMs),
                 qPrintable(QStringLiteral("'%1' ran %2 ms past a %3 ms limit unwatched")
                                .arg(toString(stage))
                                .arg(clock.elapsed())
                                .arg(kKernelLimitMs)));
        const auto result = finished.at(0).at(1).value<RunResult>();
        QCOMPARE(result.status, RunStatus::Timeout);
        QCOMPARE(killed.count(), 1);
        QVERIFY(killed.at(0).at(0).value<StopReason>() == StopReason::Timeout);
        QCOMPARE(toString(StopReason::Timeout), QStringLiteral("timeout"));
    }

    void unknownStageBreaksTheProtocol() {
        RunnerConnection connection;
        connection.setCommand(QStringLiteral("/bin/sh"), hangsIn(QStringLiteral("frobnicating")));
        connection.setPreparationLimitMs(kPreparationLimitMs);
        QSignalSpy finished(&connection, &RunnerConnection::runFinished);
        connection.run(2, saxpy());
        QVERIFY(finished.wait(5000));
        const auto result = finished.at(0).at(1).value<RunResult>();
        QCOMPARE(result.status, RunStatus::CudaError);
        QVERIFY2(result.error.contains(QLatin1String("stage")) &&
                     result.error.contains(QLatin1String("frobnicating")),
                 qPrintable(result.error));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestRunnerStages)
} // namespace tst_runnerstages
#include "tst_runnerstages.moc"
