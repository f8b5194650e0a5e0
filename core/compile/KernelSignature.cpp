#include "core/compile/KernelSignature.h"

#include "core/compile/PtxParser.h"
#include "core/launch/TextureArgument.h"

#include <QRegularExpression>
#include <QSet>

#include <algorithm>

namespace kernelpad {

namespace {

/// Qualifiers and attributes that say nothing about the parameter's type for packing.
const QSet<QString>& ignoredWords() {
    static const QSet<QString> words{
        QStringLiteral("__restrict__"),
        QStringLiteral("__restrict"),
        QStringLiteral("restrict"),
        QStringLiteral("volatile"),
        QStringLiteral("__grid_constant__"),
        QStringLiteral("struct"),
        QStringLiteral("class"),
        QStringLiteral("__align__"),
    };
    return words;
}

/// Kernel attributes that take a parenthesised argument between __global__ and the name.
const QSet<QString>& attributeWords() {
    static const QSet<QString> words{
        QStringLiteral("__launch_bounds__"), QStringLiteral("__cluster_dims__"),
        QStringLiteral("__maxnreg__"),       QStringLiteral("__declspec"),
        QStringLiteral("__attribute__"),     QStringLiteral("alignas"),
    };
    return words;
}

bool isIdentChar(QChar c) {
    return c.isLetterOrNumber() || c == QLatin1Char('_');
}

/// Index just past the bracket matching text[open] ('(' or '{'), -1 when unbalanced.
int matchBracket(const QString& text, int open) {
    const QChar openChar = text.at(open);
    const QChar closeChar = openChar == QLatin1Char('(') ? QLatin1Char(')') : QLatin1Char('}');
    int depth = 0;
    for (int i = open; i < text.size(); ++i) {
        if (text.at(i) == openChar)
            ++depth;
        else if (text.at(i) == closeChar && --depth == 0)
            return i + 1;
    }
    return -1;
}

/// Splits on commas that are not nested in (), <>, [] or {}.
QStringList splitTopLevel(const QString& text) {
    QStringList parts;
    int depth = 0;
    int start = 0;
    for (int i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (c == QLatin1Char('(') || c == QLatin1Char('<') || c == QLatin1Char('[') ||
            c == QLatin1Char('{'))
            ++depth;
        else if (c == QLatin1Char(')') || c == QLatin1Char('>') || c == QLatin1Char(']') ||
                 c == QLatin1Char('}'))
            --depth;
        else if (c == QLatin1Char(',') && depth == 0) {
            parts << text.mid(start, i - start);
            start = i + 1;
        }
    }
    parts << text.mid(start);
    return parts;
}

KernelParameter parseParam(QString text) {
    KernelParameter param;
    // A default argument says nothing about the type.
    if (const int eq = text.indexOf(QLatin1Char('=')); eq >= 0)
        text.truncate(eq);
    // Arrays in a parameter list decay to pointers.
    if (text.contains(QLatin1Char('['))) {
        text.truncate(text.indexOf(QLatin1Char('[')));
        text += QLatin1Char('*');
    }
    param.spelling = text.simplified();
    const int star = text.indexOf(QLatin1Char('*'));
    param.isPointer = star >= 0 || text.contains(QLatin1Char('&'));
    text.replace(QLatin1Char('*'), QLatin1Char(' ')).replace(QLatin1Char('&'), QLatin1Char(' '));

    static const QRegularExpression word(QStringLiteral("[A-Za-z_][A-Za-z0-9_:<>]*"));
    QStringList words;
    bool constBeforeStar = false;
    for (auto it = word.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        const QString w = m.captured(0);
        if (w == QLatin1String("const")) {
            // `const float*` and `float const*` make the pointee read-only; `float* const`
            // only fixes the pointer itself.
            if (star < 0 || m.capturedStart() < star)
                constBeforeStar = true;
            continue;
        }
        if (!ignoredWords().contains(w))
            words << w;
    }
    param.isConst = param.isPointer && constBeforeStar;
    static const QSet<QString> typeOnlyWords{
        QStringLiteral("unsigned"), QStringLiteral("signed"), QStringLiteral("int"),
        QStringLiteral("long"),     QStringLiteral("short"),  QStringLiteral("char"),
    };
    // The last word is the name unless the declaration is only a type ("int", "float*").
    if (words.size() >= 2 && !typeOnlyWords.contains(words.last()))
        param.name = words.takeLast();
    param.baseType = words.join(QLatin1Char(' '));
    return param;
}

/// The kernel name without template arguments or namespace qualification.
QString baseName(const QString& kernelName) {
    QString name = kernelName.trimmed();
    if (const int lt = name.indexOf(QLatin1Char('<')); lt >= 0)
        name.truncate(lt);
    if (const int colons = name.lastIndexOf(QLatin1String("::")); colons >= 0)
        name = name.mid(colons + 2);
    return name.trimmed();
}

} // namespace

QString stripComments(const QString& source) {
    QString out = source;
    enum class State { Code, Line, Block, String, Char } state = State::Code;
    for (int i = 0; i < out.size(); ++i) {
        const QChar c = out.at(i);
        const QChar next = i + 1 < out.size() ? out.at(i + 1) : QChar();
        switch (state) {
        case State::Code:
            if (c == QLatin1Char('/') && next == QLatin1Char('/')) {
                state = State::Line;
                out[i] = QLatin1Char(' ');
            } else if (c == QLatin1Char('/') && next == QLatin1Char('*')) {
                state = State::Block;
                out[i] = out[i + 1] = QLatin1Char(' ');
                ++i;
            } else if (c == QLatin1Char('"')) {
                state = State::String;
            } else if (c == QLatin1Char('\'')) {
                state = State::Char;
            }
            break;
        case State::Line:
            if (c == QLatin1Char('\n'))
                state = State::Code;
            else
                out[i] = QLatin1Char(' ');
            break;
        case State::Block:
            if (c == QLatin1Char('*') && next == QLatin1Char('/')) {
                out[i] = out[i + 1] = QLatin1Char(' ');
                ++i;
                state = State::Code;
            } else if (c != QLatin1Char('\n')) {
                out[i] = QLatin1Char(' ');
            }
            break;
        case State::String:
        case State::Char:
            if (c == QLatin1Char('\\'))
                ++i;
            else if (c == (state == State::String ? QLatin1Char('"') : QLatin1Char('\'')))
                state = State::Code;
            break;
        }
    }
    return out;
}

namespace {

/// One `__global__ NAME(...)` of the comment-free text: its name and the bracket span of its
/// parameter list; `isDefinition` when a body follows.
struct GlobalDeclaration {
    QString name;
    int open = -1;  ///< index of '('
    int close = -1; ///< index just past ')'
    bool isDefinition = false;
};

/// Every __global__ declaration of `text` (already without comments), in source order. A
/// declaration whose parameter list does not close ends the scan: nothing after it can be
/// split reliably.
QVector<GlobalDeclaration> globalDeclarations(const QString& text) {
    static const QRegularExpression global(QStringLiteral("\\b__global__\\b"));
    QVector<GlobalDeclaration> found;
    for (auto it = global.globalMatch(text); it.hasNext();) {
        int pos = it.next().capturedEnd();
        // Walk to the first '(' that is not an attribute's: the word before it is the name.
        QString name;
        int open = -1;
        while (pos < text.size()) {
            const QChar c = text.at(pos);
            if (c == QLatin1Char(';') || c == QLatin1Char('{'))
                break;
            if (isIdentChar(c)) {
                const int start = pos;
                while (pos < text.size() && isIdentChar(text.at(pos)))
                    ++pos;
                name = text.mid(start, pos - start);
                continue;
            }
            if (c == QLatin1Char('(')) {
                if (attributeWords().contains(name)) {
                    pos = matchBracket(text, pos);
                    if (pos < 0)
                        break;
                    name.clear();
                    continue;
                }
                open = pos;
                break;
            }
            ++pos;
        }
        if (open < 0 || name.isEmpty())
            continue;
        GlobalDeclaration declaration;
        declaration.name = name;
        declaration.open = open;
        declaration.close = matchBracket(text, open);
        if (declaration.close < 0) {
            found << declaration;
            break;
        }
        int after = declaration.close;
        while (after < text.size() && text.at(after).isSpace())
            ++after;
        declaration.isDefinition = after < text.size() && text.at(after) == QLatin1Char('{');
        found << declaration;
    }
    return found;
}

} // namespace

std::optional<KernelSignature> KernelSignature::find(const QString& source,
                                                     const QString& kernelName) {
    const QString wanted = baseName(kernelName);
    if (wanted.isEmpty())
        return std::nullopt;
    const QString text = stripComments(source);
    std::optional<KernelSignature> declarationOnly;
    for (const GlobalDeclaration& d : globalDeclarations(text)) {
        if (d.name != wanted)
            continue;
        if (d.close < 0)
            return std::nullopt;
        KernelSignature signature;
        signature.kernelName = d.name;
        const QString list = text.mid(d.open + 1, d.close - d.open - 2).trimmed();
        if (!list.isEmpty() && list != QLatin1String("void")) {
            for (const QString& part : splitTopLevel(list))
                signature.params << parseParam(part);
        }
        // Prefer the definition: a forward declaration may omit the parameter names.
        if (d.isDefinition)
            return signature;
        if (!declarationOnly)
            declarationOnly = signature;
    }
    return declarationOnly;
}

QStringList KernelSignature::kernelNames(const QString& source) {
    QStringList names;
    for (const GlobalDeclaration& d : globalDeclarations(stripComments(source))) {
        if (!names.contains(d.name))
            names << d.name;
    }
    return names;
}

QVector<StructType> parseStructs(const QString& source) {
    const QString text = stripComments(source);
    QVector<StructType> structs;
    // struct Name { ... };  or  typedef struct [Tag] { ... } Name;
    static const QRegularExpression head(
        QStringLiteral("\\b(typedef\\s+)?struct\\s+(?:__align__\\s*\\(\\s*\\d+\\s*\\)\\s*|"
                       "alignas\\s*\\(\\s*\\d+\\s*\\)\\s*)?(\\w+)?\\s*\\{"));
    static const QRegularExpression field(
        QStringLiteral("^((?:unsigned\\s+|signed\\s+)?(?:long\\s+long|long|short|\\w+)"
                       "(?:\\s+int)?)\\s+(.+)$"));
    static const QRegularExpression declarator(
        QStringLiteral("^([A-Za-z_]\\w*)\\s*(?:\\[\\s*(\\d+)\\s*\\])?$"));
    for (auto it = head.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        const int open = m.capturedEnd() - 1;
        const int close = matchBracket(text, open);
        if (close < 0)
            continue;
        QString name = m.captured(2);
        if (!m.captured(1).isEmpty()) {
            static const QRegularExpression alias(QStringLiteral("^\\s*(\\w+)\\s*;"));
            const auto a = alias.match(text.mid(close));
            if (a.hasMatch())
                name = a.captured(1);
        }
        if (name.isEmpty())
            continue;
        const QString body = text.mid(open + 1, close - open - 2);
        StructType type;
        type.name = name;
        bool simple = !body.contains(QLatin1Char('('));
        const QStringList statements = body.split(QLatin1Char(';'));
        for (int i = 0; simple && i < statements.size(); ++i) {
            QString statement = statements.at(i).simplified();
            statement.remove(QStringLiteral("const "));
            if (statement.isEmpty())
                continue;
            const auto f = field.match(statement);
            const auto scalar =
                f.hasMatch() ? scalarTypeFromName(f.captured(1).simplified()) : std::nullopt;
            if (!scalar) {
                simple = false;
                break;
            }
            for (const QString& d : f.captured(2).split(QLatin1Char(','))) {
                const auto dm = declarator.match(d.trimmed());
                if (!dm.hasMatch()) {
                    simple = false;
                    break;
                }
                StructField sf;
                sf.name = dm.captured(1);
                sf.type = *scalar;
                sf.count = dm.captured(2).isEmpty() ? 1 : dm.captured(2).toInt();
                if (sf.count < 1) {
                    simple = false;
                    break;
                }
                type.fields << sf;
            }
        }
        if (simple && !type.fields.isEmpty())
            structs << type;
    }
    return structs;
}

} // namespace kernelpad

