#include "ui/widgets/LessonPane.h"

#include "core/compile/ListingDiff.h"
#include "ui/Theme.h"

#include <QEvent>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTextBlock>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>

namespace kernelpad {

namespace {
QLabel* wrappingLabel(const QString& name, QWidget* parent) {
    auto* label = new QLabel(parent);
    label->setObjectName(name);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}
} // namespace

LessonPane::LessonPane(QWidget* parent)
    : QWidget(parent) {
    m_title = wrappingLabel(QStringLiteral("lessonTitle"), this);
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.3);
    m_title->setFont(titleFont);
    m_meta = wrappingLabel(QStringLiteral("lessonMeta"), this);

    m_result = wrappingLabel(QStringLiteral("lessonResult"), this);
    m_result->setMargin(6);
    m_result->hide();
    m_next = new QPushButton(tr("Next lesson"), this);
    m_next->setObjectName(QStringLiteral("lessonNext"));
    m_next->hide();
    connect(m_next, &QPushButton::clicked, this, [this] {
        if (!m_nextLesson.isEmpty())
            emit nextLessonRequested(m_nextLesson);
    });

    m_text = new QTextBrowser(this);
    m_text->setObjectName(QStringLiteral("lessonText"));
    m_text->setOpenExternalLinks(true);
    m_recorded = wrappingLabel(QStringLiteral("lessonRecorded"), this);

    auto* hints = new QWidget(this);
    m_hintList = new QVBoxLayout(hints);
    m_hintList->setContentsMargins(0, 0, 0, 0);
    m_hintButton = new QPushButton(this);
    m_hintButton->setObjectName(QStringLiteral("lessonHintButton"));
    connect(m_hintButton, &QPushButton::clicked, this, &LessonPane::showNextHint);

    m_diffButton = new QPushButton(tr("Show the solution as a diff"), this);
    m_diffButton->setObjectName(QStringLiteral("lessonDiffButton"));
    m_diffButton->setCheckable(true);
    connect(m_diffButton, &QPushButton::toggled, this,
            [this](bool on) { on ? showSolutionDiff() : hideSolutionDiff(); });
    m_useSolution = new QPushButton(tr("Use the solution"), this);
    m_useSolution->setObjectName(QStringLiteral("lessonUseSolution"));
    m_useSolution->setToolTip(
        tr("Replaces the editor's text with the solution; Edit ▸ Undo brings yours back"));
    connect(m_useSolution, &QPushButton::clicked, this,
            [this] { emit useSolutionRequested(m_lesson.solutionSource); });
    m_diffSummary = wrappingLabel(QStringLiteral("lessonDiffSummary"), this);
    m_diff = new QPlainTextEdit(this);
    m_diff->setObjectName(QStringLiteral("lessonSolutionDiff"));
    m_diff->setReadOnly(true);
    m_diff->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_diff->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_diffSummary->hide();
    m_diff->hide();

    // One above the other: side by side they made the pane, and with it the window, wider than
    // a 1280 px screen has room for beside the editor and the docks.
    auto* solutionRow = new QVBoxLayout;
    solutionRow->addWidget(m_diffButton, 0, Qt::AlignLeft);
    solutionRow->addWidget(m_useSolution, 0, Qt::AlignLeft);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_meta);
    layout->addWidget(m_result);
    layout->addWidget(m_next, 0, Qt::AlignLeft);
    layout->addWidget(m_text, 3);
    layout->addWidget(m_recorded);
    layout->addWidget(hints);
    layout->addWidget(m_hintButton, 0, Qt::AlignLeft);
    layout->addLayout(solutionRow);
    layout->addWidget(m_diffSummary);
    layout->addWidget(m_diff, 2);
}

QString LessonPane::lessonKey() const {
    return QFileInfo(m_lesson.directory).fileName();
}

