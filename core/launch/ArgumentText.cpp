#include "core/launch/ArgumentText.h"

#include "core/launch/BufferInit.h"
#include "core/launch/Packing.h"
#include "core/launch/TextureArgument.h"

#include <QHash>
#include <QLocale>
#include <QRegularExpression>
#include <QStringList>

#include <algorithm>

namespace kernelpad {

namespace {

QString number(double v) {
    return QString::number(v, 'g', QLocale::FloatingPointShortest);
}

/// Parses "key=value" and positional numbers after the keyword.
struct Tokens {
    QStringList positional;
    QHash<QString, QString> named;
};

Tokens tokenize(const QStringList& words) {
    Tokens t;
    for (const QString& w : words) {
        const int eq = w.indexOf(QLatin1Char('='));
        if (eq > 0)
            t.named.insert(w.left(eq).toLower(), w.mid(eq + 1));
        else
            t.positional << w;
    }
    return t;
}

/// Takes a number from `named[key]` or the next positional word; false on a bad number.
bool takeNumber(Tokens& t, const QString& key, double* out, QString* error) {
    QString text;
    if (t.named.contains(key))
        text = t.named.take(key);
    else if (!t.positional.isEmpty())
        text = t.positional.takeFirst();
    else
        return true; // keep the default
    bool ok = false;
    const double v = text.toDouble(&ok);
    if (!ok) {
        if (error)
            *error = QStringLiteral("'%1' is not a number (%2)").arg(text, key);
        return false;
    }
    *out = v;
    return true;
}

} // namespace

QString formatInitSpec(const InitSpec& init) {
    switch (init.kind) {
    case InitSpec::Kind::Zeros:
        return QStringLiteral("zeros");
    case InitSpec::Kind::Ones:
        return QStringLiteral("ones");
    case InitSpec::Kind::Constant:
        return QStringLiteral("constant %1").arg(number(init.value));
    case InitSpec::Kind::Iota:
        return QStringLiteral("iota %1 %2").arg(number(init.value), number(init.step));
    case InitSpec::Kind::Uniform:
        return QStringLiteral("uniform %1 %2 seed=%3")
            .arg(number(init.low), number(init.high))
            .arg(init.seed);
    case InitSpec::Kind::Normal:
        return QStringLiteral("normal %1 %2 seed=%3")
            .arg(number(init.mean), number(init.stddev))
            .arg(init.seed);
    case InitSpec::Kind::File:
        return QStringLiteral("file %1").arg(init.path);
    case InitSpec::Kind::Special:
        return QStringLiteral("special %1 %2 rate=%3 seed=%4")
            .arg(number(init.low), number(init.high), number(init.rate))
            .arg(init.seed);
    }
    return {};
}

std::optional<InitSpec> parseInitSpec(const QString& text, QString* error) {
    QStringList words = text.simplified().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    if (words.isEmpty()) {
        if (error)
            *error = QStringLiteral("expected zeros, ones, constant V, iota START STEP, "
                                    "uniform LOW HIGH seed=S, normal MEAN STDDEV seed=S, "
                                    "special LOW HIGH rate=R seed=S or file PATH");
        return std::nullopt;
    }
    const QString keyword = words.takeFirst().toLower();
    InitSpec init;
    if (keyword == QLatin1String("file")) {
        init.kind = InitSpec::Kind::File;
        // The path is the rest of the text as typed: it may contain spaces.
        init.path = text.trimmed().mid(4).trimmed();
        return init;
    }
    Tokens t = tokenize(words);
    bool ok = true;
    if (keyword == QLatin1String("zeros") || keyword == QLatin1String("zero")) {
        init.kind = InitSpec::Kind::Zeros;
    } else if (keyword == QLatin1String("ones") || keyword == QLatin1String("one")) {
        init.kind = InitSpec::Kind::Ones;
    } else if (keyword == QLatin1String("constant") || keyword == QLatin1String("const")) {
        init.kind = InitSpec::Kind::Constant;
        ok = takeNumber(t, QStringLiteral("value"), &init.value, error);
    } else if (keyword == QLatin1String("iota")) {
        init.kind = InitSpec::Kind::Iota;
        ok = takeNumber(t, QStringLiteral("start"), &init.value, error) &&
             takeNumber(t, QStringLiteral("step"), &init.step, error);
    } else if (keyword == QLatin1String("uniform")) {
        init.kind = InitSpec::Kind::Uniform;
        ok = takeNumber(t, QStringLiteral("low"), &init.low, error) &&
             takeNumber(t, QStringLiteral("high"), &init.high, error);
    } else if (keyword == QLatin1String("special")) {
        init.kind = InitSpec::Kind::Special;
        ok = takeNumber(t, QStringLiteral("low"), &init.low, error) &&
             takeNumber(t, QStringLiteral("high"), &init.high, error);
        if (ok && t.named.contains(QStringLiteral("rate"))) {
            init.rate = t.named.take(QStringLiteral("rate")).toDouble(&ok);
            if (!ok && error)
                *error = QStringLiteral("rate must be a number between 0 and 1");
        }
    } else if (keyword == QLatin1String("normal")) {
        init.kind = InitSpec::Kind::Normal;
        ok = takeNumber(t, QStringLiteral("mean"), &init.mean, error) &&
             takeNumber(t, QStringLiteral("stddev"), &init.stddev, error);
    } else {
        if (error)
            *error = QStringLiteral("unknown initialisation '%1'").arg(keyword);
        return std::nullopt;
    }
    if (!ok)
        return std::nullopt;
    if (t.named.contains(QStringLiteral("seed"))) {
        bool seedOk = false;
        init.seed = t.named.take(QStringLiteral("seed")).toULongLong(&seedOk);
        if (!seedOk) {
            if (error)
                *error = QStringLiteral("seed must be a non-negative integer");
            return std::nullopt;
        }
    }
    if (!t.positional.isEmpty() || !t.named.isEmpty()) {
        if (error)
            *error = QStringLiteral("unexpected '%1' after %2")
                         .arg((t.positional + t.named.keys()).join(QLatin1Char(' ')), keyword);
        return std::nullopt;
    }
    return init;
}

QString formatVerifySpec(const VerifySpec& verify) {
    QString head;
    switch (verify.kind) {
    case VerifySpec::Kind::None:
        return QStringLiteral("none");
    case VerifySpec::Kind::Reference:
        head = QStringLiteral("reference %1").arg(verify.referenceKernel);
        break;
    case VerifySpec::Kind::Expression:
        head = QStringLiteral("expression %1").arg(verify.expression);
        break;
    case VerifySpec::Kind::File:
        head = QStringLiteral("file %1").arg(verify.path);
        break;
    }
    QString text =
        QStringLiteral("%1 atol=%2 rtol=%3").arg(head, number(verify.atol), number(verify.rtol));
    if (verify.ulp > 0)
        text += QStringLiteral(" ulp=") + number(verify.ulp);
    if (verify.nan != NanComparison::Equal)
        text += QStringLiteral(" nan=") + nanComparisonName(verify.nan);
    return text;
}

std::optional<VerifySpec> parseVerifySpec(const QString& text, QString* error) {
    QStringList words = text.simplified().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    VerifySpec verify;
    if (words.isEmpty() || words.first().toLower() == QLatin1String("none"))
        return verify;
    const QString keyword = words.takeFirst().toLower();
    // Tolerances are the trailing key=value words; the rest is the argument, which may
    // contain spaces ("a * x + y").
    static const QRegularExpression tol(QStringLiteral("^(atol|rtol|ulp|nan)=(.*)$"));
    while (!words.isEmpty()) {
        const auto m = tol.match(words.last());
        if (!m.hasMatch())
            break;
        if (m.captured(1) == QLatin1String("nan")) {
            const std::optional<NanComparison> nan = nanComparisonFromName(m.captured(2));
            if (!nan) {
                if (error)
                    *error =
                        QStringLiteral("nan must be equal or differ (got '%1')").arg(m.captured(2));
                return std::nullopt;
            }
            verify.nan = *nan;
            words.removeLast();
            continue;
        }
        bool ok = false;
        const double v = m.captured(2).toDouble(&ok);
        if (!ok) {
            if (error)
                *error = QStringLiteral("%1 must be a number").arg(m.captured(1));
            return std::nullopt;
        }
        const QString key = m.captured(1);
        (key == QLatin1String("atol")   ? verify.atol
         : key == QLatin1String("rtol") ? verify.rtol
                                        : verify.ulp) = v;
        words.removeLast();
    }
    const QString argument = words.join(QLatin1Char(' '));
    if (keyword == QLatin1String("reference") || keyword == QLatin1String("ref")) {
        verify.kind = VerifySpec::Kind::Reference;
        verify.referenceKernel = argument;
    } else if (keyword == QLatin1String("expression") || keyword == QLatin1String("expr")) {
        verify.kind = VerifySpec::Kind::Expression;
        verify.expression = argument;
    } else if (keyword == QLatin1String("file")) {
        verify.kind = VerifySpec::Kind::File;
        verify.path = argument;
    } else {
        if (error)
            *error = QStringLiteral("unknown verification '%1' (none, reference NAME, "
                                    "expression EXPR, file PATH)")
                         .arg(keyword);
        return std::nullopt;
    }
    return verify;
}

QString argumentProblem(const QVector<ArgumentSpec>& arguments, int index, ArgumentPart part) {
    if (index < 0 || index >= arguments.size())
        return {};
    const ArgumentSpec& arg = arguments.at(index);
    QString error;
    switch (part) {
    case ArgumentPart::Name: {
        static const QRegularExpression identifier(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
        if (arg.name.isEmpty())
            return QStringLiteral("The name is empty.");
        if (!identifier.match(arg.name).hasMatch())
            return QStringLiteral("'%1' is not an identifier: counts and expressions could not "
                                  "use it.")
                .arg(arg.name);
        const auto sameName = [&](const ArgumentSpec& a) { return a.name == arg.name; };
        if (std::count_if(arguments.cbegin(), arguments.cend(), sameName) > 1)
            return QStringLiteral("The name '%1' is used by another argument too.").arg(arg.name);
        return {};
    }
    case ArgumentPart::Value: {
        if (arg.isImage())
            return textureArgumentProblem(arg);
        if (arg.isTensorMap()) {
            return resolveTensorMap(arg, arguments, &error) ? QString() : error;
        }
        if (!arg.isBuffer()) {
            if (!packValue(arg.type, arg.value, &error))
                return error.isEmpty() ? QStringLiteral("'%1' is not a valid %2 value.")
                                             .arg(arg.value, arg.type.displayName())
                                       : error;
            return {};
        }
        const auto count = resolveCount(arg.buffer.count, arguments, &error);
        if (!count)
            return error.isEmpty()
                       ? QStringLiteral("Cannot evaluate the count '%1'.").arg(arg.buffer.count)
                       : error;
        if (*count < 1)
            return QStringLiteral("The count is %1: a buffer needs at least one element.")
                .arg(*count);
        const qint64 elementBytes = std::max(1, arg.buffer.elementType.sizeBytes());
        if (*count > kMaxBufferBytes / elementBytes)
            return QStringLiteral("%1 elements of %2 bytes exceed the %3 GiB limit of a buffer.")
                .arg(*count)
                .arg(elementBytes)
                .arg(kMaxBufferBytes >> 30);
        return {};
    }
    case ArgumentPart::Init:
        return arg.isBuffer() || arg.isImage() ? arg.buffer.init.problem() : QString();
    case ArgumentPart::Verify:
        if (!arg.isBuffer() || arg.buffer.verify.kind == VerifySpec::Kind::None)
            return {};
        if (arg.buffer.direction == Direction::In)
            return QStringLiteral("Only out and inout buffers are verified: '%1' is an input.")
                .arg(arg.name);
        return arg.buffer.verify.problem();
    }
    return {};
}

} // namespace kernelpad
