#include "core/compile/Program.h"

#include "core/compile/CompilePhases.h"
#include "core/compile/CompileWatchdog.h"
#include "core/compile/Diagnostics.h"
#include "core/compile/IncludeResolver.h"
#include "core/compile/KernelNames.h"
#include "core/compile/NvrtcApi.h"
#include "core/compile/PrecompiledHeaders.h"
#include "core/compile/ProjectGlobals.h"
#include "core/compile/PtxAssembler.h"
#include "core/compile/PtxParser.h"
#include "core/compile/Toolkit.h"
#include "core/io/ControlChars.h"

#include <QDir>
#include <QFile>
#include <QHash>

#include <chrono>
#include <climits>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kernelpad {

namespace {

/// Owns an nvrtcProgram: destroyed on every path out of compile().
class NvrtcProgramHandle {
public:
    explicit NvrtcProgramHandle(const NvrtcApi& api)
        : m_api(api) {}
    NvrtcProgramHandle(const NvrtcProgramHandle&) = delete;
    NvrtcProgramHandle& operator=(const NvrtcProgramHandle&) = delete;
    ~NvrtcProgramHandle() {
        if (m_program)
            m_api.nvrtcDestroyProgram(&m_program); // nothing useful to do with a failure here
    }
    [[nodiscard]] nvrtcProgram get() const { return m_program; }
    [[nodiscard]] nvrtcProgram* out() { return &m_program; }

private:
    const NvrtcApi& m_api;
    nvrtcProgram m_program = nullptr;
};

Diagnostic plainError(const QString& message) {
    Diagnostic diagnostic;
    diagnostic.severity = Diagnostic::Severity::Error;
    diagnostic.message = message;
    return diagnostic;
}

QString nvrtcErrorText(const NvrtcApi& api, nvrtcResult result) {
    return QString::fromUtf8(api.nvrtcGetErrorString(result));
}

QString programLog(const NvrtcApi& api, nvrtcProgram program) {
    size_t size = 0;
    if (api.nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1)
        return {};
    std::string log(size, '\0');
    if (api.nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS)
        return {};
    return QString::fromUtf8(log.c_str()); // size includes the terminating NUL
}

QString programPtx(const NvrtcApi& api, nvrtcProgram program) {
    size_t size = 0;
    if (api.nvrtcGetPTXSize(program, &size) != NVRTC_SUCCESS || size <= 1)
        return {};
    std::string ptx(size, '\0');
    if (api.nvrtcGetPTX(program, ptx.data()) != NVRTC_SUCCESS)
        return {};
    return QString::fromUtf8(ptx.c_str());
}

QByteArray programCubin(const NvrtcApi& api, nvrtcProgram program) {
    size_t size = 0;
    // NVRTC gives no CUBIN for a virtual arch (compute_XY); that is not an error.
    if (api.nvrtcGetCUBINSize(program, &size) != NVRTC_SUCCESS || size == 0)
        return {};
    QByteArray cubin(static_cast<qsizetype>(size), '\0');
    if (api.nvrtcGetCUBIN(program, cubin.data()) != NVRTC_SUCCESS)
        return {};
    return cubin;
}

/// One NVRTC compile with everything it reads and writes: run on a thread of its own that may
/// outlive the compile() that started it (CompileWatchdog.h), so it shares nothing else.
struct NvrtcJob {
    const NvrtcApi* api = nullptr; // loaded once, never unloaded
    QByteArray source;
    QByteArray name;
    QVector<ResolvedHeader> headers;
    QStringList flags;
    QStringList nameExpressions;
    PchTicket pch; ///< its flags are added to `flags`; released when NVRTC returns

    QString failure; ///< NVRTC could not take the program; then failureDiagnostics
    QVector<Diagnostic> failureDiagnostics;
    nvrtcResult compiled = NVRTC_ERROR_INTERNAL_ERROR;
    QString log;
    QString ptx;
    QByteArray cubin;
    decltype(CompileResult::loweredNames) loweredNames;
    QString pchUse;          ///< "created", "used" or empty (takePchMessages)
    bool timePhases = false; ///< a CompilePhaseRecorder waits for `phases`
    QString timeFile;        ///< NVRTC's --time file, when the recorder asks for it
    QVector<CompilePhase> phases;

