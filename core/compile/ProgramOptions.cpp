#include "core/compile/ProgramOptions.h"

#include "core/compile/NvrtcFlags.h"
#include "core/compile/Toolkit.h"
#include "core/io/ControlChars.h"

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

/// Reads a string list field; false (with *error set) when the field is not an array of strings.
bool readStringList(const QJsonObject& json, const QString& key, QStringList* out, QString* error) {
    const QJsonValue value = json.value(key);
    if (value.isUndefined() || value.isNull())
        return true;
    if (!value.isArray()) {
        *error = QStringLiteral("ProgramOptions: \"%1\" must be an array of strings").arg(key);
        return false;
    }
    const QJsonArray array = value.toArray();
    for (qsizetype i = 0; i < array.size(); ++i) {
        if (!array.at(i).isString()) {
            *error = QStringLiteral("ProgramOptions: \"%1\"[%2] must be a string").arg(key).arg(i);
            return false;
        }
        out->append(array.at(i).toString());
    }
    return true;
}

bool readString(const QJsonObject& json, const QString& key, std::optional<QString>* out,
                QString* error) {
    const QJsonValue value = json.value(key);
    if (value.isUndefined() || value.isNull())
        return true;
    if (!value.isString()) {
        *error = QStringLiteral("ProgramOptions: \"%1\" must be a string").arg(key);
        return false;
    }
    *out = value.toString();
    return true;
}

bool readBool(const QJsonObject& json, const QString& key, std::optional<bool>* out,
              QString* error) {
    const QJsonValue value = json.value(key);
    if (value.isUndefined() || value.isNull())
        return true;
    if (!value.isBool()) {
        *error = QStringLiteral("ProgramOptions: \"%1\" must be true or false").arg(key);
        return false;
    }
    *out = value.toBool();
    return true;
}

bool readInt(const QJsonObject& json, const QString& key, std::optional<int>* out, QString* error) {
    const QJsonValue value = json.value(key);
    if (value.isUndefined() || value.isNull())
        return true;
    const double number = value.toDouble(std::nan(""));
    // JSON has only doubles: accept whole numbers that fit an int, nothing else.
    if (!value.isDouble() || std::floor(number) != number || number < INT_MIN || number > INT_MAX) {
        *error = QStringLiteral("ProgramOptions: \"%1\" must be an integer").arg(key);
        return false;
    }
    *out = static_cast<int>(number);
    return true;
}

} // namespace

bool isValidArch(const QString& arch) {
    // sm_XY makes a CUBIN for exactly that GPU; compute_XY (a virtual arch) makes PTX only,
    // which the driver's JIT compiles when the module is loaded (issue 12, point 6).
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
    const bool ok =
        readString(json, QStringLiteral("arch"), &options.arch, &message) &&
        readString(json, QStringLiteral("cppStandard"), &options.cppStandard, &message) &&
        readBool(json, QStringLiteral("fastMath"), &options.fastMath, &message) &&
        readBool(json, QStringLiteral("fmad"), &options.fmad, &message) &&
        readBool(json, QStringLiteral("lineInfo"), &options.lineInfo, &message) &&
        readBool(json, QStringLiteral("deviceDebug"), &options.deviceDebug, &message) &&
        readInt(json, QStringLiteral("maxRegisters"), &options.maxRegisters, &message) &&
        readStringList(json, QStringLiteral("defines"), &options.defines, &message) &&
        readStringList(json, QStringLiteral("includeDirs"), &options.includeDirs, &message) &&
        readStringList(json, QStringLiteral("extraFlags"), &options.extraFlags, &message);
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
