#include "ui/widgets/RuleHighlighter.h"

#include "ui/Theme.h"

namespace kernelpad {

void RuleHighlighter::setTheme(const Theme& theme) {
    m_rules = makeRules(theme);
    rehighlight();
}

QTextCharFormat RuleHighlighter::format(const QColor& colour, bool bold, bool italic) {
    QTextCharFormat f;
    f.setForeground(colour);
    if (bold)
        f.setFontWeight(QFont::Bold);
    f.setFontItalic(italic);
    return f;
}

void RuleHighlighter::highlightBlock(const QString& text) {
    for (const Rule& rule : m_rules) {
        auto it = rule.pattern.globalMatch(text);
        while (it.hasNext()) {
            const auto m = it.next();
            setFormat(int(m.capturedStart()), int(m.capturedLength()), rule.format);
        }
    }
}

} // namespace kernelpad
