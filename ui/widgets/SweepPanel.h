#pragma once
// The Sweep dock: the project's "sweep" section as an editable form (the
// tunables with their role and values, the grid, shared memory and kernel formulas, the
// restrictions, the strategy, the objective and the timing budget), the number of configurations it
// keeps, Run Sweep with its progress and Cancel, the results as a sortable table, Apply best (or
// any passing row) and the CSV and JSON export. The sweep runs in the Engine (Engine::sweep), which
// schedules it with the window's runs so that two never time on one GPU; the panel never waits
// for it. Its results file lives in the cache
// folder, keyed by the project's path (sweepResultsPath; kernelpad-cli uses the same), so an
// interrupted sweep resumes, and the file of the project as it is now is read (off this
// thread) and shown when the project opens or changes. "Devices:" chooses what the sweep spreads
// over: the chosen device, every device of this computer, or every device of every runner in
// Preferences (SweepPanelDevices.cpp; the binding finds them). The best is confirmed by an
// interleaved A/B against the runner-up unless its checkbox is cleared; the verdict is the line
// under the results (SweepPanelConfirm.cpp).

#include "core/engine/Runners.h"
#include "core/sweep/SweepResultsPath.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QTimer>
#include <QWidget>

#include <functional>
#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLayout;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QSplitter;
class QTableView;
class QTableWidget;
class QToolButton;
class QUndoCommand;

namespace kernelpad {

class Engine;
class ProjectDocument;
class SweepEvaluator;
class SweepResultsModel;

class SweepPanel : public QWidget {
    Q_OBJECT
public:
    /// Tunables table columns.
    enum TunableColumn { NameColumn, RoleColumn, ValuesColumn };
    /// What to do with a results file of the same sweep found at Run.
    enum class ResumeChoice { Resume, StartOver, Cancel };
    /// What Run Sweep spreads over ("Devices:", kept in the settings as sweep/devices).
    enum class DeviceScope { Chosen, ThisComputer, EveryRunner };
    /// The devices of one scope, as the binding found them.
    struct DeviceChoice {
        QVector<PoolEntry> entries;
        bool pending = false; ///< the runners are still being asked
        QString why;          ///< why some runners (or all) were left out; empty when none
    };

    explicit SweepPanel(QWidget* parent = nullptr);
    ~SweepPanel() override;

    /// The document whose sweep the form edits and whose project Run Sweep runs.
    void setDocument(ProjectDocument* document);
    /// The device the sweep runs on; a non-empty `noDevice` ("libcuda.so.1 not found") makes
    /// Run Sweep refuse with it: compiling the configurations alone measures nothing.
    /// `deviceName` keys the results file (sweepDeviceKey), empty while unknown.
    void setDevice(int device, const QString& noDevice, const QString& deviceName = {});
    /// The Engine Run Sweep hands the sweep to; without one Run Sweep refuses.
    void setEngine(Engine* engine);
    [[nodiscard]] Engine* engine() const;
    /// Where the evaluator comes from (a stand-in in tests); by default the Engine's pool of
    /// runners over the chosen scope's entries (sweepDevices()).
    void setEvaluatorFactory(std::function<std::unique_ptr<SweepEvaluator>()> factory);
    /// "Devices:": the scope Run Sweep uses; setting it saves it.
    void setDeviceScope(DeviceScope scope);
    [[nodiscard]] DeviceScope deviceScope() const { return m_scope; }
    /// What the binding found for `scope`; the item's text follows ("every device (3 on 2
    /// runners)").
    void setDeviceChoice(DeviceScope scope, const DeviceChoice& choice);
    /// The entries Run Sweep spreads over now (the chosen device: this computer's device
    /// setDevice() named, until the binding says which runner).
    [[nodiscard]] QVector<PoolEntry> deviceEntries() const;
    /// The text of a scope's item in "Devices:".
    [[nodiscard]] QString deviceScopeText(DeviceScope scope) const;
    /// The devices Run Sweep spreads over: deviceEntries(); nullopt with `error` while the
    /// runners are asked or when the scope has none.
    [[nodiscard]] std::optional<QVector<PoolEntry>> sweepDevices(QString* error) const;
    /// Asked when a results file of the same sweep exists (`done` records in it); by default
    /// a message box.
    void setResumeQuestion(std::function<ResumeChoice(int done, const QString& path)> ask);
    /// Puts `chart` below the results table; until then the table takes the space.
    void setChartWidget(QWidget* chart);
    /// Selects the results row of configuration `key` ("bx=32,by=8"), as when a chart's point
    /// is clicked; false when no row has it.
    bool selectConfiguration(const QString& key);

