#pragma once
// The PTX of the last compile: read-only, highlighted, searchable, with a jump-to-entry box.

#include "core/compile/CompileResult.h"
#include "ui/widgets/ListingView.h"

#include <QTime>

class QAction;
class QComboBox;
class QLabel;

namespace kernelpad {

/// A read-only PTX listing with syntax colours, a search field (Enter / Shift+Enter), a
/// selector that jumps to each `.entry` and "Save as PTX Project" (a button and the context
/// menu's last entry); line colours, hover and instruction help come from ListingView.
/// Child object names: ptxEntries, stalePtxBanner, saveAsPtxProject.
class PtxView : public ListingView {
    Q_OBJECT
public:
    explicit PtxView(QWidget* parent = nullptr);

    void setPtx(const QString& ptx);
    /// The PTX of a successful compile (made at `at`); after a failed one the last good PTX
    /// stays, under a banner saying it is stale and since when.
    void showCompile(const CompileResult& result, const QTime& at = QTime::currentTime());
    /// True while the PTX shown is from an earlier compile than the last one.
    [[nodiscard]] bool isStale() const;
    void clear();
    [[nodiscard]] QString ptx() const;
    /// The `.entry` names found in the PTX, in order.
    [[nodiscard]] QStringList entries() const;
    /// "Save as PTX Project": enabled while there is PTX to save.
    [[nodiscard]] QAction* saveAsPtxProjectAction() const { return m_saveAsPtx; }

signals:
    /// The user asked for a PTX project made of the PTX shown (ptx()).
    void saveAsPtxProjectRequested();
    /// The view became visible (its line colours come from a -lineinfo compile that the owner
    /// asks for only while a listing is shown).
    void shown();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void jumpToEntry(int index);

    QComboBox* m_entries;
    QLabel* m_staleBanner;
    QTime m_lastGoodAt; ///< when the PTX shown was compiled
    QAction* m_saveAsPtx;
};

} // namespace kernelpad