void LessonPane::setLesson(const Lesson& lesson) {
    m_lesson = lesson;
    m_title->setText(lesson.title);
    QString meta =
        tr("%1 · %2 · %3")
            .arg(lesson.topic, lessonLevelName(lesson.level), lessonKindName(lesson.kind));
    if (lesson.kind == LessonKind::Speed && lesson.requiredSpeedup)
        meta += tr(": verified and at least %1 faster than the starter")
                    .arg(speedupText(*lesson.requiredSpeedup));
    else
        meta += tr(": the run's verification must pass");
    m_meta->setText(meta);
    // The title is shown above; the text's own "# Title" line would repeat it.
    QString text = lesson.text;
    if (text.startsWith(QLatin1String("# ")))
        text = text.mid(text.indexOf(QLatin1Char('\n')) + 1);
    m_text->setMarkdown(text);
    const bool hasSolution = !lesson.solutionSource.isEmpty();
    m_diffButton->setEnabled(hasSolution);
    m_useSolution->setEnabled(hasSolution);
    m_diffButton->setChecked(false);
    hideSolutionDiff();
    clearResult();
    showHints();
    showRecorded();
}

void LessonPane::setNextLesson(const QString& lessonDirectory) {
    m_nextLesson = lessonDirectory;
    if (m_resultState == 1)
        m_next->setVisible(!m_nextLesson.isEmpty());
}

void LessonPane::setDeviceAvailable(bool available) {
    m_deviceAvailable = available;
    showRecorded();
}

void LessonPane::showRecorded() {
    QStringList lines;
    if (m_lesson.recorded)
        lines << lessonRecordText(*m_lesson.recorded) + QLatin1Char('.');
    if (!m_deviceAvailable) {
        QString text = tr("No CUDA GPU here: you can still write the kernel, compile it and read "
                          "its PTX, SASS and resources, but not run it.");
        if (m_lesson.recorded)
            text += tr(" The figures above were measured on %1, not here.")
                        .arg(m_lesson.recorded->device);
        lines << text;
    }
    m_recorded->setText(lines.join(QLatin1Char('\n')));
    m_recorded->setVisible(!lines.isEmpty());
}

bool LessonPane::showNextHint() {
    int& shown = m_revealed[lessonKey()];
    if (shown >= m_lesson.hints.size())
        return false;
    ++shown;
    showHints();
    return true;
}

int LessonPane::hintsShown() const {
    return m_revealed.value(lessonKey());
}

