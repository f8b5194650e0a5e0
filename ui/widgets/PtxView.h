#pragma once
// The PTX of the last compile: read-only, highlighted, searchable, with a jump-to-entry box.

#include "core/compile/CompileResult.h"

#include <QTime>
#include <QWidget>

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace kernelpad {

class PtxHighlighter;

/// A read-only PTX listing with syntax colours, a search field (Enter / Shift+Enter), a
/// selector that jumps to each `.entry` and "Save as PTX Project" (a button and the context
/// menu's last entry). Child object names: ptxEntries, stalePtxBanner, saveAsPtxProject.
class PtxView : public QWidget {
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
    /// Selects the next (or previous) occurrence of `text`, wrapping; false when absent.
    bool find(const QString& text, bool backward = false);
    /// The `.entry` names found in the PTX, in order.
    [[nodiscard]] QStringList entries() const;
    [[nodiscard]] QPlainTextEdit* textView() const { return m_text; }
    /// "Save as PTX Project": enabled while there is PTX to save.
    [[nodiscard]] QAction* saveAsPtxProjectAction() const { return m_saveAsPtx; }

signals:
    /// The user asked for a PTX project made of the PTX shown (ptx()).
    void saveAsPtxProjectRequested();

protected:
    void changeEvent(QEvent* event) override;

private:
    void applyTheme();
    void jumpToEntry(int index);

    QPlainTextEdit* m_text;
    QLineEdit* m_search;
    QComboBox* m_entries;
    QLabel* m_info;
    QLabel* m_staleBanner;
    QTime m_lastGoodAt; ///< when the PTX shown was compiled
    PtxHighlighter* m_highlighter;
    QAction* m_saveAsPtx;
};

} // namespace kernelpad
