#include "ui/widgets/RegisterMargin.h"
#include "ui/widgets/MarginToolTip.h"

#include "ui/widgets/CodeEditor.h"

#include <Qsci/qsciscintilla.h>
#include <Qsci/qscistyle.h>

#include <QEvent>
#include <QHelpEvent>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace kernelpad {

namespace {

/// Few live registers are green, the kernel's whole count red; drawn at this share over the
/// paper so that the number stays readable on light and dark themes.
constexpr double kRegisterTint = 0.55;
constexpr double kRegisterGreenHue = 120.0 / 360.0;
const QColor kRegisterStaleColour(0x9e, 0x9e, 0x9e);
const QColor kRegisterSpillText(0xb7, 0x1c, 0x1c);
/// The margin's room: three digits and the spill mark.
const QString kRegisterMarginSample = QStringLiteral("000!");

/// Style offsets from kFirstStyle: the levels, the same with the spill mark, a line without
/// counts, and stale.
constexpr int kRegisterSpillStyles = RegisterMargin::kLevels;
constexpr int kRegisterUncountedStyle = 2 * RegisterMargin::kLevels;
constexpr int kRegisterStaleStyle = kRegisterUncountedStyle + 1;

/// The paper the text is drawn on: CodeEditor's theme sets it through its lexer, which
/// QsciScintilla::paper() does not report.
QColor editorPaper(const QsciScintilla* editor) {
    if (const auto* code = qobject_cast<const CodeEditor*>(editor))
        return code->theme().paper;
    return editor->paper();
}

QColor editorText(const QsciScintilla* editor) {
    if (const auto* code = qobject_cast<const CodeEditor*>(editor))
        return code->theme().text;
    return editor->color();
}

QColor registerTint(const QColor& paper, const QColor& colour, double share) {
    return QColor::fromRgbF(float(paper.redF() * (1 - share) + colour.redF() * share),
                            float(paper.greenF() * (1 - share) + colour.greenF() * share),
                            float(paper.blueF() * (1 - share) + colour.blueF() * share));
}

} // namespace

RegisterMargin::RegisterMargin(QsciScintilla* editor)
    : QObject(editor)
    , m_editor(editor) {
    setObjectName(QStringLiteral("registerMargin"));
    if (m_editor->SendScintilla(QsciScintillaBase::SCI_GETMARGINS) <= kMargin)
        m_editor->SendScintilla(QsciScintillaBase::SCI_SETMARGINS, kMargin + 1);
    m_editor->setMarginType(kMargin, QsciScintilla::TextMarginRightJustified);
    m_editor->setMarginWidth(kMargin, 0);
    m_editor->setMarginSensitivity(kMargin, false);
    m_editor->setMarginMarkerMask(kMargin, 0);
    m_editor->markerDefine(QsciScintilla::Invisible, kLineMarker);
    defineStyles();
    m_editor->installEventFilter(this);
    m_editor->viewport()->installEventFilter(this);
}

RegisterMargin::~RegisterMargin() = default;

int RegisterMargin::levelFor(int peak, int registers) {
    if (peak <= 0 || registers <= 0)
        return 0;
    const double share = std::min(1.0, double(peak) / registers);
    return std::clamp(int(std::ceil(share * kLevels)), 1, kLevels);
}

QColor RegisterMargin::levelColour(int level) const {
    const QColor paper = editorPaper(m_editor);
    if (isStale())
        return registerTint(paper, kRegisterStaleColour, kRegisterTint);
    if (level <= 0)
        return paper;
    const double hue = kRegisterGreenHue * (1.0 - double(level - 1) / (kLevels - 1));
    return registerTint(paper, QColor::fromHsvF(float(hue), 0.8f, 0.9f), kRegisterTint);
}

void RegisterMargin::defineStyles() {
    QFont font = m_editor->font();
    QFont bold = font;
    bold.setBold(true);
    const QColor text = editorText(m_editor);
    for (int level = 1; level <= kLevels; ++level) {
        const QColor paper = levelColour(level);
        QsciStyle(kFirstStyle + level - 1, tr("Live registers"), text, paper, font).apply(m_editor);
        QsciStyle(kFirstStyle + kRegisterSpillStyles + level - 1, tr("Live registers, spilling"),
                  kRegisterSpillText, paper, bold)
            .apply(m_editor);
    }
    QsciStyle(kFirstStyle + kRegisterUncountedStyle, tr("Spilling line"), kRegisterSpillText,
              editorPaper(m_editor), bold)
        .apply(m_editor);
    QsciStyle(kFirstStyle + kRegisterStaleStyle, tr("Live registers, stale"), text, levelColour(1),
              font)
        .apply(m_editor);
}

