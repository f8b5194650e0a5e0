#include "ui/dialogs/DocumentDialog.h"

#include <QDialogButtonBox>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QPushButton>
#include <QScreen>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>

namespace kernelpad {

namespace {
// A comfortable reading width for README-sized Markdown, in pixels; narrower screens get less.
constexpr int kReadingWidthPx = 820;
constexpr int kReadingHeightPx = 900;
// Room left around the dialog on a small screen (title bar, panel).
constexpr int kScreenMarginPx = 60;
} // namespace

DocumentDialog::DocumentDialog(QWidget* parent)
    : QDialog(parent) {
    m_text = new QTextBrowser(this);
    m_text->setObjectName(QStringLiteral("documentText"));
    m_text->setOpenExternalLinks(true);
    m_text->setOpenLinks(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    auto* back = buttons->addButton(tr("Back"), QDialogButtonBox::ActionRole);
    back->setEnabled(false);
    connect(m_text, &QTextBrowser::backwardAvailable, back, &QPushButton::setEnabled);
    connect(back, &QPushButton::clicked, m_text, &QTextBrowser::backward);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_text, &QTextBrowser::sourceChanged, this, [this](const QUrl& url) {
        setWindowTitle(tr("%1 — KernelPad").arg(QFileInfo(url.toLocalFile()).fileName()));
    });
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_text, 1);
    layout->addWidget(buttons);
    const QScreen* screen = parent ? parent->screen() : QGuiApplication::primaryScreen();
    QSize size(kReadingWidthPx, kReadingHeightPx);
    if (screen)
        size = size.boundedTo(screen->availableGeometry().size() -
                              QSize(kScreenMarginPx, kScreenMarginPx));
    resize(size);
}

bool DocumentDialog::open(const QString& path, QString* error) {
    QFile file(path);
    if (path.isEmpty() || !file.open(QIODevice::ReadOnly)) {
        if (error)
            *error = path.isEmpty() ? tr("The document was not found beside KernelPad")
                                    : tr("%1 cannot be read: %2").arg(path, file.errorString());
        return false;
    }
    // Relative links and images resolve beside the file; .md files render as Markdown.
    m_text->setSearchPaths({QFileInfo(path).absolutePath()});
    m_text->setSource(QUrl::fromLocalFile(QFileInfo(path).absoluteFilePath()),
                      QTextDocument::MarkdownResource);
    return true;
}

} // namespace kernelpad
