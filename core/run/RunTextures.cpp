#include "core/run/RunTextures.h"

#include "core/cuda/CudaError.h"
#include "core/launch/BufferInit.h"
#include "core/launch/Npy.h"
#include "core/launch/TextureArgument.h"
#include "core/verify/Verify.h"

#include <QDir>

#include <algorithm>

namespace kernelpad {
namespace {

CUarray_format arrayFormat(ScalarType type) {
    switch (type) {
    case ScalarType::Float16:
        return CU_AD_FORMAT_HALF;
    case ScalarType::Int8:
        return CU_AD_FORMAT_SIGNED_INT8;
    case ScalarType::UInt8:
        return CU_AD_FORMAT_UNSIGNED_INT8;
    case ScalarType::Int16:
        return CU_AD_FORMAT_SIGNED_INT16;
    case ScalarType::UInt16:
        return CU_AD_FORMAT_UNSIGNED_INT16;
    case ScalarType::Int32:
        return CU_AD_FORMAT_SIGNED_INT32;
    case ScalarType::UInt32:
        return CU_AD_FORMAT_UNSIGNED_INT32;
    default:
        return CU_AD_FORMAT_FLOAT;
    }
}

CUaddress_mode addressMode(TextureAddress a) {
    switch (a) {
    case TextureAddress::Wrap:
        return CU_TR_ADDRESS_MODE_WRAP;
    case TextureAddress::Mirror:
        return CU_TR_ADDRESS_MODE_MIRROR;
    case TextureAddress::Border:
        return CU_TR_ADDRESS_MODE_BORDER;
    case TextureAddress::Clamp:
        break;
    }
    return CU_TR_ADDRESS_MODE_CLAMP;
}

ArrayLimit limit(const Device& d, CUdevice_attribute width, CUdevice_attribute height,
                 CUdevice_attribute depth, CUdevice_attribute layers) {
    const auto read = [&](CUdevice_attribute a) {
        return a == CUdevice_attribute(0) ? qint64(0) : qint64(d.attribute(a));
    };
    return ArrayLimit{read(width), read(height), read(depth), read(layers)};
}

constexpr CUdevice_attribute kNone = CUdevice_attribute(0);

BufferVerification failedCheck(const RunTexture& t, const QString& method, const QString& error) {
    BufferVerification v;
    v.buffer = t.name;
    v.method = method;
    v.error = error;
    return v;
}

} // namespace

TextureLimits readTextureLimits(const Device& d) {
    TextureLimits l;
    auto& t = l.texture;
    t[size_t(ArrayShape::D1)] =
        limit(d, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH, kNone, kNone, kNone);
    t[size_t(ArrayShape::D2)] = limit(d, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH,
                                      CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT, kNone, kNone);
    t[size_t(ArrayShape::D3)] = limit(d, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH,
                                      CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT,
                                      CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH, kNone);
    t[size_t(ArrayShape::D1Layered)] =
        limit(d, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH, kNone, kNone,
              CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS);
    t[size_t(ArrayShape::D2Layered)] =
        limit(d, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH,
              CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT, kNone,
              CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS);
    t[size_t(ArrayShape::Cubemap)] =
        limit(d, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH, kNone, kNone, kNone);
    t[size_t(ArrayShape::CubemapLayered)] =
        limit(d, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH, kNone, kNone,
              CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS);
    auto& s = l.surface;
    s[size_t(ArrayShape::D1)] =
        limit(d, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH, kNone, kNone, kNone);
    s[size_t(ArrayShape::D2)] = limit(d, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH,
                                      CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT, kNone, kNone);
    s[size_t(ArrayShape::D3)] = limit(d, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH,
                                      CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT,
                                      CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH, kNone);
    s[size_t(ArrayShape::D1Layered)] =
        limit(d, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH, kNone, kNone,
              CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS);
    s[size_t(ArrayShape::D2Layered)] =
        limit(d, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH,
              CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT, kNone,
              CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS);
    s[size_t(ArrayShape::Cubemap)] =
        limit(d, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH, kNone, kNone, kNone);
    s[size_t(ArrayShape::CubemapLayered)] =
        limit(d, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH, kNone, kNone,
              CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS);
    return l;
}

ArrayDesc arrayDescFor(const ArgumentSpec& arg) {
    const TextureSpec& t = arg.texture;
    ArrayDesc d;
    d.width = t.dims[0];
    d.height = t.dims[1];
    d.depth = t.dimensionCount() == 3 ? t.dims[2] : 0;
    if (t.cubemap) {
        // Faces are slices: +x, -x, +y, -y, +z, -z, then the next layer's six.
        d.depth = 6 * qint64(std::max(t.layers, 1));
        d.flags |= CUDA_ARRAY3D_CUBEMAP;
    } else if (t.layers > 0) {
        d.depth = t.layers; // a 1D layered array keeps height 0
    }
    if (t.layers > 0)
        d.flags |= CUDA_ARRAY3D_LAYERED;
    d.format = arrayFormat(t.channelType);
    d.channels = t.channels;
    d.channelBytes = scalarTypeInfo(t.channelType).sizeBytes;
    d.label = imageLabel(arg);
    return d;
}

SamplerDesc samplerDescFor(const TextureSpec& spec) {
    SamplerDesc s;
    for (size_t i = 0; i < s.address.size(); ++i)
        s.address[i] = addressMode(spec.address[i]);
    s.filter =
        spec.filter == TextureFilter::Linear ? CU_TR_FILTER_MODE_LINEAR : CU_TR_FILTER_MODE_POINT;
    if (spec.normalizedCoords)
        s.flags |= CU_TRSF_NORMALIZED_COORDINATES;
    // Without this flag the driver API reads integer texels as normalized floats.
    if (spec.readMode == TextureReadMode::Element && !scalarTypeInfo(spec.channelType).isFloat)
        s.flags |= CU_TRSF_READ_AS_INTEGER;
    for (size_t i = 0; i < s.borderColor.size(); ++i)
        s.borderColor[i] = float(spec.borderColor[i]);
    return s;
}

QString describeRefusal(const ArgumentSpec& arg, const CudaError& error) {
    const TextureSpec& t = arg.texture;
    const bool surface = arg.kind == ArgumentSpec::Kind::Surface;
    const QString call = error.context().section(QLatin1Char(' '), 0, 0);
    const QString array =
        QStringLiteral("a %1 array (%2)").arg(arrayShapeName(t.shape()), t.extentText());
    const QString cause =
        QStringLiteral("%1 returned %2 (%3)").arg(call, error.name(), error.description());
    if (error.code() == CUDA_ERROR_OUT_OF_MEMORY)
        return QStringLiteral("%1: %2 of %3 texels (%4) does not fit in the device's free "
                              "memory: %5")
            .arg(imageLabel(arg), array, t.formatName(),
                 formatBytes(t.texelCount() * t.texelBytes()), cause);
    QString use = surface ? QStringLiteral("written as a surface")
                          : QStringLiteral("sampled with %1 filtering, %2 reads")
                                .arg(textureFilterName(t.filter), textureReadModeName(t.readMode));
    return QStringLiteral("%1: the device does not support %2 texels in %3 %4: %5")
        .arg(imageLabel(arg), t.formatName(), array, use, cause);
}

std::optional<RunTextures> RunTextures::create(const QVector<ArgumentSpec>& args,
                                               const QString& baseDir, const TextureLimits& limits,
                                               const Stream& stream, QString* error) {
    RunTextures textures;
    // What is made so far is freed on the way out: its uploads must not outlive the contents.
    const auto fail = [&](const QString& message) {
        *error = message;
        if (!textures.isEmpty())
            stream.synchronize(QStringLiteral("uploading textures"));
        return std::nullopt;
    };
    for (int i = 0; i < args.size(); ++i) {
        const ArgumentSpec& a = args[i];
        if (!a.isImage())
            continue;
        const bool surface = a.kind == ArgumentSpec::Kind::Surface;
        QString problem = textureArgumentProblem(a);
        if (problem.isEmpty())
            problem = checkTextureLimits(imageLabel(a), a.texture, surface, limits);
        if (!problem.isEmpty())
            return fail(problem);
        RunTexture t;
        t.argIndex = i;
        t.name = a.name;
        t.surface = surface;
        t.type = a.texture.elementType();
        t.count = a.texture.elementCount();
        t.direction = surface ? a.buffer.direction : Direction::In;
        t.verify = a.buffer.verify;
        if (t.direction == Direction::Out) {
            t.initial = QByteArray(qsizetype(t.count * t.type.sizeBytes()), char(kPoisonByte));
        } else {
            QString why;
            std::optional<QByteArray> contents =
                makeBufferContents(a.buffer, t.count, baseDir, &why);
            if (!contents)
                return fail(QStringLiteral("%1: %2").arg(imageLabel(a), why));
            t.initial = std::move(*contents);
        }
        try {
            const ArrayDesc desc = arrayDescFor(a);
            t.object = surface ? TextureObject::surface(desc)
                               : TextureObject::texture(desc, samplerDescFor(a.texture));
        } catch (const CudaError& e) {
            if (e.isSticky())
                throw;
            return fail(describeRefusal(a, e));
        }
        t.object.uploadAsync(t.initial.constData(), stream);
        textures.m_items.push_back(std::move(t));
    }
    return textures;
}

std::optional<RunTextures> RunTextures::create(const QVector<ArgumentSpec>& args,
                                               const QString& baseDir, const Device& device,
                                               const Stream& stream, QString* error) {
    const bool any =
        std::any_of(args.cbegin(), args.cend(), [](const ArgumentSpec& a) { return a.isImage(); });
    return create(args, baseDir, any ? readTextureLimits(device) : TextureLimits{}, stream, error);
}

QVector<quint64> RunTextures::handles(int argCount) const {
    QVector<quint64> result(argCount, 0);
    applyHandles(result);
    return result;
}

void RunTextures::applyHandles(QVector<quint64>& addresses) const {
    for (const RunTexture& t : m_items)
        if (t.argIndex < addresses.size())
            addresses[t.argIndex] = t.object.handle();
}

void RunTextures::readSurfaces(const Stream& stream) {
    bool any = false;
    for (RunTexture& t : m_items) {
        if (!t.surface || t.direction == Direction::In)
            continue;
        t.result = QByteArray(qsizetype(t.count * t.type.sizeBytes()), Qt::Uninitialized);
        t.object.downloadAsync(t.result.data(), stream);
        any = true;
    }
    if (any)
        stream.synchronize(QStringLiteral("copying surfaces back"));
}

QVector<BufferVerification> RunTextures::verify(const QVector<ArgumentSpec>& args,
                                                const std::vector<RunBuffer>& buffers,
                                                const QString& projectDir) const {
    QVector<BufferVerification> reports;
    // The inputs' host contents can take a while to make (the GPU generated them): only a
    // surface with a check needs them.
    if (std::none_of(m_items.begin(), m_items.end(), [](const RunTexture& t) {
            return t.surface && t.verify.kind != VerifySpec::Kind::None &&
                   t.direction != Direction::In;
        }))
        return reports;
    const QHash<QString, double> scalars = scalarValues(args);
    QHash<QString, ExpressionInput> inputs;
    for (const RunBuffer& b : buffers)
        if (b.hasInitialContents() && !b.type.isStruct())
            inputs.insert(b.name, ExpressionInput{b.type, &b.hostContents(), b.count});
    for (const RunTexture& t : m_items)
        if (t.direction != Direction::Out)
            inputs.insert(t.name, ExpressionInput{t.type, &t.initial, t.count});
    for (const RunTexture& t : m_items) {
        if (!t.surface || t.verify.kind == VerifySpec::Kind::None || t.direction == Direction::In)
            continue;
        QString method;
        QString error;
        QByteArray expected;
        if (t.verify.kind == VerifySpec::Kind::Expression) {
            method = QStringLiteral("expression %1").arg(t.verify.expression);
            const std::optional<QVector<double>> values =
                evaluateExpression(t.verify.expression, t.count, scalars, inputs, &error);
            if (values)
                expected = doublesToBytes(t.type, *values);
        } else if (t.verify.kind == VerifySpec::Kind::File) {
            method = QStringLiteral("file %1").arg(t.verify.path);
            const std::optional<NpyArray> npy =
                readNpy(QDir(projectDir).absoluteFilePath(t.verify.path),
                        NpyExpectation{t.count, t.type, QStringLiteral("surface '%1'").arg(t.name)},
                        &error);
            if (npy && (npy->type != t.type || npy->elementCount() != t.count))
                error = QStringLiteral("%1 holds %2 %3 values but surface '%4' has %5 %6")
                            .arg(t.verify.path)
                            .arg(npy->elementCount())
                            .arg(npy->type.displayName(), t.name)
                            .arg(t.count)
                            .arg(t.type.displayName());
            else if (npy)
                expected = npy->data;
        } else {
            method = QStringLiteral("reference kernel %1").arg(t.verify.referenceKernel);
            error = QStringLiteral("a surface is checked against an expression or a .npy file");
        }
        if (!error.isEmpty()) {
            reports.push_back(failedCheck(t, method, error));
            continue;
        }
        BufferVerification v = compareBuffers(t.type, t.result, expected, t.count, t.verify.atol,
                                              t.verify.rtol, t.verify.ulp, t.verify.nan);
        v.buffer = t.name;
        v.method = method;
        reports.push_back(v);
    }
    return reports;
}

QVector<OutputBuffer> RunTextures::outputs() const {
    QVector<OutputBuffer> outputs;
    for (const RunTexture& t : m_items)
        if (!t.result.isEmpty())
            outputs.push_back(OutputBuffer{t.name, t.type, t.count, t.result});
    return outputs;
}

} // namespace kernelpad