QString RegisterMargin::marginText(const LineRegisterUse& line) {
    QString text = line.counted ? QString::number(line.peak.gprs) : QString();
    if (line.spills())
        text += u'!';
    return text;
}

void RegisterMargin::drawText(const Entry& entry) {
    const int line = entry.handle >= 0 ? m_editor->markerLine(entry.handle) : -1;
    if (line < 0)
        return;
    int style = entry.level > 0 ? entry.level - 1 : kRegisterUncountedStyle;
    if (entry.level > 0 && entry.line.spills())
        style += kRegisterSpillStyles;
    if (isStale())
        style = kRegisterStaleStyle;
    m_editor->setMarginText(line, marginText(entry.line), kFirstStyle + style);
}

void RegisterMargin::show(const QVector<LineRegisterUse>& lines) {
    clear();
    // A kernel whose register count is unknown is scaled by the most any line has live.
    int mostLive = 0;
    for (const LineRegisterUse& line : lines)
        mostLive = std::max(mostLive, line.counted ? line.peak.gprs : 0);
    const int lineCount = m_editor->lines();
    for (const LineRegisterUse& line : lines) {
        // Lines past the end belong to a source the editor no longer holds.
        if (line.line < 1 || line.line > lineCount || (!line.counted && !line.spills()))
            continue;
        Entry entry;
        entry.line = line;
        if (line.counted)
            entry.level = levelFor(line.peak.gprs, line.registers > 0 ? line.registers : mostLive);
        entry.handle = m_editor->markerAdd(line.line - 1, kLineMarker);
        m_entries.append(entry);
        drawText(entry);
    }
    if (!m_entries.isEmpty())
        m_editor->setMarginWidth(kMargin, kRegisterMarginSample);
}

void RegisterMargin::clear() {
    m_editor->markerDeleteAll(kLineMarker);
    m_editor->clearMarginText();
    m_entries.clear();
    m_editor->setMarginWidth(kMargin, 0);
    if (isStale()) {
        m_staleReason.clear();
        defineStyles();
    }
}

void RegisterMargin::setStale(const QString& reason) {
    if (reason == m_staleReason)
        return;
    m_staleReason = reason;
    defineStyles();
    // The text stays on the lines it moved to; only its style changes.
    for (const Entry& entry : std::as_const(m_entries))
        drawText(entry);
}

const RegisterMargin::Entry* RegisterMargin::entryAt(int line) const {
    for (const Entry& entry : m_entries) {
        if (entry.handle >= 0 && m_editor->markerLine(entry.handle) == line)
            return &entry;
    }
    return nullptr;
}

QString RegisterMargin::textAt(int line) const {
    const Entry* entry = entryAt(line);
    return entry ? marginText(entry->line) : QString();
}

int RegisterMargin::levelAt(int line) const {
    const Entry* entry = entryAt(line);
    return entry ? entry->level : 0;
}

bool RegisterMargin::spillsAt(int line) const {
    const Entry* entry = entryAt(line);
    return entry && entry->line.spills();
}

QString RegisterMargin::toolTipAt(int line) const {
    const Entry* entry = entryAt(line);
    if (!entry)
        return QString();
    const LineRegisterUse& use = entry->line;
    QStringList text;
    if (use.counted) {
        text << tr("Registers: at most %1 live at once on this line (%2 predicates, %3 uniform).")
                    .arg(use.peak.gprs)
                    .arg(use.peak.predicates)
                    .arg(use.peak.uniforms);
        if (use.registers > 0)
            text << tr("%1 uses %2 registers per thread: the colour runs from few (green) to "
                       "all of them (red).")
                        .arg(use.function)
                        .arg(use.registers);
    }
    if (use.spills())
        text << tr("! %1: local-memory instructions (STL/LDL), register spills or a local "
                   "array; each costs a trip through the cache hierarchy.")
                    .arg(use.spillText());
    text << tr("From nvdisasm's register life ranges of the SASS tab's last disassembly.");
    const QString body = text.join(u'\n');
    return isStale() ? m_staleReason + QStringLiteral("\n\n") + body : body;
}

bool RegisterMargin::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_editor) {
        // A theme change: the editor takes its new paper in its own handler, after this one.
        if (event->type() == QEvent::PaletteChange)
            QMetaObject::invokeMethod(
                this,
                [this] {
                    defineStyles();
                    for (const Entry& entry : std::as_const(m_entries))
                        drawText(entry);
                },
                Qt::QueuedConnection);
        return QObject::eventFilter(watched, event);
    }
    if (event->type() != QEvent::ToolTip || m_entries.isEmpty())
        return QObject::eventFilter(watched, event);
    if (showMarginToolTip(m_editor, kMargin, static_cast<QHelpEvent*>(event),
                          [this](int line) { return toolTipAt(line); }))
        return true;
    return QObject::eventFilter(watched, event);
}

} // namespace kernelpad
