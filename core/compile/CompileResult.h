#pragma once
// The outcome of one NVRTC compile: never an exception for bad source.

#include "core/compile/ProgramOptions.h"
#include "core/compile/SourceLanguage.h"

#include <QByteArray>
#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <QVector>

#include <array>
#include <optional>

namespace kernelpad {

/// One message of the NVRTC program log.
struct Diagnostic {
    enum class Severity { Error, Warning, Remark, Note };
    QString file;   ///< as NVRTC names it (the program name for the user's source)
    int line = 0;   ///< 1-based; 0 when the message has no position
    int column = 0; ///< 1-based; 0 when NVRTC gives none
    Severity severity = Severity::Error;
    QString message;

    [[nodiscard]] QJsonObject toJson() const;
    /// Reads the JSON form; nullopt, with a message naming the field under `path`, when a
    /// field is missing or malformed.
    static std::optional<Diagnostic> fromJson(const QJsonObject& json, QString* error,
                                              const QString& path = {});
    friend bool operator==(const Diagnostic& a, const Diagnostic& b);
};
[[nodiscard]] QString severityName(Diagnostic::Severity s); ///< "error", "warning", ...

/// One parameter of a kernel entry, read from the PTX.
struct PtxParam {
    QString name;    ///< PTX name, e.g. "_Z5saxpyfPKfPfi_param_0"
    QString ptxType; ///< ".f32", ".u64", ".b8" (arrays/structs)
    int sizeBytes = 0;
    int alignBytes = 0;
    bool isPointer = false; ///< .u64 with .ptr or a .u64 the source declares a pointer

    [[nodiscard]] QJsonObject toJson() const;
    /// As Diagnostic::fromJson.
    static std::optional<PtxParam> fromJson(const QJsonObject& json, QString* error,
                                            const QString& path = {});
};

/// A kernel entry of the compiled module.
struct KernelInfo {
    QString name;    ///< the name the user knows: "saxpy", "vector_add<float>"
    QString lowered; ///< the mangled entry name in the module
    QVector<PtxParam> params;
    /// `.maxntid` (from __launch_bounds__): the block may hold at most x*y*z threads;
    /// zeros when the PTX declares none.
    std::array<int, 3> maxntid{0, 0, 0};
    /// `.reqntid`: the block must be exactly this; zeros when the PTX declares none.
    std::array<int, 3> reqntid{0, 0, 0};
    /// `.reqnctapercluster` (from __cluster_dims__): the cluster the kernel was compiled
    /// for; zeros when the PTX declares none.
    std::array<int, 3> reqnctapercluster{0, 0, 0};
    /// `.explicitcluster`: the kernel must be launched with clusters (sm_90 and newer).
    bool explicitCluster = false;

    [[nodiscard]] QJsonObject toJson() const;
    /// As Diagnostic::fromJson.
    static std::optional<KernelInfo> fromJson(const QJsonObject& json, QString* error,
                                              const QString& path = {});
};

/// A `__constant__` or `__device__` variable of the module, read from the PTX's `.const` and
/// `.global` declarations (the driver's cuModuleGetGlobal finds it by `lowered`).
struct ModuleGlobal {
    QString name;    ///< as the user knows it: "filter", "ns::counter" (demangled)
    QString lowered; ///< the symbol in the module: "filter", "_ZN2ns7counterE"
    QString space;   ///< "const" (__constant__) or "global" (__device__)
    QString ptxType; ///< ".f32", ".u32", or ".b8" for arrays and structs
    int sizeBytes = 0;
    int alignBytes = 0;
    /// Elements of the PTX declaration: 36 for `.b8 filter[36]`, 1 for a scalar.
    qint64 ptxCount = 1;
    /// The type as the source declares it ("float", "Pair") where a plain declaration
    /// names it; empty when not found.
    QString sourceType;
    bool initialized = false; ///< the declaration has an initializer ("= 2.0f")
    /// Declared by the project's own source or its headers, not by a toolkit header it
    /// includes (<cooperative_groups.h> brings a thousand libcu++ constants): only these are
    /// offered as argument rows. Hand-written PTX and NVVM IR are all the project's own.
    bool fromProject = true;