void LessonPane::showHints() {
    while (QLayoutItem* item = m_hintList->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    const int shown = std::min<int>(hintsShown(), int(m_lesson.hints.size()));
    for (int i = 0; i < shown; ++i) {
        QLabel* hint = wrappingLabel(QStringLiteral("lessonHint%1").arg(i + 1), this);
        hint->setText(tr("Hint %1: %2").arg(i + 1).arg(m_lesson.hints.at(i)));
        m_hintList->addWidget(hint);
    }
    const int total = int(m_lesson.hints.size());
    m_hintButton->setVisible(total > 0);
    m_hintButton->setEnabled(shown < total);
    m_hintButton->setText(shown < total ? tr("Show hint %1 of %2").arg(shown + 1).arg(total)
                                        : tr("All %1 hints shown").arg(total));
}

void LessonPane::showSolutionDiff() {
    const QString mine = m_source ? m_source() : m_lesson.project.source;
    const ListingDiff diff = diffListings(mine, m_lesson.solutionSource, ListingKind::Source);
    QStringList lines;
    QVector<int> kinds; // 0 same, 1 removed, 2 added
    for (const ListingDiffRow& row : diff.rows) {
        if (row.before >= 0 && row.kind != ListingDiffRow::Kind::Same) {
            lines << QStringLiteral("- ") + diff.before.at(row.before);
            kinds << 1;
        }
        if (row.after >= 0 && row.kind != ListingDiffRow::Kind::Same) {
            lines << QStringLiteral("+ ") + diff.after.at(row.after);
            kinds << 2;
        }
        if (row.kind == ListingDiffRow::Kind::Same) {
            lines << QStringLiteral("  ") + diff.before.at(row.before);
            kinds << 0;
        }
    }
    m_diff->setPlainText(lines.join(QLatin1Char('\n')));
    const Theme theme = Theme::forPalette(palette());
    QList<QTextEdit::ExtraSelection> marks;
    int first = -1;
    for (int i = 0; i < kinds.size(); ++i) {
        if (kinds.at(i) == 0)
            continue;
        QTextEdit::ExtraSelection mark;
        mark.format.setBackground(kinds.at(i) == 1 ? theme.errorPaper : theme.notePaper);
        mark.format.setProperty(QTextFormat::FullWidthSelection, true);
        mark.cursor = QTextCursor(m_diff->document()->findBlockByNumber(i));
        marks << mark;
        if (first < 0)
            first = i;
    }
    m_diff->setExtraSelections(marks);
    if (first >= 0)
        m_diff->setTextCursor(QTextCursor(m_diff->document()->findBlockByNumber(first)));
    m_diffSummary->setText(
        diff.identical()
            ? tr("Your source is the solution.")
            : tr("Your source (−) against the solution (+): %1 changed, %2 added, %3 removed")
                  .arg(diff.changed)
                  .arg(diff.added)
                  .arg(diff.removed));
    m_diffSummary->show();
    m_diff->show();
    if (!m_diffButton->isChecked()) {
        const QSignalBlocker quiet(m_diffButton);
        m_diffButton->setChecked(true);
    }
    m_diffButton->setText(tr("Hide the solution"));
}

void LessonPane::hideSolutionDiff() {
    m_diff->hide();
    m_diff->clear();
    m_diffSummary->hide();
    if (m_diffButton->isChecked()) {
        const QSignalBlocker quiet(m_diffButton);
        m_diffButton->setChecked(false);
    }
    m_diffButton->setText(tr("Show the solution as a diff"));
}

bool LessonPane::solutionDiffShown() const {
    return !m_diff->isHidden();
}

QString LessonPane::diffText() const {
    return m_diff->toPlainText();
}

QString LessonPane::diffSummary() const {
    return m_diffSummary->text();
}

void LessonPane::showChecking(const QString& message) {
    m_resultState = 2;
    m_result->setText(message);
    m_result->setStyleSheet(QString());
    m_result->show();
    m_next->hide();
}

void LessonPane::showVerdict(const LessonVerdict& verdict) {
    if (verdict.state == LessonVerdict::State::Complete) {
        m_resultState = 1;
        m_result->setText(tr("Lesson complete: %1.").arg(verdict.summary));
        m_next->setVisible(!m_nextLesson.isEmpty());
    } else if (verdict.state == LessonVerdict::State::Failed) {
        m_resultState = 0;
        m_result->setText(tr("Not yet: %1").arg(verdict.failure));
        m_next->hide();
    } else {
        return;
    }
    styleResult(m_resultState == 1);
    m_result->show();
}

void LessonPane::styleResult(bool success) {
    const Theme theme = Theme::forPalette(palette());
    m_result->setStyleSheet(
        QStringLiteral("QLabel { background: %1; color: %2; }")
            .arg((success ? theme.notePaper : theme.errorPaper).name(), theme.text.name()));
    if (success) {
        QFont bold = m_result->font();
        bold.setBold(true);
        m_result->setFont(bold);
    } else {
        m_result->setFont(font());
    }
}

void LessonPane::clearResult() {
    m_resultState = -1;
    m_result->clear();
    m_result->hide();
    m_next->hide();
}

QString LessonPane::resultText() const {
    return m_result->isHidden() ? QString() : m_result->text();
}

QString LessonPane::recordedText() const {
    return m_recorded->isHidden() ? QString() : m_recorded->text();
}

void LessonPane::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && (m_resultState == 0 || m_resultState == 1))
        styleResult(m_resultState == 1);
}

} // namespace kernelpad
