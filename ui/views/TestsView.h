#pragma once
// The Tests tab: the project's tests (its "tests" section, core/project/TestSpec.h) run
// through the Engine (core/engine/EngineTests.h) without blocking the window, as a grid of
// cases × checks (TestsModel); a selected case shows each check's message and first
// mismatches, and a failing case's output buffers in a buffer viewer at its first mismatch.

#include "ui/ResultView.h"

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableView;
class QTabWidget;

namespace kernelpad {

class BufferViewer;
class EngineTests;
class TestsModel;
struct TestCaseResult;
struct TestReport;

class TestsView : public ResultView {
    Q_OBJECT
public:
    /// Child object names: runTestsButton, cancelTestsButton, testsStatus, testsTable,
    /// testsDetails, testsBuffers.
    explicit TestsView(const ViewContext& context);
    [[nodiscard]] QWidget* widget() const override;
    [[nodiscard]] TestsModel* model() const { return m_model; }

    /// Runs the document's tests (the tab's button and Build ▸ Run Tests) and brings the tab
    /// to the front; says in the status line why not when Run cannot start.
    void runTests();
    void cancelTests();
    /// Shows case `row`'s checks and, when it failed, its outputs.
    void showCase(int row);

    void workbenchCleared(const Workbench& workbench) override;

private:
    void onCaseFinished(int index, const TestCaseResult& result);
    void onFinished(const TestReport& report);
    void bringToFront();
    void setRunning(bool running);

    Workbench* m_workbench;
    QTabWidget* m_tabs;
    QWidget* m_widget;
    QPushButton* m_run;
    QPushButton* m_cancel;
    QLabel* m_status;
    QTableView* m_table;
    QPlainTextEdit* m_details;
    BufferViewer* m_buffers;
    TestsModel* m_model;
    EngineTests* m_tests = nullptr;
};

} // namespace kernelpad
