#include "core/compile/CompileResult.h"

#include "core/compile/PtxParser.h"
#include "core/io/JsonFields.h"

#include <QCryptographicHash>
#include <QJsonArray>

#include <algorithm>
#include <limits>
#include <utility>

namespace kernelpad {

namespace {

template <typename T> QJsonArray toJsonArray(const QVector<T>& values) {
    QJsonArray array;
    for (const T& value : values)
        array.append(value.toJson());
    return array;
}

/// Reads the array of objects under `key` with T::fromJson, each named by its index.
template <typename T>
bool readList(const json::FieldReader& fields, const QString& key, QVector<T>* out,
              json::Presence presence) {
    QVector<T> values;
    if (!fields.readObjects(
            key,
            [&values](const json::FieldReader& item) {
                std::optional<T> value = T::fromJson(item.object(), item.error(), item.where());
                if (value)
                    values.append(std::move(*value));
                return value.has_value();
            },
            presence))
        return false;
    if (fields.has(key))
        *out = std::move(values);
    return true;
}

constexpr auto kRequired = json::Presence::Required;
/// Times are written as plain numbers; a NaN among them would travel as null.
constexpr auto kNullIsNaN = json::NullNumber::IsNaN;
constexpr int kMaxInt = std::numeric_limits<int>::max();

} // namespace

QString severityName(Diagnostic::Severity s) {
    switch (s) {
    case Diagnostic::Severity::Error:
        return QStringLiteral("error");
    case Diagnostic::Severity::Warning:
        return QStringLiteral("warning");
    case Diagnostic::Severity::Remark:
        return QStringLiteral("remark");
    case Diagnostic::Severity::Note:
        return QStringLiteral("note");
    }
    return QStringLiteral("error");
}

QString cacheTierName(CompileResult::CacheTier tier) {
    switch (tier) {
    case CompileResult::CacheTier::None:
        return QStringLiteral("none");
    case CompileResult::CacheTier::Memory:
        return QStringLiteral("memory");
    case CompileResult::CacheTier::Disk:
        return QStringLiteral("disk");
    }
    return QStringLiteral("none");
}

QJsonObject Diagnostic::toJson() const {
    return QJsonObject{{QStringLiteral("file"), file},
                       {QStringLiteral("line"), line},
                       {QStringLiteral("column"), column},
                       {QStringLiteral("severity"), severityName(severity)},
                       {QStringLiteral("message"), message}};
}

std::optional<Diagnostic> Diagnostic::fromJson(const QJsonObject& json, QString* error,
                                               const QString& path) {
    const json::FieldReader fields(json, error, path);
    Diagnostic diagnostic;
    QString severity;
    const QStringList severities{severityName(Severity::Error), severityName(Severity::Warning),
                                 severityName(Severity::Remark), severityName(Severity::Note)};
    if (!fields.readString(QStringLiteral("file"), &diagnostic.file, kRequired) ||
        !fields.readInt(QStringLiteral("line"), &diagnostic.line, kRequired, {0, kMaxInt}) ||
        !fields.readInt(QStringLiteral("column"), &diagnostic.column, kRequired, {0, kMaxInt}) ||
        !fields.readChoice(QStringLiteral("severity"), severities, &severity, kRequired) ||
        !fields.readString(QStringLiteral("message"), &diagnostic.message, kRequired))
        return std::nullopt;
    for (const auto s : {Severity::Error, Severity::Warning, Severity::Remark, Severity::Note}) {
        if (severityName(s) == severity)
            diagnostic.severity = s;
    }
    return diagnostic;
}

bool operator==(const Diagnostic& a, const Diagnostic& b) {
    return a.file == b.file && a.line == b.line && a.column == b.column &&
           a.severity == b.severity && a.message == b.message;
}

QJsonObject PtxParam::toJson() const {
    return QJsonObject{{QStringLiteral("name"), name},
                       {QStringLiteral("ptxType"), ptxType},
                       {QStringLiteral("sizeBytes"), sizeBytes},
                       {QStringLiteral("alignBytes"), alignBytes},
                       {QStringLiteral("isPointer"), isPointer}};
}

std::optional<PtxParam> PtxParam::fromJson(const QJsonObject& json, QString* error,
                                           const QString& path) {
    const json::FieldReader fields(json, error, path);
    PtxParam param;
    if (!fields.readString(QStringLiteral("name"), &param.name, kRequired) ||
        !fields.readString(QStringLiteral("ptxType"), &param.ptxType, kRequired) ||
        !fields.readInt(QStringLiteral("sizeBytes"), &param.sizeBytes, kRequired, {0, kMaxInt}) ||
        !fields.readInt(QStringLiteral("alignBytes"), &param.alignBytes, kRequired, {0, kMaxInt}) ||
        !fields.readBool(QStringLiteral("isPointer"), &param.isPointer, kRequired))
        return std::nullopt;
    return param;
}

namespace {
QJsonArray dimsToJson(const std::array<int, 3>& dims) {
    return QJsonArray{dims[0], dims[1], dims[2]};
}
} // namespace

QJsonObject KernelInfo::toJson() const {
    QJsonObject json{{QStringLiteral("name"), name},
                     {QStringLiteral("lowered"), lowered},
                     {QStringLiteral("params"), toJsonArray(params)}};
    // Only when declared, so that results from before these fields read the same.
    if (maxntid[0] > 0)
        json.insert(QStringLiteral("maxntid"), dimsToJson(maxntid));
    if (reqntid[0] > 0)
        json.insert(QStringLiteral("reqntid"), dimsToJson(reqntid));
    if (reqnctapercluster[0] > 0)
        json.insert(QStringLiteral("reqnctapercluster"), dimsToJson(reqnctapercluster));
    if (explicitCluster)
        json.insert(QStringLiteral("explicitCluster"), true);
    return json;
}

std::optional<KernelInfo> KernelInfo::fromJson(const QJsonObject& json, QString* error,
                                               const QString& path) {
    const json::FieldReader fields(json, error, path);
    KernelInfo kernel;
    // The directives are written only when declared (absent: zeros, as before they existed).
    if (!fields.readString(QStringLiteral("name"), &kernel.name, kRequired) ||
        !fields.readString(QStringLiteral("lowered"), &kernel.lowered, kRequired) ||
        !readList(fields, QStringLiteral("params"), &kernel.params, kRequired) ||
        !fields.readDims(QStringLiteral("maxntid"), &kernel.maxntid) ||
        !fields.readDims(QStringLiteral("reqntid"), &kernel.reqntid) ||
        !fields.readDims(QStringLiteral("reqnctapercluster"), &kernel.reqnctapercluster) ||
        !fields.readBool(QStringLiteral("explicitCluster"), &kernel.explicitCluster))
        return std::nullopt;
    return kernel;
}

const KernelInfo* CompileResult::findKernel(const QString& nameOrLowered) const {
    // Names first: a user's "saxpy" must not be shadowed by an entry lowered to "saxpy" elsewhere.
    const auto byName = std::find_if(kernels.cbegin(), kernels.cend(),
                                     [&](const KernelInfo& k) { return k.name == nameOrLowered; });
    if (byName != kernels.cend())
        return &*byName;
    const auto byLowered = std::find_if(kernels.cbegin(), kernels.cend(), [&](const KernelInfo& k) {
        return k.lowered == nameOrLowered;
    });
    return byLowered != kernels.cend() ? &*byLowered : nullptr;
}

QString CompileResult::loweredName(const QString& name) const {
    for (const auto& [expression, lowered] : loweredNames)
        if (expression == name)
            return lowered;
    if (const KernelInfo* k = findKernel(name))
        return k->lowered;
    return {};
}

int CompileResult::errorCount() const {
    return static_cast<int>(
        std::count_if(diagnostics.cbegin(), diagnostics.cend(), [](const Diagnostic& d) {
            return d.severity == Diagnostic::Severity::Error;
        }));
}

QString ModuleGlobal::spaceKeyword() const {
    return space == QLatin1String("const") ? QStringLiteral("__constant__")
                                           : QStringLiteral("__device__");
}

QJsonObject ModuleGlobal::toJson() const {
    return QJsonObject{{QStringLiteral("name"), name},
                       {QStringLiteral("lowered"), lowered},
                       {QStringLiteral("space"), space},
                       {QStringLiteral("ptxType"), ptxType},
                       {QStringLiteral("sizeBytes"), sizeBytes},
                       {QStringLiteral("alignBytes"), alignBytes},
                       {QStringLiteral("ptxCount"), double(ptxCount)},
                       {QStringLiteral("sourceType"), sourceType},
                       {QStringLiteral("initialized"), initialized},
                       {QStringLiteral("fromProject"), fromProject}};
}

std::optional<ModuleGlobal> ModuleGlobal::fromJson(const QJsonObject& json, QString* error,
                                                   const QString& path) {
    const json::FieldReader fields(json, error, path);
    ModuleGlobal global;
    const QStringList spaces{QStringLiteral("const"), QStringLiteral("global")};
    if (!fields.readString(QStringLiteral("name"), &global.name, kRequired) ||
        !fields.readString(QStringLiteral("lowered"), &global.lowered, kRequired) ||
        !fields.readChoice(QStringLiteral("space"), spaces, &global.space, kRequired) ||
        !fields.readString(QStringLiteral("ptxType"), &global.ptxType, kRequired) ||
        !fields.readInt(QStringLiteral("sizeBytes"), &global.sizeBytes, kRequired, {0, kMaxInt}) ||
        !fields.readInt(QStringLiteral("alignBytes"), &global.alignBytes, kRequired,
                        {0, kMaxInt}) ||
        // Absent in results cached before the count was kept: a scalar.
        !fields.readWholeNumber(QStringLiteral("ptxCount"), &global.ptxCount,
                                json::Presence::Optional, {0, json::WholeRange{}.max}) ||
        !fields.readString(QStringLiteral("sourceType"), &global.sourceType, kRequired) ||
        !fields.readBool(QStringLiteral("initialized"), &global.initialized, kRequired) ||
        // Absent in results cached before it was kept: offered, as they were then.
        !fields.readBool(QStringLiteral("fromProject"), &global.fromProject))
        return std::nullopt;
    return global;
}

const ModuleGlobal* CompileResult::findGlobal(const QString& nameOrLowered) const {
    for (const ModuleGlobal& g : globals)
        if (g.name == nameOrLowered)
            return &g;
    for (const ModuleGlobal& g : globals)
        if (g.lowered == nameOrLowered)
            return &g;
    return nullptr;
}

QString CompileResult::machineCodeHash() const {
    if (!codeHash.isEmpty())
        return codeHash;
    const QByteArray code = !cubin.isEmpty() ? cubin : ptx.toUtf8();
    if (!ok || code.isEmpty())
        return {};
    constexpr int kHexDigits = 32;
    return QString::fromLatin1(
        QCryptographicHash::hash(code, QCryptographicHash::Sha256).toHex().left(kHexDigits));
}

QJsonObject CompileResult::toJson(bool withPtx) const {
    QJsonArray lowered;
    for (const auto& [expression, name] : loweredNames) {
        lowered.append(QJsonObject{{QStringLiteral("expression"), expression},
                                   {QStringLiteral("lowered"), name}});
    }
    QJsonObject json{{QStringLiteral("ok"), ok},
                     {QStringLiteral("nvrtcVersion"), nvrtcVersion},
                     {QStringLiteral("arch"), arch},
                     {QStringLiteral("flags"), QJsonArray::fromStringList(flags)},
                     {QStringLiteral("log"), log},
                     {QStringLiteral("diagnostics"), toJsonArray(diagnostics)},
                     {QStringLiteral("kernels"), toJsonArray(kernels)},
                     {QStringLiteral("globals"), toJsonArray(globals)},
                     {QStringLiteral("loweredNames"), lowered},
                     {QStringLiteral("compileMs"), compileMs},
                     {QStringLiteral("nvrtcMs"), nvrtcMs},
                     {QStringLiteral("cacheHit"), cacheHit},
                     {QStringLiteral("fromCache"), cacheTierName(fromCache)},
                     {QStringLiteral("error"), error}};
    if (withPtx)
        json.insert(QStringLiteral("ptx"), ptx);
    if (language != SourceLanguage::Cuda)
        json.insert(QStringLiteral("language"), languageName(language));
    if (!compiler.isEmpty())
        json.insert(QStringLiteral("compiler"), compiler);
    if (const QString hash = machineCodeHash(); !hash.isEmpty())
        json.insert(QStringLiteral("codeHash"), hash);
    if (compilerMissing)
        json.insert(QStringLiteral("compilerMissing"), true);
    if (!includeFingerprint.isEmpty())
        json.insert(QStringLiteral("includeFingerprint"), includeFingerprint);
    return json;
}

std::optional<CompileResult> CompileResult::fromJson(const QJsonObject& json, QString* error,
                                                     const QString& path) {
    const json::FieldReader fields(json, error, path);
    CompileResult result;
    if (!fields.readBool(QStringLiteral("ok"), &result.ok, kRequired) ||
        !fields.readString(QStringLiteral("nvrtcVersion"), &result.nvrtcVersion, kRequired) ||
        !fields.readString(QStringLiteral("arch"), &result.arch, kRequired) ||
        !fields.readStrings(QStringLiteral("flags"), &result.flags, kRequired) ||
        !fields.readString(QStringLiteral("log"), &result.log, kRequired) ||
        !readList(fields, QStringLiteral("diagnostics"), &result.diagnostics, kRequired) ||
        // Absent when the sender left the PTX out (toJson(false)).
        !fields.readString(QStringLiteral("ptx"), &result.ptx) ||
        !readList(fields, QStringLiteral("kernels"), &result.kernels, kRequired) ||
        !readList(fields, QStringLiteral("globals"), &result.globals, json::Presence::Optional))
        return std::nullopt;
    // Results cached before globals were listed have none: read them from the PTX.
    if (!fields.has(QStringLiteral("globals")))
        result.globals = parsePtxGlobals(result.ptx);
    if (!fields.readObjects(
            QStringLiteral("loweredNames"),
            [&result](const json::FieldReader& entry) {
                QString expression, lowered;
                if (!entry.readString(QStringLiteral("expression"), &expression, kRequired) ||
                    !entry.readString(QStringLiteral("lowered"), &lowered, kRequired))
                    return false;
                result.loweredNames.append({expression, lowered});
                return true;
            },
            kRequired))
        return std::nullopt;
    if (!fields.readNumber(QStringLiteral("compileMs"), &result.compileMs, kRequired, kNullIsNaN))
        return std::nullopt;
    // Results cached before the NVRTC time was kept apart: the compile's own time.
    result.nvrtcMs = result.compileMs;
    QString tier;
    const QStringList tiers{cacheTierName(CacheTier::None), cacheTierName(CacheTier::Memory),
                            cacheTierName(CacheTier::Disk)};
    QString language = languageName(SourceLanguage::Cuda);
    if (!fields.readNumber(QStringLiteral("nvrtcMs"), &result.nvrtcMs, json::Presence::Optional,
                           kNullIsNaN) ||
        !fields.readBool(QStringLiteral("cacheHit"), &result.cacheHit, kRequired) ||
        !fields.readChoice(QStringLiteral("fromCache"), tiers, &tier) ||
        !fields.readString(QStringLiteral("error"), &result.error, kRequired) ||
        !fields.readChoice(QStringLiteral("language"), languageNames(), &language) ||
        !fields.readString(QStringLiteral("compiler"), &result.compiler) ||
        !fields.readString(QStringLiteral("codeHash"), &result.codeHash) ||
        !fields.readBool(QStringLiteral("compilerMissing"), &result.compilerMissing) ||
        !fields.readString(QStringLiteral("includeFingerprint"), &result.includeFingerprint))
        return std::nullopt;
    for (const auto t : {CacheTier::None, CacheTier::Memory, CacheTier::Disk}) {
        if (cacheTierName(t) == tier)
            result.fromCache = t;
    }
    if (result.cacheHit && result.fromCache == CacheTier::None)
        result.fromCache = CacheTier::Memory; // written before the tier existed
    result.language = languageFromName(language).value_or(SourceLanguage::Cuda);
    return result;
}

} // namespace kernelpad
