#include "core/compile/ProjectGlobals.h"

#include <QRegularExpression>
#include <QSet>

#include <algorithm>

namespace kernelpad {

namespace {

bool isInternalPart(const QString& part) {
    return part.startsWith(QLatin1String("_INTERNAL_")) ||
           part == QLatin1String("(anonymous namespace)");
}

QSet<QString> wordsOf(const QStringList& texts) {
    static const QRegularExpression word(QStringLiteral("[A-Za-z_][A-Za-z0-9_]*"));
    QSet<QString> words;
    for (const QString& text : texts) {
        QRegularExpressionMatchIterator it = word.globalMatch(text);
        while (it.hasNext())
            words.insert(it.next().captured());
    }
    return words;
}

} // namespace

QStringList qualifiedNameParts(const QString& name) {
    QStringList parts;
    QString part;
    const auto flush = [&] {
        part = part.trimmed();
        if (!part.isEmpty() && !isInternalPart(part))
            parts << part;
        part.clear();
    };
    int depth = 0; // inside template arguments, which may hold names of their own
    for (qsizetype i = 0; i < name.size(); ++i) {
        const QChar c = name.at(i);
        if (c == u'<') {
            ++depth;
        } else if (c == u'>') {
            depth = std::max(0, depth - 1);
        } else if (depth > 0) {
            continue;
        } else if (c == u':' && i + 1 < name.size() && name.at(i + 1) == u':') {
            flush();
            ++i;
        } else {
            part += c;
        }
    }
    flush();
    return parts;
}

void markProjectGlobals(QVector<ModuleGlobal>* globals, const QStringList& projectTexts) {
    const QSet<QString> words = wordsOf(projectTexts);
    for (ModuleGlobal& global : *globals) {
        const QStringList parts = qualifiedNameParts(global.name);
        global.fromProject = !parts.isEmpty() &&
                             std::all_of(parts.cbegin(), parts.cend(),
                                         [&](const QString& part) { return words.contains(part); });
    }
}

} // namespace kernelpad
