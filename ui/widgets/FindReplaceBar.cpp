#include "ui/widgets/FindReplaceBar.h"

#include "ui/widgets/CodeEditor.h"

#include <Qsci/qsciscintilla.h>

#include <QCheckBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace kernelpad {

namespace {
// A runaway guard: a regular expression that matches the empty string must not loop forever.
constexpr int kMaxReplacements = 1000000;

QString matchesText(int count) {
    if (count == 0)
        return FindReplaceBar::tr("No matches");
    return count == 1 ? FindReplaceBar::tr("1 match") : FindReplaceBar::tr("%1 matches").arg(count);
}
} // namespace

FindReplaceBar::FindReplaceBar(QsciScintilla* editor, QWidget* parent)
    : QWidget(parent)
    , m_editor(editor)
    , m_find(new QLineEdit(this))
    , m_replace(new QLineEdit(this))
    , m_case(new QCheckBox(tr("Match case"), this))
    , m_word(new QCheckBox(tr("Whole word"), this))
    , m_regex(new QCheckBox(tr("Regex"), this))
    , m_status(new QLabel(this))
    , m_replaceRow(new QWidget(this)) {
    m_find->setPlaceholderText(tr("Find"));
    m_find->setClearButtonEnabled(true);
    m_replace->setPlaceholderText(tr("Replace with"));

    auto* previous = new QPushButton(tr("Previous"), this);
    auto* next = new QPushButton(tr("Next"), this);
    previous->setToolTip(tr("Find previous (Shift+Enter)"));
    next->setToolTip(tr("Find next (Enter)"));
    auto* close = new QToolButton(this);
    close->setText(QStringLiteral("\u2715"));
    close->setAutoRaise(true);
    close->setToolTip(tr("Close (Esc)"));

    // The options sit on the find row when the editor is wide enough, else on a row of their
    // own (placeOptions()): the bar never makes the editor, and so the window, wider.
    m_options = new QWidget(this);
    auto* optionsLayout = new QHBoxLayout(m_options);
    optionsLayout->setContentsMargins(0, 0, 0, 0);
    optionsLayout->addWidget(m_case);
    optionsLayout->addWidget(m_word);
    optionsLayout->addWidget(m_regex);
    optionsLayout->addStretch(1);

    m_findRow = new QHBoxLayout;
    m_findRow->setContentsMargins(0, 0, 0, 0);
    m_findRow->addWidget(m_find, 1);
    m_findRow->addWidget(previous);
    m_findRow->addWidget(next);
    m_findRow->addWidget(m_options);
    m_findRow->addWidget(m_status);
    m_findRow->addWidget(close);

    auto* replaceOne = new QPushButton(tr("Replace"), this);
    auto* replaceEvery = new QPushButton(tr("Replace All"), this);
    auto* replaceLayout = new QHBoxLayout(m_replaceRow);
    replaceLayout->setContentsMargins(0, 0, 0, 0);
    replaceLayout->addWidget(m_replace, 1);
    replaceLayout->addWidget(replaceOne);
    replaceLayout->addWidget(replaceEvery);
    replaceLayout->addStretch(0);

    m_rows = new QVBoxLayout(this);
    m_rows->setContentsMargins(4, 2, 4, 2);
    m_rows->setSpacing(2);
    m_rows->addLayout(m_findRow);
    m_rows->addWidget(m_replaceRow);
    // minimumSizeHint() says what the bar needs; the layout must not demand the wide row.
    m_rows->setSizeConstraint(QLayout::SetNoConstraint);
    m_status->setMinimumWidth(fontMetrics().horizontalAdvance(tr("999 matches")) + 8);

    connect(next, &QPushButton::clicked, this, &FindReplaceBar::findNext);
    connect(previous, &QPushButton::clicked, this, &FindReplaceBar::findPrevious);
    connect(m_find, &QLineEdit::returnPressed, this, [this] {
        if (QGuiApplication::keyboardModifiers() & Qt::ShiftModifier)
            findPrevious();
        else
            findNext();
    });
    connect(m_replace, &QLineEdit::returnPressed, this, &FindReplaceBar::replaceCurrent);
    connect(replaceOne, &QPushButton::clicked, this, &FindReplaceBar::replaceCurrent);
    connect(replaceEvery, &QPushButton::clicked, this, &FindReplaceBar::replaceAll);
    connect(close, &QToolButton::clicked, this, &QWidget::hide);
    connect(m_find, &QLineEdit::textChanged, this, &FindReplaceBar::updateHighlights);
    for (QCheckBox* box : {m_case, m_word, m_regex})
        connect(box, &QCheckBox::toggled, this, &FindReplaceBar::updateHighlights);
    if (m_editor)
        connect(m_editor, &QsciScintilla::textChanged, this, [this] {
            if (isVisible())
                updateHighlights();
        });
    setReplaceVisible(false);
    hide();
}

int FindReplaceBar::wideRowWidth() const {
    const int spacing = std::max(0, m_findRow->spacing());
    int width = m_findRow->minimumSize().width();
    if (m_findRow->indexOf(m_options) < 0)
        width += m_options->minimumSizeHint().width() + spacing;
    const QMargins margins = m_rows->contentsMargins();
    return width + margins.left() + margins.right();
}

