#include "core/run/CubBaseline.h"

#include <algorithm>

namespace kernelpad {
namespace {

int cubTypeCode(ScalarType t) {
    switch (t) {
    case ScalarType::Int32:
        return KP_CUB_INT32;
    case ScalarType::UInt32:
        return KP_CUB_UINT32;
    case ScalarType::Float64:
        return KP_CUB_FLOAT64;
    case ScalarType::UInt64:
        return KP_CUB_UINT64;
    default:
        return KP_CUB_FLOAT32;
    }
}

const RunBuffer* cubBufferNamed(const std::vector<RunBuffer>& buffers, const QString& name) {
    for (const RunBuffer& b : buffers)
        if (b.name == name)
            return &b;
    return nullptr;
}

/// A copy of `kernel`'s buffer that starts as the kernel's did: its initial contents, or the
/// poison of an "out" buffer.
DeviceBuffer outputCopy(const RunBuffer& kernel, const Stream& stream) {
    DeviceBuffer copy(kernel.bytes,
                      QStringLiteral("the CUB baseline's copy of '%1'").arg(kernel.name));
    if (kernel.hasInitialContents())
        copy.uploadAsync(kernel.hostContents().constData(), kernel.bytes, stream);
    else
        copy.fillBytesAsync(kPoisonByte, stream);
    return copy;
}

/// The CUB entry a call goes to, as failures name it.
QString cubEntryName(const QString& call) {
    if (call == QLatin1String("reduce"))
        return QStringLiteral("cub::DeviceReduce");
    if (call == QLatin1String("scan"))
        return QStringLiteral("cub::DeviceScan");
    if (call == QLatin1String("sort"))
        return QStringLiteral("cub::DeviceRadixSort");
    return QStringLiteral("cub::DeviceHistogram::HistogramEven");
}

} // namespace

CubBaseline::CubBaseline(const CubPlan& plan, const Stream& stream, const CubPlugin* plugin)
    : m_plan(plan)
    , m_stream(stream)
    , m_plugin(plugin) {}

std::unique_ptr<CubBaseline> CubBaseline::create(const CubPlan& plan,
                                                 const std::vector<RunBuffer>& buffers,
                                                 const Stream& stream, QString* error) {
    const CubPlugin* plugin = CubPlugin::load(error);
    if (!plugin)
        return nullptr;
    const RunBuffer* in = cubBufferNamed(buffers, plan.in.buffer);
    const RunBuffer* out = cubBufferNamed(buffers, plan.out.buffer);
    const RunBuffer* valuesIn =
        plan.valuesIn.present() ? cubBufferNamed(buffers, plan.valuesIn.buffer) : nullptr;
    const RunBuffer* valuesOut =
        plan.valuesOut.present() ? cubBufferNamed(buffers, plan.valuesOut.buffer) : nullptr;
    if (!in || !out || (plan.valuesIn.present() && (!valuesIn || !valuesOut))) {
        *error = QStringLiteral("the CUB baseline's buffers are not all among the run's buffers");
        return nullptr;
    }
    std::unique_ptr<CubBaseline> cub(new CubBaseline(plan, stream, plugin));
    cub->m_in = in->device.address();
    cub->m_kernelOut = out;
    cub->m_out = outputCopy(*out, stream);
    if (valuesIn) {
        cub->m_valuesIn = valuesIn->device.address();
        cub->m_kernelValuesOut = valuesOut;
        cub->m_valuesOut = outputCopy(*valuesOut, stream);
    }
    if (const int status = cub->call(0, &cub->m_tempBytes); status != 0) {
        *error = QStringLiteral("%1 (%2), asking for its temporary storage: %3")
                     .arg(cubEntryName(plan.call), plan.describe(), plugin->statusText(status));
        return nullptr;
    }
    // Allocated once, before the timed calls; at least a byte, since the plugin reads a null
    // address as the size query.
    cub->m_temp = DeviceBuffer(qint64(std::max<size_t>(cub->m_tempBytes, 1)),
                               QStringLiteral("CUB's temporary storage"));
    return cub;
}

int CubBaseline::call(CUdeviceptr temp, size_t* tempBytes) const {
    const CubPlan& p = m_plan;
    void* stream = m_stream.handle();
    const int type = cubTypeCode(p.in.type);
    if (p.call == QLatin1String("reduce")) {
        const int op = p.op == QLatin1String("min")   ? KP_CUB_MIN
                       : p.op == QLatin1String("max") ? KP_CUB_MAX
                                                      : KP_CUB_SUM;
        return m_plugin->reduce(op, type, temp, tempBytes, m_in, m_out.address(), p.n, stream);
    }
    if (p.call == QLatin1String("scan"))
        return m_plugin->scan(p.exclusive ? 1 : 0, type, temp, tempBytes, m_in, m_out.address(),
                              p.n, stream);
    if (p.call == QLatin1String("sort")) {
        const int valueBytes = p.valuesIn.present() ? scalarTypeInfo(p.valuesIn.type).sizeBytes : 0;
        return m_plugin->sort(p.descending ? 1 : 0, type, valueBytes, temp, tempBytes, m_in,
                              m_out.address(), m_valuesIn, m_valuesOut.address(), p.n, stream);
    }
    return m_plugin->histogramEven(type, cubTypeCode(p.out.type), temp, tempBytes, m_in,
                                   m_out.address(), p.levels, p.lower, p.upper, p.n, stream);
}

void CubBaseline::enqueue() {
    if (!m_failure.isEmpty())
        return;
    size_t bytes = m_tempBytes;
    if (const int status = call(m_temp.address(), &bytes); status != 0)
        m_failure =
            QStringLiteral("%1 (%2): %3")
                .arg(cubEntryName(m_plan.call), m_plan.describe(), m_plugin->statusText(status));
}

QByteArray CubBaseline::download(const DeviceBuffer& buffer, qint64 bytes) const {
    QByteArray host(qsizetype(bytes), Qt::Uninitialized);
    buffer.downloadAsync(host.data(), bytes, m_stream);
    return host;
}

BufferVerification CubBaseline::check(const QVector<ArgumentSpec>& arguments) const {
    const QByteArray libraryOut = download(m_out, m_kernelOut->bytes);
    const QByteArray kernelOut = download(m_kernelOut->device, m_kernelOut->bytes);
    QByteArray libraryValues, kernelValues;
    if (m_kernelValuesOut) {
        libraryValues = download(m_valuesOut, m_kernelValuesOut->bytes);
        kernelValues = download(m_kernelValuesOut->device, m_kernelValuesOut->bytes);
    }
    m_stream.synchronize(QStringLiteral("copying CUB's output and the kernel's"));
    return compareCubOutputs(m_plan, arguments, kernelOut, libraryOut, kernelValues, libraryValues);
}

} // namespace kernelpad
