#pragma once
// Creates, edits and removes the project's library baseline (docs/project-format.md, "Library
// baselines"): a cuBLAS or cuBLASLt GEMM, or a CUB reduce, scan, radix sort or histogram, on the
// project's buffers and scalar expressions. The section's problem against the arguments, the
// message a run would give, is shown as it is typed and OK waits until there is none. The edit
// is one step of the document's settings history (Edit ▸ Undo Settings takes it back).

#include "core/project/Project.h"

#include <QDialog>
#include <QHash>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QFormLayout;
class QLabel;
class QLineEdit;

namespace kernelpad {

class ProjectDocument;

/// One form over Project::baseline.
class BaselineDialog : public QDialog {
    Q_OBJECT
public:
    explicit BaselineDialog(const Project& project, QWidget* parent = nullptr);

    /// The section as the form states it; empty after Remove Baseline.
    [[nodiscard]] BaselineSpec baseline() const;
    /// Why OK is disabled, naming the field; empty when the call can run.
    [[nodiscard]] QString problem() const;
    /// Writes an accepted dialog's section into `document` as one undoable step; false when
    /// the dialog was cancelled or nothing changed.
    bool applyTo(ProjectDocument* document) const;
    /// Opens the dialog on the document's project and applies it when accepted.
    static void edit(ProjectDocument* document, QWidget* parent);

private:
    void buildForm(QFormLayout* form);
    void showSpec(const BaselineSpec& spec);
    /// Shows the rows the chosen call takes, then the problem.
    void refresh();
    QLineEdit* addLine(QFormLayout* form, const QString& label, const char* key);
    QComboBox* addBuffer(QFormLayout* form, const QString& label, const char* key,
                         bool optional = false);

    Project m_project;
    bool m_removed = false;
    QComboBox* m_call = nullptr;
    QComboBox* m_order = nullptr;
    QComboBox* m_compute = nullptr;
    QComboBox* m_op = nullptr;
    QCheckBox* m_transA = nullptr;
    QCheckBox* m_transB = nullptr;
    QCheckBox* m_exclusive = nullptr;
    QCheckBox* m_descending = nullptr;
    QHash<QString, QLineEdit*> m_lines;   ///< by the JSON key ("m", "lda", "levels")
    QHash<QString, QComboBox*> m_buffers; ///< by the JSON key ("a", "in", "valuesOut")
    QFormLayout* m_form = nullptr;
    QLabel* m_problem = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
};

} // namespace kernelpad
