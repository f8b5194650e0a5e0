// Workbench: the SASS opcode counts of the compiles the SASS and Diff tabs disassemble, kept
// with the runs of the same compile for the edit's verdict (core/engine/EditVerdictSass.h).

#include "ui/Workbench.h"

#include "core/engine/EditVerdictSass.h"
#include "core/engine/Engine.h"

namespace kernelpad {

namespace {
/// Disassemblies whose counts are kept for runs that finish after them: the compile being
/// typed, the one before it and the Diff tab's pinned one, with room to spare.
constexpr int kKeptSassCompiles = 8;

/// The key of the compile `run` ran, empty when its compile is unknown (a stand-in result).
QByteArray sassKeyOfRun(const RunRecord& run) {
    return sassCompileKey(run.project, run.result.compile);
}
} // namespace

quint64 Workbench::disassemble(const Project& project, const QString& directory,
                               const QString& arch, const QString& tag) {
    if (!m_engine)
        return 0;
    const quint64 id = m_engine->disassemble(project, directory, arch, tag);
    // Keyed when the report comes: its compile names the headers it read.
    m_sassRequests.insert(id, project);
    return id;
}

bool Workbench::attachKnownSass(RunRecord& run) const {
    if (run.sassOpcodes || run.sanitized())
        return false;
    const QByteArray key = sassKeyOfRun(run);
    const QString lowered = run.result.compile.loweredName(run.project.kernel);
    if (key.isEmpty() || lowered.isEmpty())
        return false;
    for (auto it = m_sassKnown.crbegin(); it != m_sassKnown.crend(); ++it) {
        if (it->first != key)
            continue;
        const auto counts = it->second.constFind(lowered);
        if (counts == it->second.cend())
            return false;
        run.sassOpcodes = *counts;
        return true;
    }
    return false;
}

void Workbench::onSassReady(quint64 id, const SassReport& report) {
    const auto request = m_sassRequests.constFind(id);
    if (request == m_sassRequests.cend())
        return; // another window's, or a request made around the Workbench
    const QByteArray key = sassCompileKey(*request, report.compile);
    m_sassRequests.erase(request);
    // Counted here, on the window's thread: one pass over the instructions nvdisasm listed on
    // the compile worker.
    const SassOpcodesByKernel counts = sassOpcodesOf(report);
    if (counts.isEmpty() || key.isEmpty())
        return; // stopped, failed, or no kernel listed: nothing to name
    for (int i = 0; i < m_sassKnown.size(); ++i)
        if (m_sassKnown.at(i).first == key)
            m_sassKnown.remove(i--);
    m_sassKnown.append({key, counts});
    while (m_sassKnown.size() > kKeptSassCompiles)
        m_sassKnown.removeFirst();
    QVector<quint64> known;
    for (RunRecord& run : m_history)
        if (attachKnownSass(run))
            known << run.serial;
    for (const quint64 serial : std::as_const(known))
        emit runSassKnown(serial);
}

} // namespace kernelpad
