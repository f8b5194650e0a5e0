#include "core/engine/EngineTests.h"

#include <QMetaObject>

namespace kernelpad {

namespace {

/// Lines of the compiler's log a test report quotes for a compile error.
constexpr int kCompileLogLines = 20;

/// The bytes of a run's outputs held here.
qint64 outputBytes(const RunResult& result) {
    qint64 bytes = 0;
    for (const OutputBuffer& o : result.outputs)
        bytes += o.data.size();
    return bytes;
}

bool ranToTheEnd(const RunResult& result) {
    return result.status == RunStatus::Ok || result.status == RunStatus::VerificationFailed;
}

} // namespace

EngineTests::EngineTests(Engine* engine, QObject* parent)
    : QObject(parent)
    , m_engine(engine) {
    qRegisterMetaType<kernelpad::TestCaseResult>();
    qRegisterMetaType<kernelpad::TestReport>();
    m_channel = engine->openChannel();
    connect(engine, &Engine::runFinished, this, &EngineTests::onRunFinished);
}

void EngineTests::start(const TestOrder& order) {
    if (m_running) {
        m_engine->cancel(m_channel);
        finish(RunStatus::Cancelled, QStringLiteral("cancelled: a new test run started"));
    }
    m_report = TestReport{};
    m_report.project = order.base.project.name;
    QString error;
    m_cases = planTestCases(order.base, order.onlyCase, &m_report.note, &error);
    m_index = 0;
    m_second = false;
    m_cancelled = false;
    m_running = true;
    m_runId = 0;
    // Answered from the event loop, never inside start(): a caller connects, starts, then
    // waits.
    QMetaObject::invokeMethod(
        this,
        [this, error] {
            if (!error.isEmpty())
                finish(RunStatus::BadInput, error);
            else
                runCurrent(false);
        },
        Qt::QueuedConnection);
}

void EngineTests::cancel() {
    if (!m_running)
        return;
    m_cancelled = true;
    if (m_engine)
        m_engine->cancel(m_channel);
}

void EngineTests::runCurrent(bool second) {
    // A case that cannot be mapped to a launch fails without a run.
    while (!second && m_index < m_cases.size() && !m_cases[m_index].error.isEmpty()) {
        TestCaseResult result;
        result.name = m_cases[m_index].name;
        result.checks = {
            TestCheck{QStringLiteral("verify"), CheckOutcome::Failed, m_cases[m_index].error, {}}};
        m_report.cases.append(result);
        emit caseFinished(m_index, result);
        ++m_index;
    }
    if (m_cancelled) {
        finish(RunStatus::Cancelled, QStringLiteral("cancelled"));
        return;
    }
    if (m_index >= m_cases.size() || !m_engine) {
        finish(RunStatus::Ok, {});
        return;
    }
    m_second = second;
    const PlannedCase& plan = m_cases[m_index];
    emit progress(m_index, int(m_cases.size()), plan.name,
                  second ? QStringLiteral("determinism") : QStringLiteral("run"));
    m_runId = m_engine->run(second ? secondRunRequest(plan) : plan.request, m_channel);
}

void EngineTests::onRunFinished(quint64 id, const RunResult& result) {
    if (!m_running || id != m_runId)
        return;
    m_runId = 0;
    if (m_cancelled || result.status == RunStatus::Cancelled) {
        finish(RunStatus::Cancelled, QStringLiteral("cancelled"));
        return;
    }
    if (m_second) {
        finishCase(&result, {});
        return;
    }
    // The source is the same in every case: a compile error or no driver ends them all.
    if (result.status == RunStatus::CompileError || result.status == RunStatus::DriverUnavailable) {
        // The compiler's own lines say where; a test report (JUnit included) is read
        // without the window's diagnostics.
        const QString log = result.compile.log.trimmed();
        finish(result.status,
               log.isEmpty() || result.status != RunStatus::CompileError
                   ? result.error
                   : result.error + QLatin1Char('\n') +
                         log.split(QLatin1Char('\n')).mid(0, kCompileLogLines).join('\n'));
        return;
    }
    m_first = result;
    if (!m_cases[m_index].determinism) {
        finishCase(nullptr,
                   QStringLiteral("not asked: the project's tests say \"determinism\": "
                                  "false, or no output is floating-point (\"determinism\": "
                                  "true checks integer outputs too)"));
    } else if (!ranToTheEnd(result)) {
        finishCase(nullptr, QStringLiteral("the run did not finish"));
    } else if (outputBytes(result) > kMaxCompareBytes) {
        finishCase(nullptr, QStringLiteral("%1 MiB of outputs, more than the %2 MiB a test "
                                           "compares; test a smaller size")
                                .arg(outputBytes(result) >> 20)
                                .arg(kMaxCompareBytes >> 20));
    } else {
        runCurrent(true);
    }
}

void EngineTests::finishCase(const RunResult* again, const QString& determinismSkipped) {
    const PlannedCase& plan = m_cases[m_index];
    TestCaseResult result;
    result.name = plan.name;
    result.launch = launchText(plan.request.project.launch);
    if (again && !ranToTheEnd(*again))
        result.checks = caseChecks(m_first, nullptr,
                                   QStringLiteral("the second run did not finish: %1")
                                       .arg(again->error.section(QLatin1Char('\n'), 0, 0)));
    else
        result.checks = caseChecks(m_first, again, determinismSkipped, secondRunNote(plan));
    result.run = std::move(m_first);
    m_first = RunResult{};
    // Outputs are kept for a failed case only: a passing one has nothing to look into.
    if (!result.failed())
        result.run.outputs.clear();
    m_report.cases.append(result);
    emit caseFinished(m_index, result);
    ++m_index;
    runCurrent(false);
}

void EngineTests::finish(RunStatus status, const QString& error) {
    if (!m_running)
        return;
    m_running = false;
    m_report.status = status;
    m_report.error = error;
    m_first = RunResult{};
    emit finished(m_report);
}

} // namespace kernelpad