namespace kernelpad {

namespace {

std::optional<ValueType> typeFromSpelling(const QString& spelling,
                                          const QVector<StructType>& structs) {
    for (const StructType& s : structs) {
        if (s.name == spelling)
            return ValueType::ofStruct(s);
    }
    if (const auto scalar = scalarTypeFromName(spelling))
        return ValueType::of(*scalar);
    return std::nullopt;
}

/// A by-value type of the PTX parameter's size when the source does not say which.
ValueType typeFromPtx(const PtxParam& p, int index) {
    const QString t = p.ptxType;
    if (t == QLatin1String(".f32"))
        return ValueType::of(ScalarType::Float32);
    if (t == QLatin1String(".f64"))
        return ValueType::of(ScalarType::Float64);
    if (t == QLatin1String(".f16"))
        return ValueType::of(ScalarType::Float16);
    const bool isUnsigned = t.startsWith(QLatin1String(".u"));
    switch (p.sizeBytes) {
    case 1:
        return ValueType::of(isUnsigned ? ScalarType::UInt8 : ScalarType::Int8);
    case 2:
        return ValueType::of(isUnsigned ? ScalarType::UInt16 : ScalarType::Int16);
    case 4:
        return ValueType::of(isUnsigned ? ScalarType::UInt32 : ScalarType::Int32);
    case 8:
        return ValueType::of(isUnsigned ? ScalarType::UInt64 : ScalarType::Int64);
    default: {
        // An aggregate the source does not describe: raw bytes, so at least the size packs.
        StructType bytes;
        bytes.name = QStringLiteral("param%1_bytes").arg(index);
        bytes.fields << StructField{QStringLiteral("bytes"), ScalarType::UInt8,
                                    std::max(1, p.sizeBytes)};
        return ValueType::ofStruct(bytes);
    }
    }
}

/// A value every type accepts: zero, one zero per struct field component.
QString zeroValue(const ValueType& type) {
    if (!type.isStruct())
        return componentCount(type.scalar) == 2 ? QStringLiteral("0, 0") : QStringLiteral("0");
    QStringList zeros;
    for (const StructField& f : type.structType.fields) {
        const int components = componentCount(f.type);
        for (int i = 0; i < f.count * components; ++i)
            zeros << QStringLiteral("0");
    }
    return zeros.join(QStringLiteral(", "));
}

bool isIntegerScalar(const ArgumentSpec& a) {
    if (a.isBuffer() || a.type.isStruct())
        return false;
    const auto& info = scalarTypeInfo(a.type.scalar);
    return !info.isFloat && a.type.scalar != ScalarType::Bool;
}

/// An integer scalar wide enough to be a size: a char or a short is a value, not a count.
bool isSizeScalar(const ArgumentSpec& a) {
    constexpr int kMinSizeBytes = 4;
    return isIntegerScalar(a) && a.type.sizeBytes() >= kMinSizeBytes;
}

/// 1024 (an integer is usually a size), or the type's largest value where 1024 does not fit:
/// an int8 holds at most 127.
QString defaultIntegerValue(ScalarType scalar) {
    constexpr qint64 kDefaultCount = 1024;
    const ScalarTypeInfo& info = scalarTypeInfo(scalar);
    const int valueBits = 8 * info.sizeBytes - (info.isSigned ? 1 : 0);
    if (valueBits >= 63)
        return QString::number(kDefaultCount);
    const qint64 largest = (qint64(1) << valueBits) - 1;
    return QString::number(std::min(kDefaultCount, largest));
}

/// True when `arg` packs to the size of PTX parameter `p` (an 8-byte handle for buffers and
/// images), or when there is no PTX parameter to compare with.
bool sizeFits(const ArgumentSpec& arg, const PtxParam* p) {
    if (!p)
        return true;
    return p->sizeBytes == (arg.isScalar()      ? arg.type.sizeBytes()
                            : arg.isTensorMap() ? kTensorMapBytes
                                                : 8);
}

/// `CUtensorMap` (cuda.h's typedef, or its struct tag) passed by value, as TMA kernels take
/// it: `const __grid_constant__ CUtensorMap map`.
bool isTensorMapParameter(const KernelParameter* sp) {
    return sp && !sp->isPointer &&
           (sp->baseType == QLatin1String("CUtensorMap") ||
            sp->baseType == QLatin1String("CUtensorMap_st"));
}

/// The buffer a new tensor map describes at first: the source's first pointer parameter.
QString firstPointerName(const std::optional<KernelSignature>& signature) {
    if (signature)
        for (const KernelParameter& p : signature->params)
            if (p.isPointer && !p.name.isEmpty())
                return p.name;
    return {};
}

/// Defaults for a parameter nobody has described yet, chosen so a first Run works:
/// integers (usually sizes) 1024 where their type holds it, buffers sized by the first integer
/// argument of at least 32 bits.
ArgumentSpec freshArgument(const QString& name, bool isPointer, bool isConst, const ValueType& type,
                           int index) {
    ArgumentSpec a;
    a.name = name;
    if (isPointer) {
        a.kind = ArgumentSpec::Kind::Buffer;
        a.buffer.elementType = type;
        a.buffer.direction = isConst ? Direction::In : Direction::InOut;
        a.buffer.count = QStringLiteral("1024");
        if (!type.isStruct()) {
            a.buffer.init.kind = InitSpec::Kind::Uniform;
            a.buffer.init.seed = quint64(index + 1);
        }
    } else {
        a.kind = ArgumentSpec::Kind::Scalar;
        a.type = type;
        a.value = zeroValue(type);
        if (isIntegerScalar(a))
            a.value = defaultIntegerValue(type.scalar);
        else if (!type.isStruct() && scalarTypeInfo(type.scalar).isFloat &&
                 componentCount(type.scalar) == 1)
            a.value = QStringLiteral("1");
    }
    return a;
}

} // namespace

QVector<ArgumentSpec> argumentsForKernel(const KernelInfo& kernel, const QString& source,
                                         const QVector<ArgumentSpec>& previous,
                                         QVector<StructType>* structsOut) {
    const QVector<StructType> structs = parseStructs(source);
    if (structsOut)
        *structsOut = structs;
    const auto signature = KernelSignature::find(source, kernel.name);
    // The PTX is the truth about how many parameters there are; the source names them only
    // when it agrees (a template or macro may hide parameters from this simple parser).
    const bool useSource =
        signature && (kernel.params.isEmpty() || signature->params.size() == kernel.params.size());
    const int count = useSource ? int(signature->params.size()) : int(kernel.params.size());

    QVector<ArgumentSpec> result;
    QString firstIntegerName;
    for (int i = 0; i < count; ++i) {
        const KernelParameter* sp = useSource ? &signature->params.at(i) : nullptr;
        const PtxParam* pp = i < kernel.params.size() ? &kernel.params.at(i) : nullptr;
        QString name = sp && !sp->name.isEmpty() ? sp->name : QString();
        if (name.isEmpty() && pp) // hand-written PTX names its parameters
            name = ptxParameterName(kernel.lowered, pp->name);
        if (name.isEmpty())
            name = QStringLiteral("arg%1").arg(i);

        bool isPointer = sp ? sp->isPointer : (pp && pp->isPointer);
        const bool isConst = sp && sp->isConst;
        std::optional<ValueType> type;
        if (sp)
            type = typeFromSpelling(sp->baseType, structs);
        if (!type) {
            if (isPointer)
                type = ValueType::of(sp && sp->baseType == QLatin1String("void")
                                         ? ScalarType::UInt8
                                         : ScalarType::Float32);
            else if (pp)
                type = typeFromPtx(*pp, i);
            else
                type = ValueType::of(ScalarType::Int32);
        }

        auto old = std::find_if(previous.cbegin(), previous.cend(),
                                [&](const ArgumentSpec& a) { return a.name == name; });
        if (old == previous.cend() && !sp && previous.size() == count &&
            sizeFits(previous.at(i), pp)) // PTX with no names to match: keep them by place
            old = previous.cbegin() + i;
        ArgumentSpec arg;
        if (isTensorMapParameter(sp) && (old == previous.cend() || !old->isTensorMap())) {
            arg = makeTensorMapArgument(name, firstPointerName(signature));
        } else if (old != previous.cend()) {
            arg = *old;
            const bool sourceKnowsType = sp && typeFromSpelling(sp->baseType, structs);
            if (sp && arg.isBuffer() != isPointer) {
                // The source changed a pointer to a value or back: keep what still applies.
                ArgumentSpec fresh = freshArgument(name, isPointer, isConst, *type, i);
                if (isPointer)
                    fresh.buffer.elementType = sourceKnowsType ? *type : arg.type;
                arg = fresh;
            } else if (sourceKnowsType) {
                (arg.isBuffer() ? arg.buffer.elementType : arg.type) = *type;
            }
        } else if (sp && !isPointer &&
                   (sp->baseType == QLatin1String("cudaTextureObject_t") ||
                    sp->baseType == QLatin1String("cudaSurfaceObject_t"))) {
            // A CUDA object passed by value (the seed's transformKernel): an array to make.
            arg = makeTextureArgument(name, sp->baseType == QLatin1String("cudaSurfaceObject_t"));
        } else {
            arg = freshArgument(name, isPointer, isConst, *type, i);
        }
        if (firstIntegerName.isEmpty() && isSizeScalar(arg))
            firstIntegerName = arg.name;
        result << arg;
    }
    // New buffers default to the size argument ("n") when there is one.
    if (!firstIntegerName.isEmpty()) {
        for (ArgumentSpec& a : result) {
            const bool isNew =
                std::none_of(previous.cbegin(), previous.cend(),
                             [&](const ArgumentSpec& p) { return p.name == a.name; });
            if (isNew && a.isBuffer())
                a.buffer.count = firstIntegerName;
        }
    }
    return result;
}

} // namespace kernelpad
