#pragma once
// Help ▸ README and Help ▸ User Guide: a Markdown document shown in KernelPad itself, so that
// no desktop viewer is needed (a fresh system often has none for .md files).

#include <QDialog>

class QTextBrowser;

namespace kernelpad {

/// Shows one Markdown file, rendered; links to the other .md files beside it open in the same
/// window (Back returns), web links in the browser. Child object name: documentText.
class DocumentDialog : public QDialog {
    Q_OBJECT
public:
    explicit DocumentDialog(QWidget* parent = nullptr);

    /// Shows the Markdown file at `path`; false, with `*error` naming the file, when it cannot
    /// be read.
    bool open(const QString& path, QString* error = nullptr);
    [[nodiscard]] QTextBrowser* browser() const { return m_text; }

private:
    QTextBrowser* m_text = nullptr;
};

} // namespace kernelpad
