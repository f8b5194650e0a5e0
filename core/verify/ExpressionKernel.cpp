#include "core/verify/ExpressionKernel.h"

#include "core/compile/Program.h"
#include "core/cuda/CudaError.h"
#include "core/cuda/LaunchDims.h"
#include "core/io/Trace.h"

#include <QRegularExpression>

#include <muParser.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace kernelpad {

namespace {

/// What every translated kernel starts with. Each helper is written as muParser 2.3's
/// implementation is (MathImpl), so that both compute the same doubles.
const char* const kPrelude =
    R"(// An expression check's expected values, translated from muParser syntax.
__device__ __forceinline__ double kp_sign(double v) { return v < 0 ? -1.0 : (v > 0 ? 1.0 : 0.0); }
__device__ __forceinline__ double kp_rint(double v) { return floor(v + 0.5); }
__device__ __forceinline__ double kp_min(double a, double b) { return b < a ? b : a; }
__device__ __forceinline__ double kp_max(double a, double b) { return a < b ? b : a; }
// muParser turns x^2 into x*x; a squared value is exact either way, not so pow's result.
__device__ __forceinline__ double kp_pow(double a, double b) { return b == 2.0 ? a * a : pow(a, b); }
)";

/// One-argument functions muParser defines, and the CUDA function each becomes.
struct Function {
    const char* name;
    const char* cuda;
};
constexpr Function kUnaryFunctions[] = {
    {"sin", "sin"},      {"cos", "cos"},     {"tan", "tan"},     {"asin", "asin"},
    {"acos", "acos"},    {"atan", "atan"},   {"sinh", "sinh"},   {"cosh", "cosh"},
    {"tanh", "tanh"},    {"asinh", "asinh"}, {"acosh", "acosh"}, {"atanh", "atanh"},
    {"exp", "exp"},      {"log", "log"},     {"ln", "log"},      {"log2", "log2"},
    {"log10", "log10"},  {"sqrt", "sqrt"},   {"abs", "fabs"},    {"sign", "kp_sign"},
    {"rint", "kp_rint"},
};
constexpr const char* kVariadicFunctions[] = {"min", "max", "sum", "avg"};

bool isUnaryFunction(const QString& name, const char** cuda = nullptr) {
    for (const Function& f : kUnaryFunctions)
        if (name == QLatin1String(f.name)) {
            if (cuda)
                *cuda = f.cuda;
            return true;
        }
    return false;
}

bool isVariadicFunction(const QString& name) {
    return std::any_of(std::begin(kVariadicFunctions), std::end(kVariadicFunctions),
                       [&](const char* f) { return name == QLatin1String(f); });
}

/// A double as an exact CUDA literal.
QString literal(double value) {
    char text[64];
    std::snprintf(text, sizeof text, "%a", value);
    return QStringLiteral("(%1)").arg(QLatin1String(text));
}

/// The value muParser gives one of its own constants ("_pi", "_e").
double muParserConstant(const char* name) {
    mu::Parser parser;
    parser.SetExpr(name);
    return parser.Eval();
}

const char* cudaType(ScalarType type) {
    switch (type) {
    case ScalarType::Bool:
    case ScalarType::UInt8:
        return "unsigned char";
    case ScalarType::Int8:
        return "signed char";
    case ScalarType::Int16:
        return "short";
    case ScalarType::UInt16:
        return "unsigned short";
    case ScalarType::Int32:
        return "int";
    case ScalarType::UInt32:
        return "unsigned int";
    case ScalarType::Int64:
        return "long long";
    case ScalarType::UInt64:
        return "unsigned long long";
    case ScalarType::Float32:
        return "float";
    case ScalarType::Float64:
        return "double";
    case ScalarType::Float16:
    case ScalarType::Complex64:
    case ScalarType::Complex128:
    case ScalarType::BFloat16:
    case ScalarType::Float8E4M3:
    case ScalarType::Float8E5M2:
    case ScalarType::Float4E2M1x2:
        break;
    }
    return nullptr;
}

