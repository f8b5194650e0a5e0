#include "core/compile/ProgramOptions.h"

#include "core/compile/NvrtcFlags.h"
#include "core/compile/Toolkit.h"
#include "core/io/ControlChars.h"
#include "core/io/JsonFields.h"

#include <QJsonArray>
#include <QJsonValue>
#include <QRegularExpression>

#include <climits>
#include <cmath>

namespace kernelpad {

namespace {

const QStringList& cppStandards() {
    static const QStringList standards{QStringLiteral("c++11"), QStringLiteral("c++14"),
                                       QStringLiteral("c++17"), QStringLiteral("c++20")};
    return standards;
}

/// The first control character problem of `list`, named "field[i]".
QString listControlCharacterError(const QString& field, const QStringList& list) {
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QString error =
            controlCharacterError(QStringLiteral("%1[%2]").arg(field).arg(i), list.at(i));
        if (!error.isEmpty())
            return error;
    }
    return {};
}

/// Appends `flag` only if the allow-list takes it, so toFlags() cannot emit anything else.
void appendChecked(QStringList* flags, const QString& flag) {
    if (!checkNvrtcFlags({flag}))
        flags->append(flag);
}

QString boolFlag(bool value) {
    return value ? QStringLiteral("true") : QStringLiteral("false");
}

/// A list of strings; null or absent leaves it empty.
bool readStringList(const json::FieldReader& fields, const QString& key, QStringList* out) {
    QJsonArray array;
    if (!fields.readArray(key, &array, json::Presence::NullIsAbsent))
        return false;
    for (qsizetype i = 0; i < array.size(); ++i) {
        if (!array.at(i).isString())
            return fields.fail(json::typeError(json::indexPath(fields.path(key), i),
                                               QStringLiteral("a string"), array.at(i)));
        out->append(array.at(i).toString());
    }
    return true;
}

} // namespace

bool isValidArch(const QString& arch) {
    // sm_XY makes a CUBIN for exactly that GPU; compute_XY (a virtual arch) makes PTX only,
    // which the driver's JIT compiles when the module is loaded.
    static const QRegularExpression re(QStringLiteral("^(sm|compute)_\\d+[a-z]?$"));
    return re.match(arch).hasMatch();
}

bool isVirtualArch(const QString& arch) {
    return arch.startsWith(QLatin1String("compute_")) && isValidArch(arch);
}

QString archProblem(const QString& arch) {
    if (isValidArch(arch))
        return {};
    return QStringLiteral("arch must look like sm_90, sm_90a or compute_90 (got \"%1\")").arg(arch);
}

QStringList ProgramOptions::toFlags(const QString& resolvedArch) const {
    QStringList flags;
    const QString effectiveArch =
        !resolvedArch.isEmpty() ? resolvedArch : arch.value_or(QString::fromLatin1(kDefaultArch));
    // -arch=sm_XY makes NVRTC emit a CUBIN for exactly that arch; -arch=compute_XY only PTX.
    appendChecked(&flags, QStringLiteral("-arch=") + effectiveArch);
    if (cppStandard)
        appendChecked(&flags, QStringLiteral("-std=") + *cppStandard);
    if (fastMath && *fastMath)
        appendChecked(&flags, QStringLiteral("--use_fast_math"));
    if (fmad)
        appendChecked(&flags, QStringLiteral("--fmad=") + boolFlag(*fmad));
    if (lineInfo && *lineInfo)
        appendChecked(&flags, QStringLiteral("-lineinfo"));
    if (deviceDebug && *deviceDebug)
        appendChecked(&flags, QStringLiteral("-G"));
    if (maxRegisters)
        appendChecked(&flags, QStringLiteral("--maxrregcount=%1").arg(*maxRegisters));
    for (const QString& define : defines)
        appendChecked(&flags, QStringLiteral("-D") + define);
    for (const QString& dir : includeDirs)
        appendChecked(&flags, QStringLiteral("-I") + dir);
    // All or nothing: a value token ("-Xptxas", "-v") is only meaningful with its flag.
    if (!checkExtraFlags(extraFlags))
        flags << extraFlags;
    // After the user's dirs, so a user header can shadow a toolkit one on purpose.
    for (const QString& dir : cudaToolkitIncludeDirs())
        appendChecked(&flags, QStringLiteral("-I") + dir);
    return flags;
}

QString ProgramOptions::unsafeContent() const {
    QString error;
    if (arch)
        error = controlCharacterError(QStringLiteral("arch"), *arch);
    if (error.isEmpty() && cppStandard)
        error = controlCharacterError(QStringLiteral("cppStandard"), *cppStandard);
    if (error.isEmpty())
        error = listControlCharacterError(QStringLiteral("defines"), defines);
    if (error.isEmpty())
        error = listControlCharacterError(QStringLiteral("includeDirs"), includeDirs);
    if (error.isEmpty()) {
        if (const std::optional<FlagRefusal> refusal = checkExtraFlags(extraFlags))
            error =
                QStringLiteral("extraFlags[%1]: %2").arg(refusal->index).arg(refusal->message());
    }
    return error;
}

