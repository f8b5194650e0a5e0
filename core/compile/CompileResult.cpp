#include "core/compile/CompileResult.h"

#include "core/compile/PtxParser.h"

#include <QJsonArray>

#include <algorithm>

namespace kernelpad {

namespace {

template <typename T> QJsonArray toJsonArray(const QVector<T>& values) {
    QJsonArray array;
    for (const T& value : values)
        array.append(value.toJson());
    return array;
}

template <typename T> QVector<T> fromJsonArray(const QJsonValue& value) {
    QVector<T> values;
    const QJsonArray array = value.toArray();
    values.reserve(array.size());
    for (const QJsonValue& element : array)
        values.append(T::fromJson(element.toObject()));
    return values;
}

QStringList toStringList(const QJsonValue& value) {
    QStringList strings;
    const QJsonArray array = value.toArray();
    for (const QJsonValue& element : array)
        strings << element.toString();
    return strings;
}

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

Diagnostic Diagnostic::fromJson(const QJsonObject& json) {
    Diagnostic diagnostic;
    diagnostic.file = json.value(QStringLiteral("file")).toString();
    diagnostic.line = json.value(QStringLiteral("line")).toInt();
    diagnostic.column = json.value(QStringLiteral("column")).toInt();
    const QString severity = json.value(QStringLiteral("severity")).toString();
    for (const auto s : {Severity::Error, Severity::Warning, Severity::Remark, Severity::Note}) {
        if (severityName(s) == severity)
            diagnostic.severity = s;
    }
    diagnostic.message = json.value(QStringLiteral("message")).toString();
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

PtxParam PtxParam::fromJson(const QJsonObject& json) {
    PtxParam param;
    param.name = json.value(QStringLiteral("name")).toString();
    param.ptxType = json.value(QStringLiteral("ptxType")).toString();
    param.sizeBytes = json.value(QStringLiteral("sizeBytes")).toInt();
    param.alignBytes = json.value(QStringLiteral("alignBytes")).toInt();
    param.isPointer = json.value(QStringLiteral("isPointer")).toBool();
    return param;
}

namespace {
QJsonArray dimsToJson(const std::array<int, 3>& dims) {
    return QJsonArray{dims[0], dims[1], dims[2]};
}

std::array<int, 3> dimsFromJson(const QJsonValue& value) {
    const QJsonArray array = value.toArray();
    if (array.size() != 3)
        return {0, 0, 0};
    return {std::max(0, array.at(0).toInt()), std::max(0, array.at(1).toInt()),
            std::max(0, array.at(2).toInt())};
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

KernelInfo KernelInfo::fromJson(const QJsonObject& json) {
    KernelInfo kernel;
    kernel.name = json.value(QStringLiteral("name")).toString();
    kernel.lowered = json.value(QStringLiteral("lowered")).toString();
    kernel.params = fromJsonArray<PtxParam>(json.value(QStringLiteral("params")));
    kernel.maxntid = dimsFromJson(json.value(QStringLiteral("maxntid")));
    kernel.reqntid = dimsFromJson(json.value(QStringLiteral("reqntid")));
    kernel.reqnctapercluster = dimsFromJson(json.value(QStringLiteral("reqnctapercluster")));
    kernel.explicitCluster = json.value(QStringLiteral("explicitCluster")).toBool();
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
                       {QStringLiteral("initialized"), initialized}};
}

ModuleGlobal ModuleGlobal::fromJson(const QJsonObject& json) {
    ModuleGlobal global;
    global.name = json.value(QStringLiteral("name")).toString();
    global.lowered = json.value(QStringLiteral("lowered")).toString();
    global.space = json.value(QStringLiteral("space")).toString();
    global.ptxType = json.value(QStringLiteral("ptxType")).toString();
    global.sizeBytes = json.value(QStringLiteral("sizeBytes")).toInt();
    global.alignBytes = json.value(QStringLiteral("alignBytes")).toInt();
    global.ptxCount = qint64(json.value(QStringLiteral("ptxCount")).toDouble(1));
    global.sourceType = json.value(QStringLiteral("sourceType")).toString();
    global.initialized = json.value(QStringLiteral("initialized")).toBool();
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
    return json;
}

CompileResult CompileResult::fromJson(const QJsonObject& json) {
    CompileResult result;
    result.ok = json.value(QStringLiteral("ok")).toBool();
    result.nvrtcVersion = json.value(QStringLiteral("nvrtcVersion")).toString();
    result.arch = json.value(QStringLiteral("arch")).toString();
    result.flags = toStringList(json.value(QStringLiteral("flags")));
    result.log = json.value(QStringLiteral("log")).toString();
    result.diagnostics = fromJsonArray<Diagnostic>(json.value(QStringLiteral("diagnostics")));
    result.ptx = json.value(QStringLiteral("ptx")).toString();
    result.kernels = fromJsonArray<KernelInfo>(json.value(QStringLiteral("kernels")));
    // Results cached before globals were listed have none: read them from the PTX.
    if (json.contains(QStringLiteral("globals")))
        result.globals = fromJsonArray<ModuleGlobal>(json.value(QStringLiteral("globals")));
    else
        result.globals = parsePtxGlobals(result.ptx);
    const QJsonArray lowered = json.value(QStringLiteral("loweredNames")).toArray();
    for (const QJsonValue& entry : lowered) {
        const QJsonObject object = entry.toObject();
        result.loweredNames.append({object.value(QStringLiteral("expression")).toString(),
                                    object.value(QStringLiteral("lowered")).toString()});
    }
    result.compileMs = json.value(QStringLiteral("compileMs")).toDouble();
    result.nvrtcMs = json.value(QStringLiteral("nvrtcMs")).toDouble(result.compileMs);
    result.cacheHit = json.value(QStringLiteral("cacheHit")).toBool();
    const QString tier = json.value(QStringLiteral("fromCache")).toString();
    for (const auto t : {CompileResult::CacheTier::None, CompileResult::CacheTier::Memory,
                         CompileResult::CacheTier::Disk}) {
        if (cacheTierName(t) == tier)
            result.fromCache = t;
    }
    if (result.cacheHit && result.fromCache == CompileResult::CacheTier::None)
        result.fromCache = CompileResult::CacheTier::Memory; // written before the tier existed
    result.error = json.value(QStringLiteral("error")).toString();
    result.language = languageFromName(json.value(QStringLiteral("language")).toString())
                          .value_or(SourceLanguage::Cuda);
    result.compiler = json.value(QStringLiteral("compiler")).toString();
    return result;
}

} // namespace kernelpad