/// Recursive descent over muParser's grammar, precedence lowest first: ?: (right to left),
/// ||, &&, the comparisons, + -, * /, the signs, ^ (right to left; above the signs, so
/// -a^2 is -(a^2)). Each rule returns fully parenthesised CUDA, or nothing with `why`.
class Translator {
public:
    Translator(const QString& text, const QHash<QString, ScalarType>& buffers,
               const QStringList& scalars, bool indexAvailable)
        : m_text(text)
        , m_buffers(buffers)
        , m_scalars(scalars)
        , m_index(indexAvailable) {}

    std::optional<QString> translate(QString* why) {
        std::optional<QString> code = ternary();
        skipSpace();
        if (code && m_pos != m_text.size())
            code = unsupported(QStringLiteral("unexpected '%1' at position %2")
                                   .arg(m_text.mid(m_pos, 8))
                                   .arg(m_pos));
        if (!code)
            *why = m_why;
        return code;
    }
    QStringList usedBuffers;
    QStringList usedScalars;

private:
    std::optional<QString> unsupported(const QString& why) {
        if (m_why.isEmpty())
            m_why = why;
        return std::nullopt;
    }
    void skipSpace() {
        while (m_pos < m_text.size() && m_text.at(m_pos).isSpace())
            ++m_pos;
    }
    /// Consumes `op` when it comes next (and, for '<' and '>', is not the start of '<=', '>=').
    bool accept(const char* op) {
        skipSpace();
        const QLatin1String token(op);
        if (!QStringView(m_text).mid(m_pos).startsWith(token))
            return false;
        if (token.size() == 1 && (op[0] == '<' || op[0] == '>' || op[0] == '=' || op[0] == '!') &&
            m_pos + 1 < m_text.size() && m_text.at(m_pos + 1) == QLatin1Char('='))
            return false;
        m_pos += token.size();
        return true;
    }