QString ProgramOptions::validate() const {
    if (QString unsafe = unsafeContent(); !unsafe.isEmpty())
        return unsafe;
    if (arch) {
        if (QString bad = archProblem(*arch); !bad.isEmpty())
            return bad;
    }
    if (cppStandard && !cppStandards().contains(*cppStandard)) {
        return QStringLiteral("cppStandard must be one of %1 (got \"%2\")")
            .arg(cppStandards().join(QStringLiteral(", ")), *cppStandard);
    }
    if (maxRegisters && (*maxRegisters < kMinRegisters || *maxRegisters > kMaxRegisters)) {
        return QStringLiteral("maxRegisters must be between %1 and %2 (got %3)")
            .arg(kMinRegisters)
            .arg(kMaxRegisters)
            .arg(*maxRegisters);
    }
    for (const QString& define : defines) {
        if (!isValidDefine(define)) {
            return QStringLiteral("defines: \"%1\" is not NAME or NAME=VALUE (NAME must be a C "
                                  "identifier)")
                .arg(define);
        }
        // Names NVRTC's built-in header (always compiled first) uses itself, as template
        // parameters and declarations: a macro of one of them rewrites the header, and every
        // compile fails there. Found by compiling an empty kernel with each name defined
        // (CUDA 13.0's NVRTC).
        static const QStringList builtinHeaderNames{
            QStringLiteral("T"),      QStringLiteral("_T"),        QStringLiteral("a"),
            QStringLiteral("b"),      QStringLiteral("f"),         QStringLiteral("p"),
            QStringLiteral("v"),      QStringLiteral("w"),         QStringLiteral("x"),
            QStringLiteral("y"),      QStringLiteral("z"),         QStringLiteral("type"),
            QStringLiteral("size_t"), QStringLiteral("value_type")};
        if (const QString name = define.section(QLatin1Char('='), 0, 0);
            builtinHeaderNames.contains(name))
            return QStringLiteral("defines: \"%1\" also renames '%2' inside NVRTC's built-in "
                                  "header, where it is a template parameter or a declaration, "
                                  "so every compile would fail there; give the macro a longer "
                                  "name (ELEM, not T)")
                .arg(define, name);
    }
    for (const QString& dir : includeDirs) {
        if (dir.trimmed().isEmpty())
            return QStringLiteral("includeDirs must not contain an empty directory");
    }
    return {};
}

QJsonObject ProgramOptions::toJson() const {
    QJsonObject json;
    if (arch)
        json.insert(QStringLiteral("arch"), *arch);
    if (cppStandard)
        json.insert(QStringLiteral("cppStandard"), *cppStandard);
    if (fastMath)
        json.insert(QStringLiteral("fastMath"), *fastMath);
    if (fmad)
        json.insert(QStringLiteral("fmad"), *fmad);
    if (lineInfo)
        json.insert(QStringLiteral("lineInfo"), *lineInfo);
    if (deviceDebug)
        json.insert(QStringLiteral("deviceDebug"), *deviceDebug);
    if (maxRegisters)
        json.insert(QStringLiteral("maxRegisters"), *maxRegisters);
    if (!defines.isEmpty())
        json.insert(QStringLiteral("defines"), QJsonArray::fromStringList(defines));
    if (!includeDirs.isEmpty())
        json.insert(QStringLiteral("includeDirs"), QJsonArray::fromStringList(includeDirs));
    if (!extraFlags.isEmpty())
        json.insert(QStringLiteral("extraFlags"), QJsonArray::fromStringList(extraFlags));
    return json;
}

std::optional<ProgramOptions> ProgramOptions::fromJson(const QJsonObject& json, QString* error) {
    // Only types are checked here; validate() judges the values, so a project with a bad value
    // still opens and the user can fix it.
    ProgramOptions options;
    QString message;
    const json::FieldReader fields(json, &message);
    constexpr json::Presence nullable = json::Presence::NullIsAbsent;
    const bool ok =
        fields.readString(QStringLiteral("arch"), &options.arch, nullable) &&
        fields.readString(QStringLiteral("cppStandard"), &options.cppStandard, nullable) &&
        fields.readBool(QStringLiteral("fastMath"), &options.fastMath, nullable) &&
        fields.readBool(QStringLiteral("fmad"), &options.fmad, nullable) &&
        fields.readBool(QStringLiteral("lineInfo"), &options.lineInfo, nullable) &&
        fields.readBool(QStringLiteral("deviceDebug"), &options.deviceDebug, nullable) &&
        fields.readInt(QStringLiteral("maxRegisters"), &options.maxRegisters, nullable) &&
        readStringList(fields, QStringLiteral("defines"), &options.defines) &&
        readStringList(fields, QStringLiteral("includeDirs"), &options.includeDirs) &&
        readStringList(fields, QStringLiteral("extraFlags"), &options.extraFlags);
    if (ok)
        message = options.unsafeContent();
    if (!message.isEmpty()) {
        if (error)
            *error = message;
        return std::nullopt;
    }
    return options;
}

bool operator==(const ProgramOptions& a, const ProgramOptions& b) {
    return a.arch == b.arch && a.cppStandard == b.cppStandard && a.fastMath == b.fastMath &&
           a.fmad == b.fmad && a.lineInfo == b.lineInfo && a.deviceDebug == b.deviceDebug &&
           a.maxRegisters == b.maxRegisters && a.defines == b.defines &&
           a.includeDirs == b.includeDirs && a.extraFlags == b.extraFlags;
}

} // namespace kernelpad
