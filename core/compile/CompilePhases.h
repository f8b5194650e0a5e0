#pragma once
// Where one compile's time goes, step by step, for bench/compile's --phases: from the source
// handed to Program::compile() to its CompileResult (options, include scan, the PCH ticket,
// each NVRTC call, the log, PTX parsing, ...). Off unless a CompilePhaseRecorder is alive on
// the compiling thread, so a compile outside the bench reads no clock for it.

#include <QString>
#include <QVector>

#include <chrono>

namespace kernelpad {

/// One step of a compile: wall time, and the CPU time and page faults of the thread that ran
/// it (the NVRTC call runs on a thread of its own: CompileWatchdog.h).
struct CompilePhase {
    QString name;
    double wallMs = 0;
    double userMs = 0;
    double systemMs = 0;
    qint64 faults = 0;
};

/// Collects the phases of every Program::compile() made on the thread that constructs it,
/// until it is destroyed (recorders nest: the innermost collects).
class CompilePhaseRecorder {
public:
    /// `nvrtcTimes`: NVRTC's own phases too (its --time option, written to a file of this
    /// recorder's and read back after the compile; it costs the compile a little).
    explicit CompilePhaseRecorder(bool nvrtcTimes = false);
    ~CompilePhaseRecorder();
    CompilePhaseRecorder(const CompilePhaseRecorder&) = delete;
    CompilePhaseRecorder& operator=(const CompilePhaseRecorder&) = delete;

    /// This thread's innermost recorder, or null.
    [[nodiscard]] static CompilePhaseRecorder* current();

    [[nodiscard]] bool nvrtcTimes() const { return m_nvrtcTimes; }
    /// The file NVRTC's --time writes to (in a folder of this recorder's); empty without
    /// nvrtcTimes.
    [[nodiscard]] const QString& nvrtcTimeFile() const { return m_timeFile; }

    void append(const QVector<CompilePhase>& phases);
    /// The phases so far, oldest first.
    [[nodiscard]] const QVector<CompilePhase>& phases() const { return m_phases; }

private:
    CompilePhaseRecorder* m_outer = nullptr;
    bool m_nvrtcTimes = false;
    QString m_folder;
    QString m_timeFile;
    QVector<CompilePhase> m_phases;
};

/// Marks the steps of one compile on one thread: each mark() closes the step that ran since
/// the previous mark (or the construction) under the name given. Does nothing when disabled.
class PhaseClock {
public:
    explicit PhaseClock(bool enabled);
    void mark(const QString& name);
    /// Adds steps measured elsewhere (on another thread), their names after `indent`: shown
    /// under the step that contains them.
    void append(const QVector<CompilePhase>& phases, const QString& indent);
    [[nodiscard]] bool enabled() const { return m_enabled; }
    [[nodiscard]] const QVector<CompilePhase>& phases() const { return m_phases; }

private:
    struct Sample {
        std::chrono::steady_clock::time_point wall;
        double userMs = 0;
        double systemMs = 0;
        qint64 faults = 0;
    };
    [[nodiscard]] static Sample now();

    bool m_enabled = false;
    Sample m_last;
    QVector<CompilePhase> m_phases;
};

/// NVRTC's --time file (CSV: "source, phase, milliseconds"): its rows as phases named
/// "NVRTC: <phase>", wall time only.
[[nodiscard]] QVector<CompilePhase> readNvrtcTimeFile(const QString& path);

} // namespace kernelpad
