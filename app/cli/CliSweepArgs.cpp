#include "app/cli/CliSweepArgs.h"

#include "core/project/SweepSpec.h"

namespace kernelpad::cli {
namespace {

/// --fast, --accurate and --budget-ms each say how long a configuration is timed: one of them.
bool setTimingBudget(SweepArgs* out, const QString& option, const SweepTimingBudget& budget,
                     QString* error) {
    if (out->timingBudget && *out->timingBudget != budget) {
        *error = QStringLiteral("%1: the timing budget is already %2 (give one of --fast, "
                                "--accurate and --budget-ms N)")
                     .arg(option, out->timingBudget->name());
        return false;
    }
    out->timingBudget = budget;
    return true;
}

/// --set NAME=VALUES: replaces a tunable's values, or adds one: bx, by, bz (or block.x ...)
/// sweep the block, a scalar argument's name its value, any other name a -D define.
bool applySet(Project* project, const QString& set, QString* error) {
    const qsizetype eq = set.indexOf(QLatin1Char('='));
    if (eq <= 0) {
        *error = QStringLiteral("--set '%1': expected NAME=VALUES (\"bx=32,64\", "
                                "\"n=1024:1048576:x2\")")
                     .arg(set);
        return false;
    }
    QString name = set.left(eq).trimmed();
    static const QStringList blockAliases{"block.x", "block.y", "block.z"};
    static const QStringList blockNames{"bx", "by", "bz"};
    if (blockAliases.contains(name))
        name = blockNames[blockAliases.indexOf(name)];
    QString why;
    std::optional<SweepValues> values = SweepValues::fromText(set.mid(eq + 1), &why);
    if (!values) {
        *error = QStringLiteral("--set %1: %2").arg(name, why);
        return false;
    }
    SweepSpec& spec = project->sweep;
    for (SweepTunable& tunable : spec.tunables) {
        if (tunable.name == name) {
            tunable.values = *values;
            return true;
        }
    }
    SweepTunable tunable;
    tunable.name = name;
    tunable.values = *values;
    const ArgumentSpec* argument = project->findArgument(name);
    if (blockNames.contains(name)) {
        tunable.role = SweepTunable::Role::Block;
        tunable.axis = int(blockNames.indexOf(name));
    } else if (argument && argument->isScalar()) {
        tunable.role = SweepTunable::Role::Scalar;
    } else {
        tunable.role = SweepTunable::Role::Define;
    }
    spec.tunables.append(tunable);
    // Through the file's reader, so a name it would refuse is refused here the same way.
    std::optional<SweepSpec> checked = SweepSpec::fromJson(spec.toJson(), project->arguments, &why);
    if (!checked) {
        *error = QStringLiteral("--set %1: %2").arg(name, why);
        return false;
    }
    spec = std::move(*checked);
    return true;
}

} // namespace

std::optional<SweepArgs> parseSweepArgs(const QStringList& args, QString* error) {
    SweepArgs out;
    const QStringList valued{"--strategy", "--budget", "--seed",    "--results", "--set",
                             "--device",   "--reps",   "--devices", "--runner",  "--budget-ms"};
    for (int i = 0; i < args.size(); ++i) {
        const QString& a = args[i];
        if (a == QLatin1String("--json")) {
            out.json = true;
        } else if (a == QLatin1String("--csv")) {
            out.csv = true;
        } else if (a == QLatin1String("--fresh")) {
            out.fresh = true;
        } else if (a == QLatin1String("--no-confirm")) {
            out.confirm = false;
        } else if (a == QLatin1String("--fast") || a == QLatin1String("--accurate")) {
            if (!setTimingBudget(&out, a,
                                 a == QLatin1String("--fast") ? SweepTimingBudget::fast()
                                                              : SweepTimingBudget{},
                                 error))
                return std::nullopt;
        } else if (valued.contains(a)) {
            if (i + 1 >= args.size()) {
                *error = QStringLiteral("option %1 needs a value").arg(a);
                return std::nullopt;
            }
            const QString value = args[++i];
            bool ok = true;
            if (a == QLatin1String("--strategy")) {
                out.strategy = value;
            } else if (a == QLatin1String("--budget")) {
                out.budget = value.toInt(&ok);
                ok = ok && *out.budget >= 1;
            } else if (a == QLatin1String("--seed")) {
                out.seed = value.toLongLong(&ok);
                ok = ok && *out.seed >= 0;
            } else if (a == QLatin1String("--results")) {
                out.results = value;
            } else if (a == QLatin1String("--set")) {
                out.sets.append(value);
            } else if (a == QLatin1String("--device")) {
                out.device = value.toInt(&ok);
                ok = ok && out.device >= 0;
                out.deviceGiven = true;
            } else if (a == QLatin1String("--devices")) {
                out.devices = value;
            } else if (a == QLatin1String("--budget-ms")) {
                const int ms = value.toInt(&ok);
                ok = ok && ms >= 1 && ms <= SweepTimingBudget::kMaxMs;
                if (!ok) {
                    *error = QStringLiteral("--budget-ms: '%1' is not a whole number of "
                                            "milliseconds from 1 to %2")
                                 .arg(value)
                                 .arg(SweepTimingBudget::kMaxMs);
                    return std::nullopt;
                }
                if (!setTimingBudget(&out, a, SweepTimingBudget::milliseconds(ms), error))
                    return std::nullopt;
            } else if (a == QLatin1String("--runner")) {
                std::optional<RunnerSpec> spec = RunnerSpec::parse(value, error);
                if (!spec)
                    return std::nullopt;
                out.runners.append(*spec);
            } else {
                out.repetitions = value.toInt(&ok);
                ok = ok && *out.repetitions >= 1;
            }
            if (!ok) {
                *error = QStringLiteral("%1: '%2' is not a whole number >= %3")
                             .arg(a, value,
                                  a == QLatin1String("--budget") || a == QLatin1String("--reps")
                                      ? QStringLiteral("1")
                                      : QStringLiteral("0"));
                return std::nullopt;
            }
        } else if (a.startsWith(QLatin1String("--"))) {
            *error = QStringLiteral("unknown option %1").arg(a);
            return std::nullopt;
        } else if (out.project.isEmpty()) {
            out.project = a;
        } else {
            *error =
                QStringLiteral("one project at a time (got '%1' and '%2')").arg(out.project, a);
            return std::nullopt;
        }
    }
    if (out.project.isEmpty()) {
        *error = QStringLiteral("name the project: kernelpad-cli sweep FILE.kpad");
        return std::nullopt;
    }
    if (out.deviceGiven && !out.devices.isEmpty()) {
        *error = QStringLiteral("--device and --devices: choose one");
        return std::nullopt;
    }
    if (out.runners.size() > 1 && (out.deviceGiven || !out.devices.isEmpty())) {
        *error =
            QStringLiteral("%1 chooses devices of one runner; with %2 --runner options the "
                           "sweep uses every device of each (leave %1 out, or give one "
                           "--runner)")
                .arg(out.deviceGiven ? QStringLiteral("--device") : QStringLiteral("--devices"))
                .arg(out.runners.size());
        return std::nullopt;
    }
    if (out.json && out.csv) {
        *error = QStringLiteral("--json and --csv: choose one");
        return std::nullopt;
    }
    return out;
}

/// The command line's --set, --strategy, --budget, --seed and timing budget written into
/// `project`; false with `*error` when one does not apply.
bool applySweepOverrides(const SweepArgs& a, Project* project, QString* error) {
    for (const QString& set : a.sets)
        if (!applySet(project, set, error))
            return false;
    if (a.strategy) {
        const std::optional<SweepStrategySpec::Kind> kind = strategyKindFromName(*a.strategy);
        if (!kind) {
            *error = QStringLiteral("--strategy: expected exhaustive, random or local, got '%1'")
                         .arg(*a.strategy);
            return false;
        }
        project->sweep.strategy.kind = *kind;
    }
    if (a.budget)
        project->sweep.strategy.budget = *a.budget;
    if (a.seed)
        project->sweep.strategy.seed = quint64(*a.seed);
    if (a.timingBudget)
        project->sweep.timingBudget = *a.timingBudget;
    return true;
}

} // namespace kernelpad::cli
