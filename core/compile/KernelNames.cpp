#include "core/compile/KernelNames.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace kernelpad {

namespace {

/// Bracket depth change of one character of a demangled name.
int depthChange(QChar c) {
    if (c == u'(' || c == u'<' || c == u'[')
        return 1;
    if (c == u')' || c == u'>' || c == u']')
        return -1;
    return 0;
}

/// Index of the '(' that opens the trailing parameter list, or -1.
qsizetype parameterListStart(const QString& signature) {
    if (!signature.endsWith(u')'))
        return -1;
    int depth = 0;
    for (qsizetype i = signature.size() - 1; i >= 0; --i) {
        const QChar c = signature.at(i);
        if (c == u')')
            ++depth;
        else if (c == u'(' && --depth == 0)
            return i;
    }
    return -1;
}

/// "void ns::k<float>" -> "ns::k<float>": kernels return void, templates print it.
QString withoutReturnType(const QString& qualifiedName) {
    int depth = 0;
    qsizetype lastSpace = -1;
    for (qsizetype i = 0; i < qualifiedName.size(); ++i) {
        const QChar c = qualifiedName.at(i);
        depth += depthChange(c);
        if (c == u' ' && depth == 0)
            lastSpace = i;
    }
    return qualifiedName.mid(lastSpace + 1);
}

} // namespace

QString demangle(const QString& lowered) {
    if (!lowered.startsWith(QLatin1String("_Z")))
        return {};
    int status = 0;
    const QByteArray mangled = lowered.toUtf8();
    // __cxa_demangle returns malloc'ed memory that we own.
    std::unique_ptr<char, decltype(&std::free)> demangled(
        abi::__cxa_demangle(mangled.constData(), nullptr, nullptr, &status), &std::free);
    if (status != 0 || !demangled)
        return {};
    return QString::fromUtf8(demangled.get());
}

QString kernelDisplayName(const QString& lowered) {
    const QString signature = demangle(lowered);
    if (signature.isEmpty())
        return lowered;
    const qsizetype open = parameterListStart(signature);
    const QString name = open > 0 ? signature.left(open) : signature;
    const QString shortName = withoutReturnType(name.trimmed());
    return shortName.isEmpty() ? lowered : shortName;
}

QStringList demangledParameterTypes(const QString& lowered) {
    const QString signature = demangle(lowered);
    const qsizetype open = parameterListStart(signature);
    if (open < 0)
        return {};
    const QString list = signature.mid(open + 1, signature.size() - open - 2);
    QStringList types;
    int depth = 0;
    qsizetype start = 0;
    for (qsizetype i = 0; i <= list.size(); ++i) {
        if (i == list.size() || (list.at(i) == u',' && depth == 0)) {
            const QString type = list.mid(start, i - start).trimmed();
            if (!type.isEmpty())
                types << type;
            start = i + 1;
        } else {
            depth += depthChange(list.at(i));
        }
    }
    // "k(void)" does not occur in Itanium output, but a lone "void" would mean no parameters.
    if (types == QStringList{QStringLiteral("void")})
        return {};
    return types;
}

bool isPointerType(const QString& demangledType) {
    QString type = demangledType.trimmed();
    static const QStringList qualifiers{QStringLiteral(" const"), QStringLiteral(" volatile"),
                                        QStringLiteral(" restrict"), QStringLiteral(" __restrict")};
    for (bool stripped = true; stripped;) {
        stripped = false;
        for (const QString& qualifier : qualifiers) {
            if (type.endsWith(qualifier)) {
                type.chop(qualifier.size());
                stripped = true;
            }
        }
    }
    // "(*)" covers pointers to functions and to arrays.
    return type.endsWith(u'*') || type.contains(QLatin1String("(*)"));
}

} // namespace kernelpad
