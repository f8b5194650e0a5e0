#include "core/compile/NvrtcApi.h"

#include "core/compile/Toolkit.h"

#include <QDir>
#include <QFileInfo>

#include <dlfcn.h>

#include <mutex>

#define KERNELPAD_STRINGIFY_(x) #x
#define KERNELPAD_STRINGIFY(x) KERNELPAD_STRINGIFY_(x)

namespace kernelpad {

namespace {

// What a computer without the toolkit can do instead; the same words in the window and the CLI.
constexpr const char* kUseARunner =
    "compile in a runner that has the CUDA toolkit: Edit ▸ Preferences ▸ Runners in the "
    "window, --runner for kernelpad-cli";

/// Where the toolkit keeps its libraries when the system's library path does not name it (a
/// runfile install, a container that only mounts /usr/local/cuda).
QStringList toolkitLibraryDirs() {
    QStringList roots{QStringLiteral("/usr/local/cuda")};
    if (const QString root = cudaToolkitRoot(); !root.isEmpty())
        roots << root;
#ifdef KERNELPAD_CUDA_ROOT
    roots << QStringLiteral(KERNELPAD_CUDA_ROOT);
#endif
    QStringList dirs;
    for (const QString& root : std::as_const(roots)) {
        // A relative root ($CUDA_PATH=cuda) would make dlopen look in the current directory.
        if (!QDir::isAbsolutePath(root))
            continue;
        dirs << QDir::cleanPath(root + QStringLiteral("/lib64"))
             << QDir::cleanPath(root + QStringLiteral("/lib"));
    }
    dirs.removeDuplicates();
    return dirs;
}

struct OpenedLibrary {
    void* handle = nullptr;
    QString path;  ///< as named to dlopen
    QString error; ///< when handle is null: what was tried and why it failed
};

/// Opens the first candidate that loads: `$environmentVariable` alone when it is set (the user
/// chose that file), else each soname by its absolute path in the toolkit's folders, then
/// through the normal search (the programs' absolute RPATH, LD_LIBRARY_PATH, the ld.so cache)
/// for a toolkit installed elsewhere (a distribution's package). The toolkit's folders come
/// first so that nothing the loader's search might reach shadows the toolkit's own library.
OpenedLibrary openFirst(const QString& what, const char* environmentVariable,
                        const QStringList& sonames) {
    OpenedLibrary opened;
    const QString chosen = qEnvironmentVariable(environmentVariable);
    if (!chosen.isEmpty()) {
        opened.handle = dlopen(chosen.toLocal8Bit().constData(), RTLD_NOW | RTLD_LOCAL);
        if (opened.handle) {
            opened.path = chosen;
        } else {
            opened.error = QStringLiteral("%1 not found on this computer ($%2=%3: %4); %5")
                               .arg(what, QString::fromLatin1(environmentVariable), chosen,
                                    QString::fromLocal8Bit(dlerror()), useARunnerAdvice());
        }
        return opened;
    }

    const QStringList dirs = toolkitLibraryDirs();
    QStringList candidates;
    for (const QString& soname : sonames)
        for (const QString& dir : dirs)
            candidates << dir + QLatin1Char('/') + soname;
    candidates << sonames;
    QString firstError;  // the soname's: "libnvrtc.so.13: cannot open shared object file…"
    QString brokenError; // a file that exists but does not load says more
    for (const QString& candidate : std::as_const(candidates)) {
        const bool isPath = candidate.contains(QLatin1Char('/'));
        if (isPath && !QFileInfo::exists(candidate))
            continue;
        opened.handle = dlopen(candidate.toLocal8Bit().constData(), RTLD_NOW | RTLD_LOCAL);
        if (opened.handle) {
            opened.path = candidate;
            return opened;
        }
        const QString error = QString::fromLocal8Bit(dlerror());
        if (!isPath && firstError.isEmpty())
            firstError = error;
        if (isPath && brokenError.isEmpty())
            brokenError = error;
    }
    opened.error =
        QStringLiteral("%1 not found on this computer (tried %2 on the library path "
                       "and in %3: %4); %5")
            .arg(what, sonames.join(QStringLiteral(", ")), dirs.join(QStringLiteral(", ")),
                 brokenError.isEmpty() ? firstError : brokenError, useARunnerAdvice());
    return opened;
}

/// The file `symbol` came from, or `fallback` when the loader cannot say.
QString fileOf(const void* symbol, const QString& fallback) {
    Dl_info info{};
    if (dladdr(symbol, &info) != 0 && info.dli_fname && *info.dli_fname)
        return QString::fromLocal8Bit(info.dli_fname);
    return fallback;
}

/// libnvrtc dlopens libnvrtc-builtins.so.<major>.<minor> by its bare name, so a libnvrtc found
/// only in a toolkit folder would fail its first compile ("failed to open
/// libnvrtc-builtins.so.13.0"); loaded here from the same folder first, the bare name finds it
/// already in the process.
void preloadBuiltins(const NvrtcApi& api) {
    int major = 0;
    int minor = 0;
    if (api.nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
        return;
    const QString builtins = QFileInfo(api.path).absolutePath() +
                             QStringLiteral("/libnvrtc-builtins.so.%1.%2").arg(major).arg(minor);
    if (QFileInfo::exists(builtins))
        (void)dlopen(builtins.toLocal8Bit().constData(), RTLD_NOW | RTLD_LOCAL);
}

template <typename Api> struct LoadState {
    Api api;
    const Api* loaded = nullptr;
    QString error;
};

/// Fills `missing` with `symbol` when it cannot be resolved.
template <typename F>
void resolve(void* library, const char* symbol, F* slot, QStringList* missing) {
    *slot = reinterpret_cast<F>(dlsym(library, symbol));
    if (!*slot)
        missing->append(QString::fromLatin1(symbol));
}

QString lacksEntryPoints(const QString& what, const QString& path, const QStringList& missing) {
    return QStringLiteral("%1 in %2 lacks entry points KernelPad needs (%3): it is older than "
                          "the toolkit KernelPad was built with; %4")
        .arg(what, path, missing.join(QStringLiteral(", ")), useARunnerAdvice());
}

LoadState<NvrtcApi>& nvrtcState() {
    static LoadState<NvrtcApi> s;
    static std::once_flag once;
    std::call_once(once, [] {
        // NVRTC 12's C API is the one used here, call for call; libnvrtc.so.12 serves where
        // only a CUDA 12 toolkit is installed.
        const OpenedLibrary lib =
            openFirst(QStringLiteral("NVRTC"), "KERNELPAD_NVRTC_LIBRARY",
                      {QStringLiteral("libnvrtc.so.13"), QStringLiteral("libnvrtc.so.12")});
        if (!lib.handle) {
            s.error = lib.error;
            return;
        }
        QStringList missing;
#define KERNELPAD_RESOLVE(name) resolve(lib.handle, #name, &s.api.name, &missing);
        KERNELPAD_NVRTC_FUNCTIONS(KERNELPAD_RESOLVE)
#undef KERNELPAD_RESOLVE
        if (!missing.isEmpty()) {
            // left loaded: unloading a library the process may still map is not safe
            s.error = lacksEntryPoints(QStringLiteral("NVRTC"), lib.path, missing);
            return;
        }
        QStringList optional; // the PCH entry points: an older NVRTC compiles without PCH
        resolve(lib.handle, "nvrtcGetPCHCreateStatus", &s.api.nvrtcGetPCHCreateStatus, &optional);
        resolve(lib.handle, "nvrtcGetPCHHeapSizeRequired", &s.api.nvrtcGetPCHHeapSizeRequired,
                &optional);
        resolve(lib.handle, "nvrtcGetPCHHeapSize", &s.api.nvrtcGetPCHHeapSize, &optional);
        resolve(lib.handle, "nvrtcSetPCHHeapSize", &s.api.nvrtcSetPCHHeapSize, &optional);
        s.api.path = fileOf(reinterpret_cast<const void*>(s.api.nvrtcVersion), lib.path);
        preloadBuiltins(s.api);
        s.loaded = &s.api;
    });
    return s;
}

LoadState<NvJitLinkApi>& nvJitLinkState() {
    static LoadState<NvJitLinkApi> s;
    static std::once_flag once;
    std::call_once(once, [] {
        // Only the major version whose ABI the header names: nvJitLink 12's symbols differ.
        const OpenedLibrary lib =
            openFirst(QStringLiteral("nvJitLink"), "KERNELPAD_NVJITLINK_LIBRARY",
                      {QStringLiteral("libnvJitLink.so.13")});
        if (!lib.handle) {
            s.error = lib.error;
            return;
        }
        QStringList missing;
#define KERNELPAD_RESOLVE(member, name)                                                            \
    resolve(lib.handle, KERNELPAD_STRINGIFY(KERNELPAD_NVJITLINK_SYMBOL(name)), &s.api.member,      \
            &missing);
        KERNELPAD_NVJITLINK_FUNCTIONS(KERNELPAD_RESOLVE)
#undef KERNELPAD_RESOLVE
        resolve(lib.handle, "nvJitLinkVersion", &s.api.version, &missing);
        if (!missing.isEmpty()) {
            s.error = lacksEntryPoints(QStringLiteral("nvJitLink"), lib.path, missing);
            return;
        }
        s.api.path = fileOf(reinterpret_cast<const void*>(s.api.version), lib.path);
        s.loaded = &s.api;
    });
    return s;
}

} // namespace

QString useARunnerAdvice() {
    return QString::fromUtf8(kUseARunner);
}

const NvrtcApi* NvrtcApi::load(QString* error) {
    const LoadState<NvrtcApi>& s = nvrtcState();
    if (!s.loaded && error)
        *error = s.error;
    return s.loaded;
}

const NvJitLinkApi* NvJitLinkApi::load(QString* error) {
    const LoadState<NvJitLinkApi>& s = nvJitLinkState();
    if (!s.loaded && error)
        *error = s.error;
    return s.loaded;
}

} // namespace kernelpad
