#include "ui/CompileHistory.h"

#include "core/engine/Engine.h"
#include "ui/ProjectDocument.h"

namespace kernelpad {

namespace {

/// True when `a` and `b` compile to the same code: what compileProject() reads.
bool sameInputs(const CompileSnapshot& a, const Project& project, const CompileResult& compile) {
    return a.compile.arch == compile.arch && a.project.source == project.source &&
           a.project.sourceName == project.sourceName && a.project.options == project.options &&
           a.project.language == project.language &&
           a.project.nameExpressions() == project.nameExpressions();
}

} // namespace

QString CompileSnapshot::label() const {
    if (!title.isEmpty())
        return title;
    return QObject::tr("compile %1 (%2)").arg(number).arg(at.toString(QStringLiteral("HH:mm:ss")));
}

CompileHistory::CompileHistory(Workbench* workbench, QObject* parent)
    : QObject(parent)
    , m_workbench(workbench) {
    if (Engine* engine = workbench->engine())
        connect(engine, &Engine::sassReady, this, &CompileHistory::onReport);
    workbench->addViewer(this);
}

// The Workbench drops a viewer that is a QObject when it is destroyed.
CompileHistory::~CompileHistory() = default;

const std::optional<CompileSnapshot>& CompileHistory::baselineSnapshot() const {
    return m_baseline == Baseline::Pinned ? m_pinned : m_previous;
}

void CompileHistory::setBaseline(Baseline baseline) {
    if (baseline == m_baseline)
        return;
    m_baseline = baseline;
    recompare();
}

void CompileHistory::pinCurrent() {
    if (!m_current)
        return;
    const QVector<int> before = awaited();
    m_pinned = m_current;
    m_baseline = Baseline::Pinned;
    cancelDropped(before);
    recompare();
}

void CompileHistory::compareProjects(const ProjectVersion& before, const ProjectVersion& after,
                                     const QString& directory, const QString& arch) {
    const auto snapshot = [&](const ProjectVersion& version) {
        CompileSnapshot s;
        s.project = version.project;
        s.directory = directory;
        s.compile = version.compile;
        if (s.compile.arch.isEmpty())
            s.compile.arch = arch;
        s.number = ++m_count;
        s.at = QDateTime::currentDateTime();
        s.title = version.title;
        return s;
    };
    const QVector<int> awaitedBefore = awaited();
    m_previous = std::move(m_current);
    m_pinned = snapshot(before);
    m_current = snapshot(after);
    m_baseline = Baseline::Pinned;
    cancelDropped(awaitedBefore);
    requestReports();
    recompare();
}

bool CompileHistory::waitingForCompiles() const {
    const std::optional<CompileSnapshot>& base = baselineSnapshot();
    if (!m_current || !base || reportsReady())
        return false;
    return (base->compile.ptx.isEmpty() && base->reportId != 0) ||
           (m_current->compile.ptx.isEmpty() && m_current->reportId != 0);
}

void CompileHistory::workbenchCleared(const Workbench&) {
    // A new project: its compiles are not comparable with the old one's.
    const QVector<int> before = awaited();
    m_current.reset();
    m_previous.reset();
    m_pinned.reset();
    m_count = 0;
    cancelDropped(before);
    recompare();
}

void CompileHistory::compiled(const Workbench& workbench) {
    const std::optional<CompileResult>& result = workbench.lastCompile();
    if (!result || !result->ok)
        return; // a failed compile has nothing to compare; the last good one stays
    const Project& project = workbench.lastCompiledProject();
    if (m_current && sameInputs(*m_current, project, *result)) {
        m_current->compile = *result; // the same code again (a run, another device's arch)
        return;
    }
    CompileSnapshot snapshot;
    snapshot.project = project;
    snapshot.directory = workbench.document()->directory();
    snapshot.compile = *result;
    snapshot.number = ++m_count;
    snapshot.at = QDateTime::currentDateTime();
    const QVector<int> before = awaited();
    m_previous = std::move(m_current);
    m_current = std::move(snapshot);
    // The compile before the previous one is of no comparison now: its nvdisasm is killed
    // rather than left to hold a core for nobody.
    cancelDropped(before);
    recompare();
}

void CompileHistory::requestReport(std::optional<CompileSnapshot>& snapshot) {
    if (!snapshot || snapshot->report || snapshot->reportId != 0 || !m_workbench->engine())
        return;
    // The pinned copy of the current compile shares its request.
    for (const std::optional<CompileSnapshot>* other : {&m_current, &m_previous, &m_pinned}) {
        if (other != &snapshot && *other && (*other)->number == snapshot->number &&
            (*other)->reportId != 0) {
            snapshot->reportId = (*other)->reportId;
            return;
        }
    }
    Project project = snapshot->project;
    if (project.language == SourceLanguage::Cuda)
        project.options = withPtxasReport(project.options);
    // Through the Workbench, which keeps the opcode counts for the edit's verdict.
    snapshot->reportId = m_workbench->disassemble(
        project, snapshot->directory, snapshot->compile.arch, reportTag(snapshot->number));
}

QString CompileHistory::reportTag(int number) const {
    return QStringLiteral("diff-%1-%2").arg(quintptr(this), 0, 16).arg(number);
}

QVector<int> CompileHistory::awaited() const {
    QVector<int> numbers;
    for (const std::optional<CompileSnapshot>* s : {&m_current, &m_previous, &m_pinned})
        if (*s && (*s)->reportId != 0 && !numbers.contains((*s)->number))
            numbers << (*s)->number;
    return numbers;
}

void CompileHistory::cancelDropped(const QVector<int>& before) {
    Engine* engine = m_workbench->engine();
    if (!engine)
        return;
    const QVector<int> kept = awaited();
    for (const int number : before)
        if (!kept.contains(number))
            engine->cancelDisassembly(reportTag(number));
}

void CompileHistory::requestReports() {
    requestReport(m_current);
    requestReport(m_pinned);
    requestReport(m_previous);
}

bool CompileHistory::reportsReady() const {
    const std::optional<CompileSnapshot>& base = baselineSnapshot();
    return m_current && m_current->report && base && base->report;
}

QString CompileHistory::sassUnavailable() const {
    if (!reportsReady())
        return {};
    for (const CompileSnapshot* s : {&*m_current, &*baselineSnapshot()})
        if (!s->report->sass.ok)
            return s->report->sass.error;
    return {};
}

void CompileHistory::onReport(quint64 id, const SassReport& report) {
    bool mine = false;
    for (std::optional<CompileSnapshot>* snapshot : {&m_current, &m_previous, &m_pinned}) {
        if (*snapshot && (*snapshot)->reportId == id) {
            // A stopped request is no report: asked for again when the view next wants one.
            if (!report.sass.cancelled)
                (*snapshot)->report = report;
            (*snapshot)->reportId = 0;
            mine = true;
        }
    }
    if (mine)
        recompare();
}

void CompileHistory::recompare() {
    const std::optional<CompileSnapshot>& base = baselineSnapshot();
    if (!m_current || !base || waitingForCompiles()) {
        m_comparison.reset();
    } else if (reportsReady() && base->report->compile.ok && m_current->report->compile.ok) {
        const SassReport& before = *base->report;
        const SassReport& after = *m_current->report;
        m_comparison =
            compareCompiles(before.compile, before.sass.ok ? &before.sass.listing : nullptr,
                            after.compile, after.sass.ok ? &after.sass.listing : nullptr);
    } else {
        m_comparison = compareCompiles(base->compile, nullptr, m_current->compile, nullptr);
    }
    emit changed();
}

} // namespace kernelpad