    void run() {
        PhaseClock clock(timePhases);
        compile(clock);
        clock.mark(QStringLiteral("nvrtcDestroyProgram"));
        pch.release();
        phases = clock.phases();
    }

    void compile(PhaseClock& clock) {
        const NvrtcApi& nvrtc = *api;
        NvrtcProgramHandle program(nvrtc);
        std::vector<QByteArray> headerNames;
        std::vector<const char*> headerNamePointers;
        std::vector<const char*> headerPointers;
        for (const ResolvedHeader& header : std::as_const(headers)) {
            headerNames.push_back(header.includeName.toUtf8());
            headerPointers.push_back(header.bytes.constData()); // a QByteArray ends with a NUL
        }
        for (const QByteArray& headerName : headerNames)
            headerNamePointers.push_back(headerName.constData());
        const nvrtcResult created = nvrtc.nvrtcCreateProgram(
            program.out(), source.constData(), name.constData(), int(headerPointers.size()),
            headerPointers.data(), headerNamePointers.data());
        clock.mark(QStringLiteral("nvrtcCreateProgram"));
        if (created != NVRTC_SUCCESS) {
            failure = QStringLiteral("NVRTC could not create the program: ") +
                      nvrtcErrorText(nvrtc, created);
            return;
        }
        for (const QString& expression : std::as_const(nameExpressions)) {
            const nvrtcResult added =
                nvrtc.nvrtcAddNameExpression(program.get(), expression.toUtf8().constData());
            if (added != NVRTC_SUCCESS) {
                failure = QStringLiteral("name expression \"%1\": %2")
                              .arg(expression, nvrtcErrorText(nvrtc, added));
                failureDiagnostics.append(plainError(failure));
                return;
            }
        }
        std::vector<QByteArray> flagBytes;
        std::vector<const char*> flagPointers;
        flagBytes.reserve(size_t(flags.size()));
        QStringList allFlags = flags + pch.flags();
        if (!timeFile.isEmpty())
            allFlags << QStringLiteral("--time=") + timeFile;
        for (const QString& flag : std::as_const(allFlags))
            flagBytes.push_back(flag.toUtf8());
        for (const QByteArray& flag : flagBytes)
            flagPointers.push_back(flag.constData());
        if (const std::function<void()> hook = beforeNvrtcCompileHook())
            hook();
        clock.mark(QStringLiteral("name expressions, flags"));
        compiled =
            nvrtc.nvrtcCompileProgram(program.get(), int(flagPointers.size()), flagPointers.data());
        clock.mark(QStringLiteral("nvrtcCompileProgram"));
        log = programLog(nvrtc, program.get());
        if (pch.active())
            notePch(nvrtc, program.get());
        clock.mark(QStringLiteral("program log, PCH status"));
        if (compiled != NVRTC_SUCCESS)
            return;
        ptx = programPtx(nvrtc, program.get());
        clock.mark(QStringLiteral("nvrtcGetPTX"));
        cubin = programCubin(nvrtc, program.get());
        clock.mark(QStringLiteral("nvrtcGetCUBIN"));
        for (const QString& expression : std::as_const(nameExpressions)) {
            const char* lowered = nullptr;
            if (nvrtc.nvrtcGetLoweredName(program.get(), expression.toUtf8().constData(),
                                          &lowered) == NVRTC_SUCCESS &&
                lowered)
                loweredNames.append({expression, QString::fromUtf8(lowered)});
        }
        clock.mark(QStringLiteral("nvrtcGetLoweredName"));
    }

