#include "core/launch/GlobalSpec.h"

#include "core/io/ControlChars.h"
#include "core/io/JsonFields.h"

namespace kernelpad {

QString GlobalSpec::problem() const {
    if (name.trimmed().isEmpty())
        return QStringLiteral("name: empty; name the __constant__ or __device__ variable");
    if (QString bad = controlCharacterError(QStringLiteral("name"), name); !bad.isEmpty())
        return bad;
    // A reference kernel runs on copies of the buffers, but a module has one copy of each
    // global, which the kernel under test has already changed.
    if (value.verify.kind == VerifySpec::Kind::Reference)
        return QStringLiteral("verify: a reference kernel cannot check a global (the module has "
                              "one copy of it); use an expression or a .npy file");
    if (QString bad = value.init.problem(); !bad.isEmpty())
        return QStringLiteral("init.") + bad;
    if (QString bad = value.verify.problem(); !bad.isEmpty())
        return QStringLiteral("verify.") + bad;
    return {};
}

QJsonObject GlobalSpec::toJson() const {
    QJsonObject json = value.toJson();
    json.insert(QStringLiteral("name"), name);
    return json;
}

std::optional<GlobalSpec> GlobalSpec::fromJson(const QJsonObject& json, QString* error) {
    const auto fail = [error](const QString& message) -> std::optional<GlobalSpec> {
        if (error)
            *error = message;
        return std::nullopt;
    };
    GlobalSpec spec;
    if (!json::FieldReader(json, error)
             .readString(QStringLiteral("name"), &spec.name, json::Presence::Required))
        return std::nullopt;
    spec.name = spec.name.trimmed();
    QString inner;
    std::optional<BufferSpec> value = BufferSpec::fromJson(json, &inner);
    if (!value)
        return fail(inner);
    spec.value = std::move(*value);
    if (QString bad = spec.problem(); !bad.isEmpty())
        return fail(bad);
    return spec;
}

} // namespace kernelpad
