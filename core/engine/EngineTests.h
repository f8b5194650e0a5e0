#pragma once
// Runs a project's tests through the Engine (docs/ARCHITECTURE.md, "One door"): each case as
// a normal run on a channel of its own, then again for the determinism check, one after
// another; the window and the CLI wait for its signals.

#include "core/engine/Engine.h"
#include "core/engine/TestRun.h"

#include <QObject>
#include <QPointer>
#include <QVector>

namespace kernelpad {

/// A test run as EngineTests runs it.
struct TestOrder {
    /// The project with its tests, its folder and the chosen device, built as a Run's.
    RunRequest base;
    QString onlyCase; ///< empty: every case (kernelpad-cli test --case NAME)
};

/// One test run at a time over an Engine it does not own. The first run compiles (the
/// runner's compile cache serves the others, whose source and options are the same); a
/// compile error or a missing driver ends the test run there, as the report's status.
class EngineTests : public QObject {
    Q_OBJECT
public:
    /// Most bytes of outputs compared for determinism: both runs' contents are held here.
    static constexpr qint64 kMaxCompareBytes = qint64(256) << 20;

    explicit EngineTests(Engine* engine, QObject* parent = nullptr);

    /// Starts `order`; answered by caseFinished() per case and finished() at the end. A test
    /// run already going is cancelled first (it finishes, cancelled).
    void start(const TestOrder& order);
    /// Ends the test run after the run in flight: finished() follows with the cases done.
    void cancel();
    [[nodiscard]] bool isRunning() const { return m_running; }

signals:
    /// Case `index` of `total` is running ("n = 33", "determinism" when it is the second run).
    void progress(int index, int total, const QString& caseName, const QString& stage);
    void caseFinished(int index, const kernelpad::TestCaseResult& result);
    void finished(const kernelpad::TestReport& report);

private:
    void runCurrent(bool second);
    void onRunFinished(quint64 id, const RunResult& result);
    void finishCase(const RunResult* again, const QString& determinismSkipped);
    void finish(RunStatus status, const QString& error);

    QPointer<Engine> m_engine;
    Engine::Channel m_channel = Engine::kDefaultChannel;
    QVector<PlannedCase> m_cases;
    TestReport m_report;
    int m_index = 0;
    quint64 m_runId = 0;
    bool m_second = false;
    bool m_running = false;
    bool m_cancelled = false;
    RunResult m_first;
};

} // namespace kernelpad
