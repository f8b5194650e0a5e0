#include "ui/dialogs/BaselineDialog.h"

#include "core/run/BaselinePlan.h"
#include "ui/ProjectDocument.h"
#include "ui/SettingsHistory.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace kernelpad {
namespace {

/// The choices of the call box: what it shows and the "library:call" it stands for
/// ("cublaslt:gemm" is cuBLAS's section with compute fp8, which runs through cuBLASLt).
struct BaselineChoice {
    const char* label;
    const char* key;
};

const BaselineChoice kBaselineChoices[] = {
    {"cuBLAS GEMM", "cublas:gemm"}, {"cuBLASLt fp8 GEMM", "cublaslt:gemm"},
    {"CUB reduce", "cub:reduce"},   {"CUB scan (sum)", "cub:scan"},
    {"CUB radix sort", "cub:sort"}, {"CUB histogram (even bins)", "cub:histogram"},
};

const char* const kGemmLines[] = {"m",     "n",    "k",     "lda",     "ldb",     "ldc",
                                  "alpha", "beta", "batch", "strideA", "strideB", "strideC"};

/// The call box's key for `spec`.
QString choiceKey(const BaselineSpec& spec) {
    if (spec.isCub())
        return QStringLiteral("cub:") + spec.call;
    return spec.compute == QLatin1String("fp8") ? QStringLiteral("cublaslt:gemm")
                                                : QStringLiteral("cublas:gemm");
}

} // namespace

BaselineDialog::BaselineDialog(const Project& project, QWidget* parent)
    : QDialog(parent)
    , m_project(project) {
    setObjectName(QStringLiteral("baselineDialog"));
    setWindowTitle(tr("Library Baseline"));
    m_form = new QFormLayout;
    buildForm(m_form);
    m_problem = new QLabel(this);
    m_problem->setObjectName(QStringLiteral("baselineProblem"));
    m_problem->setWordWrap(true);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    QPushButton* remove =
        m_buttons->addButton(tr("Remove Baseline"), QDialogButtonBox::DestructiveRole);
    remove->setObjectName(QStringLiteral("removeBaselineButton"));
    remove->setEnabled(!project.baseline.isEmpty());
    connect(remove, &QPushButton::clicked, this, [this] {
        m_removed = true;
        accept();
    });
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(m_form);
    layout->addWidget(m_problem);
    layout->addWidget(m_buttons);
    showSpec(project.baseline);
}

QLineEdit* BaselineDialog::addLine(QFormLayout* form, const QString& label, const char* key) {
    auto* line = new QLineEdit(this);
    line->setObjectName(QStringLiteral("baseline_") + QLatin1String(key));
    connect(line, &QLineEdit::textChanged, this, &BaselineDialog::refresh);
    form->addRow(label, line);
    m_lines.insert(QLatin1String(key), line);
    return line;
}

QComboBox* BaselineDialog::addBuffer(QFormLayout* form, const QString& label, const char* key,
                                     bool optional) {
    auto* box = new QComboBox(this);
    box->setObjectName(QStringLiteral("baseline_") + QLatin1String(key));
    box->setEditable(true); // a name that is no buffer yet stays as typed, and is refused
    if (optional)
        box->addItem(QString());
    for (const ArgumentSpec& a : m_project.arguments)
        if (a.isBuffer())
            box->addItem(a.name);
    connect(box, &QComboBox::currentTextChanged, this, &BaselineDialog::refresh);
    form->addRow(label, box);
    m_buffers.insert(QLatin1String(key), box);
    return box;
}

