#include "core/runner/SanitizerRun.h"

#include "core/compile/Toolkit.h"
#include "core/runner/SanitizerLogParser.h"
#include "core/runner/ToolWrappedRun.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <climits>

namespace kernelpad {
namespace {

/// compute-sanitizer's own start (it injects itself into the runner) and the instrumentation
/// of the module come on top of the usual preparation time.
constexpr int kSanitizerStartupMs = 60000;
/// A sanitizer log is bounded by --print-limit; anything beyond this is not a report.
constexpr qint64 kMaxSanitizerLogBytes = qint64(16) << 20;

} // namespace

QString findComputeSanitizer(QStringList* searched) {
    // The toolkit keeps it in a folder of its own, with a link in bin/ in some layouts.
    const ToolkitProgram program = findToolkitProgram(
        QStringLiteral("compute-sanitizer"), qEnvironmentVariable("KERNELPAD_COMPUTE_SANITIZER"),
        {QStringLiteral("compute-sanitizer"), QStringLiteral("bin")});
    if (searched)
        *searched = program.found() ? QStringList() : program.looked;
    return program.path;
}

QString sanitizerNotFoundMessage(const QStringList& searched) {
    return QStringLiteral(
               "compute-sanitizer was not found, so the memory check cannot run; looked in: %1. "
               "It ships with the CUDA toolkit (install it there or put it on PATH, or set "
               "KERNELPAD_COMPUTE_SANITIZER to its path).")
        .arg(searched.join(QStringLiteral(", ")));
}

QStringList sanitizerArguments(SanitizerTool tool, const QString& logFile) {
    QStringList args{QStringLiteral("--tool"), sanitizerToolName(tool),
                     // The log keeps the report out of the runner's stdout, which is the protocol.
                     QStringLiteral("--log-file"), logFile, QStringLiteral("--print-limit"),
                     QString::number(kSanitizerPrintLimit),
                     // Errors are read from the log; the exit code stays the runner's own.
                     QStringLiteral("--error-exitcode"), QStringLiteral("0"),
                     // A run that fails before touching CUDA (bad input) is not a tool error.
                     QStringLiteral("--require-cuda-init"), QStringLiteral("no"),
                     // The runner probes cuFuncGetParamInfo past the last parameter on purpose
                     // (it answers CUDA_ERROR_INVALID_VALUE there); a kernel fault is reported on
                     // its own, and the run's status carries the failed call after it.
                     QStringLiteral("--report-api-errors"), QStringLiteral("no"),
                     // Host frames are the runner's cuLaunchKernel, never the user's code.
                     QStringLiteral("--show-backtrace"), QStringLiteral("device")};
    if (tool == SanitizerTool::Memcheck)
        args << QStringLiteral("--padding") << QString::number(kSanitizerPaddingBytes);
    return args;
}

RunRequest SanitizerRun::sanitizedRequest(const RunRequest& request) {
    RunRequest r = request;
    r.project.options.lineInfo = true;
    TimingSpec& t = r.project.timing;
    t.warmupLaunches = 0;
    t.repetitions = 1;
    t.adaptive = false;
    t.mode = TimingSpec::Mode::Hot; // a cold run's L2 flush would be sanitized too, for nothing
    // The sanitizer may serialise launches: one queued behind a spinning kernel would wait
    // for its timeout.
    t.blockingKernel = false;
    t.timeLimitMs = int(std::min<qint64>(qint64(t.timeLimitMs) * kSanitizerTimeScale, INT_MAX / 2));
    r.repetitions = 1;
    return r;
}

SanitizerRun::SanitizerRun(const QString& sanitizer, const QString& runner,
                           const QStringList& runnerArguments, int preparationLimitMs,
                           QObject* parent)
    : QObject(parent)
    , m_sanitizer(sanitizer)
    , m_runner(runner)
    , m_runnerArguments(runnerArguments)
    , m_preparationLimitMs(preparationLimitMs) {}

SanitizerRun::~SanitizerRun() = default; // the wrapped run, a child, kills its process group

bool SanitizerRun::start(quint64 id, const RunRequest& request, QString* error) {
    auto dir = std::make_unique<QTemporaryDir>(
        QDir::temp().filePath(QStringLiteral("kernelpad-sanitizer-XXXXXX")));
    if (!dir->isValid()) {
        *error =
            QStringLiteral(
                "cannot create a private temporary directory for compute-sanitizer's report: %1")
                .arg(dir->errorString());
        return false;
    }
    QFile::setPermissions(dir->path(),
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);

    m_dir = std::move(dir);
    m_request = request;
    if (m_run)
        m_run->deleteLater();
    m_run = new ToolWrappedRun(QStringLiteral("compute-sanitizer"), this);
    connect(m_run, &ToolWrappedRun::progress, this, &SanitizerRun::progress);
    connect(m_run, &ToolWrappedRun::ended, this, &SanitizerRun::finish);
    WrappedCommand command;
    command.tool = m_sanitizer;
    command.toolArguments =
        sanitizerArguments(request.sanitizer, m_dir->filePath(QStringLiteral("report.txt")));
    command.runner = m_runner;
    command.runnerArguments = m_runnerArguments;
    command.preparationLimitMs = m_preparationLimitMs + kSanitizerStartupMs;
    m_run->start(id, command, sanitizedRequest(request));
    return true;
}

void SanitizerRun::cancel() {
    if (m_run)
        m_run->cancel();
}

void SanitizerRun::finish() {
    if (!m_run)
        return;
    const std::optional<RunResult>& result = m_run->result();
    RunResult r = result.value_or(RunResult{});
    if (!result) {
        r.status = RunStatus::CudaError;
        r.error = QStringLiteral("the runner under compute-sanitizer ended without a result");
    }
    const SanitizerTool tool = m_request.sanitizer;
    const QString toolName = sanitizerToolName(tool);
    r.sanitizerTool = tool;
    QStringList notes{
        QStringLiteral(
            "Ran once under compute-sanitizer %1 (1 repetition, no warm-up): a sanitized "
            "kernel runs 10-100x slower, so these times say nothing about its speed.")
            .arg(toolName)};
    // A tool this side stopped (cancel, time limit) wrote at most part of its report.
    if (const QString killed = m_run->killedNote(); !killed.isEmpty())
        notes << killed;
    QFile log(m_dir ? m_dir->filePath(QStringLiteral("report.txt")) : QString());
    if (log.open(QIODevice::ReadOnly)) {
        const SanitizerLog parsed = SanitizerLogParser::parse(
            QString::fromUtf8(log.read(kMaxSanitizerLogBytes)), m_request.project.sourceName);
        r.sanitizer = parsed.reports;
        r.sanitizerErrors = parsed.errorCount;
        if (parsed.errorCount < 0)
            notes << QStringLiteral("compute-sanitizer ended before writing its summary; the "
                                    "reports may be incomplete.");
        if (parsed.notPrinted > 0)
            notes << QStringLiteral("%1 further errors were not printed (print limit %2).")
                         .arg(parsed.notPrinted)
                         .arg(kSanitizerPrintLimit);
        for (const QString& m : parsed.toolMessages)
            notes << QStringLiteral("compute-sanitizer: %1").arg(m);
    } else {
        r.sanitizerErrors = -1;
        notes << QStringLiteral("compute-sanitizer wrote no report (%1).").arg(log.errorString());
    }
    r.sanitizerNote = notes.join(QLatin1Char(' '));
    const int errors = r.sanitizerErrorCount();
    if (errors > 0 && (r.status == RunStatus::Ok || r.status == RunStatus::VerificationFailed ||
                       r.status == RunStatus::CudaError)) {
        // The run may have looked fine (memcheck stops a bad access before it lands) or failed
        // with a bare launch failure: either way the report says where, so it comes first.
        const QString runError = r.error;
        r.status = RunStatus::CudaError;
        const SanitizerReport* first = r.sanitizer.isEmpty() ? nullptr : &r.sanitizer.first();
        QString firstText;
        if (first)
            firstText = QStringLiteral("; the first: %1%2")
                            .arg(first->line > 0
                                     ? QStringLiteral("%1:%2: ").arg(first->file).arg(first->line)
                                     : QString(),
                                 first->message());
        r.error = QStringLiteral("compute-sanitizer %1 reported %2 error(s) in '%3'%4.")
                      .arg(toolName)
                      .arg(errors)
                      .arg(m_request.project.kernel, firstText);
        if (!runError.isEmpty())
            r.error += QStringLiteral(" The run itself ended with: %1").arg(runError);
    }
    r.totalMs = m_run->elapsedMs();
    const quint64 id = m_run->id();
    m_run->disconnect(this);
    m_run->deleteLater();
    m_run = nullptr;
    m_dir.reset(); // removes report.txt with its folder
    emit finished(id, r);
}

} // namespace kernelpad
