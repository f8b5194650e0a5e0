#include "core/run/RunVerification.h"

#include "core/cuda/CudaError.h"
#include "core/launch/Npy.h"
#include "core/launch/Packing.h"
#include "core/run/Verify.h"

#include <QDir>

namespace kernelpad {
namespace {

QString loweredName(const CompileResult& compiled, const QString& name)
{
    for (const auto& [expression, lowered] : compiled.loweredNames)
        if (expression == name)
            return lowered;
    if (const KernelInfo* k = compiled.findKernel(name))
        return k->lowered;
    return {};
}

BufferVerification failedCheck(const RunBuffer& b, const QString& method, const QString& error)
{
    BufferVerification v;
    v.buffer = b.name;
    v.method = method;
    v.passed = false;
    v.error = error;
    return v;
}

} // namespace

QHash<QString, QByteArray> RunVerifier::runReference(const QString& referenceKernel,
                                                     const std::vector<RunBuffer>& buffers, QString* error)
{
    const QString lowered = loweredName(compiled, referenceKernel);
    if (lowered.isEmpty()) {
        *error = QStringLiteral("reference kernel '%1' is not in the compiled module").arg(referenceKernel);
        return {};
    }
    const Kernel reference = module.kernel(lowered, referenceKernel);
    const QString mismatch = checkAgainstParams(project.arguments, reference.paramLayouts(), referenceKernel);
    if (!mismatch.isEmpty()) {
        *error = QStringLiteral("the reference kernel must take the same arguments: %1").arg(mismatch);
        return {};
    }
    // Fresh copies: the kernel under test may have changed its inout buffers.
    std::vector<RunBuffer> copies;
    for (const RunBuffer& b : buffers) {
        RunBuffer c;
        c.argIndex = b.argIndex;
        c.name = b.name;
        c.type = b.type;
        c.count = b.count;
        c.bytes = b.bytes;
        c.direction = b.direction;
        c.initial = b.initial; // implicitly shared, not copied
        copies.push_back(std::move(c));
    }
    uploadBuffers(copies, stream, QStringLiteral("reference "));
    std::optional<PackedArgs> packed =
        PackedArgs::pack(project.arguments, bufferAddresses(copies, project.arguments.size()), error);
    if (!packed)
        return {};
    reference.launch(project.launch, stream, packed->kernelParams());
    stream.synchronize(QStringLiteral("running reference kernel '%1'").arg(referenceKernel));
    QHash<QString, QByteArray> outputs;
    for (const RunBuffer& c : copies) {
        if (c.direction == Direction::In)
            continue;
        QByteArray host;
        host.resize(qsizetype(c.bytes));
        c.device.downloadAsync(host.data(), c.bytes, stream);
        outputs.insert(c.name, host);
    }
    stream.synchronize(QStringLiteral("copying outputs of reference kernel '%1'").arg(referenceKernel));
    return outputs;
}

QVector<BufferVerification> RunVerifier::verify(const std::vector<RunBuffer>& buffers,
                                                const QHash<QString, QByteArray>& outputs)
{
    QVector<BufferVerification> reports;
    QHash<QString, double> scalars;
    QHash<QString, ExpressionInput> inputs;
    bool expressionInputsReady = false;
    for (const RunBuffer& b : buffers) {
        const VerifySpec& spec = b.verify;
        if (spec.kind == VerifySpec::Kind::None)
            continue;
        if (b.direction == Direction::In) {
            reports.push_back(failedCheck(b, QStringLiteral("none"),
                                          QStringLiteral("'%1' is an input buffer: only out and inout buffers can be verified").arg(b.name)));
            continue;
        }
        const QByteArray got = outputs.value(b.name);
        QString method;
        QString error;
        QByteArray expected;
        switch (spec.kind) {
        case VerifySpec::Kind::Reference: {
            method = QStringLiteral("reference kernel %1").arg(spec.referenceKernel);
            if (!m_referenceOutputs.contains(spec.referenceKernel) && !m_referenceErrors.contains(spec.referenceKernel)) {
                QString why;
                QHash<QString, QByteArray> out = runReference(spec.referenceKernel, buffers, &why);
                if (why.isEmpty())
                    m_referenceOutputs.insert(spec.referenceKernel, out);
                else
                    m_referenceErrors.insert(spec.referenceKernel, why);
            }
            error = m_referenceErrors.value(spec.referenceKernel);
            expected = m_referenceOutputs.value(spec.referenceKernel).value(b.name);
            break;
        }
        case VerifySpec::Kind::Expression: {
            method = QStringLiteral("expression %1").arg(spec.expression);
            if (b.type.isStruct()) {
                error = QStringLiteral("expressions can only check buffers of scalar types");
                break;
            }
            if (!expressionInputsReady) {
                scalars = scalarValues(project.arguments);
                for (const RunBuffer& in : buffers)
                    if (!in.initial.isEmpty() && !in.type.isStruct())
                        inputs.insert(in.name, ExpressionInput{in.type, &in.initial, in.count});
                expressionInputsReady = true;
            }
            const std::optional<QVector<double>> values =
                evaluateExpression(spec.expression, b.count, scalars, inputs, &error);
            if (values)
                expected = doublesToBytes(b.type, *values);
            break;
        }
        case VerifySpec::Kind::File: {
            method = QStringLiteral("file %1").arg(spec.path);
            const QString path = QDir(projectDir).absoluteFilePath(spec.path);
            std::optional<NpyArray> npy = readNpy(path, &error);
            if (!npy)
                break;
            if (npy->type != b.type)
                error = QStringLiteral("%1 holds %2 values but buffer '%3' is %4")
                            .arg(spec.path, npy->type.displayName(), b.name, b.type.displayName());
            else if (npy->elementCount() != b.count)
                error = QStringLiteral("%1 holds %2 values but buffer '%3' has %4")
                            .arg(spec.path).arg(npy->elementCount()).arg(b.name).arg(b.count);
            else
                expected = npy->data;
            break;
        }
        case VerifySpec::Kind::None:
            break;
        }
        if (!error.isEmpty()) {
            reports.push_back(failedCheck(b, method, error));
            continue;
        }
        BufferVerification v = compareBuffers(b.type, got, expected, b.count, spec.atol, spec.rtol);
        v.buffer = b.name;
        v.method = method;
        reports.push_back(v);
    }
    return reports;
}

} // namespace kernelpad
