#pragma once
// The compiles the diff view compares: the newest, the one before it and one the user pinned,
// each with its SASS and ptxas report once asked for. It observes the Workbench, so the window
// keeps the previous compile's PTX and SASS when a new compile arrives.

#include "core/compile/CompileComparison.h"
#include "core/compile/SassReport.h"
#include "core/project/Project.h"
#include "ui/Workbench.h"

#include <QDateTime>
#include <QObject>

#include <optional>

namespace kernelpad {

/// One successful compile as the diff view knows it.
struct CompileSnapshot {
    Project project;   ///< as it was compiled
    QString directory; ///< the project's directory (for its #includes)
    CompileResult compile;
    int number = 0; ///< 1 for the first compile of this project in the window, then 2, ...
    QDateTime at;
    /// Names a compile that is not one of the workbench's ("version 3"); label() then uses it.
    QString title;
    /// The same project compiled again with -lineinfo and ptxas's -v report, and its SASS
    /// (Engine::disassemble); empty until it comes back.
    std::optional<SassReport> report;
    quint64 reportId = 0; ///< the request awaited, 0 when none

    /// "compile 3 (14:02:11)".
    [[nodiscard]] QString label() const;
};

/// Keeps the current, previous and pinned compiles of a Workbench and compares the current one
/// with the chosen baseline. A compile of the same inputs as the current one (the same source,
/// options and arch, as a run's compile is) replaces it rather than becoming a new one. Each
/// compile's report request carries a tag of its own (reportTag()): when the compile leaves
/// the history (a newer compile, a new pin, a new project), its disassembly in flight is
/// cancelled and its nvdisasm processes killed, and its answer is never shown.
class CompileHistory : public QObject, public WorkbenchViewer {
    Q_OBJECT
public:
    enum class Baseline { Previous, Pinned };

    explicit CompileHistory(Workbench* workbench, QObject* parent = nullptr);
    ~CompileHistory() override;

    [[nodiscard]] const std::optional<CompileSnapshot>& current() const { return m_current; }
    [[nodiscard]] const std::optional<CompileSnapshot>& previous() const { return m_previous; }
    [[nodiscard]] const std::optional<CompileSnapshot>& pinned() const { return m_pinned; }
    /// The compile the current one is compared with, by the chosen baseline; empty when there
    /// is none (no compile before, nothing pinned).
    [[nodiscard]] const std::optional<CompileSnapshot>& baselineSnapshot() const;

    [[nodiscard]] Baseline baseline() const { return m_baseline; }
    void setBaseline(Baseline baseline);
    /// Pins the current compile (nothing without one) and compares with it from now on.
    void pinCurrent();
    /// Compares two given projects, `before` pinned and `after` current, as the Versions
    /// panel's "PTX/SASS diff" asks: each is compiled again with its reports (a version read
    /// back from disk kept no PTX); `compile` is what the run compiled, where it is known. A
    /// later compile of the workbench becomes the current one as usual.
    struct ProjectVersion {
        Project project;
        QString title;         ///< "version 3 (14:02:11)"
        CompileResult compile; ///< may be empty
    };
    void compareProjects(const ProjectVersion& before, const ProjectVersion& after,
                         const QString& directory, const QString& arch);
    /// Both compared compiles exist but one has no PTX yet: it is being compiled.
    [[nodiscard]] bool waitingForCompiles() const;

    /// Asks for the reports of the current and the baseline compile that are not there yet;
    /// the view calls it when shown, so hidden, nothing runs nvdisasm.
    void requestReports();
    /// Both compared compiles have their reports.
    [[nodiscard]] bool reportsReady() const;

    /// The baseline against the current compile: from the reports when both are there (SASS,
    /// registers and spills), else from the compiles themselves (PTX only). Empty without a
    /// baseline.
    [[nodiscard]] const std::optional<CompileComparison>& comparison() const {
        return m_comparison;
    }
    /// Why the comparison has no SASS (nvdisasm missing: where it looked); empty when it has
    /// or when the reports are not back yet.
    [[nodiscard]] QString sassUnavailable() const;
    /// The Engine::disassemble tag of compile `number`'s report request.
    [[nodiscard]] QString reportTag(int number) const;

    // WorkbenchViewer
    void workbenchCleared(const Workbench& workbench) override;
    void compiled(const Workbench& workbench) override;

signals:
    /// Any of the compiles, their reports, the baseline or the comparison changed.
    void changed();

private:
    void onReport(quint64 id, const SassReport& report);
    void requestReport(std::optional<CompileSnapshot>& snapshot);
    void recompare();
    /// The numbers of the compiles kept whose report is awaited.
    [[nodiscard]] QVector<int> awaited() const;
    /// Cancels the requests of `before` (awaited() before a change) whose compile is gone.
    void cancelDropped(const QVector<int>& before);

    Workbench* m_workbench;
    std::optional<CompileSnapshot> m_current;
    std::optional<CompileSnapshot> m_previous;
    std::optional<CompileSnapshot> m_pinned;
    std::optional<CompileComparison> m_comparison;
    Baseline m_baseline = Baseline::Previous;
    int m_count = 0; ///< compiles seen since the project was opened
};

} // namespace kernelpad
