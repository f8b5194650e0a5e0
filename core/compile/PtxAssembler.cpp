#include "core/compile/PtxAssembler.h"

#include "core/compile/NvrtcApi.h"
#include "core/compile/Toolkit.h"

#include <QFileInfo>
#include <QRegularExpression>

// nvJitLink is loaded like NVRTC (NvrtcApi.h), from the library path and the toolkit's lib64.
// libNVVM has its own loader below: toolkits keep it in nvvm/lib64, off the library path, and
// some installs leave it out, so a machine without it must still run KernelPad and hear where
// it was looked for.
#include <dlfcn.h>

#include <mutex>
#include <string>
#include <vector>

namespace kernelpad {

namespace {

Diagnostic positionless(Diagnostic::Severity severity, const QString& message,
                        const QString& file = {}) {
    Diagnostic diagnostic;
    diagnostic.file = file;
    diagnostic.severity = severity;
    diagnostic.message = message;
    return diagnostic;
}

Diagnostic::Severity severityOf(const QString& word) {
    if (word.startsWith(QLatin1String("warn")))
        return Diagnostic::Severity::Warning;
    if (word == QLatin1String("info"))
        return Diagnostic::Severity::Remark;
    return Diagnostic::Severity::Error;
}

/// Owns an nvJitLinkHandle: destroyed on every path out of assemblePtx().
class LinkHandle {
public:
    explicit LinkHandle(const NvJitLinkApi& api)
        : m_api(api) {}
    LinkHandle(const LinkHandle&) = delete;
    LinkHandle& operator=(const LinkHandle&) = delete;
    ~LinkHandle() {
        if (m_handle)
            m_api.destroy(&m_handle); // nothing useful to do with a failure here
    }
    [[nodiscard]] nvJitLinkHandle get() const { return m_handle; }
    [[nodiscard]] nvJitLinkHandle* out() { return &m_handle; }

private:
    const NvJitLinkApi& m_api;
    nvJitLinkHandle m_handle = nullptr;
};

QString linkLog(const NvJitLinkApi& api, nvJitLinkHandle handle, bool errors) {
    size_t size = 0;
    const nvJitLinkResult sized =
        errors ? api.getErrorLogSize(handle, &size) : api.getInfoLogSize(handle, &size);
    if (sized != NVJITLINK_SUCCESS || size <= 1)
        return {};
    std::string log(size, '\0');
    const nvJitLinkResult read =
        errors ? api.getErrorLog(handle, log.data()) : api.getInfoLog(handle, log.data());
    if (read != NVJITLINK_SUCCESS)
        return {};
    return QString::fromUtf8(log.c_str()).trimmed();
}

QString linkResultName(nvJitLinkResult result) {
    switch (result) {
    case NVJITLINK_SUCCESS:
        return QStringLiteral("NVJITLINK_SUCCESS");
    case NVJITLINK_ERROR_UNRECOGNIZED_OPTION:
        return QStringLiteral("NVJITLINK_ERROR_UNRECOGNIZED_OPTION");
    case NVJITLINK_ERROR_MISSING_ARCH:
        return QStringLiteral("NVJITLINK_ERROR_MISSING_ARCH");
    case NVJITLINK_ERROR_INVALID_INPUT:
        return QStringLiteral("NVJITLINK_ERROR_INVALID_INPUT");
    case NVJITLINK_ERROR_PTX_COMPILE:
        return QStringLiteral("NVJITLINK_ERROR_PTX_COMPILE");
    case NVJITLINK_ERROR_NVVM_COMPILE:
        return QStringLiteral("NVJITLINK_ERROR_NVVM_COMPILE");
    case NVJITLINK_ERROR_INTERNAL:
        return QStringLiteral("NVJITLINK_ERROR_INTERNAL");
    default:
        return QStringLiteral("nvJitLink error %1").arg(int(result));
    }
}

// --- libNVVM, loaded at run time -------------------------------------------------------------
// The few declarations of nvvm.h used here, so that building does not need the header either
// (some toolkits keep it in nvvm/include, some installs leave it out).
using NvvmResult = int; // nvvmResult; NVVM_SUCCESS is 0
using NvvmProgram = struct NvvmProgramOpaque*;
constexpr NvvmResult kNvvmSuccess = 0;

struct LibNvvm {
    NvvmResult (*version)(int*, int*) = nullptr;
    NvvmResult (*createProgram)(NvvmProgram*) = nullptr;
    NvvmResult (*destroyProgram)(NvvmProgram*) = nullptr;
    NvvmResult (*addModule)(NvvmProgram, const char*, size_t, const char*) = nullptr;
    NvvmResult (*compileProgram)(NvvmProgram, int, const char**) = nullptr;
    NvvmResult (*resultSize)(NvvmProgram, size_t*) = nullptr;
    NvvmResult (*result)(NvvmProgram, char*) = nullptr;
    NvvmResult (*logSize)(NvvmProgram, size_t*) = nullptr;
    NvvmResult (*log)(NvvmProgram, char*) = nullptr;
    const char* (*errorString)(NvvmResult) = nullptr;
    QString path;  ///< the file loaded
    QString where; ///< where it was looked for, when it was not found
};

QStringList libNvvmCandidates() {
    QStringList roots;
    const QString root = cudaToolkitRoot();
    if (!root.isEmpty())
        roots << root;
    roots << QStringLiteral("/usr/local/cuda");
#ifdef KERNELPAD_CUDA_ROOT
    roots << QStringLiteral(KERNELPAD_CUDA_ROOT);
#endif
    roots.removeDuplicates();
    QStringList files;
    for (const QString& r : std::as_const(roots))
        files << r + QStringLiteral("/nvvm/lib64/libnvvm.so")
              << r + QStringLiteral("/lib64/libnvvm.so");
    files.removeDuplicates();
    return files;
}

template <typename F> bool resolveNvvm(void* library, const char* name, F* out) {
    *out = reinterpret_cast<F>(dlsym(library, name));
    return *out != nullptr;
}

/// The process's libNVVM, loaded once; `path` empty when none was found.
const LibNvvm& libNvvm() {
    static LibNvvm nvvm;
    static std::once_flag once;
    std::call_once(once, [] {
        QStringList tried;
        void* library = nullptr;
        QString loaded;
        QStringList candidates = libNvvmCandidates();
        candidates << QStringLiteral("libnvvm.so.4") << QStringLiteral("libnvvm.so");
        QString lastError;
        for (const QString& candidate : std::as_const(candidates)) {
            const bool isPath = candidate.contains(QLatin1Char('/'));
            if (isPath && !QFileInfo::exists(candidate)) {
                tried << candidate;
                continue;
            }
            library = dlopen(candidate.toLocal8Bit().constData(), RTLD_NOW | RTLD_LOCAL);
            if (library) {
                loaded = candidate;
                break;
            }
            tried << (isPath ? candidate
                             : candidate + QStringLiteral(" (the system library path)"));
            lastError = QString::fromLocal8Bit(dlerror());
        }
        if (!library) {
            nvvm.where = tried.join(QStringLiteral(", "));
            if (!lastError.isEmpty())
                nvvm.where += QStringLiteral(" (%1)").arg(lastError);
            return;
        }
        LibNvvm found;
        const bool all = resolveNvvm(library, "nvvmVersion", &found.version) &&
                         resolveNvvm(library, "nvvmCreateProgram", &found.createProgram) &&
                         resolveNvvm(library, "nvvmDestroyProgram", &found.destroyProgram) &&
                         resolveNvvm(library, "nvvmAddModuleToProgram", &found.addModule) &&
                         resolveNvvm(library, "nvvmCompileProgram", &found.compileProgram) &&
                         resolveNvvm(library, "nvvmGetCompiledResultSize", &found.resultSize) &&
                         resolveNvvm(library, "nvvmGetCompiledResult", &found.result) &&
                         resolveNvvm(library, "nvvmGetProgramLogSize", &found.logSize) &&
                         resolveNvvm(library, "nvvmGetProgramLog", &found.log) &&
                         resolveNvvm(library, "nvvmGetErrorString", &found.errorString);
        if (!all) {
            nvvm.where = QStringLiteral("%1, which lacks the libNVVM entry points").arg(loaded);
            return; // left loaded: unloading a library the process may still map is not safe
        }
        nvvm = found;
        nvvm.path = loaded;
    });
    return nvvm;
}

/// Owns an nvvmProgram.
class NvvmHandle {
public:
    explicit NvvmHandle(const LibNvvm& nvvm)
        : m_nvvm(nvvm) {}
    NvvmHandle(const NvvmHandle&) = delete;
    NvvmHandle& operator=(const NvvmHandle&) = delete;
    ~NvvmHandle() {
        if (m_program)
            m_nvvm.destroyProgram(&m_program);
    }
    [[nodiscard]] NvvmProgram get() const { return m_program; }
    [[nodiscard]] NvvmProgram* out() { return &m_program; }

private:
    const LibNvvm& m_nvvm;
    NvvmProgram m_program = nullptr;
};

QString nvvmText(const LibNvvm& nvvm, NvvmProgram program, bool log) {
    size_t size = 0;
    if ((log ? nvvm.logSize(program, &size) : nvvm.resultSize(program, &size)) != kNvvmSuccess ||
        size <= 1)
        return {};
    std::string text(size, '\0');
    if ((log ? nvvm.log(program, text.data()) : nvvm.result(program, text.data())) != kNvvmSuccess)
        return {};
    return QString::fromUtf8(text.c_str());
}

std::vector<QByteArray> toBytes(const QStringList& list, std::vector<const char*>* pointers) {
    std::vector<QByteArray> bytes;
    bytes.reserve(size_t(list.size()));
    for (const QString& item : list) {
        bytes.push_back(item.toUtf8());
        pointers->push_back(bytes.back().constData());
    }
    return bytes;
}

} // namespace

QString nvJitLinkVersion() {
    const NvJitLinkApi* api = NvJitLinkApi::load();
    unsigned major = 0;
    unsigned minor = 0;
    if (!api || api->version(&major, &minor) != NVJITLINK_SUCCESS)
        return {};
    return QStringLiteral("%1.%2").arg(major).arg(minor);
}

QStringList nvJitLinkOptions(const ProgramOptions& options, const QString& arch) {
    QStringList flags{QStringLiteral("-arch=") + arch};
    if (options.lineInfo && *options.lineInfo)
        flags << QStringLiteral("-lineinfo");
    if (options.deviceDebug && *options.deviceDebug)
        flags << QStringLiteral("-g");
    if (options.maxRegisters)
        flags << QStringLiteral("-Xptxas=--maxrregcount=%1").arg(*options.maxRegisters);
    return flags;
}

QVector<Diagnostic> ignoredOptions(const ProgramOptions& options, SourceLanguage language) {
    QStringList fields;
    if (options.cppStandard)
        fields << QStringLiteral("cppStandard");
    if (language == SourceLanguage::Ptx && options.fastMath)
        fields << QStringLiteral("fastMath");
    if (language == SourceLanguage::Ptx && options.fmad)
        fields << QStringLiteral("fmad");
    if (!options.defines.isEmpty())
        fields << QStringLiteral("defines");
    if (!options.includeDirs.isEmpty())
        fields << QStringLiteral("includeDirs");
    if (!options.extraFlags.isEmpty())
        fields << QStringLiteral("extraFlags");
    QVector<Diagnostic> warnings;
    for (const QString& field : std::as_const(fields))
        warnings << positionless(Diagnostic::Severity::Warning,
                                 QStringLiteral("options.%1 applies to CUDA C++ only; %2 source "
                                                "is compiled without it")
                                     .arg(field, languageTitle(language)));
    return warnings;
}

QVector<Diagnostic> parsePtxasLog(const QString& log, const QString& file) {
    // "ptxas application ptx input, line 34; error   : Unknown symbol '%q3'"
    static const QRegularExpression positioned(
        QStringLiteral("^ptxas\\b[^,]*, line (\\d+); (error|warning|info)\\s*: ?(.*)$"));
    // "ptxas fatal   : Unresolved extern function 'f'", "ptxas warning : ..."
    static const QRegularExpression plain(
        QStringLiteral("^ptxas (fatal|error|warning)\\s*: ?(.*)$"));
    QVector<Diagnostic> diagnostics;
    QVector<Diagnostic> summaries; // only when nothing else explains the failure
    const QStringList lines = log.split(QLatin1Char('\n'));
    for (const QString& raw : lines) {
        const QString line = raw.trimmed();
        if (line.isEmpty())
            continue;
        if (const QRegularExpressionMatch m = positioned.match(line); m.hasMatch()) {
            Diagnostic diagnostic = positionless(severityOf(m.captured(2)), m.captured(3), file);
            diagnostic.line = m.captured(1).toInt();
            diagnostics << diagnostic;
        } else if (const QRegularExpressionMatch p = plain.match(line); p.hasMatch()) {
            Diagnostic diagnostic = positionless(severityOf(p.captured(1)), p.captured(2));
            if (p.captured(2).contains(QLatin1String("aborted due to errors")))
                summaries << diagnostic;
            else
                diagnostics << diagnostic;
        } else if (line.startsWith(QLatin1String("ERROR ")) ||
                   line.startsWith(QLatin1String("error "))) {
            summaries << positionless(Diagnostic::Severity::Error, line);
        }
    }
    const bool explained =
        std::any_of(diagnostics.cbegin(), diagnostics.cend(),
                    [](const Diagnostic& d) { return d.severity == Diagnostic::Severity::Error; });
    if (!explained)
        diagnostics << summaries;
    return diagnostics;
}

bool assemblePtx(const QByteArray& ptx, const QString& file, const ProgramOptions& options,
                 CompileResult* result) {
    result->flags = nvJitLinkOptions(options, result->arch);
    QString notLoaded;
    const NvJitLinkApi* loaded = NvJitLinkApi::load(&notLoaded);
    if (!loaded) {
        result->error = notLoaded;
        result->compilerMissing = true;
        result->diagnostics << positionless(Diagnostic::Severity::Error, notLoaded);
        return false;
    }
    const NvJitLinkApi& api = *loaded;
    std::vector<const char*> pointers;
    const std::vector<QByteArray> bytes = toBytes(result->flags, &pointers);
    LinkHandle link(api);
    const nvJitLinkResult created =
        api.create(link.out(), uint32_t(pointers.size()), pointers.data());
    if (created != NVJITLINK_SUCCESS) {
        result->diagnostics << positionless(
            Diagnostic::Severity::Error,
            QStringLiteral("nvJitLink refused the options %1: %2")
                .arg(result->flags.join(QLatin1Char(' ')), linkResultName(created)));
        return false;
    }
    const QByteArray name = QFileInfo(file).fileName().toUtf8();
    nvJitLinkResult status = api.addData(link.get(), NVJITLINK_INPUT_PTX, ptx.constData(),
                                         size_t(ptx.size()), name.constData());
    if (status == NVJITLINK_SUCCESS)
        status = api.complete(link.get());
    const QString errors = linkLog(api, link.get(), true);
    const QString info = linkLog(api, link.get(), false);
    result->log = errors;
    if (!info.isEmpty())
        result->log += (result->log.isEmpty() ? QString() : QStringLiteral("\n")) + info;
    result->diagnostics << parsePtxasLog(errors, file);
    if (status != NVJITLINK_SUCCESS) {
        if (result->errorCount() == 0)
            result->diagnostics << positionless(
                Diagnostic::Severity::Error,
                QStringLiteral("nvJitLink could not assemble the PTX: ") + linkResultName(status));
        return false;
    }
    size_t size = 0;
    if (api.getLinkedCubinSize(link.get(), &size) != NVJITLINK_SUCCESS || size == 0) {
        result->diagnostics << positionless(Diagnostic::Severity::Error,
                                            QStringLiteral("nvJitLink produced no CUBIN"));
        return false;
    }
    QByteArray cubin(qsizetype(size), '\0');
    if (api.getLinkedCubin(link.get(), cubin.data()) != NVJITLINK_SUCCESS) {
        result->diagnostics << positionless(
            Diagnostic::Severity::Error, QStringLiteral("nvJitLink could not hand over the CUBIN"));
        return false;
    }
    result->cubin = cubin;
    return true;
}

QString libNvvmVersion(QString* where) {
    const LibNvvm& nvvm = libNvvm();
    if (nvvm.path.isEmpty()) {
        if (where)
            *where = nvvm.where;
        return {};
    }
    int major = 0;
    int minor = 0;
    if (nvvm.version(&major, &minor) != kNvvmSuccess)
        return {};
    return QStringLiteral("%1.%2").arg(major).arg(minor);
}

QStringList libNvvmOptions(const ProgramOptions& options, const QString& arch) {
    QString virtualArch = arch;
    if (virtualArch.startsWith(QLatin1String("sm_")))
        virtualArch.replace(0, 3, QStringLiteral("compute_"));
    QStringList flags{QStringLiteral("-arch=") + virtualArch};
    if (options.deviceDebug && *options.deviceDebug)
        flags << QStringLiteral("-g");
    if (options.lineInfo && *options.lineInfo)
        flags << QStringLiteral("-generate-line-info");
    if (options.fastMath && *options.fastMath)
        flags << QStringLiteral("-ftz=1") << QStringLiteral("-prec-sqrt=0")
              << QStringLiteral("-prec-div=0");
    if (options.fmad)
        flags << (*options.fmad ? QStringLiteral("-fma=1") : QStringLiteral("-fma=0"));
    else if (options.fastMath && *options.fastMath)
        flags << QStringLiteral("-fma=1");
    return flags;
}

QVector<Diagnostic> parseNvvmLog(const QString& log) {
    // "kernel.ll (8, 19): parse expected type"
    static const QRegularExpression positioned(
        QStringLiteral("^(.*) \\((\\d+), ?(\\d+)\\): ?(?:(error|warning)\\s*: ?)?(.*)$"));
    QVector<Diagnostic> diagnostics;
    const QStringList lines = log.split(QLatin1Char('\n'));
    for (const QString& raw : lines) {
        const QString line = raw.trimmed();
        if (line.isEmpty())
            continue;
        if (const QRegularExpressionMatch m = positioned.match(line); m.hasMatch()) {
            Diagnostic diagnostic = positionless(m.captured(4) == QLatin1String("warning")
                                                     ? Diagnostic::Severity::Warning
                                                     : Diagnostic::Severity::Error,
                                                 m.captured(5), m.captured(1));
            diagnostic.line = m.captured(2).toInt();
            diagnostic.column = m.captured(3).toInt();
            diagnostics << diagnostic;
        } else {
            diagnostics << positionless(line.startsWith(QLatin1String("warning"))
                                            ? Diagnostic::Severity::Warning
                                            : Diagnostic::Severity::Error,
                                        line);
        }
    }
    return diagnostics;
}

bool compileNvvm(const QByteArray& ir, const QString& file, const ProgramOptions& options,
                 CompileResult* result) {
    const LibNvvm& nvvm = libNvvm();
    if (nvvm.path.isEmpty()) {
        result->error = QStringLiteral("libNVVM was not found, so NVVM IR cannot be compiled; "
                                       "looked in: %1")
                            .arg(nvvm.where);
        return false;
    }
    const QStringList flags = libNvvmOptions(options, result->arch);
    result->flags << flags;
    NvvmHandle program(nvvm);
    NvvmResult status = nvvm.createProgram(program.out());
    if (status != kNvvmSuccess) {
        result->error = QStringLiteral("libNVVM could not create a program: ") +
                        QString::fromUtf8(nvvm.errorString(status));
        return false;
    }
    const QByteArray name = QFileInfo(file).fileName().toUtf8();
    status = nvvm.addModule(program.get(), ir.constData(), size_t(ir.size()), name.constData());
    if (status == kNvvmSuccess) {
        std::vector<const char*> pointers;
        const std::vector<QByteArray> bytes = toBytes(flags, &pointers);
        status = nvvm.compileProgram(program.get(), int(pointers.size()), pointers.data());
    }
    result->log = nvvmText(nvvm, program.get(), true).trimmed();
    result->diagnostics << parseNvvmLog(result->log);
    if (status != kNvvmSuccess) {
        if (result->errorCount() == 0)
            result->diagnostics << positionless(Diagnostic::Severity::Error,
                                                QStringLiteral("libNVVM: ") +
                                                    QString::fromUtf8(nvvm.errorString(status)));
        return false;
    }
    result->ptx = nvvmText(nvvm, program.get(), false);
    return true;
}

} // namespace kernelpad