QSize FindReplaceBar::minimumSizeHint() const {
    // With the options on their own row: the find field's row, the options or the replace row,
    // whichever is widest.
    const int spacing = std::max(0, m_findRow->spacing());
    int findRow = m_findRow->minimumSize().width();
    if (m_findRow->indexOf(m_options) >= 0)
        findRow -= m_options->minimumSizeHint().width() + spacing;
    int width = std::max(findRow, m_options->minimumSizeHint().width());
    if (!m_replaceRow->isHidden())
        width = std::max(width, m_replaceRow->minimumSizeHint().width());
    const QMargins margins = m_rows->contentsMargins();
    return {width + margins.left() + margins.right(), m_rows->minimumSize().height()};
}

QSize FindReplaceBar::sizeHint() const {
    return minimumSizeHint().expandedTo(QSize(0, m_rows->sizeHint().height()));
}

void FindReplaceBar::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    placeOptions();
}

void FindReplaceBar::placeOptions() {
    const bool onFindRow = m_findRow->indexOf(m_options) >= 0;
    const bool wide = width() >= wideRowWidth();
    if (wide == onFindRow)
        return;
    if (wide) {
        m_rows->removeWidget(m_options);
        m_findRow->insertWidget(m_findRow->indexOf(m_status), m_options);
    } else {
        m_findRow->removeWidget(m_options);
        m_rows->insertWidget(1, m_options);
    }
    updateGeometry();
}

void FindReplaceBar::setReplaceVisible(bool visible) {
    m_replaceRow->setVisible(visible);
    updateGeometry();
}

void FindReplaceBar::showFind() {
    if (m_editor && m_editor->hasSelectedText() && !m_editor->selectedText().contains('\n'))
        m_find->setText(m_editor->selectedText());
    setReplaceVisible(false);
    show();
    m_find->setFocus();
    m_find->selectAll();
    updateHighlights();
}

void FindReplaceBar::showReplace() {
    showFind();
    setReplaceVisible(true);
}

void FindReplaceBar::setFindText(const QString& text) {
    m_find->setText(text);
}
void FindReplaceBar::setReplaceText(const QString& text) {
    m_replace->setText(text);
}
void FindReplaceBar::setCaseSensitive(bool on) {
    m_case->setChecked(on);
}
void FindReplaceBar::setWholeWord(bool on) {
    m_word->setChecked(on);
}
void FindReplaceBar::setRegularExpression(bool on) {
    m_regex->setChecked(on);
}

int FindReplaceBar::searchFlags() const {
    int flags = 0;
    if (m_case->isChecked())
        flags |= QsciScintillaBase::SCFIND_MATCHCASE;
    if (m_word->isChecked())
        flags |= QsciScintillaBase::SCFIND_WHOLEWORD;
    if (m_regex->isChecked())
        flags |= QsciScintillaBase::SCFIND_REGEXP | QsciScintillaBase::SCFIND_CXX11REGEX;
    return flags;
}

long FindReplaceBar::searchRange(long from, long to) {
    const QByteArray needle = m_find->text().toUtf8();
    if (needle.isEmpty() || !m_editor)
        return -1;
    m_editor->SendScintilla(QsciScintillaBase::SCI_SETSEARCHFLAGS, searchFlags());
    m_editor->SendScintilla(QsciScintillaBase::SCI_SETTARGETSTART, from);
    m_editor->SendScintilla(QsciScintillaBase::SCI_SETTARGETEND, to);
    return m_editor->SendScintilla(QsciScintillaBase::SCI_SEARCHINTARGET,
                                   static_cast<unsigned long>(needle.size()), needle.constData());
}

bool FindReplaceBar::find(bool forward) {
    if (!m_editor)
        return false;
    const long length = m_editor->SendScintilla(QsciScintillaBase::SCI_GETLENGTH);
    const long selStart = m_editor->SendScintilla(QsciScintillaBase::SCI_GETSELECTIONSTART);
    const long selEnd = m_editor->SendScintilla(QsciScintillaBase::SCI_GETSELECTIONEND);
    long found = forward ? searchRange(selEnd, length) : searchRange(selStart, 0);
    bool wrapped = false;
    if (found < 0) {
        found = forward ? searchRange(0, length) : searchRange(length, 0);
        wrapped = found >= 0;
    }
    const int total = matchCount();
    if (found < 0) {
        m_status->setText(m_find->text().isEmpty() ? QString() : tr("No matches"));
        return false;
    }
    // matchCount() ran its own searches: search again to put this match back in the target.
    const long start = found;
    searchRange(start, length);
    const long end = m_editor->SendScintilla(QsciScintillaBase::SCI_GETTARGETEND);
    m_editor->SendScintilla(QsciScintillaBase::SCI_SETSEL, start, end);
    m_editor->SendScintilla(QsciScintillaBase::SCI_SCROLLRANGE, end, start);
    m_status->setText(wrapped ? tr("%1, wrapped").arg(matchesText(total)) : matchesText(total));
    return true;
}

bool FindReplaceBar::findNext() {
    return find(true);
}

