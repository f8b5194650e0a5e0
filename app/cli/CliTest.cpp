#include "app/cli/CliTest.h"

#include "app/cli/CliCommands.h"
#include "core/engine/EngineTests.h"
#include "core/io/SafeFile.h"
#include "core/project/RunnerSpec.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QHash>
#include <QJsonObject>

#include <optional>

namespace kernelpad::cli {

namespace {

/// The options of `test` (kernelpad-cli checked their names against CliUsage already).
struct TestArgs {
    QString path;
    QString junit;
    QString onlyCase;
    int device = 0;
    bool json = false;
    bool inProcess = false;
};

int refuseTestInput(const QString& message, bool json) {
    if (json)
        printJson(QJsonObject{{"error", message}, {"status", "bad-input"}});
    else
        QTextStream(stderr) << "kernelpad-cli: " << message << '\n';
    return kExitBadInput;
}

std::optional<TestArgs> parseTestArgs(const QStringList& args, QString* error) {
    TestArgs parsed;
    QStringList positional;
    const QStringList valued{QStringLiteral("--junit"), QStringLiteral("--case"),
                             QStringLiteral("--device")};
    QHash<QString, QString> values;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString& a = args[i];
        if (a == QLatin1String("--json")) {
            parsed.json = true;
        } else if (a == QLatin1String("--in-process")) {
            parsed.inProcess = true;
        } else if (valued.contains(a)) {
            if (i + 1 >= args.size()) {
                *error = QStringLiteral("option %1 needs a value").arg(a);
                return std::nullopt;
            }
            values.insert(a, args[++i]);
        } else {
            positional << a;
        }
    }
    if (positional.size() != 1 || !positional.first().endsWith(QLatin1String(".kpad"))) {
        *error = QStringLiteral("test takes one FILE.kpad");
        return std::nullopt;
    }
    parsed.path = positional.first();
    parsed.junit = values.value(QStringLiteral("--junit"));
    parsed.onlyCase = values.value(QStringLiteral("--case"));
    if (values.contains(QStringLiteral("--device"))) {
        bool ok = false;
        parsed.device = values.value(QStringLiteral("--device")).toInt(&ok);
        if (!ok || parsed.device < 0) {
            *error = QStringLiteral("--device takes a device number (got '%1')")
                         .arg(values.value(QStringLiteral("--device")));
            return std::nullopt;
        }
    }
    return parsed;
}

/// The test run through an Engine of this process, waiting for its end.
TestReport runTestsThroughEngine(const TestOrder& order, Engine::Isolation isolation) {
    Engine engine(nullptr, isolation);
    engine.setCaptureConsole(isolation == Engine::Isolation::InProcess);
    EngineTests tests(&engine);
    TestReport report;
    QEventLoop loop;
    QObject::connect(&tests, &EngineTests::finished, &loop, [&](const TestReport& r) {
        report = r;
        loop.quit();
    });
    tests.start(order);
    loop.exec();
    return report;
}

int testExitCode(const TestReport& report) {
    switch (report.status) {
    case RunStatus::Ok:
        return report.passed() ? kExitOk : kExitVerificationFailed;
    case RunStatus::CompileError:
        return kExitCompileError;
    case RunStatus::BadInput:
        return kExitBadInput;
    default:
        return kExitCudaError;
    }
}

} // namespace

int runTest(const QStringList& args) {
    QString error;
    const bool json = args.contains(QStringLiteral("--json"));
    const std::optional<TestArgs> parsed = parseTestArgs(args, &error);
    if (!parsed)
        return refuseTestInput(error, json);
    const std::optional<Project> project = Project::load(parsed->path, &error);
    if (!project)
        return refuseTestInput(error, json);
    const std::optional<RunnerSpec> spec = RunnerSpec::fromEnvironment(&error);
    const bool remote = spec && !spec->isLocal();
    if (remote && parsed->inProcess)
        return refuseTestInput(QStringLiteral("--in-process cannot be combined with --runner %1: "
                                              "the kernel runs in that runner")
                                   .arg(spec->toText()),
                               json);
    TestOrder order;
    order.base.project = *project;
    order.base.projectDir = QFileInfo(parsed->path).absolutePath();
    order.base.device = parsed->device;
    order.onlyCase = parsed->onlyCase;
    if (order.base.project.name.isEmpty())
        order.base.project.name = QFileInfo(parsed->path).completeBaseName();
    // A --case no case has is bad input, refused before anything runs.
    if (!order.onlyCase.isEmpty() &&
        planTestCases(order.base, order.onlyCase, nullptr, &error).isEmpty())
        return refuseTestInput(error, json);
    QElapsedTimer clock;
    clock.start();
    const TestReport report =
        runTestsThroughEngine(order, parsed->inProcess ? Engine::Isolation::InProcess
                                     : remote          ? Engine::Isolation::Process
                                                       : Engine::defaultIsolation());
    if (json) {
        printJson(report.toJson());
    } else {
        QTextStream out(stdout);
        printTestReport(out, report);
    }
    if (!parsed->junit.isEmpty()) {
        QString why;
        if (!writeFileAtomically(parsed->junit, junitXml(report, clock.elapsed() / 1000.0), &why)) {
            QTextStream(stderr) << "kernelpad-cli: --junit: cannot write '" << parsed->junit
                                << "': " << why << '\n';
            return kExitBadInput;
        }
    }
    return testExitCode(report);
}

} // namespace kernelpad::cli
