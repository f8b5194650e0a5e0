#include "core/launch/TextureArgument.h"

#include "core/io/JsonFields.h"

namespace kernelpad {
namespace {

const QString kTextureKey = QStringLiteral("texture");

/// Why the contents of a texture or surface cannot be used, naming the field, or empty.
QString contentsProblem(const ArgumentSpec& arg) {
    const BufferSpec& contents = arg.buffer;
    if (arg.kind == ArgumentSpec::Kind::Texture) {
        if (contents.direction != Direction::In)
            return QStringLiteral("direction: a texture is read-only, so it is 'in'; use a "
                                  "surface for an array the kernel writes");
        if (contents.verify.kind != VerifySpec::Kind::None)
            return QStringLiteral("verify: a texture is read-only; verify a surface or a "
                                  "buffer the kernel writes");
    } else if (contents.verify.kind == VerifySpec::Kind::Reference) {
        return QStringLiteral("verify: a surface is checked against an expression or a .npy "
                              "file; reference kernels check buffers");
    }
    if (contents.verify.kind != VerifySpec::Kind::None && contents.direction == Direction::In)
        return QStringLiteral("verify: only out and inout surfaces are verified");
    if (QString p = contents.init.problem(); !p.isEmpty())
        return QStringLiteral("init.") + p;
    if (QString p = contents.verify.problem(); !p.isEmpty())
        return QStringLiteral("verify.") + p;
    return {};
}

} // namespace

QString imageLabel(const ArgumentSpec& arg) {
    return QStringLiteral("%1 '%2'").arg(arg.kind == ArgumentSpec::Kind::Surface
                                             ? QStringLiteral("surface")
                                             : QStringLiteral("texture"),
                                         arg.name);
}

void syncTextureContents(ArgumentSpec& arg) {
    arg.buffer.elementType = arg.texture.elementType();
    arg.buffer.count = QString::number(arg.texture.elementCount());
    if (arg.kind == ArgumentSpec::Kind::Texture)
        arg.buffer.direction = Direction::In;
}

ArgumentSpec makeTextureArgument(const QString& name, bool surface) {
    ArgumentSpec arg;
    arg.name = name;
    arg.kind = surface ? ArgumentSpec::Kind::Surface : ArgumentSpec::Kind::Texture;
    arg.texture.dims = {64, 64, 0};
    arg.buffer.init.kind = surface ? InitSpec::Kind::Zeros : InitSpec::Kind::Iota;
    arg.buffer.direction = surface ? Direction::Out : Direction::In;
    syncTextureContents(arg);
    return arg;
}

QString textureArgumentProblem(const ArgumentSpec& arg) {
    const bool surface = arg.kind == ArgumentSpec::Kind::Surface;
    QString problem = arg.texture.problem(surface);
    if (problem.isEmpty())
        problem = contentsProblem(arg);
    return problem.isEmpty() ? QString() : imageLabel(arg) + QStringLiteral(": ") + problem;
}

QJsonObject textureArgumentToJson(const ArgumentSpec& arg) {
    const bool surface = arg.kind == ArgumentSpec::Kind::Surface;
    QJsonObject texture = arg.texture.toJson(surface);
    texture.insert(QStringLiteral("init"), arg.buffer.init.toJson());
    if (surface) {
        texture.insert(QStringLiteral("direction"), directionName(arg.buffer.direction));
        texture.insert(QStringLiteral("verify"), arg.buffer.verify.toJson());
    }
    return {{QStringLiteral("name"), arg.name},
            {QStringLiteral("kind"), surface ? QStringLiteral("surface") : kTextureKey},
            {kTextureKey, texture}};
}

std::optional<ArgumentSpec> textureArgumentFromJson(const QString& name, bool surface,
                                                    const QJsonObject& json, QString* error) {
    const auto failWith = [&](const QString& message) {
        if (error)
            *error = kTextureKey + QLatin1Char('.') + message;
        return std::nullopt;
    };
    if (!json.contains(kTextureKey)) {
        if (error)
            *error = json::missingError(kTextureKey) +
                     QStringLiteral(" (the array's dims, format and sampler)");
        return std::nullopt;
    }
    QJsonObject object;
    if (!json::FieldReader(json, error).readObject(kTextureKey, &object))
        return std::nullopt;
    ArgumentSpec arg;
    arg.name = name;
    arg.kind = surface ? ArgumentSpec::Kind::Surface : ArgumentSpec::Kind::Texture;
    QString inner;
    const std::optional<TextureSpec> texture = TextureSpec::fromJson(object, surface, &inner);
    if (!texture)
        return failWith(inner);
    arg.texture = *texture;
    arg.buffer.direction = surface ? Direction::Out : Direction::In;
    // The fields around the array, named from the argument ("texture.init.kind").
    const json::FieldReader fields(object, error, kTextureKey);
    QJsonObject initJson, verifyJson;
    QString directionText;
    if (!fields.readObject(QStringLiteral("init"), &initJson) ||
        !fields.readString(QStringLiteral("direction"), &directionText) ||
        !fields.readObject(QStringLiteral("verify"), &verifyJson))
        return std::nullopt;
    if (fields.has(QStringLiteral("init"))) {
        const std::optional<InitSpec> init = InitSpec::fromJson(initJson, &inner);
        if (!init)
            return failWith(QStringLiteral("init.") + inner);
        arg.buffer.init = *init;
    }
    if (fields.has(QStringLiteral("direction"))) {
        const std::optional<Direction> d = directionFromName(directionText);
        if (!d)
            return failWith(
                QStringLiteral("direction: unknown direction '%1' (expected in, out or inout)")
                    .arg(directionText));
        arg.buffer.direction = *d;
    }
    if (fields.has(QStringLiteral("verify"))) {
        const std::optional<VerifySpec> verify = VerifySpec::fromJson(verifyJson, &inner);
        if (!verify)
            return failWith(QStringLiteral("verify.") + inner);
        arg.buffer.verify = *verify;
    }
    if (const QString problem = contentsProblem(arg); !problem.isEmpty())
        return failWith(problem);
    syncTextureContents(arg);
    return arg;
}

} // namespace kernelpad
