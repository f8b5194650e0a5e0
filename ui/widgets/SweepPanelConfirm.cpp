// SweepPanel: the winner confirmed by an interleaved A/B against the runner-up
// (core/sweep/SweepConfirmation.h): the checkbox that asks for it (kept in the settings as
// sweep/confirm) and the line under the results that gives the verdict of the best shown; under
// it, each device's busy share at the sweep's end.

#include "core/engine/Engine.h"
#include "ui/models/SweepResultsModel.h"
#include "ui/widgets/SweepPanel.h"

#include <QCheckBox>
#include <QLabel>
#include <QSettings>

namespace kernelpad {

namespace {

const QString kConfirmKey = QStringLiteral("sweep/confirm");

} // namespace

QCheckBox* SweepPanel::buildConfirmCheck(QWidget* parent) {
    m_confirm = new QCheckBox(tr("Confirm the best by an A/B against the runner-up"), parent);
    m_confirm->setObjectName(QStringLiteral("sweepConfirm"));
    m_confirm->setToolTip(
        tr("After the last configuration, time the best and the best other passing one "
           "interleaved on one device: the verdict says whether the best is really faster."));
    m_confirm->setChecked(QSettings().value(kConfirmKey, true).toBool());
    connect(m_confirm, &QCheckBox::toggled, this,
            [](bool on) { QSettings().setValue(kConfirmKey, on); });
    m_confirmation = new QLabel(parent);
    m_confirmation->setObjectName(QStringLiteral("sweepConfirmation"));
    m_confirmation->setWordWrap(true);
    m_confirmation->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_confirmation->hide();
    m_balance = new QLabel(parent);
    m_balance->setObjectName(QStringLiteral("sweepBalance"));
    m_balance->setWordWrap(true);
    m_balance->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_balance->hide();
    return m_confirm;
}

bool SweepPanel::confirms() const {
    return m_confirm->isChecked();
}

void SweepPanel::setConfirms(bool confirm) {
    m_confirm->setChecked(confirm);
}

QString SweepPanel::confirmationText() const {
    return m_confirmation->isHidden() ? QString() : m_confirmation->text();
}

QString SweepPanel::balanceText() const {
    return m_balance->isHidden() ? QString() : m_balance->text();
}

void SweepPanel::connectConfirmation(Engine* engine) {
    connect(engine, &Engine::sweepConfirming, this,
            [this](quint64 id, const SweepRecord& best, const SweepRecord& runnerUp) {
                if (id != m_sweepId)
                    return;
                m_confirmation->setText(
                    tr("Confirming the best, %1, by an interleaved A/B against the runner-up, "
                       "%2…")
                        .arg(best.key, runnerUp.key));
                m_confirmation->show();
            });
    connect(engine, &Engine::sweepConfirmed, this, [this](quint64 id, const SweepRecord& record) {
        if (id == m_sweepId)
            replaceRecord(record);
    });
    // How well the devices were kept busy: a device well below the others waited.
    connect(engine, &Engine::sweepBalance, this, [this](quint64 id, const SweepBalance& balance) {
        if (id != m_sweepId || balance.isEmpty())
            return;
        m_balance->setText(tr("Busy: %1").arg(balance.text()));
        m_balance->show();
    });
}

void SweepPanel::updateConfirmation() {
    const int best = m_model->bestRow();
    if (best < 0 || !m_model->records()[best].confirmation) {
        // The line of an A/B in progress stays until its verdict comes.
        if (!isRunning())
            m_confirmation->hide();
        return;
    }
    const SweepRecord& record = m_model->records()[best];
    m_confirmation->setText(record.confirmation->text(record.key));
    m_confirmation->show();
}

} // namespace kernelpad