    std::optional<QString> ternary() {
        std::optional<QString> condition = logicalOr();
        if (!condition || !accept("?"))
            return condition;
        std::optional<QString> then = ternary();
        if (!then)
            return then;
        if (!accept(":"))
            return unsupported(QStringLiteral("'?' without ':'"));
        std::optional<QString> otherwise = ternary();
        if (!otherwise)
            return otherwise;
        return QStringLiteral("((%1) != 0.0 ? (%2) : (%3))").arg(*condition, *then, *otherwise);
    }
    std::optional<QString> logicalOr() {
        std::optional<QString> left = logicalAnd();
        while (left && accept("||")) {
            const std::optional<QString> right = logicalAnd();
            if (!right)
                return right;
            left = QStringLiteral("((%1) != 0.0 || (%2) != 0.0 ? 1.0 : 0.0)").arg(*left, *right);
        }
        return left;
    }
    std::optional<QString> logicalAnd() {
        std::optional<QString> left = comparison();
        while (left && accept("&&")) {
            const std::optional<QString> right = comparison();
            if (!right)
                return right;
            left = QStringLiteral("((%1) != 0.0 && (%2) != 0.0 ? 1.0 : 0.0)").arg(*left, *right);
        }
        return left;
    }
    std::optional<QString> comparison() {
        std::optional<QString> left = additive();
        static const char* const ops[] = {"<=", ">=", "==", "!=", "<", ">"};
        while (left) {
            const char* found = nullptr;
            for (const char* op : ops)
                if (accept(op)) {
                    found = op;
                    break;
                }
            if (!found)
                break;
            const std::optional<QString> right = additive();
            if (!right)
                return right;
            left = QStringLiteral("((%1) %2 (%3) ? 1.0 : 0.0)")
                       .arg(*left, QLatin1String(found), *right);
        }
        return left;
    }
    std::optional<QString> additive() {
        std::optional<QString> left = multiplicative();
        while (left) {
            const char* op = accept("+") ? "+" : accept("-") ? "-" : nullptr;
            if (!op)
                break;
            const std::optional<QString> right = multiplicative();
            if (!right)
                return right;
            left = QStringLiteral("(%1 %2 %3)").arg(*left, QLatin1String(op), *right);
        }
        return left;
    }
    std::optional<QString> multiplicative() {
        std::optional<QString> left = signedPower();
        while (left) {
            const char* op = accept("*") ? "*" : accept("/") ? "/" : nullptr;
            if (!op)
                break;
            const std::optional<QString> right = signedPower();
            if (!right)
                return right;
            left = QStringLiteral("(%1 %2 %3)").arg(*left, QLatin1String(op), *right);
        }
        return left;
    }
    /// One sign at most: muParser refuses "--x", and the host words that error.
    std::optional<QString> signedPower() {
        const bool minus = accept("-");
        const bool plus = !minus && accept("+");
        if (minus || plus) {
            skipSpace();
            if (m_pos < m_text.size() &&
                (m_text.at(m_pos) == QLatin1Char('-') || m_text.at(m_pos) == QLatin1Char('+')))
                return unsupported(QStringLiteral("two signs in a row"));
        }
        std::optional<QString> value = power();
        if (value && minus)
            return QStringLiteral("(-%1)").arg(*value);
        return value;
    }
    std::optional<QString> power() {
        std::optional<QString> base = primary();
        if (!base || !accept("^"))
            return base;
        const std::optional<QString> exponent = signedPower(); // right to left
        if (!exponent)
            return exponent;
        return QStringLiteral("kp_pow(%1, %2)").arg(*base, *exponent);
    }
    std::optional<QString> primary() {
        skipSpace();
        if (m_pos >= m_text.size())
            return unsupported(QStringLiteral("the expression ends early"));
        const QChar c = m_text.at(m_pos);
        if (c == QLatin1Char('(')) {
            ++m_pos;
            std::optional<QString> inner = ternary();
            if (!inner)
                return inner;
            if (!accept(")"))
                return unsupported(QStringLiteral("a '(' without ')'"));
            return inner;
        }
        if (c.isDigit() || c == QLatin1Char('.'))
            return number();
        if (c.isLetter() || c == QLatin1Char('_'))
            return name();
        return unsupported(QStringLiteral("'%1' at position %2").arg(c).arg(m_pos));
    }
    std::optional<QString> number() {
        const int start = m_pos;
        auto digits = [&] {
            int n = 0;
            while (m_pos < m_text.size() && m_text.at(m_pos).isDigit()) {
                ++m_pos;
                ++n;
            }
            return n;
        };
        int count = digits();
        if (m_pos < m_text.size() && m_text.at(m_pos) == QLatin1Char('.')) {
            ++m_pos;
            count += digits();
        }
        if (count == 0)
            return unsupported(QStringLiteral("a '.' that is no number"));
        if (m_pos < m_text.size() &&
            (m_text.at(m_pos) == QLatin1Char('e') || m_text.at(m_pos) == QLatin1Char('E'))) {
            const int mark = m_pos++;
            if (m_pos < m_text.size() &&
                (m_text.at(m_pos) == QLatin1Char('+') || m_text.at(m_pos) == QLatin1Char('-')))
                ++m_pos;
            if (digits() == 0)
                m_pos = mark; // "2e" is 2 followed by a name: muParser's reading of it decides
        }
        if (m_pos < m_text.size() &&
            (m_text.at(m_pos).isLetter() || m_text.at(m_pos) == QLatin1Char('_')))
            return unsupported(QStringLiteral("a number followed by a name"));
        const QByteArray text = m_text.mid(start, m_pos - start).toLatin1();
        return literal(std::strtod(text.constData(), nullptr));
    }
    std::optional<QString> name() {
        const int start = m_pos;
        while (m_pos < m_text.size() &&
               (m_text.at(m_pos).isLetterOrNumber() || m_text.at(m_pos) == QLatin1Char('_')))
            ++m_pos;
        const QString word = m_text.mid(start, m_pos - start);
        if (word.contains(QRegularExpression(QStringLiteral("[^A-Za-z0-9_]"))))
            return unsupported(QStringLiteral("the name '%1'").arg(word));
        const bool isArgument = m_buffers.contains(word) || m_scalars.contains(word);
        const char* cuda = nullptr;
        if (isUnaryFunction(word, &cuda) || isVariadicFunction(word)) {
            if (isArgument)
                return unsupported(
                    QStringLiteral("'%1' names both an argument and a function").arg(word));
            if (!accept("("))
                return unsupported(QStringLiteral("function '%1' without '('").arg(word));
            QStringList args;
            do {
                std::optional<QString> arg = ternary();
                if (!arg)
                    return arg;
                args << *arg;
            } while (accept(","));
            if (!accept(")"))
                return unsupported(QStringLiteral("function '%1' without ')'").arg(word));
            if (cuda) {
                if (args.size() != 1)
                    return unsupported(QStringLiteral("'%1' takes one argument").arg(word));
                return QStringLiteral("%1(%2)").arg(QLatin1String(cuda), args.first());
            }
            return variadic(word, args);
        }
        if (word == QLatin1String("_pi") || word == QLatin1String("_e")) {
            if (isArgument)
                return unsupported(
                    QStringLiteral("'%1' names both an argument and a constant").arg(word));
            return literal(muParserConstant(word == QLatin1String("_pi") ? "_pi" : "_e"));
        }
        if (m_scalars.contains(word)) {
            if (!usedScalars.contains(word))
                usedScalars << word;
            return QStringLiteral("s%1").arg(usedScalars.indexOf(word));
        }
        if (m_buffers.contains(word)) {
            if (!usedBuffers.contains(word))
                usedBuffers << word;
            const int k = int(usedBuffers.indexOf(word));
            if (m_buffers.value(word) == ScalarType::Bool)
                return QStringLiteral("(b%1[i] != 0 ? 1.0 : 0.0)").arg(k);
            return QStringLiteral("((double)b%1[i])").arg(k);
        }
        if (m_index && word == QLatin1String("i"))
            return QStringLiteral("((double)i)");
        return unsupported(QStringLiteral("unknown name '%1'").arg(word));
    }
    std::optional<QString> variadic(const QString& word, const QStringList& args) {
        QString code;
        if (word == QLatin1String("min") || word == QLatin1String("max")) {
            code = args.first();
            for (const QString& a : args)
                code = QStringLiteral("kp_%1(%2, %3)").arg(word, code, a);
            return code;
        }
        code = QStringLiteral("0.0");
        for (const QString& a : args)
            code = QStringLiteral("(%1 + %2)").arg(code, a);
        if (word == QLatin1String("avg"))
            code = QStringLiteral("(%1 / %2)").arg(code, literal(double(args.size())));
        return code;
    }

