#include "ui/widgets/FaultBanner.h"

#include "ui/Theme.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace kernelpad {

FaultBanner::FaultBanner(QWidget* parent)
    : QFrame(parent) {
    setObjectName(QStringLiteral("faultBanner"));
    m_text = new QLabel(this);
    m_text->setObjectName(QStringLiteral("faultText"));
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::PlainText);
    // The explanation names codes and lines a user may want to paste into a search.
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_memcheck = new QPushButton(tr("Find the Line with Memcheck"), this);
    m_memcheck->setObjectName(QStringLiteral("faultMemcheckButton"));
    m_memcheck->setToolTip(tr("Run the kernel once under compute-sanitizer's memcheck, which "
                              "stops at the faulting access and names its line, thread and "
                              "block (Edit ▸ Preferences can make this automatic)."));
    m_dismiss = new QPushButton(tr("Dismiss"), this);
    m_dismiss->setObjectName(QStringLiteral("faultDismissButton"));
    connect(m_memcheck, &QPushButton::clicked, this, &FaultBanner::memcheckRequested);
    connect(m_dismiss, &QPushButton::clicked, this, &QWidget::hide);

    auto* buttons = new QVBoxLayout;
    buttons->addWidget(m_memcheck);
    buttons->addWidget(m_dismiss);
    buttons->addStretch(1);
    auto* layout = new QHBoxLayout(this);
    constexpr int kMargin = 10;
    constexpr int kVerticalMargin = 6;
    layout->setContentsMargins(kMargin, kVerticalMargin, kMargin, kVerticalMargin);
    layout->addWidget(m_text, 1);
    layout->addLayout(buttons);
    applyTheme();
    hide();
}

void FaultBanner::showOffer(const QString& fault) {
    present(fault, true, false);
}

void FaultBanner::showFault(const QString& fault) {
    present(fault, false, false);
}

void FaultBanner::showMemcheckRunning(const QString& fault) {
    present(fault + QStringLiteral("\n\n") +
                tr("Running the kernel once under memcheck to find the line, thread and block…"),
            false, true);
}

void FaultBanner::showFinding(const QString& fault, const QString& finding) {
    present(fault + QStringLiteral("\n\n") + finding, false, false);
}

QString FaultBanner::text() const {
    return m_text->text();
}

bool FaultBanner::offersMemcheck() const {
    return !m_memcheck->isHidden() && m_memcheck->isEnabled();
}

void FaultBanner::present(const QString& text, bool offer, bool running) {
    m_text->setText(text);
    // While memcheck runs the button stays, disabled, so the layout does not jump.
    m_memcheck->setVisible(offer || running);
    m_memcheck->setEnabled(offer);
    QFrame::show();
}

void FaultBanner::changeEvent(QEvent* event) {
    QFrame::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyTheme();
}

void FaultBanner::applyTheme() {
    const Theme theme = Theme::forPalette(palette());
    // Setting a style sheet sends a PaletteChange: set it only when it differs.
    const QString sheet =
        QStringLiteral("#faultBanner { background: %1; border-bottom: 1px solid %2; }"
                       "#faultBanner QLabel { color: %3; }")
            .arg(theme.errorPaper.name(), theme.errorColor.name(), theme.text.name());
    if (styleSheet() != sheet)
        setStyleSheet(sheet);
}

} // namespace kernelpad
