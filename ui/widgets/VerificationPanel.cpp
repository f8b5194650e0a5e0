#include "ui/widgets/VerificationPanel.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace kernelpad {

namespace {

const QColor kPassColor(46, 125, 50);
const QColor kFailColor(198, 40, 40);
const QColor kErrorColor(230, 81, 0);

enum VerificationColumn {
    BufferColumn,
    ResultColumn,
    MethodColumn,
    MaxAbsColumn,
    MaxRelColumn,
    MaxUlpColumn,
    MismatchColumn,
    NanColumn,
    UnwrittenColumn,
    CheckedColumn,
    SummaryColumnCount
};

QTableWidgetItem* item(const QString& text,
                       Qt::Alignment align = Qt::AlignLeft | Qt::AlignVCenter) {
    auto* i = new QTableWidgetItem(text);
    i->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    i->setTextAlignment(align);
    return i;
}

QTableWidgetItem* numberItem(const QString& text) {
    return item(text, Qt::AlignRight | Qt::AlignVCenter);
}

/// The verified output's name; a module global says so, since it is not among the arguments.
QTableWidgetItem* nameItem(const BufferVerification& v) {
    if (!v.global)
        return item(v.buffer);
    auto* i = item(VerificationPanel::tr("%1 (global)").arg(v.buffer));
    i->setToolTip(VerificationPanel::tr("A __constant__ or __device__ variable of the module, "
                                        "read back after the run"));
    return i;
}

/// "'filter'" for a buffer, "global 'filter'" for a module global, in messages.
QString outputName(const BufferVerification& v) {
    return v.global ? VerificationPanel::tr("global '%1'").arg(v.buffer)
                    : QStringLiteral("'%1'").arg(v.buffer);
}

QString error(double e) {
    return QString::number(e, 'g', 4);
}

QTableWidget* makeTable(QWidget* parent, const QStringList& headers, const QString& name) {
    auto* table = new QTableWidget(0, int(headers.size()), parent);
    table->setObjectName(name);
    table->setHorizontalHeaderLabels(headers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->verticalHeader()->hide();
    table->horizontalHeader()->setStretchLastSection(true);
    return table;
}

} // namespace

VerificationPanel::VerificationPanel(QWidget* parent)
    : QWidget(parent) {
    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("messageLabel"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary = makeTable(this,
                          {tr("Output"), tr("Result"), tr("Method"), tr("Max abs error"),
                           tr("Max rel error"), tr("Max ulp error"), tr("Mismatches"), tr("NaN"),
                           tr("Unwritten"), tr("Checked")},
                          QStringLiteral("summaryTable"));
    m_mismatchTitle = new QLabel(this);
    m_mismatches = makeTable(this, {tr("Index"), tr("Got"), tr("Expected"), tr("Abs error")},
                             QStringLiteral("mismatchTable"));

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_message);
    layout->addWidget(m_summary, 1);
    layout->addWidget(m_mismatchTitle);
    layout->addWidget(m_mismatches, 2);

    connect(m_summary, &QTableWidget::currentCellChanged, this,
            [this](int row) { showMismatches(row); });
    clear();
}

void VerificationPanel::clear() {
    m_reports.clear();
    m_summary->setRowCount(0);
    m_mismatches->setRowCount(0);
    m_message->setText(tr("Run the kernel to verify its outputs."));
    m_message->setStyleSheet(QString());
    m_mismatchTitle->hide();
    m_mismatches->hide();
}

QString VerificationPanel::message() const {
    return m_message->text();
}

void VerificationPanel::showResult(const RunResult& result) {
    clear();
    m_reports = result.verification;
    if (m_reports.isEmpty()) {
        // A run that stopped early never reached verification: say why, not "none".
        const bool stoppedEarly =
            result.status != RunStatus::Ok && result.status != RunStatus::VerificationFailed;
        m_message->setText(stoppedEarly && !result.error.isEmpty()
                               ? tr("Verification did not run: %1").arg(result.error)
                               : tr("No verification configured: set Verify on an output "
                                    "buffer (reference kernel, expression or file)."));
        if (stoppedEarly)
            m_message->setStyleSheet(QStringLiteral("color: %1;").arg(kErrorColor.name()));
        return;
    }

    const QLocale locale;
    int failed = 0, errors = 0, firstBad = -1;
    m_summary->setRowCount(int(m_reports.size()));
    for (int row = 0; row < m_reports.size(); ++row) {
        const BufferVerification& v = m_reports.at(row);
        const bool couldNotRun = !v.error.isEmpty();
        m_summary->setItem(row, BufferColumn, nameItem(v));
        auto* verdict = item(couldNotRun ? tr("ERROR")
                             : v.passed  ? tr("PASS")
                                         : tr("FAIL"),
                             Qt::AlignCenter);
        const QColor color = couldNotRun ? kErrorColor : v.passed ? kPassColor : kFailColor;
        verdict->setBackground(color);
        verdict->setForeground(Qt::white);
        QFont bold = verdict->font();
        bold.setBold(true);
        verdict->setFont(bold);
        if (couldNotRun)
            verdict->setToolTip(v.error);
        m_summary->setItem(row, ResultColumn, verdict);
        m_summary->setItem(row, MethodColumn, item(v.method));
        m_summary->setItem(row, MaxAbsColumn,
                           numberItem(couldNotRun ? QString() : error(v.maxAbsError)));
        m_summary->setItem(row, MaxRelColumn,
                           numberItem(couldNotRun ? QString() : error(v.maxRelError)));
        // In ulps of the output type at the expected value: how many bfloat16 or fp8 steps
        // off, where abs/rel errors depend on the magnitude.
        m_summary->setItem(row, MaxUlpColumn,
                           numberItem(couldNotRun ? QString() : error(v.maxUlpError)));
        m_summary->setItem(row, MismatchColumn, numberItem(locale.toString(v.mismatches)));
        m_summary->setItem(row, NanColumn, numberItem(locale.toString(v.nanCount)));
        m_summary->setItem(row, UnwrittenColumn, numberItem(locale.toString(v.unwritten)));
        m_summary->setItem(row, CheckedColumn, numberItem(locale.toString(v.checked)));
        if (couldNotRun)
            ++errors;
        else if (!v.passed)
            ++failed;
        if (firstBad < 0 && (couldNotRun || !v.passed))
            firstBad = row;
    }
    m_summary->resizeColumnsToContents();

    QStringList lines;
    const auto globals = int(std::count_if(m_reports.cbegin(), m_reports.cend(),
                                           [](const BufferVerification& v) { return v.global; }));
    if (failed == 0 && errors == 0) {
        lines << (globals == 0
                      ? tr("All %n verified buffer(s) passed.", nullptr, int(m_reports.size()))
                      : tr("All %n verified output(s) passed (%1 buffer(s), %2 "
                           "module global(s)).",
                           nullptr, int(m_reports.size()))
                            .arg(m_reports.size() - globals)
                            .arg(globals));
        m_message->setStyleSheet(QStringLiteral("color: %1;").arg(kPassColor.name()));
    } else {
        if (failed > 0)
            lines << (globals == 0 ? tr("%n buffer(s) failed verification.", nullptr, failed)
                                   : tr("%n output(s) failed verification.", nullptr, failed));
        for (const BufferVerification& v : std::as_const(m_reports)) {
            if (!v.error.isEmpty())
                lines << tr("Could not verify %1: %2").arg(outputName(v), v.error);
            else if (!v.failure.isEmpty())
                lines << v.failure;
            else if (v.unwritten > 0 && !v.global)
                lines << tr("'%1': %2 elements were never written (check the grid covers the "
                            "buffer).")
                             .arg(v.buffer, locale.toString(v.unwritten));
            else if (!v.passed && v.global)
                lines << tr("Global '%1' failed verification: %2 of %3 elements differ.")
                             .arg(v.buffer, locale.toString(v.mismatches),
                                  locale.toString(v.checked));
        }
        m_message->setStyleSheet(QStringLiteral("color: %1;").arg(kFailColor.name()));
    }
    // Warnings and tolerance advice follow the verdict: a pass they qualify is still a pass.
    for (const BufferVerification& v : std::as_const(m_reports)) {
        for (const QString& warning : v.warnings)
            lines << tr("Warning: %1").arg(warning);
        if (!v.advice.isEmpty())
            lines << tr("'%1': %2").arg(v.buffer, v.advice);
    }
    m_message->setText(lines.join(QLatin1Char('\n')));
    m_summary->setCurrentCell(firstBad >= 0 ? firstBad : 0, BufferColumn);
    showMismatches(m_summary->currentRow());
}

void VerificationPanel::showMismatches(int row) {
    m_mismatches->setRowCount(0);
    if (row < 0 || row >= m_reports.size()) {
        m_mismatchTitle->hide();
        m_mismatches->hide();
        return;
    }
    const BufferVerification& v = m_reports.at(row);
    const bool any = !v.firstMismatches.isEmpty();
    m_mismatchTitle->setVisible(true);
    m_mismatches->setVisible(any);
    if (!any) {
        m_mismatchTitle->setText(!v.error.isEmpty()     ? tr("'%1': %2").arg(v.buffer, v.error)
                                 : !v.failure.isEmpty() ? v.failure
                                                        : tr("'%1': no mismatches.").arg(v.buffer));
        return;
    }
    m_mismatchTitle->setText(tr("First %1 of %2 mismatches in '%3'")
                                 .arg(v.firstMismatches.size())
                                 .arg(QLocale().toString(v.mismatches))
                                 .arg(v.buffer));
    m_mismatches->setRowCount(int(v.firstMismatches.size()));
    for (int i = 0; i < v.firstMismatches.size(); ++i) {
        const Mismatch& m = v.firstMismatches.at(i);
        m_mismatches->setItem(i, 0, numberItem(QString::number(m.index)));
        m_mismatches->setItem(i, 1, numberItem(QString::number(m.got, 'g', 9)));
        m_mismatches->setItem(i, 2, numberItem(QString::number(m.expected, 'g', 9)));
        m_mismatches->setItem(i, 3, numberItem(error(std::abs(m.got - m.expected))));
    }
    m_mismatches->resizeColumnsToContents();
}

} // namespace kernelpad
