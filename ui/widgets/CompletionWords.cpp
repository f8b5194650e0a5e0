#include "ui/widgets/CompletionWords.h"

#include <Qsci/qsciscintilla.h>

#include <QRegularExpression>
#include <QSet>

#include <algorithm>

namespace kernelpad {

CompletionWords::CompletionWords(QsciLexer* lexer, QsciScintilla* editor)
    : QsciAbstractAPIs(lexer)
    , m_editor(editor) {}

QStringList CompletionWords::completions(const QString& text, const QString& prefix,
                                         const QString& currentWord) {
    if (prefix.isEmpty())
        return {};
    static const QRegularExpression word(QStringLiteral("[A-Za-z_][A-Za-z0-9_]*"));
    QSet<QString> seen;
    QStringList words;
    for (auto it = word.globalMatch(text); it.hasNext();) {
        const QString w = it.next().captured();
        if (w.size() > prefix.size() && w != currentWord && w.startsWith(prefix) &&
            !seen.contains(w)) {
            seen.insert(w);
            words << w;
        }
    }
    std::sort(words.begin(), words.end());
    return words;
}

void CompletionWords::updateAutoCompletionList(const QStringList& context, QStringList& list) {
    if (context.isEmpty() || !m_editor)
        return;
    int line = 0;
    int index = 0;
    m_editor->getCursorPosition(&line, &index);
    list << completions(m_editor->text(), context.last(), m_editor->wordAtLineIndex(line, index));
}

QStringList CompletionWords::callTips(const QStringList& context, int commas,
                                      QsciScintilla::CallTipsStyle style, QList<int>& shifts) {
    Q_UNUSED(context);
    Q_UNUSED(commas);
    Q_UNUSED(style);
    Q_UNUSED(shifts);
    return {};
}

} // namespace kernelpad
