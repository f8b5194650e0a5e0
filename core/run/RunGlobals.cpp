#include "core/run/RunGlobals.h"

#include "core/cuda/CudaError.h"
#include "core/cuda/DriverApi.h"
#include "core/launch/BufferInit.h"
#include "core/launch/Npy.h"
#include "core/verify/Verify.h"

#include <QDir>

#include <algorithm>

namespace kernelpad {
namespace {

QString moduleGlobalList(const CompileResult& compiled) {
    QStringList names;
    for (const ModuleGlobal& g : compiled.globals)
        names << QStringLiteral("%1 (%2, %3 bytes)")
                     .arg(g.name, describeModuleGlobal(g))
                     .arg(g.sizeBytes);
    return names.isEmpty() ? QStringLiteral("none") : names.join(QStringLiteral(", "));
}

QString sizeText(qint64 count, const ValueType& type) {
    return QStringLiteral("%1 × %2 = %3 bytes")
        .arg(count)
        .arg(type.displayName())
        .arg(count * type.sizeBytes());
}

BufferVerification failed(const RunGlobal& g, const QString& method, const QString& error) {
    BufferVerification v;
    v.buffer = g.name;
    v.method = method;
    v.error = error;
    v.global = true;
    return v;
}

} // namespace

QString describeModuleGlobal(const ModuleGlobal& global) {
    QString type = global.sourceType;
    if (type.isEmpty()) // the PTX's own words: ".b8[36]" for an array or a struct
        type = global.ptxCount > 1
                   ? QStringLiteral("%1[%2]").arg(global.ptxType).arg(global.ptxCount)
                   : global.ptxType;
    return QStringLiteral("%1 %2").arg(global.spaceKeyword(), type);
}

std::optional<std::vector<RunGlobal>> prepareGlobals(const Project& project, const QString& baseDir,
                                                     const CompileResult& compiled,
                                                     QString* error) {
    std::vector<RunGlobal> globals;
    for (qsizetype i = 0; i < project.globals.size(); ++i) {
        const GlobalSpec& spec = project.globals[i];
        const QString where = QStringLiteral("globals[%1] '%2'").arg(i).arg(spec.name);
        const auto fail = [&](const QString& message) -> std::optional<std::vector<RunGlobal>> {
            *error = QStringLiteral("%1: %2").arg(where, message);
            return std::nullopt;
        };
        if (QString bad = spec.problem(); !bad.isEmpty())
            return fail(bad);
        const ModuleGlobal* found = compiled.findGlobal(spec.name);
        if (!found)
            return fail(QStringLiteral("the module has no __constant__ or __device__ variable of "
                                       "that name; it has: %1")
                            .arg(moduleGlobalList(compiled)));
        QString why;
        const std::optional<qint64> count = resolveCount(spec.value.count, project.arguments, &why);
        if (!count)
            return fail(QStringLiteral("count: %1").arg(why));
        RunGlobal g;
        g.name = spec.name;
        g.lowered = found->lowered;
        g.space = found->space;
        g.type = spec.value.elementType;
        g.count = *count;
        g.bytes = *count * g.type.sizeBytes();
        g.direction = spec.value.direction;
        g.verify = spec.value.verify;
        if (found->sizeBytes > 0 && g.bytes != found->sizeBytes)
            return fail(QStringLiteral("the project gives %1, but the module's %2 is %3 bytes")
                            .arg(sizeText(g.count, g.type), describeModuleGlobal(*found))
                            .arg(found->sizeBytes));
        if (g.direction == Direction::Out) {
            g.initial = QByteArray(qsizetype(g.bytes), char(kPoisonByte));
        } else {
            std::optional<QByteArray> contents =
                makeBufferContents(spec.value, g.count, baseDir, &why);
            if (!contents)
                return fail(QStringLiteral("init: %1").arg(why));
            g.initial = std::move(*contents);
        }
        globals.push_back(std::move(g));
    }
    return globals;
}

QString bindGlobals(std::vector<RunGlobal>& globals, const Module& module) {
    for (RunGlobal& g : globals) {
        size_t bytes = 0;
        if (!module.global(g.lowered, &g.address, &bytes))
            return QStringLiteral("global '%1': the loaded module has no symbol '%2'")
                .arg(g.name, g.lowered);
        if (qint64(bytes) != g.bytes)
            return QStringLiteral("global '%1': the project gives %2, but the driver reports %3 "
                                  "bytes for it")
                .arg(g.name, sizeText(g.count, g.type))
                .arg(bytes);
    }
    return {};
}

void writeGlobals(const std::vector<RunGlobal>& globals, const Stream& stream) {
    // On the run's stream rather than with the synchronous cuMemcpyHtoD: that one is ordered
    // on the legacy default stream, not on the non-blocking stream the kernel runs on, and it
    // may return before a pageable copy has reached the device (CUDA Driver API, "API
    // synchronization behavior").
    const DriverApi& api = DriverApi::get();
    for (const RunGlobal& g : globals)
        check(api.cuMemcpyHtoDAsync(g.address, g.initial.constData(), size_t(g.bytes),
                                    stream.handle()),
              QStringLiteral("writing global '%1'").arg(g.name));
}

void readGlobals(const std::vector<RunGlobal>& globals, const Stream& stream,
                 QHash<QString, QByteArray>* outputs) {
    const DriverApi& api = DriverApi::get();
    for (const RunGlobal& g : globals) {
        if (g.direction == Direction::In)
            continue;
        QByteArray& host = (*outputs)[g.name];
        host = QByteArray(qsizetype(g.bytes), Qt::Uninitialized);
        check(api.cuMemcpyDtoHAsync(host.data(), g.address, size_t(g.bytes), stream.handle()),
              QStringLiteral("reading global '%1'").arg(g.name));
    }
}

QVector<BufferVerification> verifyGlobals(const std::vector<RunGlobal>& globals,
                                          const QHash<QString, QByteArray>& outputs,
                                          const Project& project,
                                          const std::vector<RunBuffer>& buffers,
                                          const QString& baseDir) {
    QVector<BufferVerification> reports;
    // The inputs' host contents can take a while to make (the GPU generated them): only a
    // global with a check needs them.
    if (std::none_of(globals.begin(), globals.end(),
                     [](const RunGlobal& g) { return g.verify.kind != VerifySpec::Kind::None; }))
        return reports;
    const QHash<QString, double> scalars = scalarValues(project.arguments);
    QHash<QString, ExpressionInput> inputs;
    for (const RunBuffer& b : buffers)
        if (b.hasInitialContents() && !b.type.isStruct())
            inputs.insert(b.name, ExpressionInput{b.type, &b.hostContents(), b.count});
    for (const RunGlobal& g : globals)
        if (g.direction != Direction::Out && !g.type.isStruct())
            inputs.insert(g.name, ExpressionInput{g.type, &g.initial, g.count});

    for (const RunGlobal& g : globals) {
        const VerifySpec& spec = g.verify;
        if (spec.kind == VerifySpec::Kind::None)
            continue;
        if (g.direction == Direction::In) {
            reports.push_back(failed(g, QStringLiteral("none"),
                                     QStringLiteral("global '%1' is an input: only out and inout "
                                                    "globals can be verified")
                                         .arg(g.name)));
            continue;
        }
        QString method;
        QString error;
        QByteArray expected;
        if (spec.kind == VerifySpec::Kind::Expression) {
            method = QStringLiteral("expression %1").arg(spec.expression);
            if (g.type.isStruct()) {
                error = QStringLiteral("expressions can only check globals of scalar types");
            } else if (std::optional<QVector<double>> values =
                           evaluateExpression(spec.expression, g.count, scalars, inputs, &error)) {
                expected = doublesToBytes(g.type, *values);
            }
        } else if (spec.kind == VerifySpec::Kind::File) {
            method = QStringLiteral("file %1").arg(spec.path);
            const QString path = QDir(baseDir).absoluteFilePath(spec.path);
            std::optional<NpyArray> npy = readNpy(
                path, NpyExpectation{g.count, g.type, QStringLiteral("global '%1'").arg(g.name)},
                &error);
            if (npy && (npy->type != g.type || npy->elementCount() != g.count))
                error = QStringLiteral("%1 holds %2 × %3 but global '%4' is %5 × %6")
                            .arg(spec.path)
                            .arg(npy->elementCount())
                            .arg(npy->type.displayName(), g.name)
                            .arg(g.count)
                            .arg(g.type.displayName());
            else if (npy)
                expected = npy->data;
        } else {
            error = QStringLiteral("a reference kernel cannot check a global");
        }
        if (!error.isEmpty()) {
            reports.push_back(failed(g, method, error));
            continue;
        }
        BufferVerification v = compareBuffers(g.type, outputs.value(g.name), expected, g.count,
                                              spec.atol, spec.rtol, spec.ulp, spec.nan);
        v.buffer = g.name;
        v.method = method;
        v.global = true;
        reports.push_back(v);
    }
    return reports;
}

} // namespace kernelpad
