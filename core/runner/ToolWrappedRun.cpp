#include "core/runner/ToolWrappedRun.h"

#include <utility>

namespace kernelpad {

ToolWrappedRun::ToolWrappedRun(QString toolName, QObject* parent)
    : QObject(parent)
    , m_toolName(std::move(toolName)) {}

ToolWrappedRun::~ToolWrappedRun() = default; // the connection, a child, kills its process group

void ToolWrappedRun::start(quint64 id, const WrappedCommand& command, const RunRequest& request) {
    if (m_connection) {
        m_connection->disconnect(this);
        m_connection->deleteLater();
    }
    m_id = id;
    m_result.reset();
    m_killReason = StopReason::None;
    m_wall.start();
    m_connection = new RunnerConnection(this);
    // Its own process group: stopping it stops the tool and the runner it started.
    m_connection->setOwnProcessGroup(true);
    m_connection->setCommand(command.tool, QStringList(command.toolArguments)
                                               << command.runner << command.runnerArguments);
    m_connection->setPreparationLimitMs(command.preparationLimitMs);
    connect(m_connection, &RunnerConnection::runProgress, this, &ToolWrappedRun::progress);
    connect(m_connection, &RunnerConnection::runFinished, this, &ToolWrappedRun::onResult);
    connect(m_connection, &RunnerConnection::killed, this,
            [this](StopReason reason) { m_killReason = reason; });
    connect(m_connection, &RunnerConnection::exited, this, &ToolWrappedRun::onExited);
    m_connection->run(id, request);
}

void ToolWrappedRun::cancel() {
    if (m_connection)
        m_connection->cancel();
}

void ToolWrappedRun::onResult(quint64 id, const RunResult& result) {
    if (!m_connection || id != m_id || m_result)
        return;
    m_result = result;
    // The tool's report is complete only once it has exited; a runner this side stopped is
    // already gone, and shutdown() then answers at once.
    m_connection->shutdown();
}

void ToolWrappedRun::onExited() {
    if (!m_connection)
        return;
    m_connection->disconnect(this);
    m_connection->deleteLater();
    m_connection = nullptr;
    emit ended();
}

QString ToolWrappedRun::killedNote() const {
    switch (m_killReason) {
    case StopReason::Timeout:
        return QStringLiteral("%1 was stopped with the runner when the run passed its time "
                              "limit, so its report covers only what ran until then.")
            .arg(m_toolName);
    case StopReason::Cancel:
        return QStringLiteral("%1 was stopped with the runner when the run was cancelled, so "
                              "its report covers only what ran until then.")
            .arg(m_toolName);
    case StopReason::None:
    case StopReason::Switch:
    case StopReason::Protocol:
    case StopReason::Poisoned:
    case StopReason::Start:
    case StopReason::Shutdown:
        break;
    }
    return {};
}

} // namespace kernelpad
