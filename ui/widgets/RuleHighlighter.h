#pragma once
// A syntax highlighter driven by a list of regular-expression rules, rebuilt from the theme:
// the PTX and SASS views' colouring.

#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>
#include <QVector>

namespace kernelpad {

struct Theme;

/// Applies each rule's format to its matches, in order; later rules win where they overlap.
class RuleHighlighter : public QSyntaxHighlighter {
public:
    struct Rule {
        QRegularExpression pattern;
        QTextCharFormat format;
    };

    using QSyntaxHighlighter::QSyntaxHighlighter;

    /// Rebuilds the rules for `theme` and recolours the document.
    void setTheme(const Theme& theme);

    /// A character format in colour `colour`.
    [[nodiscard]] static QTextCharFormat format(const QColor& colour, bool bold = false,
                                                bool italic = false);

protected:
    /// The rules for `theme`; a subclass may also keep formats of its own here.
    virtual QVector<Rule> makeRules(const Theme& theme) = 0;
    void highlightBlock(const QString& text) override;

private:
    QVector<Rule> m_rules;
};

} // namespace kernelpad
