#include "core/profile/ProfileRun.h"

#include "core/compile/ProgramOptions.h"
#include "core/profile/Ncu.h"
#include "core/run/ExecutionSession.h"
#include "core/runner/ToolWrappedRun.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <climits>

namespace kernelpad {
namespace {

/// ncu's own start (it injects itself into the runner) comes on top of the preparation time.
constexpr int kNcuStartupMs = 60000;
/// Each `ncu -i` of one launch's report takes about a second; this bounds a stuck one.
constexpr int kImportTimeoutMs = 60000;
/// ncu's log of one profiled run is a few KB; the tail kept for a details pane.
constexpr qint64 kMaxLogBytes = qint64(1) << 20;

} // namespace

ProfileRun::ProfileRun(const QString& ncu, const QString& runner,
                       const QStringList& runnerArguments, int preparationLimitMs, QObject* parent)
    : QObject(parent)
    , m_ncu(ncu)
    , m_runner(runner)
    , m_runnerArguments(runnerArguments)
    , m_preparationLimitMs(preparationLimitMs) {}

ProfileRun::~ProfileRun() = default; // the wrapped run, a child, kills its process group

RunRequest ProfileRun::profiledRequest(const RunRequest& request) {
    RunRequest r = request;
    r.project.options.lineInfo = true;
    TimingSpec& t = r.project.timing;
    t.warmupLaunches = 0;
    t.repetitions = 1;
    t.adaptive = false;
    t.mode = TimingSpec::Mode::Hot;
    // ncu serialises launches: one queued behind a spinning kernel would wait for its timeout.
    t.blockingKernel = false;
    t.timeLimitMs = int(std::min<qint64>(qint64(t.timeLimitMs) * kProfileTimeScale, INT_MAX / 2));
    r.repetitions = 1;
    r.sanitizer = SanitizerTool::None;
    r.measureCeiling = false;
    return r;
}

std::optional<QString> ProfileRun::loweredKernelName(const RunRequest& request, CompileCache* cache,
                                                     QString* error, RunStatus* status) {
    const Project& p = request.project;
    const QString arch = p.options.arch.value_or(QString::fromLatin1(kDefaultArch));
    const CompileResult compiled = compileProject(p, request.projectDir, arch, cache);
    if (!compiled.ok) {
        *status = RunStatus::CompileError;
        QString first;
        for (const Diagnostic& d : compiled.diagnostics)
            if (d.severity == Diagnostic::Severity::Error) {
                first = d.message;
                break;
            }
        *error = QStringLiteral("the project does not compile, so there is nothing to profile%1")
                     .arg(first.isEmpty() ? (compiled.log.isEmpty()
                                                 ? QString()
                                                 : QStringLiteral(": ") + compiled.log.left(500))
                                          : QStringLiteral(": ") + first);
        return std::nullopt;
    }
    const QString lowered = compiled.loweredName(p.kernel);
    if (lowered.isEmpty()) {
        *status = RunStatus::BadInput;
        *error = QStringLiteral("the kernel '%1' is not in the compiled module").arg(p.kernel);
        return std::nullopt;
    }
    return lowered;
}

bool ProfileRun::start(quint64 id, const RunRequest& request, ProfileSet set,
                       const QString& loweredName, QString* error) {
    auto dir = std::make_unique<QTemporaryDir>(
        QDir::temp().filePath(QStringLiteral("kernelpad-profile-XXXXXX")));
    if (!dir->isValid()) {
        *error = QStringLiteral("cannot create a private temporary directory for ncu's report: %1")
                     .arg(dir->errorString());
        return false;
    }
    QFile::setPermissions(dir->path(),
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    m_dir = std::move(dir);
    m_id = id;
    m_request = request;
    m_set = set;
    m_loweredName = loweredName;
    const QStringList ncuArgs =
        ncuProfileArguments(set, loweredName, m_dir->filePath(QStringLiteral("report")),
                            m_dir->filePath(QStringLiteral("ncu.log")));
    m_commandLine = QStringList{m_ncu} << ncuArgs << m_runner << m_runnerArguments;
    if (m_run)
        m_run->deleteLater();
    m_run = new ToolWrappedRun(QStringLiteral("ncu"), this);
    connect(m_run, &ToolWrappedRun::progress, this, &ProfileRun::progress);
    connect(m_run, &ToolWrappedRun::ended, this, &ProfileRun::finish);
    WrappedCommand command;
    command.tool = m_ncu;
    command.toolArguments = ncuArgs;
    command.runner = m_runner;
    command.runnerArguments = m_runnerArguments;
    command.preparationLimitMs = m_preparationLimitMs + kNcuStartupMs;
    m_run->start(id, command, profiledRequest(request));
    return true;
}

void ProfileRun::cancel() {
    if (m_run)
        m_run->cancel();
}

ProfileOutcome ProfileRun::outcome() {
    ProfileOutcome o;
    QFile logFile(m_dir ? m_dir->filePath(QStringLiteral("ncu.log")) : QString());
    QString log;
    if (logFile.open(QIODevice::ReadOnly)) {
        const qint64 size = logFile.size();
        if (size > kMaxLogBytes)
            logFile.seek(size - kMaxLogBytes);
        log = QString::fromUtf8(logFile.readAll());
    }
    o.ncuOutput = log;
    const NcuLogDiagnosis diagnosis = diagnoseNcuLog(log);
    const std::optional<RunResult>& answer = m_run->result();
    const RunResult result = answer.value_or(RunResult{});
    const auto fail = [&](ProfileStatus status, const QString& message) {
        o.status = status;
        o.error = message;
        o.runStatus = result.status;
        return o;
    };
    if (diagnosis.counterPermission)
        return fail(ProfileStatus::CounterPermission, counterPermissionMessage());
    if (!answer)
        return fail(ProfileStatus::Failed,
                    QStringLiteral("the runner under ncu ended without a result%1")
                        .arg(diagnosis.errors.isEmpty()
                                 ? QString()
                                 : QStringLiteral("; ncu said: ") +
                                       diagnosis.errors.join(QLatin1Char(' '))));
    if (result.status == RunStatus::Timeout)
        return fail(ProfileStatus::Timeout,
                    QStringLiteral("%1 (under ncu time limits are %2x the project's: each "
                                   "section replays the kernel)")
                        .arg(result.error)
                        .arg(kProfileTimeScale));
    if (result.status == RunStatus::Cancelled)
        return fail(ProfileStatus::Cancelled, result.error);
    // A verification failure still profiled the launch: the numbers stand, with a warning.
    if (result.status != RunStatus::Ok && result.status != RunStatus::VerificationFailed)
        return fail(ProfileStatus::KernelFailed, result.error);
    if (diagnosis.noKernelProfiled)
        return fail(ProfileStatus::NoKernelProfiled,
                    noKernelProfiledMessage(m_loweredName, diagnosis));
    const QString report = m_dir->filePath(QStringLiteral("report.ncu-rep"));
    if (!QFileInfo::exists(report))
        return fail(ProfileStatus::Failed,
                    QStringLiteral("ncu wrote no report%1")
                        .arg(diagnosis.errors.isEmpty()
                                 ? QString()
                                 : QStringLiteral(": ") + diagnosis.errors.join(QLatin1Char(' '))));
    emit progress(m_id, toString(RunStage::ReadingProfile), 0, 1);
    QString error;
    const std::optional<NcuPages> pages = importNcuReport(m_ncu, report, kImportTimeoutMs, &error);
    if (!pages)
        return fail(ProfileStatus::Failed, error);
    const QString sourceName = m_request.project.sourceName.isEmpty()
                                   ? QStringLiteral("kernel.cu")
                                   : m_request.project.sourceName;
    std::optional<ProfileReport> r =
        assembleProfileReport(*pages, sourceName, profileSetName(m_set), &error);
    if (!r)
        return fail(ProfileStatus::Failed, error);
    r->ncuVersion = ncuVersion(m_ncu);
    r->commandLine = m_commandLine;
    r->warnings = diagnosis.warnings + r->warnings;
    if (result.status == RunStatus::VerificationFailed)
        r->warnings.prepend(
            QStringLiteral("the profiled run did not verify: %1").arg(result.error));
    o.status = ProfileStatus::Ok;
    o.report = *r;
    return o;
}

void ProfileRun::finish() {
    if (!m_run)
        return;
    // A profile this side stopped (ToolWrappedRun::killReason) ends with the runner's
    // Timeout or Cancelled answer, which outcome() turns into the profile's status.
    const ProfileOutcome o = outcome();
    m_run->disconnect(this);
    m_run->deleteLater();
    m_run = nullptr;
    m_dir.reset(); // removes the report and the log with their folder
    emit finished(m_id, o);
}

} // namespace kernelpad
