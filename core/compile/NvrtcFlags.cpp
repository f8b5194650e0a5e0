#include "core/compile/NvrtcFlags.h"

#include "core/compile/ProgramOptions.h"
#include "core/io/ControlChars.h"

#include <QRegularExpression>

namespace kernelpad {

namespace {

/// What a flag's value must be.
enum class Value {
    None,        ///< a switch: "--restrict"
    Bool,        ///< true | false
    On,          ///< on (NVRTC 13.0 refuses "--dopt=off": "invalid argument for option --dopt")
    False,       ///< false
    DiagNumbers, ///< 177 or 177,550
    MacroName,   ///< a C identifier (-U)
    PtxasOption, ///< one option from kHarmlessPtxasOptions
    Inline,      ///< inline (the only kind of --optimization-info)
    Arch,        ///< sm_90, sm_90a, compute_90
    CppStandard, ///< c++11 .. c++20
    Registers,   ///< 16 .. 255
    Define,      ///< NAME or NAME=VALUE
    Path,        ///< a directory (-I): any text without control characters
};

/// Who may emit a flag.
enum class Use {
    Extra,   ///< the user's extraFlags (and so also toFlags())
    Field,   ///< only toFlags(), from the ProgramOptions field named in `why`
    Refused, ///< nobody; `why` says what the flag would do
};

/// Value spellings besides "--flag=value", as NVRTC 13.0 takes them (each tried).
constexpr unsigned kEqualsOnly = 0;
constexpr unsigned kSeparate = 1; ///< "-ftz true": the value as the next token
constexpr unsigned kGlued = 2;    ///< "-UNAME", "-DN=1", "-I/dir": right after the short name

struct FlagRule {
    const char* longName;  ///< without dashes: "ftz" (spelled --ftz or -ftz)
    const char* shortName; ///< without the dash, or nullptr: "w" (spelled -w)
    Value value;
    Use use;
    const char* why;     ///< Field: the field's name; Refused: why, as the end of a sentence
    unsigned valueForms; ///< value spellings besides "=value": kSeparate, kGlued
};

// The reasons end the sentence "\"FLAG\" is refused: ...".
constexpr const char* kWritesPch =
    "it makes NVRTC write precompiled header files, and a project must never write the user's "
    "files";
constexpr const char* kReadsPch = "it makes NVRTC read a precompiled header file from outside "
                                  "the project's include path";
constexpr const char* kPchOnly = "it only matters with precompiled headers, which are files "
                                 "outside the project and are refused";
constexpr const char* kNoLoad =
    "it makes NVRTC emit code that KernelPad cannot load and run as a kernel";

// Checked against NVRTC 13.0 (the "Supported Compile Options" list of the NVRTC user guide,
// and each spelling tried with nvrtcCompileProgram).
const FlagRule kRules[] = {
    // Allowed in extraFlags: they change code generation or diagnostics and touch no file.
    {"dopt", nullptr, Value::On, Use::Extra, nullptr, kSeparate},
    {"ftz", nullptr, Value::Bool, Use::Extra, nullptr, kSeparate},
    {"prec-div", nullptr, Value::Bool, Use::Extra, nullptr, kSeparate},
    {"prec-sqrt", nullptr, Value::Bool, Use::Extra, nullptr, kSeparate},
    {"extra-device-vectorization", nullptr, Value::None, Use::Extra, nullptr, kEqualsOnly},
    {"restrict", nullptr, Value::None, Use::Extra, nullptr, kEqualsOnly},
    {"disable-warnings", "w", Value::None, Use::Extra, nullptr, kEqualsOnly},
    {"diag-suppress", nullptr, Value::DiagNumbers, Use::Extra, nullptr, kSeparate},
    {"diag-error", nullptr, Value::DiagNumbers, Use::Extra, nullptr, kSeparate},
    {"diag-warn", nullptr, Value::DiagNumbers, Use::Extra, nullptr, kSeparate},
    {"display-error-number", "err-no", Value::None, Use::Extra, nullptr, kEqualsOnly},
    {"no-display-error-number", "no-err-no", Value::None, Use::Extra, nullptr, kEqualsOnly},
    {"device-as-default-execution-space", "default-device", Value::None, Use::Extra, nullptr,
     kEqualsOnly},
    {"undefine-macro", "U", Value::MacroName, Use::Extra, nullptr, kSeparate | kGlued},
    {"relocatable-device-code", "rdc", Value::False, Use::Extra, nullptr, kSeparate},
    {"ptxas-options", "Xptxas", Value::PtxasOption, Use::Extra, nullptr, kSeparate},
    {"device-int128", nullptr, Value::None, Use::Extra, nullptr, kEqualsOnly},
    {"builtin-move-forward", nullptr, Value::Bool, Use::Extra, nullptr, kSeparate},
    {"builtin-initializer-list", nullptr, Value::Bool, Use::Extra, nullptr, kSeparate},
    {"brief-diagnostics", "brief-diag", Value::Bool, Use::Extra, nullptr, kSeparate},
    {"optimization-info", "opt-info", Value::Inline, Use::Extra, nullptr, kEqualsOnly},
    {"modify-stack-limit", nullptr, Value::Bool, Use::Extra, nullptr, kSeparate},
    {"device-stack-protector", nullptr, Value::Bool, Use::Extra, nullptr, kSeparate},

    // Typed fields of ProgramOptions: toFlags() emits them, extraFlags may not.
    {"gpu-architecture", "arch", Value::Arch, Use::Field, "arch", kSeparate},
    {"std", nullptr, Value::CppStandard, Use::Field, "cppStandard", kEqualsOnly},
    {"use_fast_math", nullptr, Value::None, Use::Field, "fastMath", kEqualsOnly},
    {"fmad", nullptr, Value::Bool, Use::Field, "fmad", kSeparate},
    {"generate-line-info", "lineinfo", Value::None, Use::Field, "lineInfo", kEqualsOnly},
    {"device-debug", "G", Value::None, Use::Field, "deviceDebug", kEqualsOnly},
    {"maxrregcount", nullptr, Value::Registers, Use::Field, "maxRegisters", kSeparate},
    {"define-macro", "D", Value::Define, Use::Field, "defines", kSeparate | kGlued},
    {"include-path", "I", Value::Path, Use::Field, "includeDirs", kSeparate | kGlued},

    // Refused with a reason; any flag not in this table is refused as unknown.
    {"create-pch", nullptr, Value::None, Use::Refused, kWritesPch, kEqualsOnly},
    {"pch", nullptr, Value::None, Use::Refused, kWritesPch, kEqualsOnly},
    {"pch-dir", nullptr, Value::None, Use::Refused, kWritesPch, kEqualsOnly},
    {"use-pch", nullptr, Value::None, Use::Refused, kReadsPch, kEqualsOnly},
    {"pch-verbose", nullptr, Value::None, Use::Refused, kPchOnly, kEqualsOnly},
    {"pch-messages", nullptr, Value::None, Use::Refused, kPchOnly, kEqualsOnly},
    {"instantiate-templates-in-pch", nullptr, Value::None, Use::Refused, kPchOnly, kEqualsOnly},
    {"time", nullptr, Value::None, Use::Refused,
     "it makes NVRTC append timing lines to the file it names", kEqualsOnly},
    {"fdevice-time-trace", nullptr, Value::None, Use::Refused,
     "it makes NVRTC write a trace file (the value plus \".json\")", kEqualsOnly},
    {"pre-include", "include", Value::None, Use::Refused,
     "it makes NVRTC read a header the project names before the source, bypassing KernelPad's "
     "check of included files",
     kEqualsOnly},
    {"no-source-include", nullptr, Value::None, Use::Refused,
     "it changes where NVRTC looks for headers, which KernelPad's include check mirrors",
     kEqualsOnly},
    {"dlink-time-opt", "dlto", Value::None, Use::Refused, kNoLoad, kEqualsOnly},
    {"gen-opt-lto", nullptr, Value::None, Use::Refused, kNoLoad, kEqualsOnly},
    {"optix-ir", nullptr, Value::None, Use::Refused, kNoLoad, kEqualsOnly},
    {"device-c", "dc", Value::None, Use::Refused, kNoLoad, kEqualsOnly},
    {"device-w", "dw", Value::None, Use::Refused, kNoLoad, kEqualsOnly},
    {"fdevice-syntax-only", nullptr, Value::None, Use::Refused, kNoLoad, kEqualsOnly},
};

// ptxas options that only change optimisation or print to the program log.
const char* const kHarmlessPtxasOptions[] = {
    "-v",
    "--verbose",
    "-O0",
    "-O1",
    "-O2",
    "-O3",
    "--warn-on-spills",
    "-warn-spills",
    "--warn-on-local-memory-usage",
    "-warn-lmem-usage",
};

constexpr int kMinRegisters = ProgramOptions::kMinRegisters;
constexpr int kMaxRegisters = ProgramOptions::kMaxRegisters;

bool matches(const QRegularExpression& re, const QString& text) {
    return re.match(text).hasMatch();
}

/// Empty when `value` suits `kind`, else what the flag takes ("takes true or false").
QString valueProblem(Value kind, const QString& value) {
    static const QRegularExpression diagNumbers(
        QStringLiteral("^[1-9][0-9]{0,5}(,[1-9][0-9]{0,5})*$"));
    static const QRegularExpression identifier(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    static const QRegularExpression arch(QStringLiteral("^(sm|compute)_[0-9]{2,4}[a-z]?$"));
    static const QRegularExpression registers(QStringLiteral("^[0-9]{1,3}$"));
    switch (kind) {
    case Value::None:
        return QStringLiteral("takes no value");
    case Value::Bool:
        return value == QLatin1String("true") || value == QLatin1String("false")
                   ? QString()
                   : QStringLiteral("takes true or false");
    case Value::On:
        return value == QLatin1String("on") ? QString()
                                            : QStringLiteral("takes only on (NVRTC refuses off)");
    case Value::False:
        return value == QLatin1String("false")
                   ? QString()
                   : QStringLiteral("takes only false: relocatable device code needs a link "
                                    "step KernelPad does not run");
    case Value::DiagNumbers:
        return matches(diagNumbers, value)
                   ? QString()
                   : QStringLiteral("takes diagnostic numbers separated by commas (177 or "
                                    "177,550)");
    case Value::MacroName:
        return matches(identifier, value) ? QString()
                                          : QStringLiteral("takes a macro name (a C identifier)");
    case Value::PtxasOption:
        for (const char* option : kHarmlessPtxasOptions) {
            if (value == QLatin1String(option))
                return {};
        }
        return QStringLiteral("takes one ptxas option that writes no file: -v, --verbose, "
                              "-O0..-O3, --warn-on-spills, --warn-on-local-memory-usage");
    case Value::Inline:
        return value == QLatin1String("inline") ? QString() : QStringLiteral("takes inline");
    case Value::Arch:
        return matches(arch, value) ? QString() : QStringLiteral("takes an arch such as sm_90");
    case Value::CppStandard: {
        static const QStringList standards{QStringLiteral("c++11"), QStringLiteral("c++14"),
                                           QStringLiteral("c++17"), QStringLiteral("c++20")};
        return standards.contains(value) ? QString() : QStringLiteral("takes c++11 to c++20");
    }
    case Value::Registers: {
        const int count = matches(registers, value) ? value.toInt() : 0;
        return count >= kMinRegisters && count <= kMaxRegisters
                   ? QString()
                   : QStringLiteral("takes a register count from %1 to %2")
                         .arg(kMinRegisters)
                         .arg(kMaxRegisters);
    }
    case Value::Define:
        return isValidDefine(value) ? QString()
                                    : QStringLiteral("takes NAME or NAME=VALUE without control "
                                                     "characters");
    case Value::Path:
        return !value.trimmed().isEmpty() && findControlCharacter(value) < 0
                   ? QString()
                   : QStringLiteral("takes a directory without control characters");
    }
    return QStringLiteral("takes no value");
}

/// The rule a token names, and the value glued to it or after '=' (nullopt: none given).
struct Parsed {
    const FlagRule* rule = nullptr;
    std::optional<QString> value;
};

Parsed parseToken(const QString& token) {
    Parsed parsed;
    if (!token.startsWith(u'-'))
        return parsed;
    const bool doubleDash = token.startsWith(QLatin1String("--"));
    const QString body = token.mid(doubleDash ? 2 : 1);
    const qsizetype equals = body.indexOf(u'=');
    const QString name = equals < 0 ? body : body.left(equals);
    for (const FlagRule& rule : kRules) {
        // NVRTC takes the long name after one dash or two, the short name after one.
        const bool named = name == QLatin1String(rule.longName) ||
                           (!doubleDash && rule.shortName && name == QLatin1String(rule.shortName));
        if (named) {
            parsed.rule = &rule;
            if (equals >= 0)
                parsed.value = body.mid(equals + 1);
            return parsed;
        }
    }
    if (doubleDash)
        return parsed;
    for (const FlagRule& rule : kRules) {
        if ((rule.valueForms & kGlued) && rule.shortName &&
            body.startsWith(QLatin1String(rule.shortName))) {
            parsed.rule = &rule;
            parsed.value = body.mid(qsizetype(qstrlen(rule.shortName)));
            return parsed;
        }
    }
    return parsed;
}

std::optional<FlagRefusal> refuse(qsizetype index, const QString& flag, const QString& reason) {
    return FlagRefusal{index, flag, reason};
}

std::optional<FlagRefusal> checkFlags(const QStringList& flags, bool fieldsAllowed) {
    for (qsizetype i = 0; i < flags.size(); ++i) {
        const QString& token = flags.at(i);
        if (findControlCharacter(token) >= 0)
            return refuse(i, escapeControlCharacters(token),
                          QStringLiteral("it contains a control character"));
        const Parsed parsed = parseToken(token);
        if (!parsed.rule) {
            return refuse(i, token,
                          QStringLiteral("it is not one of the NVRTC flags KernelPad knows to read "
                                         "and write no files (%1)")
                              .arg(allowedExtraFlagsSummary()));
        }
        const FlagRule& rule = *parsed.rule;
        if (rule.use == Use::Refused)
            return refuse(i, token, QLatin1String(rule.why));
        if (rule.use == Use::Field && !fieldsAllowed) {
            return refuse(i, token,
                          QStringLiteral("it is set by the \"%1\" option, not by extra flags")
                              .arg(QLatin1String(rule.why)));
        }
        if (rule.value == Value::None) {
            if (parsed.value)
                return refuse(i, token, QStringLiteral("it takes no value"));
            continue;
        }
        const qsizetype flagIndex = i; // a refused value is reported at its flag
        QString value;
        if (parsed.value) {
            value = *parsed.value;
        } else if (!(rule.valueForms & kSeparate)) {
            return refuse(i, token,
                          QStringLiteral("it takes its value after \"=\" (%1=...)").arg(token));
        } else if (i + 1 < flags.size()) {
            // NVRTC takes the next token as the value, whatever it looks like.
            value = flags.at(++i);
            if (findControlCharacter(value) >= 0)
                return refuse(flagIndex, escapeControlCharacters(value),
                              QStringLiteral("it contains a control character"));
        } else {
            return refuse(i, token, QStringLiteral("it expects a value"));
        }
        if (const QString problem = valueProblem(rule.value, value); !problem.isEmpty())
            return refuse(flagIndex, token,
                          QStringLiteral("it %1 (got \"%2\")").arg(problem, value));
    }
    return std::nullopt;
}

QString valueSyntax(Value kind) {
    switch (kind) {
    case Value::Bool:
        return QStringLiteral("=true|false");
    case Value::On:
        return QStringLiteral("=on");
    case Value::False:
        return QStringLiteral("=false");
    case Value::DiagNumbers:
        return QStringLiteral("=N[,N...]");
    case Value::MacroName:
        return QStringLiteral("=NAME");
    case Value::PtxasOption:
        return QStringLiteral("=-v|-O0..3|--warn-on-spills|--warn-on-local-memory-usage");
    case Value::Inline:
        return QStringLiteral("=inline");
    default:
        return {};
    }
}

} // namespace

QString FlagRefusal::message() const {
    return QStringLiteral("\"%1\" is refused: %2").arg(flag, reason);
}

std::optional<FlagRefusal> checkExtraFlags(const QStringList& extraFlags) {
    return checkFlags(extraFlags, false);
}

std::optional<FlagRefusal> checkNvrtcFlags(const QStringList& flags) {
    return checkFlags(flags, true);
}

bool isValidDefine(const QString& define) {
    // A macro name, optionally "=value"; the value is free text, as with nvcc -D, short of
    // control characters.
    static const QRegularExpression re(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*(=.*)?$"),
                                       QRegularExpression::DotMatchesEverythingOption);
    return findControlCharacter(define) < 0 && re.match(define).hasMatch();
}

QString allowedExtraFlagsSummary() {
    QStringList names;
    for (const FlagRule& rule : kRules) {
        if (rule.use == Use::Extra)
            names.append(QStringLiteral("--") + QLatin1String(rule.longName) +
                         valueSyntax(rule.value));
    }
    return QStringLiteral("allowed: ") + names.join(QStringLiteral(", "));
}

} // namespace kernelpad