    void notePch(const NvrtcApi& nvrtc, nvrtcProgram program) {
        pchUse = takePchMessages(&log);
        const nvrtcResult status = nvrtc.nvrtcGetPCHCreateStatus(program);
        size_t required = 0;
        if (status == NVRTC_SUCCESS || status == NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED)
            (void)nvrtc.nvrtcGetPCHHeapSizeRequired(program, &required);
        notePchCompile(pch, pchUse, int(status), required);
    }
};

/// Names each PTX entry as the user knows it, and marks pointer parameters that the PTX does
/// not mark (NVRTC 13 emits plain `.u64` for pointers) from the demangled signature.
void nameKernels(CompileResult* result) {
    for (KernelInfo& kernel : result->kernels) {
        kernel.name.clear();
        for (const auto& [expression, lowered] : std::as_const(result->loweredNames)) {
            if (lowered == kernel.lowered) {
                kernel.name = expression;
                break;
            }
        }
        if (kernel.name.isEmpty())
            kernel.name = kernelDisplayName(kernel.lowered);

        const bool mangled = !demangle(kernel.lowered).isEmpty();
        const QStringList types = demangledParameterTypes(kernel.lowered);
        for (qsizetype i = 0; i < kernel.params.size(); ++i) {
            PtxParam& param = kernel.params[i];
            if (mangled && types.size() == kernel.params.size())
                param.isPointer = param.isPointer || isPointerType(types.at(i));
            else if (!mangled) // extern "C": a 64-bit integer parameter is most likely a
                               // pointer, unless hand-written PTX names it like a size
                param.isPointer =
                    param.isPointer ||
                    ((param.ptxType == QLatin1String(".u64") ||
                      param.ptxType == QLatin1String(".b64")) &&
                     !ptxNameLooksLikeCount(ptxParameterName(kernel.lowered, param.name)));
        }
    }
}

/// An error at the first NUL character of `source`, if any: nvrtcCreateProgram takes a C
/// string, so NVRTC would silently compile only the text before it.
std::optional<Diagnostic> nulCharacter(const QString& source, const QString& name) {
    const qsizetype at = source.indexOf(QChar(u'\0'));
    if (at < 0)
        return std::nullopt;
    const qsizetype lineStart = source.lastIndexOf(u'\n', at) + 1;
    Diagnostic diagnostic;
    diagnostic.file = name;
    diagnostic.line = int(qMin<qsizetype>(source.left(at).count(u'\n') + 1, INT_MAX));
    diagnostic.column = int(qMin<qsizetype>(at - lineStart + 1, INT_MAX));
    diagnostic.message = QStringLiteral("the source contains a NUL character; NVRTC would "
                                        "silently ignore everything after it");
    return diagnostic;
}

/// The flags NVRTC gets: no -I of a project folder, whose headers come in memory. The
/// toolkit's folders stay on its path: it finds the toolkit's headers itself, which keeps
/// thousands of CCCL headers from being read and copied for every compile.
QStringList nvrtcFlags(ProgramOptions options, const QString& arch) {
    options.includeDirs.clear();
    return options.toFlags(arch);
}

/// NVRTC names the source and each header by the absolute name it was given; the log shows
/// the source's name and where each header was found, as when NVRTC opened them itself. An
/// error inside KernelPad's header for a standard name (the #error of <iostream>) is shown at
/// the directive that included it: the user wrote that line, not the header.
QString showNames(const QString& log, const ResolvedIncludes& includes, const QString& shownName) {
    QHash<QString, QString> shown{{includes.mainName, shownName}};
    QHash<QString, IncludeSite> standard;
    for (const ResolvedHeader& header : includes.headers) {
        shown.insert(header.includeName, QDir::toNativeSeparators(header.path));
        if (header.standardAt)
            standard.insert(header.includeName, *header.standardAt);
    }
    QStringList lines = log.split(u'\n');
    for (QString& line : lines) {
        // "NAME(LINE): error: ..." and "... in the compilation of "NAME"."
        const qsizetype open = line.indexOf(u'(');
        const qsizetype close = line.indexOf(u')', open);
        if (const auto site = standard.constFind(line.left(open));
            open > 0 && close > open && site != standard.cend()) {
            line.replace(
                0, close + 1,
                QStringLiteral("%1(%2)").arg(QDir::toNativeSeparators(site->file)).arg(site->line));
        } else if (const auto name = shown.constFind(line.left(open));
                   open > 0 && name != shown.cend())
            line.replace(0, open, *name);
        line.replace(QLatin1Char('"') + includes.mainName + QLatin1Char('"'),
                     QLatin1Char('"') + shownName + QLatin1Char('"'));
    }
    return lines.join(u'\n');
}

/// Where the headers of a program with `baseDir` may come from; without one, the working
/// directory is the project folder (where NVRTC used to look for the main source's headers).
IncludeRoots rootsFor(const QString& baseDir, const QStringList& includeDirs) {
    return projectIncludeRoots(baseDir.isEmpty() ? QDir::currentPath() : baseDir, includeDirs);
}

/// The module's globals, each with its type as the source declares it and whether the
/// project declares it (ProjectGlobals.h): its source and project headers, not the toolkit's
/// nor KernelPad's standard headers.
void readGlobals(CompileResult* result, const QString& source, const ResolvedIncludes& includes) {
    result->globals = parsePtxGlobals(result->ptx);
    const QHash<QString, QString> declared = declaredGlobalTypes(source);
    for (ModuleGlobal& global : result->globals)
        global.sourceType = declared.value(global.name.section(QStringLiteral("::"), -1));
    QStringList projectTexts{source};
    for (const ResolvedHeader& header : includes.headers) {
        if (!header.standardAt)
            projectTexts << QString::fromUtf8(header.bytes);
    }
    markProjectGlobals(&result->globals, projectTexts);
}

/// Runs NVRTC on `includes` with `flags`, with an automatic precompiled header when this
/// process has one free (PrecompiledHeaders.h), and once more without it when the PCH made the
/// compile fail (`pchNote` then says why, once per process). Null when the compile limit
/// abandoned it (`abandoned` says why).
std::shared_ptr<NvrtcJob> runNvrtc(const NvrtcApi& api, const ResolvedIncludes& includes,
                                   const QStringList& flags, const QStringList& nameExpressions,
                                   QString* abandoned, QString* pchNote, PhaseClock& clock) {
    const CompilePhaseRecorder* recorder = CompilePhaseRecorder::current();
    QStringList headerNames;
    QList<QByteArray> headerTexts;
    for (const ResolvedHeader& header : includes.headers) {
        headerNames << header.includeName;
        headerTexts << header.bytes;
    }
    const QByteArray headersDigest = pchHeadersDigest(headerNames, headerTexts);
    const auto makeJob = [&](bool withPch) {
        auto job = std::make_shared<NvrtcJob>();
        job->api = &api;
        job->source = includes.mainSource.toUtf8();
        job->name = includes.mainName.toUtf8();
        job->headers = includes.headers;
        job->flags = flags;
        job->nameExpressions = nameExpressions;
        job->timePhases = clock.enabled();
        if (recorder && recorder->nvrtcTimes()) {
            job->timeFile = recorder->nvrtcTimeFile();
            QFile::remove(job->timeFile); // NVRTC appends to it
        }
        if (withPch)
            job->pch = takePchTicket(api, flags, includes.mainSource, headersDigest);
        clock.mark(withPch ? QStringLiteral("job, PCH ticket")
                           : QStringLiteral("job again without PCH"));
        return job;
    };
    const auto run = [&](const std::shared_ptr<NvrtcJob>& job) {
        const bool finished = runWithinCompileLimit([job] { job->run(); }, abandoned);
        clock.mark(QStringLiteral("NVRTC thread, started to joined"));
        if (finished) { // else the job is still running and its phases not written
            clock.append(job->phases, QStringLiteral("  "));
            if (!job->timeFile.isEmpty())
                clock.append(readNvrtcTimeFile(job->timeFile), QStringLiteral("    "));
        }
        return finished;
    };
    std::shared_ptr<NvrtcJob> job = makeJob(true);
    if (!run(job))
        return nullptr;
    if (job->compiled != NVRTC_SUCCESS && job->failure.isEmpty() && job->pch.active() &&
        isPchFailure(job->log)) {
        *pchNote = notePchFailure(job->pch, job->log);
        job = makeJob(false);
        if (!run(job))
            return nullptr;
    }
    return job;
}

/// Hands a compile's phases to its recorder on every way out of Program::compile().
struct PhaseFlush {
    PhaseClock& clock;
    CompilePhaseRecorder* recorder;
    ~PhaseFlush() {
        if (recorder)
            recorder->append(clock.phases());
    }
};

/// Adds `note` ("note: ...") to the end of the log and to the diagnostics.
void addLogNote(CompileResult* result, const QString& note) {
    if (!result->log.isEmpty() && !result->log.endsWith(QLatin1Char('\n')))
        result->log += QLatin1Char('\n');
    result->log += note + QLatin1Char('\n');
    Diagnostic diagnostic;
    diagnostic.severity = Diagnostic::Severity::Note;
    diagnostic.message = note.mid(int(qstrlen("note: ")));
    result->diagnostics.append(diagnostic);
}

} // namespace