    [[nodiscard]] QString spaceKeyword() const; ///< "__constant__" or "__device__"
    [[nodiscard]] QJsonObject toJson() const;
    /// As Diagnostic::fromJson.
    static std::optional<ModuleGlobal> fromJson(const QJsonObject& json, QString* error,
                                                const QString& path = {});
};

/// Everything a compile produced: ok() or not, the log, diagnostics, PTX and CUBIN.
struct CompileResult {
    bool ok = false;
    QString nvrtcVersion; ///< "13.0"
    /// What the source was: CUDA C++ went through NVRTC, PTX through nvJitLink, NVVM IR
    /// through libNVVM (JSON "language", written only when not cuda).
    SourceLanguage language = SourceLanguage::Cuda;
    /// The tools that ran for PTX or NVVM IR ("nvJitLink 13.0", "libNVVM 2.0, nvJitLink
    /// 13.0"); empty for NVRTC, which nvrtcVersion names.
    QString compiler;
    QString arch;      ///< the arch compiled for
    QStringList flags; ///< the options NVRTC was given
    QString log;       ///< the program log as NVRTC wrote it
    QVector<Diagnostic> diagnostics;
    QString ptx;
    QByteArray cubin;
    QVector<KernelInfo> kernels;
    QVector<ModuleGlobal> globals; ///< the module's __constant__ and __device__ variables
    /// name expression -> lowered name (templates, as in cuda.core's name_expressions)
    QVector<QPair<QString, QString>> loweredNames;
    /// Wall time of this compile step: NVRTC's time, or the cache lookup's on a hit.
    double compileMs = 0.0;
    /// On a hit, the time NVRTC took when the cached result was made; else equal to compileMs.
    double nvrtcMs = 0.0;
    bool cacheHit = false; ///< served from the compile cache, NVRTC not run
    /// Which cache tier served it (CacheTier::None when NVRTC ran).
    enum class CacheTier { None, Memory, Disk };
    CacheTier fromCache = CacheTier::None;
    QString error; ///< NVRTC could not be run at all (not a source error)
    /// What a side without the CUBIN knows of it (JSON "codeHash", read back here): see
    /// machineCodeHash().
    QString codeHash;
    /// CompileCache::includeFingerprint() of the project headers the source included, as hex,
    /// read when compileProject() compiled it: the part of a compile's identity the project
    /// does not hold (JSON "includeFingerprint", written only when set). Empty: none.
    QString includeFingerprint;
    /// NVRTC (nvJitLink for PTX and NVVM IR) could not be loaded where it ran: no CUDA toolkit
    /// there; `error` says what was tried and what to do (JSON "compilerMissing", written only
    /// when true).
    bool compilerMissing = false;

    /// A SHA-256 (hex, 32 digits) of the code a run loads: the CUBIN, else the PTX; empty for
    /// a failed compile. Two compiles with the same hash run the same machine code, so an edit
    /// that leaves it unchanged (a comment) cannot change the kernel's speed. codeHash when set.
    [[nodiscard]] QString machineCodeHash() const;
    [[nodiscard]] const KernelInfo* findKernel(const QString& nameOrLowered) const;
    /// The entry to load for `name`: the lowered name of a name expression
    /// ("saxpy<float>"), else that of the kernel found by findKernel(); empty when neither.
    [[nodiscard]] QString loweredName(const QString& name) const;
    /// The global named `nameOrLowered` (as the user knows it, or its symbol); null if none.
    [[nodiscard]] const ModuleGlobal* findGlobal(const QString& nameOrLowered) const;
    [[nodiscard]] int errorCount() const;
    /// Without cubin (sent separately when needed); includes ptx unless withPtx is false.
    [[nodiscard]] QJsonObject toJson(bool withPtx = true) const;
    /// Reads the JSON form; nullopt, with a message naming the field under `path`, when a
    /// field is missing or malformed.
    static std::optional<CompileResult> fromJson(const QJsonObject& json, QString* error,
                                                 const QString& path = {});
};

/// "none", "memory", "disk" (the JSON form of CompileResult::fromCache).
[[nodiscard]] QString cacheTierName(CompileResult::CacheTier tier);

} // namespace kernelpad

// Values the window queues between threads and tests keep in data rows.
Q_DECLARE_METATYPE(kernelpad::Diagnostic)
Q_DECLARE_METATYPE(kernelpad::KernelInfo)
Q_DECLARE_METATYPE(kernelpad::CompileResult)
