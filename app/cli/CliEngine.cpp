#include "app/cli/CliEngine.h"

#include "app/cli/CliRunners.h"

#include <QEventLoop>

namespace kernelpad::cli {

RunResult runThroughEngine(const RunRequest& request, Engine::Isolation isolation) {
    Engine engine(nullptr, isolation);
    engine.setCaptureConsole(isolation == Engine::Isolation::InProcess);
    RunResult result;
    QEventLoop loop;
    QObject::connect(&engine, &Engine::runFinished, &loop, [&](quint64, const RunResult& r) {
        result = r;
        loop.quit();
    });
    engine.run(request);
    loop.exec();
    return result;
}

CompileResult compileThroughEngine(const Project& project, const QString& projectDir,
                                   const QString& arch,
                                   const std::optional<RunnerSpec>& elsewhere) {
    // Only a runner elsewhere needs a process; this computer's compile is NVRTC in the Engine.
    const bool remote = elsewhere && !elsewhere->isLocal();
    Engine engine(nullptr, remote ? Engine::Isolation::Process : Engine::Isolation::InProcess);
    if (remote)
        engine.setRunner(*elsewhere);
    Project withArch = project;
    withArch.options.arch = arch;
    CompileResult result;
    QEventLoop loop;
    QObject::connect(&engine, &Engine::compiled, &loop, [&](quint64, const CompileResult& r) {
        result = r;
        loop.quit();
    });
    engine.compile(withArch, projectDir, -1, false);
    loop.exec();
    return result;
}

SassReport disassembleThroughEngine(const Project& project, const QString& projectDir,
                                    const QString& arch) {
    Engine engine(nullptr, Engine::Isolation::InProcess);
    SassReport report;
    QEventLoop loop;
    QObject::connect(&engine, &Engine::sassReady, &loop, [&](quint64, const SassReport& r) {
        report = r;
        loop.quit();
    });
    engine.disassemble(project, projectDir, arch);
    loop.exec();
    return report;
}

QVector<DeviceInfo> devicesThroughEngine(const std::optional<RunnerSpec>& elsewhere,
                                         QString* error) {
    // This computer's devices are listed in this process, as before a first run; a runner
    // elsewhere is started and asked.
    const bool remote = elsewhere && !elsewhere->isLocal();
    // With warm runners, their list: the driver's start-up in this process (about 0.45 s) is
    // what they are there to spare.
    QString notWarm;
    if (!remote)
        if (std::optional<QVector<DeviceInfo>> warm = warmDevices(error, &notWarm))
            return *warm;
    Engine engine(nullptr, remote ? Engine::Isolation::Process : Engine::Isolation::InProcess);
    QVector<DeviceInfo> devices;
    QEventLoop loop;
    QObject::connect(&engine, &Engine::devicesChanged, &loop,
                     [&](const QVector<DeviceInfo>& list, const QString& why) {
                         devices = list;
                         *error = why;
                         loop.quit();
                     });
    if (remote)
        engine.setRunner(*elsewhere);
    else
        engine.refreshDevices();
    loop.exec();
    return devices;
}

} // namespace kernelpad::cli