Program::Program(QString source, QString name, ProgramOptions options, QString baseDir,
                 SourceLanguage language)
    : m_source(std::move(source))
    , m_name(std::move(name))
    , m_options(std::move(options))
    , m_baseDir(std::move(baseDir))
    , m_language(language) {}

QString Program::compilerOf(SourceLanguage language) {
    const QString linkerVersion = nvJitLinkVersion();
    const QString linker = linkerVersion.isEmpty() ? QStringLiteral("nvJitLink not found")
                                                   : QStringLiteral("nvJitLink ") + linkerVersion;
    switch (language) {
    case SourceLanguage::Ptx:
        return linker;
    case SourceLanguage::Nvvm: {
        const QString nvvm = libNvvmVersion();
        return (nvvm.isEmpty() ? QStringLiteral("libNVVM (not found)")
                               : QStringLiteral("libNVVM ") + nvvm) +
               QStringLiteral(", ") + linker;
    }
    case SourceLanguage::Cuda:
        break;
    }
    const QString version = nvrtcVersion();
    return version.isEmpty() ? QStringLiteral("NVRTC not found")
                             : QStringLiteral("NVRTC ") + version;
}

CompileResult Program::compileLowLevel(CompileResult result) const {
    const auto started = std::chrono::steady_clock::now();
    result.language = m_language;
    result.compiler = compilerOf(m_language);
    result.diagnostics = ignoredOptions(m_options, m_language);
    const bool virtualArch = isVirtualArch(result.arch);
    bool ok = true;
    if (m_language == SourceLanguage::Nvvm) {
        ok = compileNvvm(m_source.toUtf8(), m_name, m_options, &result);
    } else {
        result.ptx = m_source;
        if (virtualArch) // the driver's JIT assembles it when the runner loads the module
            result.flags = QStringList{QStringLiteral("-arch=") + result.arch};
    }
    if (ok && !virtualArch) {
        const QString log = result.log;
        const QStringList flags = result.flags;
        ok = assemblePtx(result.ptx.toUtf8(), m_name, m_options, &result);
        if (m_language == SourceLanguage::Nvvm) { // keep libNVVM's part of the story
            result.flags = flags + result.flags;
            if (!log.isEmpty())
                result.log =
                    log + (result.log.isEmpty() ? QString() : QStringLiteral("\n")) + result.log;
        }
    }
    if (ok) {
        result.kernels = parsePtxEntries(result.ptx);
        nameKernels(&result);
        result.globals = parsePtxGlobals(result.ptx);
        result.ok = true;
    }
    result.compileMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    result.nvrtcMs = result.compileMs;
    return result;
}

