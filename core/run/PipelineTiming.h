#pragma once
// The timing of a pipeline run: each step's time within the sequence, the
// whole sequence launched on the stream, and, with a CUDA graph, its replay and the saving.

#include "core/run/Timing.h"

#include <QJsonObject>
#include <QString>
#include <QVector>

#include <optional>

namespace kernelpad {

/// One step of the sequence: its time per pass (all its repetitions), over the samples.
struct StepTiming {
    QString kernel;
    int repeat = 1;
    TimingStats stats; ///< one sample per timed pass over the sequence

    /// The step's median time over its repeat count: one launch's share.
    [[nodiscard]] double medianPerLaunchMs() const {
        return repeat > 0 ? stats.medianMs / repeat : 0.0;
    }
    friend bool operator==(const StepTiming& a, const StepTiming& b) {
        return a.kernel == b.kernel && a.repeat == b.repeat && a.stats.toJson() == b.stats.toJson();
    }
};

/// Per-step and whole-sequence times of a pipeline run; empty for a single launch.
struct PipelineTiming {
    QVector<StepTiming> steps;
    qint64 launches = 0;           ///< kernel launches in one pass over the sequence
    TimingStats sequence;          ///< each pass queued launch by launch on the stream
    bool graph = false;            ///< the sequence was also captured and replayed as a graph
    TimingStats graphReplay;       ///< each pass as one cuGraphLaunch of the captured sequence
    double graphInstantiateMs = 0; ///< host time of capturing and instantiating the graph

    [[nodiscard]] bool isEmpty() const { return steps.isEmpty(); }
    /// Median stream time minus median graph time (negative when the graph was slower);
    /// 0 without a graph.
    [[nodiscard]] double savedMs() const {
        return graph ? sequence.medianMs - graphReplay.medianMs : 0.0;
    }
    [[nodiscard]] QJsonObject toJson() const;
    /// Reads the JSON form; nullopt, with a message naming the field under `path`, when a
    /// field is missing or malformed.
    static std::optional<PipelineTiming> fromJson(const QJsonObject& json, QString* error,
                                                  const QString& path = {});
    friend bool operator==(const PipelineTiming& a, const PipelineTiming& b) {
        return a.toJson() == b.toJson();
    }
};

} // namespace kernelpad
