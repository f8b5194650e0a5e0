#include "core/compile/StandardHeaders.h"

#include <QFileInfo>
#include <QHash>

namespace kernelpad {

namespace {

/// libcu++ headers whose names std:: gets wholesale (a using-directive), so that std::uint32_t,
/// std::numeric_limits and std::is_same_v work as with nvcc. <cmath>, <cstdlib> and <cstdio>
/// are not among them: NVRTC declares sqrtf, abs, printf, ... itself, and libcu++'s functions
/// of the same signature beside them would make `using namespace std; sqrt(x)` ambiguous.
constexpr const char* kForwardedHeaders[] = {
    "array",    "atomic",      "barrier",         "bit",
    "bitset",   "cassert",     "chrono",          "climits",
    "complex",  "concepts",    "cstddef",         "cstdint",
    "cstring",  "expected",    "functional",      "initializer_list",
    "iterator", "latch",       "limits",          "mdspan",
    "memory",   "numbers",     "numeric",         "optional",
    "ratio",    "semaphore",   "source_location", "span",
    "tuple",    "type_traits", "utility",         "variant"};

/// NVRTC's builtin math functions (each with its float overloads and its `f` twin), named in
/// std:: as libstdc++'s <cmath> names the C library's.
constexpr const char* kMathFunctions[] = {
    "acos",      "acosh",     "asin",  "asinh",     "atan",   "atan2",  "atanh",   "cbrt",
    "ceil",      "copysign",  "cos",   "cosh",      "erf",    "erfc",   "exp",     "exp2",
    "expm1",     "fabs",      "fdim",  "floor",     "fma",    "fmax",   "fmin",    "fmod",
    "frexp",     "hypot",     "ilogb", "ldexp",     "lgamma", "llrint", "llround", "log",
    "log10",     "log1p",     "log2",  "logb",      "lrint",  "lround", "modf",    "nan",
    "nearbyint", "nextafter", "pow",   "remainder", "remquo", "rint",   "round",   "scalbln",
    "scalbn",    "sin",       "sinh",  "sqrt",      "tan",    "tanh",   "tgamma",  "trunc"};
/// Classification functions and abs: no `f` twin.
constexpr const char* kMathOverloads[] = {"abs", "isfinite", "isinf", "isnan", "signbit"};

/// The C headers, each the same as its <cname> (their names are global under NVRTC already).
const QHash<QString, QString>& cHeaders() {
    static const QHash<QString, QString> headers{
        {QStringLiteral("assert.h"), QStringLiteral("cassert")},
        {QStringLiteral("float.h"), QStringLiteral("cfloat")},
        {QStringLiteral("limits.h"), QStringLiteral("climits")},
        {QStringLiteral("math.h"), QStringLiteral("cmath")},
        {QStringLiteral("stddef.h"), QStringLiteral("cstddef")},
        {QStringLiteral("stdint.h"), QStringLiteral("cstdint")},
        {QStringLiteral("stdio.h"), QStringLiteral("cstdio")},
        {QStringLiteral("stdlib.h"), QStringLiteral("cstdlib")},
        {QStringLiteral("string.h"), QStringLiteral("cstring")}};
    return headers;
}

/// Headers that need the host's C++ library, with what a kernel uses instead.
const QHash<QString, QString>& hostOnlyHeaders() {
    static const QHash<QString, QString> headers = [] {
        const QString print =
            QStringLiteral("device code prints with printf, which needs no include");
        const QString containers = QStringLiteral(
            "containers allocate on the host; take a pointer argument (a buffer) or use a "
            "fixed-size std::array (#include <array>)");
        const QString threads = QStringLiteral(
            "the threads of a kernel synchronise with __syncthreads(), cooperative groups "
            "(#include <cooperative_groups.h>) or std::atomic (#include <atomic>)");
        const QString exceptions = QStringLiteral(
            "device code cannot throw; check with assert() (#include <cassert>) or write a "
            "status to a buffer");
        const QString host = QStringLiteral("only host code can use it");
        QHash<QString, QString> map;
        for (const char* name : {"iostream", "ostream", "istream", "sstream", "fstream", "iomanip",
                                 "print", "format", "streambuf", "ios"})
            map.insert(QString::fromLatin1(name), print);
        for (const char* name :
             {"vector", "string", "string_view", "map", "set", "unordered_map", "unordered_set",
              "list", "forward_list", "deque", "queue", "stack"})
            map.insert(QString::fromLatin1(name), containers);
        for (const char* name :
             {"thread", "mutex", "shared_mutex", "condition_variable", "future", "stop_token"})
            map.insert(QString::fromLatin1(name), threads);
        for (const char* name : {"exception", "stdexcept", "system_error"})
            map.insert(QString::fromLatin1(name), exceptions);
        map.insert(QStringLiteral("random"),
                   QStringLiteral("use cuRAND's device API (#include <curand_kernel.h>)"));
        for (const char* name : {"filesystem", "regex", "locale", "codecvt", "any", "valarray",
                                 "memory_resource", "csignal", "csetjmp", "clocale", "cwchar"})
            map.insert(QString::fromLatin1(name), host);
        return map;
    }();
    return headers;
}

/// `#ifndef` guard around `body`, named after `name`.
QByteArray guarded(const QString& name, const QByteArray& body) {
    QByteArray guard = "KERNELPAD_STANDARD_HEADER_" + name.toUpper().toLatin1();
    guard.replace('.', '_');
    return "// KernelPad's <" + name.toLatin1() +
           "> for NVRTC, which has no standard library headers (core/compile/"
           "StandardHeaders.cpp)\n#ifndef " +
           guard + "\n#define " + guard + "\n" + body + "#endif\n";
}

QByteArray mathHeader() {
    QByteArray names;
    for (const char* name : kMathFunctions)
        names += QByteArray("using ::") + name + "; using ::" + name + "f;\n";
    for (const char* name : kMathOverloads)
        names += QByteArray("using ::") + name + ";\n";
    // glibc's math.h defines the M_ constants for g++ (and so for nvcc) by default.
    return "#include <cuda/std/limits>\nnamespace std {\n" + names +
           "}\n"
           "#ifndef INFINITY\n#define INFINITY (::cuda::std::numeric_limits<float>::infinity())\n"
           "#endif\n"
           "#ifndef NAN\n#define NAN (::cuda::std::numeric_limits<float>::quiet_NaN())\n#endif\n"
           "#ifndef HUGE_VALF\n#define HUGE_VALF INFINITY\n#endif\n"
           "#ifndef HUGE_VAL\n#define HUGE_VAL (::cuda::std::numeric_limits<double>::infinity())\n"
           "#endif\n"
           "#ifndef M_PI\n"
           "#define M_E 2.7182818284590452354\n#define M_LOG2E 1.4426950408889634074\n"
           "#define M_LOG10E 0.43429448190325182765\n#define M_LN2 0.69314718055994530942\n"
           "#define M_LN10 2.30258509299404568402\n#define M_PI 3.14159265358979323846\n"
           "#define M_PI_2 1.57079632679489661923\n#define M_PI_4 0.78539816339744830962\n"
           "#define M_1_PI 0.31830988618379067154\n#define M_2_PI 0.63661977236758134308\n"
           "#define M_2_SQRTPI 1.12837916709551257390\n#define M_SQRT2 1.41421356237309504880\n"
           "#define M_SQRT1_2 0.70710678118654752440\n"
           "#endif\n";
}

/// <cfloat>: libcu++'s is empty under NVRTC, and NVRTC predefines none of GCC's __FLT_*__.
/// The values are IEEE 754 binary32 and binary64, as the GPU computes them.
QByteArray floatHeader() {
    return "#ifndef FLT_MAX\n"
           "#define FLT_RADIX 2\n#define FLT_MANT_DIG 24\n#define DBL_MANT_DIG 53\n"
           "#define FLT_DIG 6\n#define DBL_DIG 15\n"
           "#define FLT_DECIMAL_DIG 9\n#define DBL_DECIMAL_DIG 17\n#define DECIMAL_DIG 17\n"
           "#define FLT_MIN_EXP (-125)\n#define DBL_MIN_EXP (-1021)\n"
           "#define FLT_MAX_EXP 128\n#define DBL_MAX_EXP 1024\n"
           "#define FLT_MIN_10_EXP (-37)\n#define DBL_MIN_10_EXP (-307)\n"
           "#define FLT_MAX_10_EXP 38\n#define DBL_MAX_10_EXP 308\n"
           "#define FLT_MAX 3.40282347e+38F\n#define DBL_MAX 1.7976931348623157e+308\n"
           "#define FLT_MIN 1.17549435e-38F\n#define DBL_MIN 2.2250738585072014e-308\n"
           "#define FLT_TRUE_MIN 1.40129846e-45F\n#define DBL_TRUE_MIN 4.9406564584124654e-324\n"
           "#define FLT_EPSILON 1.19209290e-7F\n#define DBL_EPSILON 2.2204460492503131e-16\n"
           "#define FLT_EVAL_METHOD 0\n"
           "#endif\n";
}

/// <algorithm>: libcu++ has its algorithms but no <cuda/std/algorithm>; the ones a kernel
/// uses on a few values or a small array, each only where this toolkit has it.
QByteArray algorithmHeader() {
    QByteArray body;
    for (const char* part :
         {"min",         "max",         "clamp",       "minmax",        "min_element",
          "max_element", "fill",        "fill_n",      "copy",          "copy_n",
          "find",        "find_if",     "count",       "count_if",      "all_of",
          "any_of",      "none_of",     "for_each",    "transform",     "reverse",
          "equal",       "lower_bound", "upper_bound", "binary_search", "swap_ranges"}) {
        const QByteArray header = QByteArray("<cuda/std/__algorithm/") + part + ".h>";
        body += "#if __has_include(" + header + ")\n#include " + header + "\n#endif\n";
    }
    return body + "#include <cuda/std/utility>\nnamespace std { using namespace ::cuda::std; }\n";
}

bool toolkitHas(const QString& relative, const QStringList& toolkitDirs) {
    for (const QString& dir : toolkitDirs) {
        if (QFileInfo(dir + QLatin1Char('/') + relative).isFile())
            return true;
    }
    return false;
}

std::optional<QByteArray> deviceHeaderBody(const QString& name, const QStringList& toolkitDirs) {
    if (name == QLatin1String("cmath"))
        return mathHeader();
    if (name == QLatin1String("cfloat"))
        return floatHeader();
    if (name == QLatin1String("cstdlib"))
        return QByteArray("namespace std { using ::size_t; using ::abs; using ::labs; "
                          "using ::llabs; using ::malloc; using ::free; }\n");
    if (name == QLatin1String("cstdio"))
        return QByteArray("namespace std { using ::size_t; using ::printf; }\n");
    if (name == QLatin1String("algorithm"))
        return algorithmHeader();
    if (name == QLatin1String("stdbool.h"))
        return QByteArray(); // bool, true and false are C++ keywords
    for (const char* forwarded : kForwardedHeaders) {
        if (name != QLatin1String(forwarded))
            continue;
        const QString libcu = QStringLiteral("cuda/std/") + name;
        if (!toolkitHas(libcu, toolkitDirs))
            return std::nullopt;
        // Some (<cuda/std/climits>) declare nothing under NVRTC: the namespace must exist.
        return "#include <" + libcu.toLatin1() +
               ">\nnamespace cuda { namespace std {} }\n"
               "namespace std { using namespace ::cuda::std; }\n";
    }
    return std::nullopt;
}

} // namespace

std::optional<StandardHeader> standardHeader(const QString& name, const QStringList& toolkitDirs) {
    if (const auto advice = hostOnlyHeaders().constFind(name); advice != hostOnlyHeaders().cend()) {
        const QString message =
            QStringLiteral("<%1> is a host-only C++ library header: NVRTC compiles device code, "
                           "where it cannot work; %2")
                .arg(name, *advice);
        return StandardHeader{"#error \"" + message.toUtf8() + "\"\n", true};
    }
    const QString own = cHeaders().value(name, name);
    std::optional<QByteArray> body = deviceHeaderBody(own, toolkitDirs);
    if (!body)
        return std::nullopt;
    return StandardHeader{guarded(name, *body), false};
}

} // namespace kernelpad
