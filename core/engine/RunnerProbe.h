#pragma once
// The window's questions to runners that are not runs: Preferences' Test of one runner and
// the Sweep dock's "every device of every runner", behind the Engine's door so that the window
// never starts a runner itself (docs/ARCHITECTURE.md). Lives on the window's thread and never
// blocks it.

#include "core/cuda/DeviceInfo.h"
#include "core/engine/Runners.h"

#include <QObject>
#include <QStringList>
#include <QVector>

namespace kernelpad {

class RunnerClient;
class RunnerSurvey;

class RunnerProbe : public QObject {
    Q_OBJECT
public:
    explicit RunnerProbe(QObject* parent = nullptr);
    ~RunnerProbe() override;

    /// Starts `spec`'s runner and asks for its devices; tested() answers. A test still waiting
    /// is abandoned (its runner stopped). False with `error` when the spec cannot start.
    bool test(const RunnerSpec& spec, QString* error);
    /// Asks each of `runners` for its devices side by side; surveyed() follows once every one
    /// answered. A survey under way is abandoned.
    void survey(const QVector<RunnerSpec>& runners);
    [[nodiscard]] bool isSurveying() const;
    /// The last survey's devices, in the runners' order, and one line per runner left out
    /// ("gpu-box: why").
    [[nodiscard]] QVector<PoolEntry> entries() const;
    [[nodiscard]] QStringList problems() const;

    /// A pool device as results name it: "NAME (device N)", after the runner's name when
    /// `named` ("gpu-box: NAME (device N)").
    [[nodiscard]] static QString deviceLabel(const RunnerSpec& runner, const QString& name,
                                             int ordinal, bool named);
    /// Streamed outputs larger than this stay on the runner unless a runner's settings say
    /// otherwise (Preferences' "Keep outputs larger than" placeholder).
    [[nodiscard]] static qint64 defaultKeepBeyondBytes();

signals:
    /// test()'s answer: the runner's devices, or none and why.
    void tested(const QVector<kernelpad::DeviceInfo>& devices, const QString& why);
    void surveyed();

private:
    RunnerClient* m_test = nullptr; ///< the runner under test, a child
    RunnerSurvey* m_survey;
};

} // namespace kernelpad
