#include "core/sweep/SweepJob.h"

#include "core/sweep/Sweep.h"
#include "core/sweep/SweepEvaluator.h"
#include "core/sweep/SweepSpace.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QThread>

#include <cmath>

namespace kernelpad {

SweepWorker::SweepWorker() = default;
SweepWorker::~SweepWorker() = default;

void SweepWorker::run(const RunRequest& base, const QString& path, bool resume,
                      const SweepJob::EvaluatorFactory& factory) {
    if (!resume && QFile::exists(path) && !QFile::remove(path)) {
        emit finished(QStringLiteral("%1: cannot start over: the file cannot be removed")
                          .arg(QDir::toNativeSeparators(path)));
        return;
    }
    m_evaluator = factory ? factory() : std::make_unique<RunnerSweepEvaluator>();
    m_sweep = std::make_unique<Sweep>(base, m_evaluator.get());
    QString error;
    if (!m_sweep->prepare(&error) || !m_file.open(path, &error)) {
        emit finished(error);
        return;
    }
    m_sweep->setDone(m_file.existing());
    connect(m_sweep.get(), &Sweep::recordAdded, this, [this](const SweepRecord& record) {
        QString why;
        if (!m_file.append(record, &why)) {
            m_appendError = why;
            m_sweep->cancel();
        }
        emit recordAdded(record);
    });
    connect(m_sweep.get(), &Sweep::progress, this, &SweepWorker::progress);
    connect(m_sweep.get(), &Sweep::finished, this, [this](const QString& why) {
        emit finished(m_appendError.isEmpty() ? why : m_appendError);
    });
    emit started(m_file.existing(), m_sweep->total());
    m_sweep->start();
}

void SweepWorker::cancel() {
    if (m_sweep)
        m_sweep->cancel();
}

SweepJob::SweepJob(EvaluatorFactory factory, QObject* parent)
    : QObject(parent)
    , m_factory(std::move(factory)) {
    qRegisterMetaType<kernelpad::SweepRecord>();
    qRegisterMetaType<QVector<kernelpad::SweepRecord>>();
}

SweepJob::~SweepJob() {
    if (!m_thread)
        return;
    if (m_worker) {
        SweepWorker* worker = m_worker;
        // Cancels, then stops the runner on its own thread.
        QMetaObject::invokeMethod(
            worker,
            [worker] {
                worker->cancel();
                delete worker;
            },
            Qt::BlockingQueuedConnection);
    }
    m_thread->quit();
    m_thread->wait();
    delete m_thread;
}

bool SweepJob::start(const RunRequest& base, const QString& resultsPath, bool resume) {
    if (m_running)
        return false;
    if (!m_thread) {
        m_thread = new QThread;
        m_thread->setObjectName(QStringLiteral("sweep"));
        m_thread->start();
    }
    if (m_worker) {
        SweepWorker* old = m_worker;
        QMetaObject::invokeMethod(
            old, [old] { delete old; }, Qt::BlockingQueuedConnection);
    }
    auto* worker = new SweepWorker;
    worker->moveToThread(m_thread);
    m_worker = worker;
    connect(worker, &SweepWorker::started, this, &SweepJob::started);
    connect(worker, &SweepWorker::recordAdded, this, &SweepJob::recordAdded);
    connect(worker, &SweepWorker::progress, this, &SweepJob::progress);
    connect(worker, &SweepWorker::finished, this, [this](const QString& error) {
        m_running = false;
        emit finished(error);
    });
    m_running = true;
    QMetaObject::invokeMethod(
        worker,
        [worker, base, resultsPath, resume, factory = m_factory] {
            worker->run(base, resultsPath, resume, factory);
        },
        Qt::QueuedConnection);
    return true;
}

void SweepJob::cancel() {
    if (!m_running || !m_worker)
        return;
    SweepWorker* worker = m_worker;
    QMetaObject::invokeMethod(
        worker, [worker] { worker->cancel(); }, Qt::QueuedConnection);
}

namespace {

/// The exponent of `value` in `base`, when it is a whole power of it.
std::optional<int> exponentOf(double value, int base) {
    if (base < 2 || value < 1)
        return std::nullopt;
    int e = 0;
    double p = 1;
    while (p < value) {
        p *= base;
        ++e;
    }
    return p == value ? std::optional<int>(e) : std::nullopt;
}

} // namespace

QString sweepValuesText(const SweepValues& values) {
    switch (values.kind) {
    case SweepValues::Kind::List: {
        QStringList parts;
        for (double v : values.list)
            parts.append(SweepSpace::formatValue(v));
        return parts.join(QStringLiteral(", "));
    }
    case SweepValues::Kind::Step:
        return QStringLiteral("%1..%2 step %3")
            .arg(SweepSpace::formatValue(values.from), SweepSpace::formatValue(values.to),
                 SweepSpace::formatValue(values.step));
    case SweepValues::Kind::Powers: {
        const std::optional<int> from = exponentOf(values.from, values.base);
        const std::optional<int> to = exponentOf(values.to, values.base);
        if (from && to)
            return QStringLiteral("powers %1^%2..%1^%3").arg(values.base).arg(*from).arg(*to);
        return QStringLiteral("%1..%2 x%3")
            .arg(SweepSpace::formatValue(values.from), SweepSpace::formatValue(values.to))
            .arg(values.base);
    }
    }
    return {};
}

std::optional<SweepValues> sweepValuesFromText(const QString& text, QString* error) {
    const QString t = text.trimmed();
    if (t.isEmpty()) {
        if (error)
            *error = QStringLiteral("no values (expected \"8, 16, 32\", \"1..64 step 8\" or "
                                    "\"powers 2^5..2^10\")");
        return std::nullopt;
    }
    static const QRegularExpression powers(
        QStringLiteral(R"(^powers\s+(\d+)\s*\^\s*(\d+)\s*\.\.\s*(\d+)\s*\^\s*(\d+)$)"),
        QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression stepped(
        QStringLiteral(R"(^(\S+?)\s*\.\.\s*(\S+?)\s+(step\s+|x)(\S+)$)"),
        QRegularExpression::CaseInsensitiveOption);
    if (const QRegularExpressionMatch m = powers.match(t); m.hasMatch()) {
        if (m.captured(1) != m.captured(3)) {
            if (error)
                *error = QStringLiteral("'%1': both ends need the same base (\"powers "
                                        "2^5..2^10\")")
                             .arg(t);
            return std::nullopt;
        }
        const double base = m.captured(1).toDouble();
        return SweepValues::fromText(
            QStringLiteral("%1:%2:x%3")
                .arg(SweepSpace::formatValue(std::pow(base, m.captured(2).toDouble())),
                     SweepSpace::formatValue(std::pow(base, m.captured(4).toDouble())),
                     m.captured(1)),
            error);
    }
    if (const QRegularExpressionMatch m = stepped.match(t); m.hasMatch()) {
        const bool byPowers =
            m.captured(3).trimmed().compare(QStringLiteral("x"), Qt::CaseInsensitive) == 0;
        return SweepValues::fromText(QStringLiteral("%1:%2:%3%4")
                                         .arg(m.captured(1), m.captured(2),
                                              byPowers ? QStringLiteral("x") : QString(),
                                              m.captured(4)),
                                     error);
    }
    if (t.contains(QStringLiteral(".."))) {
        if (error)
            *error = QStringLiteral("'%1': a range is \"1..64 step 8\", \"1..1024 x2\" or "
                                    "\"powers 2^0..2^10\"")
                         .arg(t);
        return std::nullopt;
    }
    return SweepValues::fromText(t, error);
}

std::optional<Project> projectWithRecord(const Project& project, const SweepRecord& record,
                                         QString* error) {
    std::unique_ptr<SweepSpace> space = SweepSpace::create(project, error);
    if (!space)
        return std::nullopt;
    const auto fail = [&](const QString& why) -> std::optional<Project> {
        if (error)
            *error = QStringLiteral("%1: %2").arg(record.key, why);
        return std::nullopt;
    };
    if (record.names != space->names() || record.values.size() != space->names().size())
        return fail(QStringLiteral("not a configuration of this sweep (its tunables are %1)")
                        .arg(space->names().join(QStringLiteral(", "))));
    SweepPoint point;
    for (qsizetype d = 0; d < record.values.size(); ++d) {
        const int index = int(space->values()[d].indexOf(record.values[d]));
        if (index < 0)
            return fail(QStringLiteral("%1 is not one of %2's values")
                            .arg(SweepSpace::formatValue(record.values[d]), record.names[d]));
        point.append(index);
    }
    if (space->indexOf(point) < 0)
        return fail(QStringLiteral("a restriction rules it out"));
    QString why;
    std::optional<Project> out = space->project(point, &why);
    if (!out)
        return fail(why);
    out->sweep = project.sweep;
    return out;
}

} // namespace kernelpad
