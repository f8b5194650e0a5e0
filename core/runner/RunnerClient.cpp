#include "core/runner/RunnerClient.h"

#include "core/runner/RunnerConnection.h"
#include "core/runner/SanitizerRun.h"

#include <QEventLoop>
#include <QTimer>

#include <utility>

namespace kernelpad {
namespace {

/// After a "poisoned" result the runner exits by itself; how long to wait before killing it.
constexpr int kPoisonedExitMs = 2000;

} // namespace

RunnerClient::RunnerClient(QObject* parent)
    : QObject(parent)
    , m_runner(new RunnerConnection(this)) {
    static_assert(kWatchdogGraceMs == RunnerConnection::kWatchdogGraceMs);
    connect(m_runner, &RunnerConnection::runProgress, this, &RunnerClient::runProgress);
    // Which run's outputs the runner keeps, so that a fetch of a run it dropped is answered
    // with why instead of the protocol's refusal. Connected first: a caller may fetch as soon
    // as it hears of the result.
    connect(m_runner, &RunnerConnection::runFinished, this,
            [this](quint64 id, const RunResult& result) {
                // A poisoned runner exits with what it kept; its successor is already there.
                const int start = std::exchange(m_poisoned, false) ? -1 : m_runner->startCount();
                for (const OutputBuffer& b : result.outputs)
                    if (b.isKept()) {
                        m_kept = KeptRun{id, start, false, m_runner->spec().displayName()};
                        break;
                    }
            });
    connect(m_runner, &RunnerConnection::runFinished, this, &RunnerClient::runFinished);
    connect(m_runner, &RunnerConnection::devicesChanged, this, &RunnerClient::devicesChanged);
    connect(m_runner, &RunnerConnection::resourcesReady, this, &RunnerClient::resourcesReady);
    connect(m_runner, &RunnerConnection::compiled, this, &RunnerClient::compiled);
    connect(m_runner, &RunnerConnection::programReady, this, &RunnerClient::programReady);
    connect(m_runner, &RunnerConnection::fetched, this, &RunnerClient::onFetched);
    // A poisoned runner's successor starts before the result is handed on, so that the next
    // run does not wait for it.
    connect(m_runner, &RunnerConnection::poisoned, this, [this] {
        m_poisoned = true;
        m_runner->waitForExitOrStop(kPoisonedExitMs);
        warmUp();
    });
    // This side stopped it (cancel, timeout): a fresh one is started at once.
    connect(m_runner, &RunnerConnection::killed, this, [this](StopReason reason) {
        warmUp();
        emit runnerRestarted(toString(reason));
    });
    // It died by itself: the next request starts a fresh one.
    connect(m_runner, &RunnerConnection::crashed, this, &RunnerClient::runnerRestarted);
}

RunnerClient::~RunnerClient() = default; // the children stop their processes

QString RunnerClient::findRunner(QStringList* searched) {
    return RunnerConnection::findRunner(searched);
}

void RunnerClient::setCommand(const QString& program, const QStringList& arguments) {
    m_runner->setCommand(program, arguments);
}

bool RunnerClient::setSpec(const RunnerSpec& spec, QString* error) {
    const bool changed = spec != m_runner->spec();
    if (!m_runner->setSpec(spec, error))
        return false;
    if (changed)
        m_kept.runnerChanged = true;
    return true;
}

const RunnerSpec& RunnerClient::spec() const {
    return m_runner->spec();
}

QVector<DeviceInfo> RunnerClient::devicesOf(const RunnerSpec& spec, QString* error) {
    RunnerClient client;
    if (!client.setSpec(spec, error))
        return {};
    QVector<DeviceInfo> devices;
    QEventLoop loop;
    connect(&client, &RunnerClient::devicesChanged, &loop,
            [&](const QVector<DeviceInfo>& list, const QString& why) {
                devices = list;
                *error = why;
                loop.quit();
            });
    client.requestDevices(1);
    loop.exec();
    return devices;
}

CompileResult RunnerClient::compileIn(const RunnerSpec& spec, const RunRequest& request) {
    RunnerClient client;
    CompileResult result;
    if (!client.setSpec(spec, &result.log))
        return result;
    QEventLoop loop;
    bool answered = false; // a runner that cannot start answers at once, before the loop
    connect(&client, &RunnerClient::compiled, &loop, [&](quint64, const CompileResult& r) {
        result = r;
        answered = true;
        loop.quit();
    });
    client.requestCompile(1, request);
    if (!answered)
        loop.exec();
    return result;
}

void RunnerClient::setStreamBuffers(bool on) {
    m_runner->setStreamBuffers(on);
}

bool RunnerClient::streamBuffers() const {
    return m_runner->streamBuffers();
}

void RunnerClient::setKeepBeyondBytes(qint64 bytes) {
    m_runner->setKeepBeyondBytes(bytes);
}

QString RunnerClient::keptOutputGoneMessage(const QString& where, const QString& why) {
    return QStringLiteral("this output was kept on %1 and is gone: %2; run again to see it")
        .arg(where, why);
}

QString RunnerClient::keptGoneReason(quint64 run) const {
    if (run != 0 && run == m_kept.run && m_kept.runnerChanged)
        return QStringLiteral("another runner was chosen since");
    // Run ids only grow (the Engine's), so an older one was sent before the last run.
    if (run != 0 && run < m_lastRun)
        return QStringLiteral("a later run replaced it (the runner keeps the last run's "
                              "outputs only)");
    if (run == 0 || run != m_lastRun || run != m_kept.run)
        return QStringLiteral("the runner does not know that run");
    if (m_runner->startCount() != m_kept.startCount)
        return QStringLiteral("the runner restarted");
    if (m_runner->pid() == 0)
        return QStringLiteral("the runner has ended");
    return {};
}

QString RunnerClient::keptWhere() const {
    return m_kept.where.isEmpty() ? m_runner->spec().displayName() : m_kept.where;
}

qint64 RunnerClient::keepBeyondBytes() const {
    return m_runner->keepBeyondBytes();
}

void RunnerClient::fetch(quint64 id, quint64 run, const QString& buffer, qint64 offset,
                         qint64 bytes) {
    if (const QString why = keptGoneReason(run); !why.isEmpty()) {
        const QString message = keptOutputGoneMessage(keptWhere(), why);
        // Answered later, as every answer: the caller connects after this returns.
        QTimer::singleShot(0, this, [this, id, message] { emit fetched(id, {}, message); });
        return;
    }
    m_fetches.insert(id, FetchInFlight{run, buffer});
    m_runner->fetch(id, run, buffer, offset, bytes);
}

void RunnerClient::onFetched(quint64 id, const QByteArray& data, const QString& error) {
    const FetchInFlight asked = m_fetches.take(id);
    if (error.isEmpty()) {
        emit fetched(id, data, error);
        return;
    }
    // The runner ended or was replaced under the fetch: say so as a fetch before it would.
    const QString where = keptWhere();
    if (const QString why = keptGoneReason(asked.run); !why.isEmpty())
        emit fetched(id, {}, keptOutputGoneMessage(where, why));
    else
        emit fetched(id, {},
                     QStringLiteral("fetching '%1' from %2: %3").arg(asked.buffer, where, error));
}

void RunnerClient::setPreparationLimitMs(int ms) {
    m_runner->setPreparationLimitMs(ms);
}

bool RunnerClient::isRunning() const {
    return m_runner->hasActiveRun() || m_sanitized;
}

qint64 RunnerClient::runnerPid() const {
    return m_runner->pid();
}

int RunnerClient::startCount() const {
    return m_runner->startCount();
}

void RunnerClient::warmUp() {
    QString ignored;
    m_runner->start(&ignored);
}

void RunnerClient::run(quint64 id, const RunRequest& request) {
    if (isRunning()) {
        RunResult busy;
        busy.status = RunStatus::BadInput;
        busy.error = QStringLiteral("a run is already in progress");
        emit runFinished(id, busy);
        return;
    }
    if (request.sanitizer != SanitizerTool::None) {
        if (!m_runner->spec().isLocal()) {
            RunResult r;
            r.status = RunStatus::BadInput;
            r.error = QStringLiteral("compute-sanitizer runs need the runner on this computer; "
                                     "the chosen runner is %1")
                          .arg(m_runner->spec().displayName());
            r.sanitizerTool = request.sanitizer;
            emit runFinished(id, r);
            return;
        }
        runSanitized(id, request);
        return;
    }
    m_lastRun = id;
    m_runner->run(id, request);
}

void RunnerClient::requestDevices(quint64 id) {
    m_runner->requestDevices(id);
}

void RunnerClient::requestResources(quint64 id, const RunRequest& request) {
    m_runner->requestResources(id, request);
}

void RunnerClient::requestCompile(quint64 id, const RunRequest& request,
                                  const QByteArray& program) {
    m_runner->requestCompile(id, request, program);
}

void RunnerClient::requestProgram(quint64 id, const RunRequest& request, const QString& arch) {
    m_runner->requestProgram(id, request, arch);
}

void RunnerClient::cancel() {
    if (m_sanitized)
        m_sanitized->cancel();
    else
        m_runner->cancel();
}

void RunnerClient::runSanitized(quint64 id, const RunRequest& request) {
    const auto fail = [&](const QString& message) {
        RunResult r;
        r.status = RunStatus::BadInput;
        r.error = message;
        r.sanitizerTool = request.sanitizer;
        emit runFinished(id, r);
    };
    QStringList searched;
    const QString sanitizer =
        m_sanitizerPath.isEmpty() ? findComputeSanitizer(&searched) : m_sanitizerPath;
    if (sanitizer.isEmpty())
        return fail(sanitizerNotFoundMessage(searched));
    if (m_runner->program().isEmpty()) {
        (void)findRunner(&searched);
        return fail(
            QStringLiteral("KernelPad's runner (kernelpad-cli) was not found; looked in: %1")
                .arg(searched.join(QStringLiteral(", "))));
    }
    m_sanitized = new SanitizerRun(sanitizer, m_runner->program(), m_runner->arguments(),
                                   m_runner->preparationLimitMs(), this);
    connect(m_sanitized, &SanitizerRun::progress, this, &RunnerClient::runProgress);
    connect(m_sanitized, &SanitizerRun::finished, this, &RunnerClient::onSanitizedFinished);
    QString error;
    if (!m_sanitized->start(id, request, &error)) {
        delete m_sanitized;
        m_sanitized = nullptr;
        fail(error);
    }
}

void RunnerClient::onSanitizedFinished(quint64 id, const RunResult& result) {
    if (!m_sanitized)
        return;
    m_sanitized->disconnect(this);
    m_sanitized->deleteLater();
    m_sanitized = nullptr;
    emit runFinished(id, result);
}

} // namespace kernelpad
