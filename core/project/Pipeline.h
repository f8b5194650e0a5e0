#pragma once
// A sequence of launches over one project's arguments: each step names a
// kernel of the project's source, its launch configuration and its arguments by name, with a
// repeat count and buffer pairs swapped after each repetition (ping-pong). The whole sequence
// can be captured as a CUDA graph and replayed. JSON: the project's "pipeline" section,
// written only when it has steps.

#include "core/compile/CompileResult.h"
#include "core/launch/ArgumentSpec.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>
#include <utility>

namespace kernelpad {

/// One parameter of a step: a project argument by name, and for a scalar, optionally a value
/// of this step's own ("256" where the project's `n` is 1048576). JSON: the name as a string,
/// or {"name": ..., "value": ...} with an override.
struct PipelineBinding {
    QString argument;
    std::optional<QString> value; ///< scalars only: replaces the argument's value in this step

    [[nodiscard]] QJsonValue toJson() const;
    friend bool operator==(const PipelineBinding& a, const PipelineBinding& b) {
        return a.argument == b.argument && a.value == b.value;
    }
};

/// Two buffers whose contents trade places after each repetition of a step.
using BufferSwap = std::pair<QString, QString>;

/// One launch of a pipeline, repeated `repeat` times.
struct PipelineStep {
    static constexpr int kMaxRepeat = 100000; ///< beyond this a sequence is a benchmark loop

    QString kernel; ///< entry name or name expression, compiled with the project's source
    LaunchConfig launch;
    QVector<PipelineBinding> args; ///< in the kernel's parameter order
    int repeat = 1;
    QVector<BufferSwap> swaps; ///< applied in order after each repetition

    /// "reduce_pass1 <<<(4096,1,1), (256,1,1)>>> x1": how lists and tables name a step.
    [[nodiscard]] QString label() const;
    [[nodiscard]] QJsonObject toJson() const;
    /// Reads one step; `path` ("pipeline.steps[1]") begins every message.
    static std::optional<PipelineStep> fromJson(const QJsonObject& json, const QString& path,
                                                QString* error);
    friend bool operator==(const PipelineStep& a, const PipelineStep& b) {
        return a.toJson() == b.toJson();
    }
};

/// The project's sequence of launches; empty: the project runs its single launch.
struct Pipeline {
    QVector<PipelineStep> steps;
    /// Capture the whole sequence with stream capture, instantiate it once and time its
    /// replay beside the stream's launches.
    bool graph = false;

    [[nodiscard]] bool isEmpty() const { return steps.isEmpty(); }
    /// Launches of one pass over the sequence (each step times its repeat count).
    [[nodiscard]] qint64 launchCount() const;
    /// Kernel names of the steps that NVRTC must be given as name expressions.
    [[nodiscard]] QStringList kernelNames() const;

    [[nodiscard]] QJsonObject toJson() const;
    /// Reads the section; `arguments` are the project's, which every binding and swap must
    /// name ("pipeline.steps[1].args[2]: no argument named 'tmp' in the project").
    static std::optional<Pipeline> fromJson(const QJsonObject& json,
                                            const QVector<ArgumentSpec>& arguments, QString* error);
    /// Empty when every binding and swap fits `arguments`, else the first problem with its
    /// path. The rule fromJson applies; the window calls it after an edit.
    [[nodiscard]] QString problemWith(const QVector<ArgumentSpec>& arguments) const;
    /// After a compile: every step's kernel is in the module, and, where the kernel's mangled
    /// name gives its parameter types, no buffer is bound to a value parameter nor a scalar to
    /// a pointer. Empty or the first problem, naming the step.
    [[nodiscard]] QString problemWithCompiled(const QVector<ArgumentSpec>& arguments,
                                              const CompileResult& compiled) const;
    /// The arguments step `index` passes, in its parameter order, with its values applied.
    [[nodiscard]] QVector<ArgumentSpec> stepArguments(int index,
                                                      const QVector<ArgumentSpec>& arguments) const;

    friend bool operator==(const Pipeline& a, const Pipeline& b) {
        return a.graph == b.graph && a.steps == b.steps;
    }
    friend bool operator!=(const Pipeline& a, const Pipeline& b) { return !(a == b); }
};

} // namespace kernelpad
