#pragma once
// The SASS tab: the SASS of the last good compile, and the source <-> PTX <-> SASS line matching
// between the editor, the PTX and the SASS: every source line with code gets a colour in all three
// (Compiler Explorer's matching colours), a line hovered in one is emphasised in all, and a line
// picked in one is marked in the other two. The editor's register margin shows the peak live
// registers and the spills of each source line from the same disassembly.
//
// The disassembly is asked of the Engine as soon as a compile comes back, before anyone looks,
// while this tab is shown or was shown since the project was opened (or the PTX tab, whose
// colours come from the same report, is shown): switching back to the tab then shows it at
// once. A SASS tab nobody opened costs nothing (nvdisasm takes about 0.4 s of CPU per CUBIN).
// A newer compile cancels the older disassembly (its nvdisasm is killed).

#include "core/project/Project.h"
#include "ui/ResultView.h"

#include <QPointer>

namespace kernelpad {

class CodeEditor;
class PtxView;
class RegisterMargin;
struct SassReport;
class SassView;
class SourceLineBands;

class SassResultView : public ResultView {
    Q_OBJECT
public:
    /// `ptx` is the PTX tab's view (PtxResultView), whose lines this view colours.
    SassResultView(const ViewContext& context, PtxView* ptx);
    [[nodiscard]] QWidget* widget() const override;

    void workbenchCleared(const Workbench& workbench) override;
    void compileStarted(const Workbench& workbench) override;
    void compiled(const Workbench& workbench) override;

    /// The tab was shown since the project was opened: compiles are disassembled at once.
    [[nodiscard]] bool opened() const { return m_opened; }

private:
    void request();
    void requestIfOutdated();
    void connectLineColours();
    void connectLines();
    void sassReady(quint64 id, const SassReport& report);
    /// Marks `line` everywhere; `scroll` moves the SASS and the PTX to it (not when it was
    /// clicked there).
    void markSourceLine(int line, bool scroll);
    /// A line picked in the SASS or the PTX: the editor's cursor goes there.
    void selectSourceLine(int line);
    void emphasise(int hovered);
    /// Greys the register margin while the editor holds another source than the SASS's.
    void updateRegisterStale();

    Workbench* m_workbench;
    SassView* m_view;
    QPointer<PtxView> m_ptx;
    QPointer<CodeEditor> m_editor;
    QPointer<SourceLineBands> m_bands;
    QPointer<RegisterMargin> m_registers;
    /// Names this view's requests at the Engine: a newer one cancels the older.
    QString m_tag;
    Project m_requestedProject; ///< the project of the request awaited
    QString m_requestedSource;  ///< the source of the request awaited
    QString m_shownSource;      ///< the source of the SASS shown
    quint64 m_requestId = 0;    ///< the disassemble request whose answer is awaited
    bool m_outdated = false;    ///< a compile came back since the SASS shown was asked for
    bool m_opened = false;      ///< the tab was shown since the project was opened
    /// The line this view moved the editor's cursor to: QScintilla reports the move later,
    /// and answering it would scroll the SASS away from the instruction clicked.
    int m_echoLine = 0;
};

} // namespace kernelpad
