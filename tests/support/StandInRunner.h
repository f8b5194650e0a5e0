#pragma once
// A stand-in runner for tests without a GPU (tests/core/tst_runnerpool.cpp,
// tests/ui/tst_sweeppanel.cpp): it speaks the runner protocol well enough for a pool, a survey
// of devices and a sweep (with a time, the runs of a sweep's A/B too).

#include "core/project/RunnerSpec.h"
#include "core/run/RunTypes.h"
#include "core/run/Timing.h"
#include "core/runner/Protocol.h"

#include <QFile>
#include <QJsonDocument>
#include <QStringList>
#include <QTemporaryDir>

namespace kernelpad::test {

/// A stand-in runner: a shell script that says hello like the real one (with this build's
/// version, so it passes as a runner elsewhere), answers "devices" with one device, `gpu`, and
/// every "run" with an Ok result on it after 0.1 s, writing the job's name (the project's name,
/// "job-…") to its log. spec() runs it as a Command runner named `name`; script() is an
/// executable that $KERNELPAD_RUNNER may name, to stand in for this computer's runner.
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
        write(QStringLiteral("ok.json"), QJsonDocument(ok.toJson()).toJson(QJsonDocument::Compact));
        write(QStringLiteral("device.json"),
              QJsonDocument(device.toJson()).toJson(QJsonDocument::Compact));
        const QString script =
            QStringLiteral(
                "#!/bin/sh\n"
                "d=$(mktemp -d /tmp/kernelpad-runner-XXXXXX)\n"
                "printf '{\"type\":\"hello\",\"version\":%1,\"kernelpad\":\"%2\","
                "\"pid\":%s,\"outputDir\":\"%s\"}\\n' $$ \"$d\"\n"
                "while IFS= read -r line; do\n"
                "  id=${line#'{\"id\":'}; id=${id%%,*}\n"
                "  case \"$line\" in\n"
                "  *'\"type\":\"devices\"'*)\n"
                "    printf '{\"type\":\"devices\",\"id\":%s,\"devices\":[%s],\"error\":null}\\n' "
                "\"$id\" \"$(cat '%3/device.json')\" ;;\n"
                "  *'\"type\":\"run\"'*)\n"
                "    job=$(printf '%s' \"$line\" | sed -n "
                "'s/.*\"name\":\"\\(job-[a-z0-9]*\\)\".*/\\1/p')\n"
                "    sleep 0.1\n"
                "    echo \"ran $job\" >> '%3/log'\n"
                "    printf '{\"type\":\"result\",\"id\":%s,\"result\":%s,\"outputs\":[],"
                "\"poisoned\":false}\\n' \"$id\" \"$(cat '%3/ok.json')\" ;;\n"
                "  esac\n"
                "done\n"
                "rmdir \"$d\"\n")
                .arg(kRunnerProtocolVersion)
                .arg(kernelpadVersion(), m_dir.path());
        write(QStringLiteral("runner.sh"), script.toUtf8());
        QFile::setPermissions(m_dir.filePath(QStringLiteral("runner.sh")),
                              QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                  QFileDevice::ExeOwner);
        m_spec.kind = RunnerSpec::Kind::Command;
        m_spec.name = name;
        m_spec.commandLine =
            QStringLiteral("/bin/sh \"%1\"").arg(m_dir.filePath(QStringLiteral("runner.sh")));
    }
    [[nodiscard]] const RunnerSpec& spec() const { return m_spec; }
    [[nodiscard]] QString script() const { return m_dir.filePath(QStringLiteral("runner.sh")); }
    [[nodiscard]] QStringList completed() const {
        QFile f(m_dir.filePath(QStringLiteral("log")));
        if (!f.open(QIODevice::ReadOnly))
            return {};
        return QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }

private:
    void write(const QString& name, const QByteArray& bytes) {
        QFile f(m_dir.filePath(name));
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(f.fileName()));
        f.write(bytes);
    }
    QTemporaryDir m_dir;
    RunnerSpec m_spec;
};

} // namespace kernelpad::test