QString Program::nvrtcVersion() {
    const NvrtcApi* api = NvrtcApi::load();
    int major = 0;
    int minor = 0;
    if (!api || api->nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
        return {};
    return QStringLiteral("%1.%2").arg(major).arg(minor);
}

CompileResult Program::compile(const QString& arch, const QStringList& nameExpressions) const {
    CompilePhaseRecorder* const recorder = CompilePhaseRecorder::current();
    PhaseClock clock(recorder != nullptr);
    const PhaseFlush flush{clock, recorder};
    CompileResult result;
    result.nvrtcVersion = nvrtcVersion();
    result.arch =
        !arch.isEmpty() ? arch : m_options.arch.value_or(QString::fromLatin1(kDefaultArch));

    QString invalid = m_options.validate();
    if (invalid.isEmpty())
        invalid = archProblem(result.arch);
    if (!invalid.isEmpty()) {
        result.diagnostics.append(plainError(QStringLiteral("ProgramOptions: ") + invalid));
        return result;
    }

    const QString shownName = m_name.isEmpty() ? QStringLiteral("kernel.cu") : m_name;
    // The name reaches NVRTC's log lines (and, before --time was refused, a file).
    if (const QString bad = controlCharacterError(QStringLiteral("sourceName"), shownName);
        !bad.isEmpty()) {
        result.diagnostics.append(plainError(bad));
        return result;
    }
    if (m_language != SourceLanguage::Cuda) {
        // No preprocessor, so no includes to check; NUL characters are passed on by size.
        Program named = *this;
        named.m_name = shownName;
        return named.compileLowLevel(std::move(result));
    }
    // Before the include checks, which look for headers in a toolkit that is not here either.
    QString notLoaded;
    const NvrtcApi* loaded = NvrtcApi::load(&notLoaded);
    if (!loaded) {
        // Both places the window and the CLI show a failed compile: its error and its list.
        result.error = notLoaded;
        result.compilerMissing = true;
        result.compiler = compilerOf(m_language); // "NVRTC not found"
        result.diagnostics.append(plainError(notLoaded));
        return result;
    }
    const NvrtcApi& api = *loaded;
    if (std::optional<Diagnostic> nul = nulCharacter(m_source, shownName)) {
        result.diagnostics.append(*nul);
        return result;
    }

    clock.mark(QStringLiteral("checks: options, name, NVRTC loaded, NUL"));
    const auto started = std::chrono::steady_clock::now();
    const ResolvedIncludes includes =
        resolveIncludes(m_source, shownName, rootsFor(m_baseDir, m_options.includeDirs));
    clock.mark(QStringLiteral("include scan (project headers read)"));
    if (includes.problem) {
        Diagnostic diagnostic = plainError(includes.problem->message);
        diagnostic.file = includes.problem->file;
        diagnostic.line = includes.problem->line;
        diagnostic.column = includes.problem->column;
        result.diagnostics.append(diagnostic);
        return result;
    }
    result.flags = nvrtcFlags(m_options, result.arch);
    clock.mark(QStringLiteral("flags"));

    QString abandoned;
    QString pchNote;
    const std::shared_ptr<NvrtcJob> job =
        runNvrtc(api, includes, result.flags, nameExpressions, &abandoned, &pchNote, clock);
    if (!job) {
        result.error = abandoned;
        result.diagnostics.append(plainError(abandoned));
        return result;
    }
    if (!job->failure.isEmpty()) {
        if (job->failureDiagnostics.isEmpty())
            result.error = job->failure;
        result.diagnostics = job->failureDiagnostics;
        return result;
    }
    const nvrtcResult compiled = job->compiled;
    result.log = showNames(job->log, includes, shownName);
    result.diagnostics = parseNvrtcLog(result.log);
    if (!pchNote.isEmpty())
        addLogNote(&result, pchNote);
    clock.mark(QStringLiteral("log: names, diagnostics"));

    if (compiled == NVRTC_SUCCESS) {
        result.ptx = job->ptx;
        result.cubin = job->cubin;
        result.loweredNames = job->loweredNames;
        result.kernels = parsePtxEntries(result.ptx);
        clock.mark(QStringLiteral("PTX entries"));
        nameKernels(&result);
        clock.mark(QStringLiteral("kernel names"));
        readGlobals(&result, m_source, includes);
        clock.mark(QStringLiteral("PTX globals"));
        result.ok = true;
    } else {
        if (compiled == NVRTC_ERROR_INVALID_OPTION) {
            // NVRTC's message names the option but not the value the user gave.
            for (Diagnostic& diagnostic : result.diagnostics) {
                if (diagnostic.message.contains(QLatin1String("gpu-architecture")))
                    diagnostic.message += QStringLiteral(" (arch \"%1\")").arg(result.arch);
            }
        }
        if (result.errorCount() == 0) // a failure the log does not explain
            result.diagnostics.append(
                plainError(QStringLiteral("NVRTC: ") + nvrtcErrorText(api, compiled)));
    }
    result.compileMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    result.nvrtcMs = result.compileMs;
    return result;
}

} // namespace kernelpad
