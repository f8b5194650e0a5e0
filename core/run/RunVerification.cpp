#include "core/run/RunVerification.h"

#include "core/cuda/CudaError.h"
#include "core/io/Trace.h"
#include "core/launch/Npy.h"
#include "core/launch/Packing.h"
#include "core/run/DeviceInit.h"
#include "core/run/RunTensorMaps.h"
#include "core/verify/CheckAdvice.h"
#include "core/verify/Verify.h"

#include <QDir>

#include <algorithm>

namespace kernelpad {
namespace {

BufferVerification failedVerification(const RunBuffer& b, const QString& method,
                                      const QString& error) {
    BufferVerification v;
    v.buffer = b.name;
    v.method = method;
    v.passed = false;
    v.error = error;
    return v;
}

} // namespace

QByteArray expressionKey(const QString& expression, const RunBuffer& output,
                         const QHash<QString, double>& scalars,
                         const std::vector<RunBuffer>& buffers) {
    QByteArray key = expression.toUtf8();
    key += '\n' + output.key.type + '\n' + QByteArray::number(output.count);
    QStringList names = scalars.keys();
    names.sort();
    for (const QString& name : names)
        key += '\n' + name.toUtf8() + '=' + QByteArray::number(scalars.value(name), 'g', 17);
    for (const RunBuffer& b : buffers) {
        if (!b.hasInitialContents())
            continue;
        const BufferContentKey& k = b.key;
        key += '\n' + k.name.toUtf8() + ' ' + k.type + ' ' + QByteArray::number(k.count) + ' ' +
               QByteArray::number(int(k.direction)) + ' ' + k.init + ' ' +
               QByteArray::number(k.fileBytes) + ' ' + QByteArray::number(k.fileModifiedMs);
        // A file that cannot be stamped cannot be trusted to be unchanged.
        if (k.fromFile && (k.fileBytes < 0 || k.fileModifiedMs < 0))
            return {};
    }
    return key;
}

bool RunVerifier::verifiesOnGpu(const RunBuffer& b) const {
    if (!comparer || b.direction == Direction::In || b.count <= kGpuVerifyMinElements ||
        !GpuComparer::supports(b.type))
        return false;
    return b.verify.kind == VerifySpec::Kind::Reference ||
           (b.verify.kind == VerifySpec::Kind::Expression && m_expected);
}

std::optional<BufferVerification>
RunVerifier::compareOnGpu(const RunBuffer& b, const DeviceBuffer& expected, const QString& method) {
    BufferVerification v =
        comparer->compare(b.device, expected, b.type, b.count, b.verify.atol, b.verify.rtol,
                          b.verify.ulp, stream, arch, b.verify.nan);
    // An error means the comparison kernel could not be used (it did not compile): the host
    // path gives the same report, only slower.
    tracePhase("compared on the GPU");
    if (!v.error.isEmpty())
        return std::nullopt;
    v.buffer = b.name;
    v.method = method + QStringLiteral(", compared on the GPU");
    if (v.passed)
        v.warnings = gpuPassWarnings(b, expected);
    return v;
}

QStringList RunVerifier::gpuPassWarnings(const RunBuffer& b, const DeviceBuffer& expected) const {
    // A prefix first: a check that zeros fail almost always fails on its first elements, so
    // the whole expected buffer crosses to the host only when the prefix would pass.
    const Tolerance tolerance{b.verify.atol, b.verify.rtol, b.verify.ulp};
    const qint64 elementBytes = b.type.sizeBytes();
    const QByteArray* initial = b.direction == Direction::InOut ? &b.hostContents() : nullptr;
    const auto fetch = [&](qint64 count) {
        QByteArray host(qsizetype(count * elementBytes), Qt::Uninitialized);
        expected.downloadAsync(host.data(), host.size(), stream);
        stream.synchronize(QStringLiteral("copying the expected values of '%1'").arg(b.name));
        return host;
    };
    const qint64 probe = std::min(b.count, kWarningProbeElements);
    const QByteArray head = fetch(probe);
    tracePhase("pass warnings: expected values' prefix fetched");
    const QByteArray initialHead =
        initial ? QByteArray::fromRawData(initial->constData(),
                                          qsizetype(std::min<qint64>(initial->size(), head.size())))
                : QByteArray();
    if (passWarnings(b.name, b.type, head, probe, tolerance, &initialHead).isEmpty())
        return {};
    return passWarnings(b.name, b.type, probe == b.count ? head : fetch(b.count), b.count,
                        tolerance, initial);
}

ExpectedValues* RunVerifier::expectedFor(const RunBuffer& b, const std::vector<RunBuffer>& buffers,
                                         const QHash<QString, double>& scalars,
                                         const QHash<QString, ExpressionInput>& inputs,
                                         ExpectedValues* scratch, bool* reused, QString* error) {
    const QByteArray key = expressionKey(b.verify.expression, b, scalars, buffers);
    *reused = false;
    ExpectedValues* slot = scratch;
    if (m_expected && !key.isEmpty()) {
        ExpectedValues& kept = (*m_expected)[b.name];
        if (kept.key == key && kept.host.size() == b.bytes) {
            *reused = true;
            return &kept;
        }
        slot = &kept;
    }
    slot->key.clear(); // invalid until the evaluation succeeds
    slot->device = DeviceBuffer();
    const std::optional<QVector<double>> values =
        evaluateExpression(b.verify.expression, b.count, scalars, inputs, error);
    if (!values) {
        slot->host.clear();
        return nullptr;
    }
    slot->host = doublesToBytes(b.type, *values);
    slot->key = key;
    return slot;
}

std::optional<BufferVerification>
RunVerifier::verifyExpressionOnGpu(const RunBuffer& b, const std::vector<RunBuffer>& buffers,
                                   const QHash<QString, double>& scalars, const QString& method) {
    const QByteArray key = expressionKey(b.verify.expression, b, scalars, buffers);
    if (key.isEmpty())
        return std::nullopt;
    ExpectedValues& kept = (*m_expected)[b.name];
    const bool reused = kept.key == key && kept.device.sizeBytes() == b.bytes;
    // Inputs as the host path sees them: buffers with initial contents, of scalar types.
    QHash<QString, ScalarType> inputTypes;
    for (const RunBuffer& in : buffers)
        if (in.hasInitialContents() && !in.type.isStruct())
            inputTypes.insert(in.name, in.type.scalar);
    std::vector<DeviceBuffer> initialCopies; // alive until the comparison synchronises
    if (!reused) {
        const QString indexName = QStringLiteral("i");
        QString why;
        const std::optional<ExpressionKernelSource> kernel = translateExpression(
            b.verify.expression, b.type.scalar, inputTypes, scalars.keys(),
            !scalars.contains(indexName) && !inputTypes.contains(indexName), &why);
        if (!kernel)
            return std::nullopt;
        QVector<CUdeviceptr> pointers;
        for (const QString& name : kernel->buffers) {
            const auto in = std::find_if(buffers.begin(), buffers.end(),
                                         [&](const RunBuffer& c) { return c.name == name; });
            // A shorter input is an error the host words.
            if (in == buffers.end() || in->count < b.count)
                return std::nullopt;
            if (in->direction == Direction::In) {
                // Neither kernel writes an "in" buffer (as for reference kernels): its device
                // copy still holds the initial contents.
                pointers << in->device.address();
                continue;
            }
            // The launch changed this buffer; the expression reads its initial contents.
            initialCopies.emplace_back(
                in->bytes, QStringLiteral("the initial contents of '%1'").arg(in->name));
            if (in->initial.isEmpty() && in->deviceGenerated && deviceInit && deviceInit->ready())
                deviceInit->generate(*in->deviceGenerated, in->count, initialCopies.back(), stream);
            else
                initialCopies.back().uploadAsync(in->hostContents().constData(), in->bytes, stream);
            pointers << initialCopies.back().address();
        }
        QVector<double> values;
        for (const QString& name : kernel->scalars)
            values << scalars.value(name);
        kept.key.clear();
        kept.host.clear();
        if (kept.device.sizeBytes() != b.bytes)
            kept.device =
                DeviceBuffer(b.bytes, QStringLiteral("the expected values of '%1'").arg(b.name));
        if (!expressionEvaluator->evaluate(*kernel, b.type.scalar, kept.device, b.count, pointers,
                                           values, stream, arch, &why)) {
            kept.device = DeviceBuffer();
            return std::nullopt;
        }
        kept.key = key;
    }
    return compareOnGpu(b, kept.device,
                        method + (reused
                                      ? QStringLiteral(" (expected values kept from the "
                                                       "previous run)")
                                      : QStringLiteral(" (expected values computed on the GPU)")));
}

RunVerifier::ReferenceRun RunVerifier::runReference(const QString& referenceKernel,
                                                    const std::vector<RunBuffer>& buffers) {
    ReferenceRun run;
    const QString lowered = compiled.loweredName(referenceKernel);
    if (lowered.isEmpty()) {
        run.error = QStringLiteral("reference kernel '%1' is not in the compiled module")
                        .arg(referenceKernel);
        return run;
    }
    const Kernel reference = module.kernel(lowered, referenceKernel);
    const QString mismatch =
        checkAgainstParams(project.arguments, reference.paramLayouts(), referenceKernel);
    if (!mismatch.isEmpty()) {
        run.error =
            QStringLiteral("the reference kernel must take the same arguments: %1").arg(mismatch);
        return run;
    }
    // Fresh copies of out/inout buffers: the kernel under test may have changed them. "in"
    // buffers are shared: neither kernel writes them, and sharing saves an upload of each.
    for (const RunBuffer& b : buffers) {
        if (b.direction == Direction::In)
            continue;
        RunBuffer c;
        c.argIndex = b.argIndex;
        c.name = b.name;
        c.type = b.type;
        c.count = b.count;
        c.bytes = b.bytes;
        c.direction = b.direction;
        c.initial = b.initial; // implicitly shared, not copied
        if (referenceOutputs) {
            // An earlier run's copy of this buffer, the same size: its allocation, filled anew.
            const auto kept = std::find_if(
                referenceOutputs->begin(), referenceOutputs->end(), [&](const RunBuffer& k) {
                    return k.name == c.name && k.device.sizeBytes() == c.bytes;
                });
            if (kept != referenceOutputs->end()) {
                c.device = std::move(kept->device);
                c.reuse = BufferReuse::Memory;
                referenceOutputs->erase(kept);
            }
        }
        run.outputs.push_back(std::move(c));
    }
    uploadBuffers(run.outputs, stream, QStringLiteral("reference "));
    tracePhase("reference: outputs allocated and uploaded");
    QVector<quint64> addresses = bufferAddresses(buffers, project.arguments.size());
    for (const RunBuffer& c : run.outputs)
        addresses[c.argIndex] = quint64(c.device.address());
    for (int i = 0; i < imageHandles.size() && i < addresses.size(); ++i)
        if (imageHandles[i])
            addresses[i] = imageHandles[i];
    // Tensor maps describe this run's copies of the outputs, so they are encoded again.
    const std::optional<QVector<QByteArray>> maps =
        encodeTensorMaps(project.arguments, addresses, &run.error);
    if (!maps)
        return run;
    std::optional<PackedArgs> packed =
        PackedArgs::pack(project.arguments, addresses, &run.error, *maps);
    if (!packed)
        return run;
    // The reference runs with the kernel's launch, its dynamic shared memory included.
    reference.allowDynamicSharedBytes(project.launch.sharedMemBytes);
    reference.launch(project.launch.dims(), stream, packed->kernelParams());
    stream.synchronize(QStringLiteral("running reference kernel '%1'").arg(referenceKernel));
    tracePhase("reference: kernel ran");
    return run;
}

void RunVerifier::keepReferenceOutputs() {
    if (!referenceOutputs)
        return;
    referenceOutputs->clear();
    for (auto& [name, run] : m_references)
        for (RunBuffer& c : run.outputs)
            if (c.device.address() != 0)
                referenceOutputs->push_back(std::move(c));
    m_references.clear();
}

const RunVerifier::ReferenceRun& RunVerifier::reference(const QString& referenceKernel,
                                                        const std::vector<RunBuffer>& buffers) {
    auto it = m_references.find(referenceKernel);
    if (it == m_references.end())
        it = m_references.emplace(referenceKernel, runReference(referenceKernel, buffers)).first;
    return it->second;
}

namespace {

/// The expected values of `b` from the .npy file its check names (relative to `projectDir`);
/// empty with the reason in `error` when the file does not match the buffer.
QByteArray expectedFromNpyFile(const RunBuffer& b, const QString& projectDir, QString* error) {
    const VerifySpec& spec = b.verify;
    const QString path = QDir(projectDir).absoluteFilePath(spec.path);
    // The sizes are checked against the buffer before the data is read.
    std::optional<NpyArray> npy = readNpy(
        path, NpyExpectation{b.count, b.type, QStringLiteral("buffer '%1'").arg(b.name)}, error);
    if (!npy)
        return {};
    if (npy->type != b.type)
        *error = QStringLiteral("%1 holds %2 values but buffer '%3' is %4")
                     .arg(spec.path, npy->type.displayName(), b.name, b.type.displayName());
    else if (npy->elementCount() != b.count)
        *error = QStringLiteral("%1 holds %2 values but buffer '%3' has %4")
                     .arg(spec.path)
                     .arg(npy->elementCount())
                     .arg(b.name)
                     .arg(b.count);
    else
        return npy->data;
    return {};
}

/// The report of a check set on an input buffer, which no run writes.
BufferVerification inputBufferVerification(const RunBuffer& b) {
    return failedVerification(
        b, QStringLiteral("none"),
        QStringLiteral("'%1' is an input buffer: only out and inout buffers can be verified")
            .arg(b.name));
}

/// The comparison made on the host, with the warnings of a check that passed; `error` (the
/// expected values could not be had) fails it instead.
BufferVerification hostVerification(const RunBuffer& b, const QByteArray& got,
                                    const QByteArray& expected, const QString& method,
                                    const QString& error) {
    if (!error.isEmpty())
        return failedVerification(b, method, error);
    const VerifySpec& spec = b.verify;
    BufferVerification v =
        compareBuffers(b.type, got, expected, b.count, spec.atol, spec.rtol, spec.ulp, spec.nan);
    v.buffer = b.name;
    v.method = method;
    if (v.passed)
        v.warnings = passWarnings(b.name, b.type, expected, b.count,
                                  Tolerance{spec.atol, spec.rtol, spec.ulp},
                                  b.direction == Direction::InOut ? &b.hostContents() : nullptr);
    return v;
}

} // namespace

QVector<BufferVerification> RunVerifier::verify(const std::vector<RunBuffer>& buffers,
                                                const QHash<QString, QByteArray>& outputs) {
    QVector<BufferVerification> reports;
    QHash<QString, double> scalars;
    QHash<QString, ExpressionInput> inputs;
    bool expressionInputsReady = false;
    bool scalarsReady = false;
    for (const RunBuffer& b : buffers) {
        const VerifySpec& spec = b.verify;
        if (spec.kind == VerifySpec::Kind::None)
            continue;
        if (b.direction == Direction::In) {
            reports.push_back(inputBufferVerification(b));
            continue;
        }
        QByteArray got = outputs.value(b.name);
        QString method;
        QString error;
        QByteArray expected;
        switch (spec.kind) {
        case VerifySpec::Kind::Reference: {
            method = QStringLiteral("reference kernel %1").arg(spec.referenceKernel);
            const ReferenceRun& ref = reference(spec.referenceKernel, buffers);
            error = ref.error;
            if (!error.isEmpty())
                break;
            const auto copy = std::find_if(ref.outputs.cbegin(), ref.outputs.cend(),
                                           [&](const RunBuffer& c) { return c.name == b.name; });
            if (copy == ref.outputs.cend()) {
                error = QStringLiteral("the reference kernel's run has no buffer '%1'").arg(b.name);
                break;
            }
            if (verifiesOnGpu(b)) {
                if (std::optional<BufferVerification> v = compareOnGpu(b, copy->device, method)) {
                    reports.push_back(*v);
                    continue;
                }
                got = QByteArray(qsizetype(b.bytes), Qt::Uninitialized);
                b.device.downloadAsync(got.data(), b.bytes, stream);
            }
            expected = QByteArray(qsizetype(copy->bytes), Qt::Uninitialized);
            copy->device.downloadAsync(expected.data(), copy->bytes, stream);
            stream.synchronize(QStringLiteral("copying outputs of reference kernel '%1'")
                                   .arg(spec.referenceKernel));
            break;
        }
        case VerifySpec::Kind::Expression: {
            method = QStringLiteral("expression %1").arg(spec.expression);
            if (b.type.isStruct()) {
                error = QStringLiteral("expressions can only check buffers of scalar types");
                break;
            }
            if (!scalarsReady) {
                scalars = scalarValues(project.arguments);
                scalarsReady = true;
            }
            if (verifiesOnGpu(b) && m_expected && expressionEvaluator)
                if (std::optional<BufferVerification> v =
                        verifyExpressionOnGpu(b, buffers, scalars, method)) {
                    reports.push_back(*v);
                    continue;
                }
            // The host path reads the inputs on the host: contents the GPU generated are made
            // there only now (the GPU path above never needs them).
            if (!expressionInputsReady) {
                for (const RunBuffer& in : buffers)
                    if (in.hasInitialContents() && !in.type.isStruct())
                        inputs.insert(in.name,
                                      ExpressionInput{in.type, &in.hostContents(), in.count});
                expressionInputsReady = true;
            }
            ExpectedValues scratch;
            bool reused = false;
            ExpectedValues* values =
                expectedFor(b, buffers, scalars, inputs, &scratch, &reused, &error);
            if (!values)
                break;
            if (reused)
                method += QStringLiteral(" (expected values kept from the previous run)");
            if (verifiesOnGpu(b) && values != &scratch) {
                if (values->device.sizeBytes() != b.bytes) {
                    values->device = DeviceBuffer(
                        b.bytes, QStringLiteral("the expected values of '%1'").arg(b.name));
                    values->device.uploadAsync(values->host.constData(), b.bytes, stream);
                }
                if (std::optional<BufferVerification> v = compareOnGpu(b, values->device, method)) {
                    reports.push_back(*v);
                    continue;
                }
            }
            if (got.isEmpty() && b.bytes > 0) {
                // Planned for the GPU but compared here after all: fetch the output.
                got = QByteArray(qsizetype(b.bytes), Qt::Uninitialized);
                b.device.downloadAsync(got.data(), b.bytes, stream);
                stream.synchronize(QStringLiteral("copying output '%1'").arg(b.name));
            }
            expected = values->host;
            break;
        }
        case VerifySpec::Kind::File:
            method = QStringLiteral("file %1").arg(spec.path);
            expected = expectedFromNpyFile(b, projectDir, &error);
            break;
        case VerifySpec::Kind::None:
            break;
        }
        reports.push_back(hostVerification(b, got, expected, method, error));
    }
    adviseTolerances(buffers, reports);
    return reports;
}

void adviseTolerances(const std::vector<RunBuffer>& buffers, QVector<BufferVerification>& reports) {
    // The longest input: an output shorter than it is taken as a reduction of it, each element
    // summing count(input) / count(output) terms.
    qint64 longestInput = 0;
    for (const RunBuffer& b : buffers)
        if (b.hasInitialContents())
            longestInput = std::max(longestInput, b.count);
    for (BufferVerification& v : reports) {
        const auto b = std::find_if(buffers.cbegin(), buffers.cend(),
                                    [&](const RunBuffer& c) { return c.name == v.buffer; });
        if (b == buffers.cend() || b->type.isStruct() || b->direction == Direction::In)
            continue;
        const qint64 terms = b->count > 0 && longestInput > b->count ? longestInput / b->count : 1;
        const ToleranceAdvice advice = adviseTolerance(v, b->type.scalar, terms);
        v.advice = advice.text;
        v.suggestedRtol = advice.suggestedRtol;
    }
}

} // namespace kernelpad