    /// Why Run Sweep cannot start now (no device for the chosen scope), shown beside the
    /// disabled button; empty when it can.
    [[nodiscard]] QString runBlockedReason() const;
    /// Build ▸ Run Sweep. False with message() saying why it did not start.
    bool runSweep();
    void cancel();
    [[nodiscard]] bool isRunning() const;
    /// Writes the best passing configuration, or that of results row `row` (a row of the
    /// results model, not of the sorted view), into the document. False with message().
    bool applyBest();
    bool applyRecord(int row);
    /// Writes the results, best first, as CSV or JSON to `path`; false with message().
    bool exportTo(const QString& path, bool json);

    /// The last error or notice shown under the form ("sweep.restrictions[0]: ...").
    [[nodiscard]] QString message() const;
    /// "66 configurations (121 combinations; "bx*by <= 1024" removes 55)".
    [[nodiscard]] QString countText() const;
    [[nodiscard]] QTableWidget* tunablesTable() const { return m_tunables; }
    [[nodiscard]] QPlainTextEdit* restrictionsEdit() const { return m_restrictions; }
    [[nodiscard]] SweepResultsModel* resultsModel() const { return m_model; }
    [[nodiscard]] QSortFilterProxyModel* sortedResults() const { return m_proxy; }
    [[nodiscard]] QTableView* resultsView() const { return m_resultsView; }
    [[nodiscard]] QProgressBar* progressBar() const { return m_progress; }
    /// The "Undo" beside the message after an apply, shown while that apply is the settings
    /// step Undo would take back.
    [[nodiscard]] QToolButton* undoApplyButton() const { return m_undoApply; }
    /// The path Run Sweep records into for the document's current project.
    [[nodiscard]] QString resultsPath() const;
    /// What the results file shown says: "12 of 66 configurations from NAME.sweep-HASH.jsonl,
    /// 2026-11-25 00:40; Run Sweep resumes", or why none is shown.
    [[nodiscard]] QString resultsFileText() const;
    /// Whether Run Sweep confirms the best by an A/B against the runner-up (the checkbox, kept
    /// in the settings).
    [[nodiscard]] bool confirms() const;
    void setConfirms(bool confirm);
    /// The line under the results: the best's verdict ("confirmed: bx=16,by=8 is 3.1 % faster
    /// than bx=8,by=8 (…)"), or the A/B in progress; empty when hidden.
    [[nodiscard]] QString confirmationText() const;
    /// "Busy: NVIDIA H200 (device 0) busy 97 %, …" after a sweep (SweepBalance::text()); empty
    /// while a sweep runs or before the first.
    [[nodiscard]] QString balanceText() const;
    /// Reads the document's results file again now (it is otherwise read a moment after the
    /// project opens or changes); resultsFileLoaded follows.
    void reloadResultsFile();

signals:
    /// After every new record, a resume and a clear: the sweep and every record so far.
    void recordsChanged(const kernelpad::SweepSpec& spec,
                        const QVector<kernelpad::SweepRecord>& records);
    /// A results row was selected: its configuration's key ("bx=32,by=8").
    void configurationSelected(const QString& key);
    /// A sweep started or ended.
    void runningChanged(bool running);
    /// "Devices:" changed (the binding asks the runners when a scope needs them).
    void deviceScopeChanged(kernelpad::SweepPanel::DeviceScope scope);
    /// The document's results file was read and its records (or none) are shown.
    void resultsFileLoaded(const QString& path);

private:
    // The form (SweepPanel.cpp).
    QWidget* buildForm();
    /// "Timing:": the budget's kind and its milliseconds.
    QLayout* buildTimingRow(QWidget* form);
    void loadFromDocument();
    void addTunableRow(const SweepTunable& tunable);
    void onFormEdited();
    /// The form as a sweep section, validated; nullopt with `error` naming the field.
    std::optional<SweepSpec> formSpec(QString* error) const;
    void showMessage(const QString& text, bool error);
    // Running and results (SweepPanelRun.cpp).
    QWidget* buildResults();
    void onStarted(const QVector<SweepRecord>& resumed, int total);
    void onRecord(const SweepRecord& record);
    /// The winner's record with its accurate time: replaces the row, named in the summary.
    void onRetimed(const SweepRecord& record);
    /// `record` in place of the row of its key (a re-timed or confirmed winner).
    void replaceRecord(const SweepRecord& record);
    void onFinished(const QString& error);
    void setRunning(bool running);
    void updateButtons();
    void emitRecords();
    bool applyProject(const SweepRecord& record);
    // The A/B of the best against the runner-up (SweepPanelConfirm.cpp).
    QCheckBox* buildConfirmCheck(QWidget* parent);
    void connectConfirmation(Engine* engine);
    /// The line under the results from the best row's confirmation.
    void updateConfirmation();
    // Devices (SweepPanelDevices.cpp).
    QWidget* buildDevices(QWidget* parent);
    void refreshDeviceTexts();
    /// What keys the results file: the names of the devices "Devices:" spreads over.
    [[nodiscard]] QString resultsDeviceKey() const;
    // Apply as one settings step, with its Undo (SweepPanelApply.cpp).
    void createUndoApply(QWidget* parent);
    void updateUndoApply();
    void undoApply();
    // The results file shown at open (SweepPanelFile.cpp).
    void setUpResultsFile();
    void scheduleResultsLookup();
    void onResultsLoaded(const SweepResultsSnapshot& snapshot);
    void showRecords(const QVector<SweepRecord>& records, int total);
    /// The model holds `records`, after one reset.
    void fillModel(const QVector<SweepRecord>& records);

