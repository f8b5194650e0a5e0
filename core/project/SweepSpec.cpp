#include "core/project/SweepSpec.h"

#include "core/io/JsonFields.h"

#include <QJsonArray>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>

namespace kernelpad {

namespace {
/// Every objective, in the enum's order.
constexpr SweepObjective kSweepObjectives[] = {SweepObjective::Time, SweepObjective::Bandwidth,
                                               SweepObjective::Baseline, SweepObjective::Energy,
                                               SweepObjective::Edp};
} // namespace

QString sweepObjectiveName(SweepObjective objective) {
    switch (objective) {
    case SweepObjective::Time:
        return QStringLiteral("time");
    case SweepObjective::Bandwidth:
        return QStringLiteral("bandwidth");
    case SweepObjective::Baseline:
        return QStringLiteral("baseline");
    case SweepObjective::Energy:
        return QStringLiteral("energy");
    case SweepObjective::Edp:
        return QStringLiteral("edp");
    }
    return QStringLiteral("time");
}

namespace {

const QStringList kAxes{QStringLiteral("x"), QStringLiteral("y"), QStringLiteral("z")};
const QStringList kBlockNames{QStringLiteral("bx"), QStringLiteral("by"), QStringLiteral("bz")};

bool isIdentifier(const QString& name) {
    static const QRegularExpression identifier(QStringLiteral(R"(^[A-Za-z_]\w*$)"));
    return identifier.match(name).hasMatch();
}

bool failWith(QString* error, const QString& message) {
    if (error)
        *error = message;
    return false;
}

/// Counts a range's values without building it, so that a huge one is refused at once.
qint64 rangeCount(const SweepValues& v) {
    if (v.kind == SweepValues::Kind::Step)
        return qint64(std::floor((v.to - v.from) / v.step + 1e-9)) + 1;
    qint64 count = 0;
    for (double x = v.from; x <= v.to && count <= SweepValues::kMaxValues; x *= v.base)
        ++count;
    return count;
}

} // namespace

QVector<double> SweepValues::expand() const {
    if (kind == Kind::List)
        return list;
    QVector<double> values;
    const qint64 count = rangeCount(*this);
    values.reserve(int(std::min<qint64>(count, kMaxValues)));
    if (kind == Kind::Step) {
        // From the index, not by adding: 0.1 added 30 times is not 3.0.
        for (qint64 i = 0; i < count && i < kMaxValues; ++i)
            values.append(from + double(i) * step);
    } else {
        for (double x = from; x <= to && values.size() < kMaxValues; x *= base)
            values.append(x);
    }
    return values;
}

QJsonValue SweepValues::toJson() const {
    switch (kind) {
    case Kind::List: {
        QJsonArray array;
        for (double v : list)
            array.append(v);
        return array;
    }
    case Kind::Step:
        return QJsonObject{{QStringLiteral("from"), from},
                           {QStringLiteral("to"), to},
                           {QStringLiteral("step"), step}};
    case Kind::Powers:
        return QJsonObject{{QStringLiteral("from"), from},
                           {QStringLiteral("to"), to},
                           {QStringLiteral("powersOf"), base}};
    }
    return {};
}

std::optional<SweepValues> SweepValues::fromJson(const QJsonValue& json, const QString& path,
                                                 QString* error) {
    SweepValues values;
    if (json.isArray()) {
        const QJsonArray array = json.toArray();
        if (array.isEmpty()) {
            failWith(error, path + QStringLiteral(": must list at least one value"));
            return std::nullopt;
        }
        if (array.size() > kMaxValues) {
            failWith(error, QStringLiteral("%1: %2 values, more than the %3 a tunable may have")
                                .arg(path)
                                .arg(array.size())
                                .arg(kMaxValues));
            return std::nullopt;
        }
        for (qsizetype i = 0; i < array.size(); ++i) {
            const QString at = json::indexPath(path, i);
            if (QString bad = json::numberProblem(at, array[i]); !bad.isEmpty()) {
                failWith(error, bad);
                return std::nullopt;
            }
            if (values.list.contains(array[i].toDouble())) {
                failWith(error,
                         QStringLiteral("%1: %2 is listed twice").arg(at).arg(array[i].toDouble()));
                return std::nullopt;
            }
            values.list.append(array[i].toDouble());
        }
        return values;
    }
    if (!json.isObject()) {
        failWith(error, json::typeError(path,
                                        QStringLiteral("an array of numbers or a range "
                                                       "{\"from\", \"to\", \"step\" or "
                                                       "\"powersOf\"}"),
                                        json));
        return std::nullopt;
    }
    const json::FieldReader fields(json.toObject(), error, path);
    if (!fields.readNumber(QStringLiteral("from"), &values.from, json::Presence::Required) ||
        !fields.readNumber(QStringLiteral("to"), &values.to, json::Presence::Required))
        return std::nullopt;
    const bool hasStep = fields.has(QStringLiteral("step"));
    const bool hasPowers = fields.has(QStringLiteral("powersOf"));
    if (hasStep == hasPowers) {
        fields.fail(QStringLiteral("%1: give exactly one of \"step\" and \"powersOf\"").arg(path));
        return std::nullopt;
    }
    if (values.to < values.from) {
        fields.fail(QStringLiteral("%1: %2 is below from (%3)")
                        .arg(fields.path(QStringLiteral("to")))
                        .arg(values.to)
                        .arg(values.from));
        return std::nullopt;
    }
    if (hasStep) {
        values.kind = Kind::Step;
        if (!fields.readNumber(QStringLiteral("step"), &values.step))
            return std::nullopt;
        if (values.step <= 0) {
            fields.fail(QStringLiteral("%1: must be > 0 (got %2)")
                            .arg(fields.path(QStringLiteral("step")))
                            .arg(values.step));
            return std::nullopt;
        }
    } else {
        values.kind = Kind::Powers;
        if (!fields.readInt(QStringLiteral("powersOf"), &values.base, json::Presence::Required,
                            {2, 1 << 20}))
            return std::nullopt;
        if (values.from <= 0) {
            fields.fail(QStringLiteral("%1: must be > 0 for powers (got %2)")
                            .arg(fields.path(QStringLiteral("from")))
                            .arg(values.from));
            return std::nullopt;
        }
    }
    if (const qint64 count = rangeCount(values); count > kMaxValues) {
        fields.fail(QStringLiteral("%1: more than the %2 values a tunable may have")
                        .arg(path)
                        .arg(kMaxValues));
        return std::nullopt;
    }
    return values;
}

std::optional<SweepValues> SweepValues::fromText(const QString& text, QString* error) {
    const QString trimmed = text.trimmed();
    const QStringList range = trimmed.split(QLatin1Char(':'));
    if (range.size() == 3) {
        QJsonObject json{{QStringLiteral("from"), range[0].toDouble()},
                         {QStringLiteral("to"), range[1].toDouble()}};
        bool fromOk = false, toOk = false, stepOk = false;
        range[0].toDouble(&fromOk);
        range[1].toDouble(&toOk);
        if (range[2].startsWith(QLatin1Char('x'))) {
            const int base = range[2].mid(1).toInt(&stepOk);
            json.insert(QStringLiteral("powersOf"), base);
        } else {
            json.insert(QStringLiteral("step"), range[2].toDouble(&stepOk));
        }
        if (!fromOk || !toOk || !stepOk) {
            failWith(error, QStringLiteral("'%1': a range is FROM:TO:STEP or FROM:TO:xBASE "
                                           "(\"0:64:8\", \"1:1024:x2\")")
                                .arg(text));
            return std::nullopt;
        }
        return fromJson(json, QStringLiteral("'%1'").arg(text), error);
    }
    if (range.size() != 1) {
        failWith(error, QStringLiteral("'%1': a range is FROM:TO:STEP or FROM:TO:xBASE").arg(text));
        return std::nullopt;
    }
    QJsonArray list;
    for (const QString& part : trimmed.split(QLatin1Char(','))) {
        bool ok = false;
        const double v = part.trimmed().toDouble(&ok);
        if (!ok || !std::isfinite(v)) {
            failWith(error, QStringLiteral("'%1': '%2' is not a number (values are \"1,2,4\", "
                                           "\"0:64:8\" or \"1:1024:x2\")")
                                .arg(text, part));
            return std::nullopt;
        }
        list.append(v);
    }
    return fromJson(list, QStringLiteral("'%1'").arg(text), error);
}

QString strategyKindName(SweepStrategySpec::Kind kind) {
    switch (kind) {
    case SweepStrategySpec::Kind::Exhaustive:
        return QStringLiteral("exhaustive");
    case SweepStrategySpec::Kind::Random:
        return QStringLiteral("random");
    case SweepStrategySpec::Kind::Local:
        return QStringLiteral("local");
    }
    return {};
}

std::optional<SweepStrategySpec::Kind> strategyKindFromName(const QString& name) {
    for (auto kind : {SweepStrategySpec::Kind::Exhaustive, SweepStrategySpec::Kind::Random,
                      SweepStrategySpec::Kind::Local})
        if (strategyKindName(kind) == name)
            return kind;
    return std::nullopt;
}

const SweepTunable* SweepSpec::find(const QString& name) const {
    for (const SweepTunable& t : tunables)
        if (t.name == name)
            return &t;
    return nullptr;
}

QStringList SweepSpec::names() const {
    QStringList out;
    for (const SweepTunable& t : tunables)
        out.append(t.name);
    return out;
}

QJsonObject SweepSpec::toJson() const {
    QJsonObject json;
    QJsonObject block, defines, scalars, parameters;
    for (const SweepTunable& t : tunables) {
        switch (t.role) {
        case SweepTunable::Role::Block:
            block.insert(kAxes[t.axis], t.values.toJson());
            break;
        case SweepTunable::Role::Define:
            defines.insert(t.name, t.values.toJson());
            break;
        case SweepTunable::Role::Scalar:
            scalars.insert(t.name, t.values.toJson());
            break;
        case SweepTunable::Role::Parameter:
            parameters.insert(t.name, t.values.toJson());
            break;
        }
    }
    const auto insertNonEmpty = [&json](const char* key, const QJsonObject& value) {
        if (!value.isEmpty())
            json.insert(QLatin1String(key), value);
    };
    insertNonEmpty("block", block);
    insertNonEmpty("defines", defines);
    insertNonEmpty("scalars", scalars);
    insertNonEmpty("parameters", parameters);
    if (grid)
        json.insert(QStringLiteral("grid"), QJsonArray{(*grid)[0], (*grid)[1], (*grid)[2]});
    if (!sharedMemBytes.isEmpty())
        json.insert(QStringLiteral("sharedMemBytes"), sharedMemBytes);
    if (!kernel.isEmpty())
        json.insert(QStringLiteral("kernel"), kernel);
    if (!restrictions.isEmpty())
        json.insert(QStringLiteral("restrictions"), QJsonArray::fromStringList(restrictions));
    QJsonObject strategyJson{{QStringLiteral("kind"), strategyKindName(strategy.kind)}};
    if (strategy.budget > 0)
        strategyJson.insert(QStringLiteral("budget"), strategy.budget);
    if (strategy.kind != SweepStrategySpec::Kind::Exhaustive)
        strategyJson.insert(QStringLiteral("seed"), double(strategy.seed));
    json.insert(QStringLiteral("strategy"), strategyJson);
    json.insert(QStringLiteral("objective"), sweepObjectiveName(objective));
    if (!timingBudget.isAccurate())
        json.insert(QStringLiteral("timingBudget"), timingBudget.toJson());
    return json;
}

namespace {

/// The sweep's "strategy" object (kind, budget, seed); false with the message in the
/// reader's error.
bool readSweepStrategy(const json::FieldReader& fields, SweepStrategySpec* out) {
    QJsonObject strategy;
    if (!fields.readObject(QStringLiteral("strategy"), &strategy))
        return false;
    const json::FieldReader strategyFields = fields.nested(QStringLiteral("strategy"), strategy);
    QString kind = strategyKindName(out->kind);
    qint64 seed = 1;
    if (!strategyFields.readChoice(
            QStringLiteral("kind"),
            {QStringLiteral("exhaustive"), QStringLiteral("random"), QStringLiteral("local")},
            &kind) ||
        !strategyFields.readInt(QStringLiteral("budget"), &out->budget, json::Presence::Optional,
                                {0, 1 << 30}) ||
        !strategyFields.readWholeNumber(QStringLiteral("seed"), &seed, json::Presence::Optional,
                                        {0, kExactDoubleIntegerLimit - 1}))
        return false;
    out->kind = *strategyKindFromName(kind);
    out->seed = quint64(seed);
    return true;
}

/// The sweep's "timingBudget" (SweepBudget.h), left as it is when absent; false with the
/// message in the reader's error.
bool readTimingBudget(const json::FieldReader& fields, SweepTimingBudget* out) {
    const QString key = QStringLiteral("timingBudget");
    if (!fields.has(key))
        return true;
    QString error;
    std::optional<SweepTimingBudget> budget =
        SweepTimingBudget::fromJson(fields.object().value(key), fields.path(key), &error);
    if (!budget)
        return fields.fail(error);
    *out = *budget;
    return true;
}

} // namespace

std::optional<SweepSpec> SweepSpec::fromJson(const QJsonObject& json,
                                             const QVector<ArgumentSpec>& arguments,
                                             QString* error) {
    const QString root = QStringLiteral("sweep");
    const json::FieldReader fields(json, error, root);
    static const QStringList known{QStringLiteral("block"),        QStringLiteral("defines"),
                                   QStringLiteral("scalars"),      QStringLiteral("parameters"),
                                   QStringLiteral("grid"),         QStringLiteral("kernel"),
                                   QStringLiteral("restrictions"), QStringLiteral("sharedMemBytes"),
                                   QStringLiteral("strategy"),     QStringLiteral("objective"),
                                   QStringLiteral("timingBudget")};
    for (auto it = json.begin(); it != json.end(); ++it)
        if (!known.contains(it.key())) {
            fields.fail(QStringLiteral("%1: unknown field (a sweep has %2)")
                            .arg(fields.path(it.key()), known.join(QStringLiteral(", "))));
            return std::nullopt;
        }

    SweepSpec spec;
    const auto addTunable = [&](SweepTunable::Role role, const QString& name, int axis,
                                const QJsonValue& value, const QString& path) {
        if (role != SweepTunable::Role::Block && !isIdentifier(name))
            return fields.fail(QStringLiteral("%1: '%2' is not a name (letters, digits and _, "
                                              "not starting with a digit)")
                                   .arg(path, name));
        if (spec.find(name))
            return fields.fail(QStringLiteral("%1: '%2' is swept twice").arg(path, name));
        std::optional<SweepValues> values = SweepValues::fromJson(value, path, error);
        if (!values)
            return false;
        spec.tunables.append(SweepTunable{role, name, axis, std::move(*values)});
        return true;
    };

    QJsonObject block;
    if (!fields.readObject(QStringLiteral("block"), &block))
        return std::nullopt;
    for (auto it = block.begin(); it != block.end(); ++it) {
        const QString path = json::fieldPath(fields.path(QStringLiteral("block")), it.key());
        const int axis = int(kAxes.indexOf(it.key()));
        if (axis < 0) {
            fields.fail(QStringLiteral("%1: a block has x, y and z").arg(path));
            return std::nullopt;
        }
        if (!addTunable(SweepTunable::Role::Block, kBlockNames[axis], axis, it.value(), path))
            return std::nullopt;
    }
    const std::pair<const char*, SweepTunable::Role> sections[] = {
        {"defines", SweepTunable::Role::Define},
        {"scalars", SweepTunable::Role::Scalar},
        {"parameters", SweepTunable::Role::Parameter}};
    for (const auto& [key, role] : sections) {
        QJsonObject section;
        if (!fields.readObject(QLatin1String(key), &section))
            return std::nullopt;
        for (auto it = section.begin(); it != section.end(); ++it) {
            const QString path = json::fieldPath(fields.path(QLatin1String(key)), it.key());
            if (kBlockNames.contains(it.key())) {
                fields.fail(QStringLiteral("%1: '%2' names a block dimension; sweep it under "
                                           "\"block\"")
                                .arg(path, it.key()));
                return std::nullopt;
            }
            if (role == SweepTunable::Role::Scalar) {
                const auto scalar =
                    std::find_if(arguments.begin(), arguments.end(),
                                 [&](const ArgumentSpec& a) { return a.name == it.key(); });
                if (scalar == arguments.end() || !scalar->isScalar()) {
                    fields.fail(QStringLiteral("%1: the project has no scalar argument '%2'")
                                    .arg(path, it.key()));
                    return std::nullopt;
                }
            }
            if (!addTunable(role, it.key(), 0, it.value(), path))
                return std::nullopt;
        }
    }
    if (spec.tunables.isEmpty()) {
        fields.fail(QStringLiteral("%1: sweeps nothing: give \"block\", \"defines\", \"scalars\" "
                                   "or \"parameters\"")
                        .arg(root));
        return std::nullopt;
    }

    if (fields.has(QStringLiteral("grid"))) {
        QStringList grid;
        if (!fields.readStrings(QStringLiteral("grid"), &grid))
            return std::nullopt;
        if (grid.size() != 3) {
            fields.fail(QStringLiteral("%1: expected 3 formulas (x, y, z), got %2")
                            .arg(fields.path(QStringLiteral("grid")))
                            .arg(grid.size()));
            return std::nullopt;
        }
        spec.grid = std::array<QString, 3>{grid[0], grid[1], grid[2]};
    }
    if (!fields.readString(QStringLiteral("sharedMemBytes"), &spec.sharedMemBytes) ||
        !fields.readString(QStringLiteral("kernel"), &spec.kernel) ||
        !fields.readStrings(QStringLiteral("restrictions"), &spec.restrictions))
        return std::nullopt;

    if (!readSweepStrategy(fields, &spec.strategy))
        return std::nullopt;

    QString objective = QStringLiteral("time");
    QStringList objectives;
    for (SweepObjective o : kSweepObjectives)
        objectives << sweepObjectiveName(o);
    if (!fields.readChoice(QStringLiteral("objective"), objectives, &objective))
        return std::nullopt;
    spec.objective = kSweepObjectives[size_t(objectives.indexOf(objective))];
    if (!readTimingBudget(fields, &spec.timingBudget))
        return std::nullopt;
    return spec;
}

} // namespace kernelpad