void BaselineDialog::buildForm(QFormLayout* form) {
    m_call = new QComboBox(this);
    m_call->setObjectName(QStringLiteral("baselineCall"));
    for (const BaselineChoice& c : kBaselineChoices)
        m_call->addItem(tr(c.label), QLatin1String(c.key));
    connect(m_call, &QComboBox::currentIndexChanged, this, &BaselineDialog::refresh);
    form->addRow(tr("Library call"), m_call);
    const auto check = [&](const QString& text, const char* name) {
        auto* box = new QCheckBox(text, this);
        box->setObjectName(QLatin1String(name));
        connect(box, &QCheckBox::toggled, this, &BaselineDialog::refresh);
        return box;
    };
    m_order = new QComboBox(this);
    m_order->setObjectName(QStringLiteral("baseline_order"));
    m_order->addItems({QStringLiteral("column"), QStringLiteral("row")});
    connect(m_order, &QComboBox::currentIndexChanged, this, &BaselineDialog::refresh);
    form->addRow(tr("Order"), m_order);
    addBuffer(form, tr("A"), "a");
    addBuffer(form, tr("B"), "b");
    addBuffer(form, tr("C (the kernel's output)"), "c");
    m_transA = check(tr("Transpose A"), "baseline_transA");
    m_transB = check(tr("Transpose B"), "baseline_transB");
    form->addRow(QString(), m_transA);
    form->addRow(QString(), m_transB);
    for (const char* key : kGemmLines)
        if (QLatin1String(key) != QLatin1String("n"))
            addLine(form, QLatin1String(key), key);
    m_compute = new QComboBox(this);
    m_compute->setObjectName(QStringLiteral("baseline_compute"));
    for (const QString& c : baselineComputeTypes())
        if (c != QLatin1String("fp8")) // the cuBLASLt choice
            m_compute->addItem(c);
    connect(m_compute, &QComboBox::currentIndexChanged, this, &BaselineDialog::refresh);
    form->addRow(tr("Compute"), m_compute);
    addBuffer(form, tr("In (keys for a sort)"), "in");
    addBuffer(form, tr("Out (the kernel's output)"), "out");
    addLine(form, tr("n (elements)"), "n");
    m_op = new QComboBox(this);
    m_op->setObjectName(QStringLiteral("baseline_op"));
    m_op->addItems({QStringLiteral("sum"), QStringLiteral("min"), QStringLiteral("max")});
    connect(m_op, &QComboBox::currentIndexChanged, this, &BaselineDialog::refresh);
    form->addRow(tr("Operation"), m_op);
    m_exclusive = check(tr("Exclusive (out[0] = 0)"), "baseline_exclusive");
    form->addRow(QString(), m_exclusive);
    addBuffer(form, tr("Values in (empty: keys only)"), "valuesIn", true);
    addBuffer(form, tr("Values out"), "valuesOut", true);
    m_descending = check(tr("Descending"), "baseline_descending");
    form->addRow(QString(), m_descending);
    addLine(form, tr("Levels (bins + 1)"), "levels");
    addLine(form, tr("Lower level"), "lower");
    addLine(form, tr("Upper level"), "upper");
}

void BaselineDialog::showSpec(const BaselineSpec& given) {
    BaselineSpec spec = given;
    if (spec.isEmpty()) { // a new section: a GEMM over nothing yet, refused until filled in
        spec.library = QStringLiteral("cublas");
        spec.call = QStringLiteral("gemm");
    }
    m_call->setCurrentIndex(m_call->findData(choiceKey(spec)));
    m_order->setCurrentText(spec.order);
    m_compute->setCurrentText(spec.compute);
    m_op->setCurrentText(spec.op);
    m_transA->setChecked(spec.transA);
    m_transB->setChecked(spec.transB);
    m_exclusive->setChecked(spec.exclusive);
    m_descending->setChecked(spec.descending);
    const std::pair<const char*, QString BaselineSpec::*> lines[] = {
        {"m", &BaselineSpec::m},
        {"n", &BaselineSpec::n},
        {"k", &BaselineSpec::k},
        {"lda", &BaselineSpec::lda},
        {"ldb", &BaselineSpec::ldb},
        {"ldc", &BaselineSpec::ldc},
        {"alpha", &BaselineSpec::alpha},
        {"beta", &BaselineSpec::beta},
        {"batch", &BaselineSpec::batch},
        {"strideA", &BaselineSpec::strideA},
        {"strideB", &BaselineSpec::strideB},
        {"strideC", &BaselineSpec::strideC},
        {"levels", &BaselineSpec::levels},
        {"lower", &BaselineSpec::lower},
        {"upper", &BaselineSpec::upper},
        {"a", &BaselineSpec::a},
        {"b", &BaselineSpec::b},
        {"c", &BaselineSpec::c},
        {"in", &BaselineSpec::in},
        {"out", &BaselineSpec::out},
        {"valuesIn", &BaselineSpec::valuesIn},
        {"valuesOut", &BaselineSpec::valuesOut}};
    for (const auto& [key, member] : lines) {
        if (QLineEdit* line = m_lines.value(QLatin1String(key)))
            line->setText(spec.*member);
        if (QComboBox* box = m_buffers.value(QLatin1String(key)))
            box->setCurrentText(spec.*member);
    }
    refresh();
}

