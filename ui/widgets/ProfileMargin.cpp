#include "ui/widgets/ProfileMargin.h"
#include "ui/widgets/MarginToolTip.h"

#include <Qsci/qsciscintilla.h>

#include <QEvent>
#include <QHelpEvent>
#include <QImage>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace kernelpad {

namespace {

constexpr int kMarginWidthPx = 14;
/// The strongest heat covers this much of the paper, so a flag drawn over it stays visible.
constexpr double kMaxHeatOpacity = 0.85;
const QColor kHotColour(0xe5, 0x39, 0x35);
const QColor kStaleColour(0x9e, 0x9e, 0x9e);
const QColor kFlagColour(0xff, 0xb3, 0x00);

QColor blend(const QColor& under, const QColor& over, double opacity) {
    return QColor::fromRgbF(float(under.redF() * (1 - opacity) + over.redF() * opacity),
                            float(under.greenF() * (1 - opacity) + over.greenF() * opacity),
                            float(under.blueF() * (1 - opacity) + over.blueF() * opacity));
}

/// A small pennant on a pole, outlined so that it reads on light, dark and hot margins.
QImage flagImage(int height) {
    const int size = std::max(8, std::min(kMarginWidthPx, height) - 2);
    QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    const qreal pole = size * 0.22;
    painter.setPen(QPen(Qt::black, 1.2));
    painter.drawLine(QPointF(pole, 1), QPointF(pole, size - 1));
    QPainterPath pennant;
    pennant.moveTo(pole, 1);
    pennant.lineTo(size - 1, size * 0.3);
    pennant.lineTo(pole, size * 0.6);
    pennant.closeSubpath();
    painter.setBrush(kFlagColour);
    painter.drawPath(pennant);
    return image;
}

} // namespace

ProfileMargin::ProfileMargin(QsciScintilla* editor)
    : QObject(editor)
    , m_editor(editor) {
    setObjectName(QStringLiteral("profileMargin"));
    m_editor->setMarginType(kMargin, QsciScintilla::SymbolMargin);
    m_editor->setMarginWidth(kMargin, 0);
    m_editor->setMarginSensitivity(kMargin, false);
    int mask = 1 << kFlagMarker;
    for (int level = 1; level <= kHeatLevels; ++level)
        mask |= 1 << (kFirstHeatMarker + level - 1);
    m_editor->setMarginMarkerMask(kMargin, mask);
    defineMarkers();
    m_editor->viewport()->installEventFilter(this);
}

ProfileMargin::~ProfileMargin() = default;

QColor ProfileMargin::heatColour(int level) const {
    const double share = double(level) / kHeatLevels;
    return blend(m_editor->paper(), isStale() ? kStaleColour : kHotColour, share * kMaxHeatOpacity);
}

void ProfileMargin::defineMarkers() {
    for (int level = 1; level <= kHeatLevels; ++level) {
        const int marker = kFirstHeatMarker + level - 1;
        m_editor->markerDefine(QsciScintilla::FullRectangle, marker);
        m_editor->setMarkerBackgroundColor(heatColour(level), marker);
        m_editor->setMarkerForegroundColor(heatColour(level), marker);
    }
    m_editor->markerDefine(flagImage(m_editor->fontMetrics().height()), kFlagMarker);
}

int ProfileMargin::heatLevelFor(double samples, double maxSamples) {
    if (!(samples > 0) || !(maxSamples > 0))
        return 0;
    const int level = int(std::ceil(std::min(1.0, samples / maxSamples) * kHeatLevels));
    return std::clamp(level, 1, kHeatLevels);
}

void ProfileMargin::show(const QVector<MarginLine>& lines) {
    clear();
    double maxSamples = 0;
    for (const MarginLine& line : lines)
        maxSamples = std::max(maxSamples, line.samples);
    const int lineCount = m_editor->lines();
    for (const MarginLine& line : lines) {
        // Lines past the end belong to a source the editor no longer holds.
        if (line.line < 1 || line.line > lineCount)
            continue;
        Entry entry;
        entry.line = line;
        entry.level = heatLevelFor(line.samples, maxSamples);
        if (entry.level > 0)
            entry.heatHandle =
                m_editor->markerAdd(line.line - 1, kFirstHeatMarker + entry.level - 1);
        if (line.uncoalesced || line.bankConflicts)
            entry.flagHandle = m_editor->markerAdd(line.line - 1, kFlagMarker);
        if (entry.heatHandle >= 0 || entry.flagHandle >= 0 || !line.toolTip.isEmpty())
            m_entries.append(entry);
    }
    if (!m_entries.isEmpty())
        m_editor->setMarginWidth(kMargin, kMarginWidthPx);
}

void ProfileMargin::clear() {
    for (int level = 1; level <= kHeatLevels; ++level)
        m_editor->markerDeleteAll(kFirstHeatMarker + level - 1);
    m_editor->markerDeleteAll(kFlagMarker);
    m_entries.clear();
    m_editor->setMarginWidth(kMargin, 0);
    if (isStale()) {
        m_staleReason.clear();
        defineMarkers();
    }
}

void ProfileMargin::setStale(const QString& reason) {
    if (reason == m_staleReason)
        return;
    m_staleReason = reason;
    defineMarkers(); // the heat turns grey (or hot again); the markers stay on their lines
}

const ProfileMargin::Entry* ProfileMargin::entryAt(int line) const {
    for (const Entry& entry : m_entries) {
        // A marker's line follows the edits; a line without a marker keeps its own number.
        const int handle = entry.heatHandle >= 0 ? entry.heatHandle : entry.flagHandle;
        const int current = handle >= 0 ? m_editor->markerLine(handle) : entry.line.line - 1;
        if (current == line)
            return &entry;
    }
    return nullptr;
}

int ProfileMargin::heatLevelAt(int line) const {
    const Entry* entry = entryAt(line);
    return entry ? entry->level : 0;
}

bool ProfileMargin::flaggedAt(int line) const {
    const Entry* entry = entryAt(line);
    return entry && entry->flagHandle >= 0;
}

QString ProfileMargin::toolTipAt(int line) const {
    const Entry* entry = entryAt(line);
    if (!entry)
        return QString();
    if (isStale())
        return m_staleReason + QStringLiteral("\n\n") + entry->line.toolTip;
    return entry->line.toolTip;
}

bool ProfileMargin::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() != QEvent::ToolTip || m_entries.isEmpty())
        return QObject::eventFilter(watched, event);
    if (showMarginToolTip(m_editor, kMargin, static_cast<QHelpEvent*>(event),
                          [this](int line) { return toolTipAt(line); }))
        return true;
    return QObject::eventFilter(watched, event);
}

} // namespace kernelpad
