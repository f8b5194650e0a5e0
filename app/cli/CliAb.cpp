// kernelpad-cli ab: runs the comparison through the Engine and prints it (CliAb.h).

#include "app/cli/CliAb.h"
#include "app/cli/CliCommands.h"
#include "core/engine/EditVerdict.h"

#include <QEventLoop>
#include <QJsonObject>
#include <QTextStream>

#include <algorithm>

#include <unistd.h>

namespace kernelpad::cli {

namespace {

int exitCodeOf(const AbResult& r) {
    switch (r.status) {
    case AbResult::Status::Verdict:
        return kExitOk;
    case AbResult::Status::Refused:
        return kExitAbRefused;
    case AbResult::Status::Cancelled:
        return kExitCudaError;
    case AbResult::Status::Error:
        break;
    }
    switch (r.runStatus) {
    case RunStatus::CompileError:
        return kExitCompileError;
    case RunStatus::VerificationFailed:
        return kExitVerificationFailed;
    case RunStatus::BadInput:
        return kExitBadInput;
    default:
        return kExitCudaError;
    }
}

int refuseAb(const QString& message, bool json) {
    if (json)
        printJson(QJsonObject{{"status", "bad-input"}, {"error", message}});
    else
        QTextStream(stderr) << "kernelpad-cli: " << message << '\n';
    return kExitBadInput;
}

QString conditionsText(const AbConditions& c) {
    QStringList parts;
    parts << (c.smClockMHz > 0 ? QStringLiteral("SM %1 MHz").arg(c.smClockMHz)
                               : QStringLiteral("SM clock unknown"));
    if (c.memClockMHz > 0)
        parts << QStringLiteral("memory %1 MHz").arg(c.memClockMHz);
    if (c.temperatureC)
        parts << QStringLiteral("%1 °C").arg(*c.temperatureC, 0, 'f', 0);
    if (c.throttled)
        parts << QStringLiteral("throttled");
    return parts.join(QStringLiteral(", "));
}

void printArm(QTextStream& out, const QString& name, const AbArmSummary& arm) {
    out << name << "  " << arm.label << ": median " << QString::number(arm.medianMs, 'f', 5)
        << " ms, " << arm.launches << " launches in " << arm.blocks << " blocks, "
        << (arm.verified ? QStringLiteral("verified (%1 buffers)").arg(arm.buffersChecked)
                         : QStringLiteral("not verified"))
        << "; " << conditionsText(arm.conditions) << '\n';
}

/// B against A in one sentence: the A/B's time, and the registers and occupancy of each arm's
/// verified run.
EditVerdict abEditVerdict(const AbResult& r) {
    VerdictSide a;
    a.resources = r.a.resources;
    VerdictSide b;
    b.resources = r.b.resources;
    return editVerdict(r.verdict, a, b);
}

void printText(const AbResult& r) {
    QTextStream out(stdout);
    if (r.status == AbResult::Status::Error || r.status == AbResult::Status::Cancelled) {
        QTextStream(stderr) << "kernelpad-cli: ab: " << r.error << '\n';
        return;
    }
    out << "A/B on " << r.device << ": " << r.blocks << " blocks of " << r.launchesPerBlock
        << " launches in ABBA order, " << QString::number(r.elapsedMs / 1000.0, 'f', 1)
        << " s; stopped: " << r.stopReason << '\n';
    printArm(out, QStringLiteral("A"), r.a);
    printArm(out, QStringLiteral("B"), r.b);
    if (r.verdict.hasInterval())
        out << "B/A " << QString::number(r.verdict.ratio, 'f', 4) << " (95 % interval "
            << QString::number(r.verdict.low, 'f', 4) << " to "
            << QString::number(r.verdict.high, 'f', 4) << ")\n";
    out << r.headline() << '\n';
    if (r.status == AbResult::Status::Verdict || r.status == AbResult::Status::Refused)
        out << "verdict: " << abEditVerdict(r).sentence << '\n';
}

} // namespace

int runAb(const QStringList& args) {
    QString error;
    const bool jsonWanted = args.contains(QStringLiteral("--json"));
    const std::optional<AbCommandLine> line = parseAbCommandLine(args, &error);
    if (!line)
        return refuseAb(error, jsonWanted);
    const std::optional<AbOrder> order = abOrderOf(*line, &error);
    if (!order)
        return refuseAb(error, line->json);

    Engine engine(nullptr, Engine::defaultIsolation());
    engine.setCaptureConsole(engine.isolation() == Engine::Isolation::InProcess);
    AbResult result;
    QEventLoop loop;
    QObject::connect(&engine, &Engine::abFinished, &loop, [&](quint64, const AbResult& r) {
        result = r;
        loop.quit();
    });
    qsizetype shown = 0; // the progress line's length, blanked before the result
    // The stage line is redrawn in place, so only on a terminal (a log gets the result alone).
    if (!line->json && isatty(STDERR_FILENO))
        QObject::connect(&engine, &Engine::abProgress, &loop,
                         [&shown](quint64, const QString& stage, int, int) {
                             const QString text = QStringLiteral("  ") + stage;
                             QTextStream(stderr) << '\r' << text.leftJustified(shown) << Qt::flush;
                             shown = std::max(shown, text.size());
                         });
    engine.compareAb(*order);
    loop.exec();
    if (shown > 0)
        QTextStream(stderr) << '\r' << QString(shown, QLatin1Char(' ')) << '\r' << Qt::flush;
    if (line->json) {
        QJsonObject json = result.toJson();
        if (result.status == AbResult::Status::Verdict ||
            result.status == AbResult::Status::Refused)
            json.insert("editVerdict", abEditVerdict(result).toJson());
        printJson(json);
    } else {
        printText(result);
    }
    return exitCodeOf(result);
}

} // namespace kernelpad::cli
