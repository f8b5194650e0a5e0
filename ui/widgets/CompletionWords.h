#pragma once
// The editor's completion list: words of the document that continue the one being typed,
// never that word itself (the popup offered exactly what had just been typed, and
// Enter then went to the popup instead of making a new line).

#include <Qsci/qsciabstractapis.h>

#include <QStringList>

class QsciScintilla;

namespace kernelpad {

/// A QsciAbstractAPIs that completes from the words of `editor`'s text (AcsAPIs), instead of
/// QScintilla's document source, which lists other occurrences of the typed word too.
class CompletionWords : public QsciAbstractAPIs {
    Q_OBJECT
public:
    /// Attaches itself to `lexer` (QScintilla asks the lexer's APIs for the list).
    CompletionWords(QsciLexer* lexer, QsciScintilla* editor);

    /// The words of `text` that start with `prefix` and are longer than it, except
    /// `currentWord` (the word the caret is in), each once, sorted.
    [[nodiscard]] static QStringList completions(const QString& text, const QString& prefix,
                                                 const QString& currentWord);

    void updateAutoCompletionList(const QStringList& context, QStringList& list) override;
    [[nodiscard]] QStringList callTips(const QStringList& context, int commas,
                                       QsciScintilla::CallTipsStyle style,
                                       QList<int>& shifts) override;

private:
    QsciScintilla* m_editor;
};

} // namespace kernelpad
