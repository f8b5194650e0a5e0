#pragma once
// The Versions tab: every run of the project becomes a version, stored per project file in the
// application's data folder (core/run/VersionHistory.h); Restore writes one into the editor and
// the document, PTX/SASS Diff compares two in the Diff tab, and Compare with… times one against
// the editor's source in an interleaved A/B comparison (Engine::compareAb). Made with the
// window, so that no run goes unrecorded.

#include "core/engine/Engine.h"
#include "core/run/VersionHistory.h"
#include "ui/ResultView.h"

#include <QHash>
#include <QPointer>

class QTabWidget;

namespace kernelpad {

class CodeEditor;
class CompileDiffView;
class VersionsPanel;

class VersionsView : public ResultView {
    Q_OBJECT
public:
    /// `diff` is the Diff tab's view (DiffView), where PTX/SASS Diff shows two versions.
    VersionsView(const ViewContext& context, CompileDiffView* diff);
    [[nodiscard]] QWidget* widget() const override;

    void workbenchCleared(const Workbench& workbench) override;
    void runFinished(const Workbench& workbench, const RunRecord& run) override;
    void profileFinished(const Workbench& workbench, const RunRecord* run) override;
    void historyCleared(const Workbench& workbench) override;

private:
    void save();
    void showError(const QString& error);
    /// Restore of version `number`: refused when it is what the document holds or of another
    /// language; asked first when the editor's source is in no version.
    void restore(int number);
    /// What the document holds, appended as a version of its own (marked "kept before
    /// restore"), restorable like any other. Returns the message's sentence about it.
    QString keepDocumentAsVersion(const Project& current);
    /// The PTX/SASS diff of versions `a` and `b`, shown in the Diff tab.
    void compareVersions(int a, int b);
    /// Compare with…: version `number` as A, the document as it is now as B.
    void startAb(int number);
    void abProgress(quint64 id, const QString& stage, int done, int total);
    void abFinished(quint64 id, const AbResult& result);

    Workbench* m_workbench;
    VersionsPanel* m_panel;
    QPointer<CodeEditor> m_editor;
    QPointer<CompileDiffView> m_diff;
    QPointer<QTabWidget> m_tabs;
    VersionStore m_store{QString()};
    /// Which version each of this workbench's runs became (a profile finds it by serial).
    QHash<quint64, int> m_numberOfSerial;
    quint64 m_abId = 0; ///< the comparison in flight, 0 when none
    int m_abNumber = 0; ///< its version
};

} // namespace kernelpad
