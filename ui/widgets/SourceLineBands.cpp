#include "ui/widgets/SourceLineBands.h"

#include "ui/widgets/LineColours.h"

#include <Qsci/qsciscintilla.h>

#include <QEvent>
#include <QMouseEvent>
#include <QTimer>

namespace kernelpad {

SourceLineBands::SourceLineBands(QsciScintilla* editor)
    : QObject(editor)
    , m_editor(editor)
    , m_hoverTimer(new QTimer(this))
    , m_theme(Theme::forPalette(editor->palette())) {
    m_hoverTimer->setSingleShot(true);
    m_hoverTimer->setInterval(kHoverDebounceMs);
    connect(m_hoverTimer, &QTimer::timeout, this, [this] {
        if (m_pendingHover == m_reportedHover)
            return;
        m_reportedHover = m_pendingHover;
        emit lineHovered(m_reportedHover);
    });
    defineColours();
    editor->installEventFilter(this);
    editor->viewport()->installEventFilter(this);
}

void SourceLineBands::defineColours() {
    for (int i = 0; i < kLineColourCount; ++i) {
        m_editor->markerDefine(QsciScintilla::Background, kFirstBandMarker + i);
        // Line i of the palette: any line with that index has the same colour.
        const int sample = i == 0 ? kLineColourCount : i;
        m_editor->setMarkerBackgroundColor(sourceLineColour(sample, m_theme), kFirstBandMarker + i);
    }
    m_editor->markerDefine(QsciScintilla::Background, kEmphasisMarker);
    if (m_emphasised > 0)
        m_editor->setMarkerBackgroundColor(sourceLineColour(m_emphasised, m_theme, true),
                                           kEmphasisMarker);
}

void SourceLineBands::setLines(const QVector<int>& lines) {
    m_lines = lines;
    redraw();
}

void SourceLineBands::setEnabled(bool enabled) {
    if (m_enabled == enabled)
        return;
    m_enabled = enabled;
    redraw();
}

void SourceLineBands::setEmphasised(int line) {
    if (m_emphasised == line)
        return;
    m_emphasised = line;
    m_editor->markerDeleteAll(kEmphasisMarker);
    if (m_enabled && line > 0) {
        m_editor->setMarkerBackgroundColor(sourceLineColour(line, m_theme, true), kEmphasisMarker);
        m_editor->markerAdd(line - 1, kEmphasisMarker);
    }
}

void SourceLineBands::redraw() {
    for (int i = 0; i < kLineColourCount; ++i)
        m_editor->markerDeleteAll(kFirstBandMarker + i);
    m_editor->markerDeleteAll(kEmphasisMarker);
    if (!m_enabled)
        return;
    for (const int line : m_lines) {
        if (line >= 1)
            m_editor->markerAdd(line - 1, kFirstBandMarker + sourceLineColourIndex(line));
    }
    const int emphasised = m_emphasised;
    m_emphasised = 0;
    setEmphasised(emphasised);
}

QColor SourceLineBands::colourOfLine(int line) const {
    if (line < 1)
        return {};
    const unsigned mask = m_editor->markersAtLine(line - 1);
    if (mask & (1U << kEmphasisMarker))
        return sourceLineColour(line, m_theme, true);
    for (int i = 0; i < kLineColourCount; ++i) {
        if (mask & (1U << (kFirstBandMarker + i)))
            return sourceLineColour(i == 0 ? kLineColourCount : i, m_theme);
    }
    return {};
}

bool SourceLineBands::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_editor) {
        if (event->type() == QEvent::PaletteChange) {
            m_theme = Theme::forPalette(m_editor->palette());
            defineColours();
        }
        return false;
    }
    if (event->type() == QEvent::MouseMove) {
        const auto* move = static_cast<QMouseEvent*>(event);
        m_pendingHover = m_editor->lineAt(move->position().toPoint()) + 1;
        m_hoverTimer->start();
    } else if (event->type() == QEvent::Leave) {
        m_pendingHover = 0;
        m_hoverTimer->start();
    }
    return false;
}

} // namespace kernelpad