    const QString& m_text;
    const QHash<QString, ScalarType>& m_buffers;
    const QStringList& m_scalars;
    bool m_index = false;
    int m_pos = 0;
    QString m_why;
};

} // namespace

bool expressionKernelSupportsOutput(ScalarType type) {
    return type == ScalarType::Float32 || type == ScalarType::Float64;
}

bool expressionKernelSupportsInput(ScalarType type) {
    return cudaType(type) != nullptr;
}

std::optional<ExpressionKernelSource> translateExpression(const QString& expression,
                                                          ScalarType outputType,
                                                          const QHash<QString, ScalarType>& buffers,
                                                          const QStringList& scalars,
                                                          bool indexAvailable, QString* why) {
    if (!expressionKernelSupportsOutput(outputType)) {
        *why = QStringLiteral("outputs of %1 are checked on the host")
                   .arg(QLatin1String(scalarTypeInfo(outputType).numpyName));
        return std::nullopt;
    }
    Translator translator(expression, buffers, scalars, indexAvailable);
    const std::optional<QString> code = translator.translate(why);
    if (!code)
        return std::nullopt;
    ExpressionKernelSource kernel;
    kernel.buffers = translator.usedBuffers;
    kernel.scalars = translator.usedScalars;
    QString params = QStringLiteral("%1* __restrict__ out, unsigned long long n")
                         .arg(QLatin1String(cudaType(outputType)));
    for (int k = 0; k < kernel.buffers.size(); ++k) {
        const ScalarType type = buffers.value(kernel.buffers.at(k));
        if (!expressionKernelSupportsInput(type)) {
            *why = QStringLiteral("buffer '%1' of %2 is read on the host")
                       .arg(kernel.buffers.at(k), QLatin1String(scalarTypeInfo(type).numpyName));
            return std::nullopt;
        }
        params += QStringLiteral(", const %1* __restrict__ b%2")
                      .arg(QLatin1String(cudaType(type)))
                      .arg(k);
    }
    for (int k = 0; k < kernel.scalars.size(); ++k)
        params += QStringLiteral(", double s%1").arg(k);
    kernel.source =
        QLatin1String(kPrelude) +
        QStringLiteral("extern \"C\" __global__ void %1(%2)\n{\n"
                       "    const unsigned long long stride = "
                       "(unsigned long long)gridDim.x * blockDim.x;\n"
                       "    for (unsigned long long i = (unsigned long long)blockIdx.x * "
                       "blockDim.x + threadIdx.x; i < n; i += stride) {\n"
                       "        const double v = %3;\n"
                       "        out[i] = (%4)v;\n"
                       "    }\n}\n")
            .arg(QLatin1String(kExpressionKernelName), params, *code,
                 QLatin1String(cudaType(outputType)));
    return kernel;
}

