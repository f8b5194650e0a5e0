#pragma once
// A .kpad project: everything needed to compile, run and verify one kernel (JSON on disk).

#include "core/compile/ProgramOptions.h"
#include "core/compile/SourceLanguage.h"
#include "core/launch/ArgumentSpec.h"
#include "core/launch/GlobalSpec.h"
#include "core/project/BaselineSpec.h"
#include "core/project/Pipeline.h"
#include "core/project/SweepSpec.h"
#include "core/project/TestSpec.h"
#include "core/project/TimingSpec.h"

#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <QVector>

#include <optional>

namespace kernelpad {

/// A KernelPad project; a plain value the UI edits and the runner executes.
struct Project {
    static constexpr int kFormatVersion = 1;

    QString name;
    QString description;
    QString source;
    QString sourceName = QStringLiteral("kernel.cu"); ///< name NVRTC uses in diagnostics
    ProgramOptions options;
    /// What `source` is written in (JSON "language": "ptx" or "nvvm", absent for CUDA C++).
    SourceLanguage language = SourceLanguage::Cuda;
    QString kernel;                  ///< entry name or name expression ("vector_add<float>")
    QVector<ArgumentSpec> arguments; ///< in parameter order
    /// __constant__/__device__ variables written before the launch and read back after it
    /// (JSON: "globals", written only when there are some).
    QVector<GlobalSpec> globals;
    LaunchConfig launch;
    TimingSpec timing;
    /// A sequence of launches run instead of the single one (JSON: "pipeline", written only
    /// when it has steps). `kernel` and `launch` stay what reference kernels run with.
    Pipeline pipeline;
    /// The parameter sweep (core/sweep; JSON: "sweep", written only when it has tunables).
    SweepSpec sweep;
    /// The library call the kernel is measured against (JSON: "baseline", written only when
    /// set).
    BaselineSpec baseline;
    /// The sizes the kernel must be right at (core/engine/TestRun; JSON: "tests", written
    /// only when it has cases or a generator).
    TestSpec tests;
    /// The "lesson" section of a lesson's project (core/project/Lesson reads it), kept as
    /// written so that saving a student's copy of a lesson keeps it; empty for other projects.
    QJsonObject lesson;

    /// Name expressions to hand NVRTC: the kernel and reference kernels that contain '<'.
    [[nodiscard]] QStringList nameExpressions() const;
    [[nodiscard]] const ArgumentSpec* findArgument(const QString& argumentName) const;
    [[nodiscard]] const GlobalSpec* findGlobal(const QString& globalName) const;

    [[nodiscard]] QJsonObject toJson() const;
    /// Fails with a message naming the field and why ("arguments[2].buffer.count: ...").
    static std::optional<Project> fromJson(const QJsonObject& json, QString* error);
    static std::optional<Project> load(const QString& path, QString* error);
    [[nodiscard]] bool save(const QString& path, QString* error) const;
    friend bool operator==(const Project& a, const Project& b);

private:
    [[nodiscard]] QJsonObject toJsonWithoutGlobals() const;
};

} // namespace kernelpad

// Values the window queues between threads and tests keep in data rows.
Q_DECLARE_METATYPE(kernelpad::Project)
