#pragma once
// The PTX of the last compile: read-only, highlighted, searchable, with a jump-to-entry box.

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace kernelpad {

class PtxHighlighter;

/// A read-only PTX listing with syntax colours, a search field (Enter / Shift+Enter) and a
/// selector that jumps to each `.entry`.
class PtxView : public QWidget {
    Q_OBJECT
public:
    explicit PtxView(QWidget* parent = nullptr);

    void setPtx(const QString& ptx);
    void clear();
    [[nodiscard]] QString ptx() const;
    /// Selects the next (or previous) occurrence of `text`, wrapping; false when absent.
    bool find(const QString& text, bool backward = false);
    /// The `.entry` names found in the PTX, in order.
    [[nodiscard]] QStringList entries() const;
    [[nodiscard]] QPlainTextEdit* textView() const { return m_text; }

protected:
    void changeEvent(QEvent* event) override;

private:
    void applyTheme();
    void jumpToEntry(int index);

    QPlainTextEdit* m_text;
    QLineEdit* m_search;
    QComboBox* m_entries;
    QLabel* m_info;
    PtxHighlighter* m_highlighter;
};

} // namespace kernelpad