GpuExpressionEvaluator::GpuExpressionEvaluator(CompileCache* cache)
    : m_cache(cache) {}
GpuExpressionEvaluator::~GpuExpressionEvaluator() = default;

bool GpuExpressionEvaluator::evaluate(const ExpressionKernelSource& kernel, ScalarType outputType,
                                      const DeviceBuffer& out, qint64 count,
                                      const QVector<CUdeviceptr>& buffers,
                                      const QVector<double>& scalars, const Stream& stream,
                                      const QString& arch, QString* why) {
    if (buffers.size() != kernel.buffers.size() || scalars.size() != kernel.scalars.size()) {
        *why = QStringLiteral("the expression kernel takes %1 buffers and %2 scalars")
                   .arg(kernel.buffers.size())
                   .arg(kernel.scalars.size());
        return false;
    }
    if (out.sizeBytes() < count * scalarTypeInfo(outputType).sizeBytes) {
        *why = QStringLiteral("the expected values' buffer is too small");
        return false;
    }
    if (arch != m_arch) {
        m_modules.clear();
        m_failures.clear();
        m_arch = arch;
    }
    if (const auto failed = m_failures.find(kernel.source); failed != m_failures.end()) {
        *why = failed->second;
        return false;
    }
    auto it = m_modules.find(kernel.source);
    if (it == m_modules.end()) {
        ProgramOptions options;
        // The host evaluates a*x+y with two roundings: no contraction into a fused multiply-add.
        options.fmad = false;
        const Program program(kernel.source, QStringLiteral("kernelpad_expression.cu"), options);
        const auto compile = [&] { return program.compile(arch); };
        const CompileResult compiled =
            m_cache
                ? m_cache->findOrCompile(
                      CompileCache::key(kernel.source, QStringLiteral("kernelpad_expression.cu"),
                                        {arch, QStringLiteral("--fmad=false")}, {},
                                        Program::nvrtcVersion()),
                      compile)
                : compile();
        if (!compiled.ok || compiled.cubin.isEmpty()) {
            *why = QStringLiteral("the expression kernel did not compile for %1: %2")
                       .arg(arch, compiled.error.isEmpty() ? compiled.log : compiled.error);
            m_failures[kernel.source] = *why;
            return false;
        }
        it = m_modules.emplace(kernel.source, std::make_unique<Module>(compiled.cubin)).first;
        tracePhase(compiled.cacheHit ? "expression kernel loaded (cache hit)"
                                     : "expression kernel loaded (NVRTC)");
    }
    if (count == 0)
        return true;
    const Kernel entry = it->second->kernel(QLatin1String(kExpressionKernelName),
                                            QLatin1String(kExpressionKernelName));
    CUdeviceptr outPtr = out.address();
    unsigned long long n = static_cast<unsigned long long>(count);
    std::vector<CUdeviceptr> pointers(buffers.begin(), buffers.end());
    std::vector<double> values(scalars.begin(), scalars.end());
    std::vector<void*> params{&outPtr, &n};
    for (CUdeviceptr& p : pointers)
        params.push_back(&p);
    for (double& v : values)
        params.push_back(&v);
    constexpr qint64 threads = 256;
    LaunchDims dims;
    dims.grid = {int(std::min<qint64>((count + threads - 1) / threads, qint64(1) << 20)), 1, 1};
    dims.block = {int(threads), 1, 1};
    entry.launch(dims, stream, params.data());
    return true;
}

} // namespace kernelpad
