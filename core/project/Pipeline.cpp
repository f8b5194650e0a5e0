#include "core/project/Pipeline.h"

#include "core/compile/KernelTypeCheck.h"
#include "core/io/ControlChars.h"
#include "core/io/JsonFields.h"
#include "core/launch/Packing.h"

#include <QJsonArray>

namespace kernelpad {
namespace {

const QString kSteps = QStringLiteral("steps");
const QString kGraph = QStringLiteral("graph");

/// Puts `path` before a message of LaunchConfig::fromJson ("grid[0]: ..." or "block: ...").
QString under(const QString& path, const QString& inner) {
    return inner.startsWith(QLatin1Char('[')) ? path + inner : path + QLatin1Char('.') + inner;
}

QString argumentNames(const QVector<ArgumentSpec>& arguments) {
    QStringList names;
    for (const ArgumentSpec& a : arguments)
        names << a.name;
    return names.isEmpty() ? QStringLiteral("none") : names.join(QStringLiteral(", "));
}

const ArgumentSpec* findByName(const QVector<ArgumentSpec>& arguments, const QString& name) {
    for (const ArgumentSpec& a : arguments)
        if (a.name == name)
            return &a;
    return nullptr;
}

std::optional<PipelineBinding> readBinding(const QJsonValue& value, const QString& path,
                                           QString* error) {
    PipelineBinding binding;
    if (value.isString()) {
        binding.argument = value.toString();
    } else if (value.isObject()) {
        const json::FieldReader fields(value.toObject(), error, path);
        if (!fields.readString(QStringLiteral("name"), &binding.argument,
                               json::Presence::Required) ||
            !fields.readString(QStringLiteral("value"), &binding.value))
            return std::nullopt;
    } else {
        *error = json::typeError(path, QStringLiteral("an argument name or an object"), value);
        return std::nullopt;
    }
    if (binding.argument.isEmpty()) {
        *error = QStringLiteral("%1: must name an argument of the project").arg(path);
        return std::nullopt;
    }
    return binding;
}

std::optional<BufferSwap> readSwap(const QJsonValue& value, const QString& path, QString* error) {
    const QJsonArray pair = value.toArray();
    if (!value.isArray() || pair.size() != 2 || !pair[0].isString() || !pair[1].isString()) {
        *error = json::typeError(path, QStringLiteral("a pair of buffer names"), value);
        return std::nullopt;
    }
    return BufferSwap{pair[0].toString(), pair[1].toString()};
}

} // namespace

QJsonValue PipelineBinding::toJson() const {
    if (!value)
        return argument;
    return QJsonObject{{QStringLiteral("name"), argument}, {QStringLiteral("value"), *value}};
}

QString PipelineStep::label() const {
    const auto dims = [](const std::array<int, 3>& d) {
        return QStringLiteral("(%1,%2,%3)").arg(d[0]).arg(d[1]).arg(d[2]);
    };
    return QStringLiteral("%1 <<<%2, %3>>> x%4")
        .arg(kernel, dims(launch.grid), dims(launch.block))
        .arg(repeat);
}

QJsonObject PipelineStep::toJson() const {
    QJsonArray bindings;
    for (const PipelineBinding& b : args)
        bindings.append(b.toJson());
    QJsonObject json{{QStringLiteral("kernel"), kernel},
                     {QStringLiteral("launch"), launch.toJson()},
                     {QStringLiteral("args"), bindings},
                     {QStringLiteral("repeat"), repeat}};
    if (!swaps.isEmpty()) {
        QJsonArray pairs;
        for (const BufferSwap& s : swaps)
            pairs.append(QJsonArray{s.first, s.second});
        json.insert(QStringLiteral("swap"), pairs);
    }
    return json;
}

std::optional<PipelineStep> PipelineStep::fromJson(const QJsonObject& json, const QString& path,
                                                   QString* error) {
    const json::FieldReader fields(json, error, path);
    PipelineStep step;
    if (!fields.readString(QStringLiteral("kernel"), &step.kernel, json::Presence::Required) ||
        !fields.readInt(QStringLiteral("repeat"), &step.repeat, json::Presence::Optional,
                        {1, kMaxRepeat}))
        return std::nullopt;
    const QString kernelPath = fields.path(QStringLiteral("kernel"));
    QString problem = controlCharacterError(kernelPath, step.kernel);
    if (problem.isEmpty() && step.kernel.trimmed().isEmpty())
        problem = kernelPath + QStringLiteral(": must name the kernel to launch");
    if (!problem.isEmpty()) {
        fields.fail(problem);
        return std::nullopt;
    }

    QJsonObject launch;
    if (!fields.readObject(QStringLiteral("launch"), &launch, json::Presence::Required))
        return std::nullopt;
    QString message;
    std::optional<LaunchConfig> config = LaunchConfig::fromJson(launch, &message);
    if (!config) {
        fields.fail(under(fields.path(QStringLiteral("launch")), message));
        return std::nullopt;
    }
    if (config->hasCluster() || config->cooperative) {
        fields.fail(QStringLiteral("%1: a pipeline step is a plain launch; clusters and "
                                   "cooperative launches run as the project's single launch")
                        .arg(fields.path(QStringLiteral("launch")) +
                             (config->cooperative ? QStringLiteral(".cooperative")
                                                  : QStringLiteral(".cluster"))));
        return std::nullopt;
    }
    step.launch = *config;

    QJsonArray bindings;
    if (!fields.readArray(QStringLiteral("args"), &bindings))
        return std::nullopt;
    for (qsizetype i = 0; i < bindings.size(); ++i) {
        std::optional<PipelineBinding> b =
            readBinding(bindings[i], json::indexPath(fields.path(QStringLiteral("args")), i),
                        error ? error : &message);
        if (!b)
            return std::nullopt;
        step.args.append(std::move(*b));
    }
    QJsonArray swaps;
    if (!fields.readArray(QStringLiteral("swap"), &swaps))
        return std::nullopt;
    for (qsizetype i = 0; i < swaps.size(); ++i) {
        std::optional<BufferSwap> s =
            readSwap(swaps[i], json::indexPath(fields.path(QStringLiteral("swap")), i),
                     error ? error : &message);
        if (!s)
            return std::nullopt;
        step.swaps.append(std::move(*s));
    }
    return step;
}

qint64 Pipeline::launchCount() const {
    qint64 count = 0;
    for (const PipelineStep& s : steps)
        count += s.repeat;
    return count;
}

QStringList Pipeline::kernelNames() const {
    QStringList names;
    for (const PipelineStep& s : steps)
        if (!names.contains(s.kernel))
            names << s.kernel;
    return names;
}

QJsonObject Pipeline::toJson() const {
    QJsonArray array;
    for (const PipelineStep& s : steps)
        array.append(s.toJson());
    return QJsonObject{{kGraph, graph}, {kSteps, array}};
}

std::optional<Pipeline> Pipeline::fromJson(const QJsonObject& json,
                                           const QVector<ArgumentSpec>& arguments, QString* error) {
    QString message;
    QString* out = error ? error : &message;
    const json::FieldReader fields(json, out, QStringLiteral("pipeline"));
    Pipeline pipeline;
    QJsonArray steps;
    if (!fields.readBool(kGraph, &pipeline.graph) ||
        !fields.readArray(kSteps, &steps, json::Presence::Required))
        return std::nullopt;
    for (qsizetype i = 0; i < steps.size(); ++i) {
        const QString path = json::indexPath(fields.path(kSteps), i);
        if (!steps[i].isObject()) {
            *out = json::typeError(path, QStringLiteral("an object"), steps[i]);
            return std::nullopt;
        }
        std::optional<PipelineStep> step = PipelineStep::fromJson(steps[i].toObject(), path, out);
        if (!step)
            return std::nullopt;
        pipeline.steps.append(std::move(*step));
    }
    if (pipeline.steps.isEmpty() && pipeline.graph) {
        *out = fields.path(kSteps) + QStringLiteral(": a graph needs at least one step");
        return std::nullopt;
    }
    if (QString problem = pipeline.problemWith(arguments); !problem.isEmpty()) {
        *out = problem;
        return std::nullopt;
    }
    return pipeline;
}

QString Pipeline::problemWith(const QVector<ArgumentSpec>& arguments) const {
    for (int s = 0; s < steps.size(); ++s) {
        const PipelineStep& step = steps[s];
        const QString stepPath = QStringLiteral("pipeline.steps[%1]").arg(s);
        for (int i = 0; i < step.args.size(); ++i) {
            const PipelineBinding& b = step.args[i];
            const QString path = QStringLiteral("%1.args[%2]").arg(stepPath).arg(i);
            const ArgumentSpec* arg = findByName(arguments, b.argument);
            if (!arg)
                return QStringLiteral("%1: no argument named '%2' in the project (it has: %3)")
                    .arg(path, b.argument, argumentNames(arguments));
            if (!b.value)
                continue;
            if (!arg->isScalar())
                return QStringLiteral("%1.value: '%2' is not a scalar; only a scalar argument "
                                      "takes a value of the step's own")
                    .arg(path, b.argument);
            QString why;
            if (!packValue(arg->type, *b.value, &why))
                return QStringLiteral("%1.value: %2").arg(path, why);
        }
        for (int i = 0; i < step.swaps.size(); ++i) {
            const auto& [first, second] = step.swaps[i];
            const QString path = QStringLiteral("%1.swap[%2]").arg(stepPath).arg(i);
            for (const QString& name : {first, second}) {
                const ArgumentSpec* arg = findByName(arguments, name);
                if (!arg)
                    return QStringLiteral("%1: no argument named '%2' in the project (it has: %3)")
                        .arg(path, name, argumentNames(arguments));
                if (!arg->isBuffer())
                    return QStringLiteral("%1: '%2' is not a buffer; only buffers can be swapped")
                        .arg(path, name);
            }
            if (first == second)
                return QStringLiteral("%1: swaps '%2' with itself").arg(path, first);
            const ArgumentSpec* a = findByName(arguments, first);
            const ArgumentSpec* b = findByName(arguments, second);
            if (a->buffer.elementType.toJson() != b->buffer.elementType.toJson() ||
                a->buffer.count != b->buffer.count)
                return QStringLiteral("%1: '%2' (%3 x %4) and '%5' (%6 x %7) differ; swapped "
                                      "buffers must have the same type and count")
                    .arg(path, first, a->buffer.count, a->buffer.elementType.displayName(), second,
                         b->buffer.count, b->buffer.elementType.displayName());
        }
    }
    return {};
}

QString Pipeline::problemWithCompiled(const QVector<ArgumentSpec>& arguments,
                                      const CompileResult& compiled) const {
    // A binding the project cannot satisfy is named as such, not as a parameter count.
    if (QString problem = problemWith(arguments); !problem.isEmpty())
        return problem;
    for (int s = 0; s < steps.size(); ++s) {
        const PipelineStep& step = steps[s];
        const QString path = QStringLiteral("pipeline.steps[%1].kernel").arg(s);
        const QString lowered = compiled.loweredName(step.kernel);
        if (lowered.isEmpty()) {
            QStringList names;
            for (const KernelInfo& k : compiled.kernels)
                names << k.name;
            return QStringLiteral("%1: kernel '%2' is not in the compiled module; it has: %3")
                .arg(path, step.kernel,
                     names.isEmpty() ? QStringLiteral("none") : names.join(QStringLiteral(", ")));
        }
        const KernelInfo* info = compiled.findKernel(lowered);
        if (!info)
            continue;
        const QVector<ArgumentSpec> bound = stepArguments(s, arguments);
        if (bound.size() != info->params.size())
            return QStringLiteral("pipeline.steps[%1].args: kernel '%2' takes %3 parameter(s) "
                                  "but the step binds %4")
                .arg(s)
                .arg(step.kernel)
                .arg(info->params.size())
                .arg(bound.size());
        for (const ArgumentTypeMismatch& m : argumentTypeMismatches(bound, *info)) {
            const ArgumentSpec& arg = bound[m.index];
            if (m.takesPointer == arg.isBuffer())
                continue; // only a wrong kind stops the run; a wrong element type is a warning
            return QStringLiteral("pipeline.steps[%1].args[%2]: '%3' is %4 but parameter %5 of "
                                  "kernel '%6' is %7")
                .arg(s)
                .arg(m.index)
                .arg(arg.name,
                     arg.isBuffer() ? QStringLiteral("a buffer") : QStringLiteral("a scalar"))
                .arg(m.index + 1)
                .arg(step.kernel, m.parameterType);
        }
    }
    return {};
}

QVector<ArgumentSpec> Pipeline::stepArguments(int index,
                                              const QVector<ArgumentSpec>& arguments) const {
    QVector<ArgumentSpec> bound;
    for (const PipelineBinding& b : steps.at(index).args) {
        const ArgumentSpec* arg = findByName(arguments, b.argument);
        if (!arg)
            continue;
        ArgumentSpec spec = *arg;
        if (b.value)
            spec.value = *b.value;
        bound.append(std::move(spec));
    }
    return bound;
}

} // namespace kernelpad