BaselineSpec BaselineDialog::baseline() const {
    if (m_removed)
        return {};
    const QString key = m_call->currentData().toString();
    BaselineSpec spec;
    const bool cub = key.startsWith(QLatin1String("cub:"));
    spec.library = cub ? QStringLiteral("cub") : QStringLiteral("cublas");
    spec.call = key.section(QLatin1Char(':'), 1);
    const auto text = [this](const char* k) {
        if (QLineEdit* line = m_lines.value(QLatin1String(k)))
            return line->text().trimmed();
        return m_buffers.value(QLatin1String(k))->currentText().trimmed();
    };
    spec.n = text("n");
    if (cub) {
        spec.in = text("in");
        spec.out = text("out");
        spec.op =
            spec.call == QLatin1String("reduce") ? m_op->currentText() : QStringLiteral("sum");
        spec.exclusive = spec.call == QLatin1String("scan") && m_exclusive->isChecked();
        spec.descending = spec.call == QLatin1String("sort") && m_descending->isChecked();
        if (spec.call == QLatin1String("sort")) {
            spec.valuesIn = text("valuesIn");
            spec.valuesOut = text("valuesOut");
        }
        if (spec.call == QLatin1String("histogram")) {
            spec.levels = text("levels");
            spec.lower = text("lower");
            spec.upper = text("upper");
        }
        return spec;
    }
    spec.order = m_order->currentText();
    spec.a = text("a");
    spec.b = text("b");
    spec.c = text("c");
    spec.transA = m_transA->isChecked();
    spec.transB = m_transB->isChecked();
    spec.m = text("m");
    spec.k = text("k");
    spec.lda = text("lda");
    spec.ldb = text("ldb");
    spec.ldc = text("ldc");
    spec.alpha = text("alpha");
    spec.beta = text("beta");
    spec.batch = text("batch");
    spec.strideA = text("strideA");
    spec.strideB = text("strideB");
    spec.strideC = text("strideC");
    spec.compute =
        key == QLatin1String("cublaslt:gemm") ? QStringLiteral("fp8") : m_compute->currentText();
    return spec;
}

QString BaselineDialog::problem() const {
    const BaselineSpec spec = baseline();
    // Empty fields the file would leave out ("lda": the tightest) are not written as empty.
    return baselineProblem(spec, m_project.arguments);
}

void BaselineDialog::refresh() {
    if (!m_buttons) // signals of the form being built
        return;
    const QString key = m_call->currentData().toString();
    const bool gemm = key.endsWith(QLatin1String(":gemm"));
    const QString call = key.section(QLatin1Char(':'), 1);
    for (QComboBox* box :
         {m_buffers.value(QStringLiteral("a")), m_buffers.value(QStringLiteral("b")),
          m_buffers.value(QStringLiteral("c")), m_order})
        m_form->setRowVisible(box, gemm);
    m_form->setRowVisible(m_transA, gemm);
    m_form->setRowVisible(m_transB, gemm);
    for (const char* k : kGemmLines)
        if (QLatin1String(k) != QLatin1String("n"))
            m_form->setRowVisible(m_lines.value(QLatin1String(k)), gemm);
    m_form->setRowVisible(m_compute, key == QLatin1String("cublas:gemm"));
    m_form->setRowVisible(m_buffers.value(QStringLiteral("in")), !gemm);
    m_form->setRowVisible(m_buffers.value(QStringLiteral("out")), !gemm);
    m_form->setRowVisible(m_op, call == QLatin1String("reduce"));
    m_form->setRowVisible(m_exclusive, call == QLatin1String("scan"));
    for (const char* k : {"valuesIn", "valuesOut"})
        m_form->setRowVisible(m_buffers.value(QLatin1String(k)), call == QLatin1String("sort"));
    m_form->setRowVisible(m_descending, call == QLatin1String("sort"));
    for (const char* k : {"levels", "lower", "upper"})
        m_form->setRowVisible(m_lines.value(QLatin1String(k)), call == QLatin1String("histogram"));
    const QString why = problem();
    m_problem->setText(why);
    m_problem->setVisible(!why.isEmpty());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(why.isEmpty());
}

bool BaselineDialog::applyTo(ProjectDocument* document) const {
    if (result() != QDialog::Accepted)
        return false;
    Project settings = document->project();
    settings.baseline = baseline();
    // As a project file would hold it: fields left empty take their defaults ("alpha": 1).
    QString error;
    if (std::optional<BaselineSpec> read =
            BaselineSpec::fromJson(settings.baseline.toJson(), settings.arguments, &error))
        settings.baseline = *read;
    return document->settingsHistory()->apply(settings, settings.baseline.isEmpty()
                                                            ? tr("Remove library baseline")
                                                            : tr("Edit library baseline"));
}

void BaselineDialog::edit(ProjectDocument* document, QWidget* parent) {
    BaselineDialog dialog(document->project(), parent);
    if (dialog.exec() == QDialog::Accepted)
        dialog.applyTo(document);
}

} // namespace kernelpad