bool FindReplaceBar::findPrevious() {
    return find(false);
}

bool FindReplaceBar::replaceCurrent() {
    if (!m_editor || m_editor->isReadOnly())
        return false;
    const long selStart = m_editor->SendScintilla(QsciScintillaBase::SCI_GETSELECTIONSTART);
    const long selEnd = m_editor->SendScintilla(QsciScintillaBase::SCI_GETSELECTIONEND);
    // Only replace when the selection is exactly a match; else just go to the next one.
    const long found = searchRange(selStart, selEnd);
    const bool selectionIsMatch =
        found == selStart && selEnd > selStart &&
        m_editor->SendScintilla(QsciScintillaBase::SCI_GETTARGETEND) == selEnd;
    if (selectionIsMatch) {
        const QByteArray with = m_replace->text().toUtf8();
        const unsigned msg = m_regex->isChecked() ? QsciScintillaBase::SCI_REPLACETARGETRE
                                                  : QsciScintillaBase::SCI_REPLACETARGET;
        m_editor->SendScintilla(msg, static_cast<unsigned long>(with.size()), with.constData());
        const long end = m_editor->SendScintilla(QsciScintillaBase::SCI_GETTARGETEND);
        m_editor->SendScintilla(QsciScintillaBase::SCI_SETSEL, end, end);
    }
    const bool more = findNext();
    return selectionIsMatch || more;
}

int FindReplaceBar::replaceAll() {
    if (!m_editor || m_editor->isReadOnly() || m_find->text().isEmpty())
        return 0;
    const QByteArray with = m_replace->text().toUtf8();
    const unsigned msg = m_regex->isChecked() ? QsciScintillaBase::SCI_REPLACETARGETRE
                                              : QsciScintillaBase::SCI_REPLACETARGET;
    int count = 0;
    long pos = 0;
    m_editor->beginUndoAction();
    while (count < kMaxReplacements) {
        const long length = m_editor->SendScintilla(QsciScintillaBase::SCI_GETLENGTH);
        if (pos > length)
            break;
        const long found = searchRange(pos, length);
        if (found < 0)
            break;
        const long matchEnd = m_editor->SendScintilla(QsciScintillaBase::SCI_GETTARGETEND);
        m_editor->SendScintilla(msg, static_cast<unsigned long>(with.size()), with.constData());
        ++count;
        pos = m_editor->SendScintilla(QsciScintillaBase::SCI_GETTARGETEND);
        if (matchEnd == found) // an empty match: step over one character
            pos = m_editor->SendScintilla(QsciScintillaBase::SCI_POSITIONAFTER, pos) +
                  (pos == length ? 1 : 0);
    }
    m_editor->endUndoAction();
    m_status->setText(tr("Replaced %1").arg(count));
    updateHighlights();
    return count;
}

int FindReplaceBar::matchCount() {
    if (!m_editor || m_find->text().isEmpty())
        return 0;
    const long length = m_editor->SendScintilla(QsciScintillaBase::SCI_GETLENGTH);
    int count = 0;
    long pos = 0;
    while (pos <= length && count < kMaxReplacements) {
        const long found = searchRange(pos, length);
        if (found < 0)
            break;
        ++count;
        const long end = m_editor->SendScintilla(QsciScintillaBase::SCI_GETTARGETEND);
        pos = end > found ? end : end + 1;
    }
    return count;
}

void FindReplaceBar::clearHighlights() {
    if (!m_editor)
        return;
    const long length = m_editor->SendScintilla(QsciScintillaBase::SCI_GETLENGTH);
    m_editor->SendScintilla(QsciScintillaBase::SCI_SETINDICATORCURRENT, CodeEditor::FindIndicator);
    m_editor->SendScintilla(QsciScintillaBase::SCI_INDICATORCLEARRANGE, 0, length);
}

void FindReplaceBar::updateHighlights() {
    clearHighlights();
    if (!m_editor || m_find->text().isEmpty()) {
        m_status->clear();
        return;
    }
    const long length = m_editor->SendScintilla(QsciScintillaBase::SCI_GETLENGTH);
    int count = 0;
    long pos = 0;
    while (pos <= length && count < kMaxReplacements) {
        const long found = searchRange(pos, length);
        if (found < 0)
            break;
        ++count;
        const long end = m_editor->SendScintilla(QsciScintillaBase::SCI_GETTARGETEND);
        m_editor->SendScintilla(QsciScintillaBase::SCI_SETINDICATORCURRENT,
                                CodeEditor::FindIndicator);
        m_editor->SendScintilla(QsciScintillaBase::SCI_INDICATORFILLRANGE, found, end - found);
        pos = end > found ? end : end + 1;
    }
    m_status->setText(matchesText(count));
}

void FindReplaceBar::keyPressEvent(QKeyEvent* event) {
    if (event->key() == Qt::Key_Escape) {
        hide();
        if (m_editor)
            m_editor->setFocus();
        return;
    }
    QWidget::keyPressEvent(event);
}

void FindReplaceBar::hideEvent(QHideEvent* event) {
    clearHighlights();
    QWidget::hideEvent(event);
}

} // namespace kernelpad