    QPointer<ProjectDocument> m_document;
    int m_device = 0;
    QString m_noDevice;
    QString m_deviceName;
    SweepResultsLoader* m_loader = nullptr;
    QTimer m_lookup;          ///< a pause after an edit before the file is looked up
    QString m_shownPath;      ///< the results file whose records the table shows
    QLabel* m_file = nullptr; ///< resultsFileText()
    std::function<std::unique_ptr<SweepEvaluator>()> m_factory;
    QPointer<Engine> m_engine;
    quint64 m_sweepId = 0; ///< the Engine's id of the sweep in flight, 0 when none
    DeviceScope m_scope = DeviceScope::Chosen;
    DeviceChoice m_choices[3];  ///< by DeviceScope
    bool m_chosenKnown = false; ///< the binding named the chosen device's runner
    QComboBox* m_devices = nullptr;
    std::function<ResumeChoice(int, const QString&)> m_askResume;
    SweepSpec m_runningSpec;
    /// The winner of the sweep in flight timed again with the accurate budget, once it is.
    std::optional<SweepRecord> m_retimed;
    bool m_loading = false;
    QString m_countText;

    QTableWidget* m_tunables = nullptr;
    QLineEdit* m_grid[3] = {};
    QLineEdit* m_shared = nullptr;
    QLineEdit* m_kernel = nullptr;
    QPlainTextEdit* m_restrictions = nullptr;
    QComboBox* m_strategy = nullptr;
    QSpinBox* m_budget = nullptr;
    QSpinBox* m_seed = nullptr;
    QComboBox* m_objective = nullptr;
    QComboBox* m_timing = nullptr;  ///< the timing budget's kind (SweepTimingBudget::Kind)
    QSpinBox* m_timingMs = nullptr; ///< its milliseconds, for "at most"
    QLabel* m_count = nullptr;
    QLabel* m_message = nullptr;
    QToolButton* m_undoApply = nullptr;
    const QUndoCommand* m_applied = nullptr; ///< the settings step of the last apply
    QString m_appliedText;                   ///< "bx=8, by=32", what that apply wrote

    QPushButton* m_run = nullptr;
    QPushButton* m_cancel = nullptr;
    QLabel* m_runReason = nullptr; ///< runBlockedReason() under Run Sweep
    QProgressBar* m_progress = nullptr;
    QLabel* m_elapsed = nullptr;
    QElapsedTimer m_clock;
    QTimer m_tick;
    QSplitter* m_splitter = nullptr;
    QSplitter* m_results = nullptr; ///< the table, then the chart once set
    SweepResultsModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_resultsView = nullptr;
    QCheckBox* m_confirm = nullptr;
    QLabel* m_confirmation = nullptr; ///< confirmationText()
    QLabel* m_balance = nullptr;      ///< balanceText(), under the verdict
    QPushButton* m_applyBest = nullptr;
    QPushButton* m_applyRow = nullptr;
    QPushButton* m_exportCsv = nullptr;
    QPushButton* m_exportJson = nullptr;
};

} // namespace kernelpad
