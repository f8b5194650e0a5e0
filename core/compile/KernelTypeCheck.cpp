#include "core/compile/KernelTypeCheck.h"

#include "core/compile/KernelNames.h"

#include <QCoreApplication>
#include <QStringList>

namespace kernelpad {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("kernelpad::KernelTypeCheck", text);
}

/// A demangled parameter type taken apart: "float const* __restrict" -> float, one pointer.
struct ParameterType {
    QString base; ///< "float", "Particle", "ns::Particle"
    int pointers = 0;
};

ParameterType parseParameterType(const QString& demangled) {
    QString text = demangled;
    ParameterType type;
    type.pointers = int(text.count(u'*'));
    text.remove(u'*');
    // The Itanium demangler writes qualifiers after what they qualify ("float const"); a
    // reference or an array parameter cannot be a kernel argument we pack, so they stay in
    // the base and fail to resolve.
    static const QStringList qualifiers{QStringLiteral("const"), QStringLiteral("volatile"),
                                        QStringLiteral("restrict"), QStringLiteral("__restrict"),
                                        QStringLiteral("__restrict__")};
    QStringList words = text.simplified().split(u' ', Qt::SkipEmptyParts);
    words.erase(std::remove_if(words.begin(), words.end(),
                               [](const QString& w) { return qualifiers.contains(w); }),
                words.end());
    type.base = words.join(u' ');
    return type;
}

/// The struct `base` names ("Particle" or a qualified "ns::Particle"), if it is one we know.
std::optional<StructType> findStruct(const QString& base, const QVector<StructType>& structs) {
    for (const StructType& s : structs) {
        if (base == s.name || base.endsWith(QStringLiteral("::") + s.name))
            return s;
    }
    return std::nullopt;
}

/// The value type `base` spells; nullopt when the table and the structs do not know it.
std::optional<ValueType> valueTypeOf(const QString& base, const QVector<StructType>& structs) {
    if (const auto scalar = scalarTypeFromName(base))
        return ValueType::of(*scalar);
    if (const auto s = findStruct(base, structs))
        return ValueType::ofStruct(*s);
    return std::nullopt;
}

/// Structs match by name: the source's definition is the one the kernel was compiled with,
/// and fields the table edited are the user's business.
bool sameType(const ValueType& a, const ValueType& b) {
    if (a.isStruct() || b.isStruct())
        return a.isStruct() && b.isStruct() && a.structType.name == b.structType.name;
    return a.scalar == b.scalar;
}

} // namespace

QVector<ArgumentTypeMismatch> argumentTypeMismatches(const QVector<ArgumentSpec>& arguments,
                                                     const KernelInfo& kernel,
                                                     const QVector<StructType>& structs) {
    const QStringList parameters = demangledParameterTypes(kernel.lowered);
    if (parameters.isEmpty() || parameters.size() != arguments.size())
        return {};
    // Structs the arguments already use count as known even when the source was not parsed.
    QVector<StructType> known = structs;
    for (const ArgumentSpec& a : arguments) {
        const ValueType& t = a.isBuffer() ? a.buffer.elementType : a.type;
        if (t.isStruct() && !findStruct(t.structType.name, known))
            known << t.structType;
    }
    const QString kernelName =
        kernel.name.isEmpty() ? kernelDisplayName(kernel.lowered) : kernel.name;

    QVector<ArgumentTypeMismatch> mismatches;
    for (int i = 0; i < arguments.size(); ++i) {
        const ArgumentSpec& arg = arguments.at(i);
        const ParameterType parameter = parseParameterType(parameters.at(i));
        if (parameter.pointers > 1)
            continue; // a pointer to pointers: no buffer of ours describes it
        const bool takesPointer = parameter.pointers == 1;
        const bool voidPointer = takesPointer && parameter.base == QLatin1String("void");
        const std::optional<ValueType> expected = valueTypeOf(parameter.base, known);
        if (!expected && !voidPointer)
            continue; // a type we cannot judge
        const ValueType& actual = arg.isBuffer() ? arg.buffer.elementType : arg.type;
        const bool kindDiffers = arg.isBuffer() != takesPointer;
        const bool typeDiffers = expected && !sameType(actual, *expected);
        if (!kindDiffers && !typeDiffers)
            continue;

        ArgumentTypeMismatch m;
        m.index = i;
        m.argument = arg.name;
        m.parameterType = parameters.at(i);
        m.takesPointer = takesPointer;
        m.expected = expected;
        if (!kindDiffers)
            m.message = tr("%1 is %2 but %3 takes %4")
                            .arg(arg.name, actual.displayName(), kernelName, m.parameterType);
        else if (arg.isBuffer())
            m.message = tr("%1 is a buffer of %2 but %3 takes %4, a value")
                            .arg(arg.name, actual.displayName(), kernelName, m.parameterType);
        else
            m.message = tr("%1 is a value (%2) but %3 takes %4, a pointer to a buffer")
                            .arg(arg.name, actual.displayName(), kernelName, m.parameterType);
        mismatches << m;
    }
    return mismatches;
}

QVector<ArgumentSpec> withKernelTypes(QVector<ArgumentSpec> arguments,
                                      const QVector<ArgumentTypeMismatch>& mismatches) {
    for (const ArgumentTypeMismatch& m : mismatches) {
        if (m.index < 0 || m.index >= arguments.size())
            continue;
        ArgumentSpec& arg = arguments[m.index];
        if (arg.isBuffer() != m.takesPointer) {
            // As the table's Kind column does it: the other kind takes over the type, and the
            // fields of the old kind stay in the spec for a change back.
            if (m.takesPointer) {
                arg.kind = ArgumentSpec::Kind::Buffer;
                arg.buffer.elementType = arg.type;
            } else {
                arg.kind = ArgumentSpec::Kind::Scalar;
                arg.type = arg.buffer.elementType;
            }
        }
        if (m.expected)
            (arg.isBuffer() ? arg.buffer.elementType : arg.type) = *m.expected;
    }
    return arguments;
}

} // namespace kernelpad
