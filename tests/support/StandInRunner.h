#pragma once
// Stand-in runners for tests without a GPU (tests/core/tst_runnerpool.cpp,
// tests/core/tst_sweeprerun.cpp, tests/ui/tst_sweeppanel.cpp): shell scripts that speak the
// runner protocol well enough for a pool, a survey of devices and a sweep (with a time, the
// runs of a sweep's A/B too).

#include "core/project/RunnerSpec.h"
#include "core/run/RunTypes.h"
#include "core/run/Timing.h"
#include "core/runner/Protocol.h"
#include "core/runner/RunnerPool.h"

#include <QFile>
#include <QJsonDocument>
#include <QStringList>
#include <QTemporaryDir>

namespace kernelpad::test {

/// A runner that is a shell script in a temporary folder: it says hello as the real one does
/// (this build's protocol and version), then runs the test's shell for every request line it
/// reads, with the line in $line, its id in $id and the runner's output folder in $d. The
/// folder (dir()) holds the script, the files the test writes for it and its log.
class ScriptedRunner {
public:
    /// Writes the script: `perRequest` is the body of its read loop.
    void setScript(const QString& perRequest) {
        const QString text =
            QStringLiteral("#!/bin/sh\n"
                           "d=$(mktemp -d /tmp/kernelpad-runner-XXXXXX)\n"
                           "printf '{\"type\":\"hello\",\"version\":%1,\"kernelpad\":\"%2\","
                           "\"pid\":%s,\"outputDir\":\"%s\"}\\n' $$ \"$d\"\n"
                           "while IFS= read -r line; do\n"
                           "  id=${line#'{\"id\":'}; id=${id%%,*}\n"
                           "%3"
                           "done\n"
                           "rmdir \"$d\"\n")
                .arg(kRunnerProtocolVersion)
                .arg(kernelpadVersion(), perRequest);
        write(QStringLiteral("runner.sh"), text.toUtf8());
        QFile::setPermissions(script(), QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                            QFileDevice::ExeOwner);
    }
    /// The shell line that answers request $id with the result in `resultFile` (in dir()).
    [[nodiscard]] QString answerWith(const QString& resultFile) const {
        return QStringLiteral("printf '{\"type\":\"result\",\"id\":%s,\"result\":%s,"
                              "\"outputs\":[],\"poisoned\":false}\\n' \"$id\" "
                              "\"$(cat '%1')\"")
            .arg(m_dir.filePath(resultFile));
    }
    /// Writes `result` as `name` in dir(), for answerWith().
    void writeResult(const QString& name, const RunResult& result) const {
        write(name, QJsonDocument(result.toJson()).toJson(QJsonDocument::Compact));
    }
    void write(const QString& name, const QByteArray& bytes) const {
        QFile f(m_dir.filePath(name));
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(bytes) != bytes.size())
            qFatal("cannot write %s", qPrintable(f.fileName()));
    }
    [[nodiscard]] QString dir() const { return m_dir.path(); }
    [[nodiscard]] QString script() const { return m_dir.filePath(QStringLiteral("runner.sh")); }
    /// `pool`'s runners become this script.
    void apply(RunnerPool& pool) const { pool.setCommand(QStringLiteral("/bin/sh"), {script()}); }
    /// The lines the script appended to dir()/log, in order.
    [[nodiscard]] QStringList log() const {
        QFile f(m_dir.filePath(QStringLiteral("log")));
        if (!f.open(QIODevice::ReadOnly))
            return {};
        return QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }

private:
    QTemporaryDir m_dir;
};

/// A stand-in runner: a script that answers "devices" with one device, `gpu`, and every "run"
/// with an Ok result on it after 0.1 s, writing the job's name (the project's name, "job-…")
/// to its log. spec() runs it as a Command runner named `name`; script() is an executable
/// that $KERNELPAD_RUNNER may name, to stand in for this computer's runner (its hello carries
/// this build's version, so it passes as a runner elsewhere).
/// With `timedMs`, every result carries kTimedSamples launches of that time: an A/B of two
/// configurations, whose blocks are such runs, then finds no difference between them.
class StandInRunner {
public:
    static constexpr int kTimedSamples = 12;

    StandInRunner(const QString& name, const QString& gpu, double timedMs = 0) {
        DeviceInfo device;
        device.ordinal = 0;
        device.name = gpu;
        device.ccMajor = 9;
        RunResult ok;
        ok.status = RunStatus::Ok;
        ok.device = device;
        if (timedMs > 0)
            ok.timing = computeStats(QVector<double>(kTimedSamples, timedMs));
        m_runner.writeResult(QStringLiteral("ok.json"), ok);
        m_runner.write(QStringLiteral("device.json"),
                       QJsonDocument(device.toJson()).toJson(QJsonDocument::Compact));
        const QString dir = m_runner.dir();
        m_runner.setScript(
            QStringLiteral(
                "  case \"$line\" in\n"
                "  *'\"type\":\"devices\"'*)\n"
                "    printf '{\"type\":\"devices\",\"id\":%s,\"devices\":[%s],\"error\":null}\\n' "
                "\"$id\" \"$(cat '%1/device.json')\" ;;\n"
                "  *'\"type\":\"run\"'*)\n"
                "    job=$(printf '%s' \"$line\" | sed -n "
                "'s/.*\"name\":\"\\(job-[a-z0-9]*\\)\".*/\\1/p')\n"
                "    sleep 0.1\n"
                "    echo \"ran $job\" >> '%1/log'\n"
                "    %2 ;;\n"
                "  esac\n")
                .arg(dir, m_runner.answerWith(QStringLiteral("ok.json"))));
        m_spec.kind = RunnerSpec::Kind::Command;
        m_spec.name = name;
        m_spec.commandLine = QStringLiteral("/bin/sh \"%1\"").arg(m_runner.script());
    }
    [[nodiscard]] const RunnerSpec& spec() const { return m_spec; }
    [[nodiscard]] QString script() const { return m_runner.script(); }
    [[nodiscard]] QStringList completed() const { return m_runner.log(); }

private:
    ScriptedRunner m_runner;
    RunnerSpec m_spec;
};

} // namespace kernelpad::test
