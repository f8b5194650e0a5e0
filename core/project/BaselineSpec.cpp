#include "core/project/BaselineSpec.h"

#include "core/io/JsonFields.h"

namespace kernelpad {
namespace {

const QString kBaselineRoot = QStringLiteral("baseline");

/// The expression fields: their key and where the spec keeps them.
struct ExpressionField {
    const char* key;
    QString BaselineSpec::*member;
};

const ExpressionField kExpressionFields[] = {
    {"m", &BaselineSpec::m},
    {"n", &BaselineSpec::n},
    {"k", &BaselineSpec::k},
    {"lda", &BaselineSpec::lda},
    {"ldb", &BaselineSpec::ldb},
    {"ldc", &BaselineSpec::ldc},
    {"alpha", &BaselineSpec::alpha},
    {"beta", &BaselineSpec::beta},
    {"batch", &BaselineSpec::batch},
    {"strideA", &BaselineSpec::strideA},
    {"strideB", &BaselineSpec::strideB},
    {"strideC", &BaselineSpec::strideC},
};

/// An expression field written as a string or a number ("m": 512 reads as "512").
bool readExpressionField(const json::FieldReader& fields, const QString& key, QString* out,
                         bool required) {
    if (!fields.has(key)) {
        if (required)
            return fields.fail(json::missingError(fields.path(key)));
        return true;
    }
    const QJsonValue value = fields.object().value(key);
    if (value.isDouble()) {
        *out = QString::number(value.toDouble(), 'g', 17);
        return true;
    }
    if (!value.isString())
        return fields.fail(
            json::typeError(fields.path(key), QStringLiteral("a string or a number"), value));
    *out = value.toString().trimmed();
    if (out->isEmpty())
        return fields.fail(QStringLiteral("%1: must not be empty").arg(fields.path(key)));
    return true;
}

bool readBuffers(const json::FieldReader& fields, const QVector<ArgumentSpec>& arguments,
                 BaselineSpec* spec) {
    for (const auto& [key, member] :
         {std::pair{"a", &BaselineSpec::a}, std::pair{"b", &BaselineSpec::b},
          std::pair{"c", &BaselineSpec::c}}) {
        const QString field = QLatin1String(key);
        if (!fields.readString(field, &(spec->*member), json::Presence::Required))
            return false;
        if (QString bad = baselineBufferProblem(fields.path(field), spec->*member, arguments);
            !bad.isEmpty())
            return fields.fail(bad);
    }
    const ArgumentSpec* c = nullptr;
    for (const ArgumentSpec& arg : arguments)
        if (arg.name == spec->c)
            c = &arg;
    if (c && c->buffer.direction == Direction::In)
        return fields.fail(QStringLiteral("%1: '%2' is an \"in\" buffer; name the kernel's "
                                          "output (an \"out\" or \"inout\" buffer), which the "
                                          "library's result is compared with")
                               .arg(fields.path(QStringLiteral("c")), spec->c));
    return true;
}

} // namespace

QString baselineBufferProblem(const QString& path, const QString& name,
                              const QVector<ArgumentSpec>& arguments) {
    QStringList buffers;
    for (const ArgumentSpec& arg : arguments) {
        if (arg.name == name && arg.isBuffer())
            return {};
        if (arg.isBuffer())
            buffers << arg.name;
    }
    return QStringLiteral("%1: no buffer argument '%2'; the buffers are %3")
        .arg(path, name,
             buffers.isEmpty() ? QStringLiteral("none") : buffers.join(QStringLiteral(", ")));
}

QStringList baselineLibraries() {
    return {QStringLiteral("cublas"), QStringLiteral("cub")};
}

QStringList baselineComputeTypes() {
    return {QStringLiteral("fp32"), QStringLiteral("tf32"), QStringLiteral("fp16"),
            QStringLiteral("bf16"), QStringLiteral("fp8"),  QStringLiteral("fp64")};
}

QString BaselineSpec::libraryDisplayName() const {
    if (library == QLatin1String("cublas"))
        return QStringLiteral("cuBLAS");
    return isCub() ? QStringLiteral("CUB") : library;
}

QJsonObject BaselineSpec::toJson() const {
    if (isEmpty())
        return {};
    if (isCub())
        return cubBaselineToJson(*this);
    QJsonObject json{{QStringLiteral("library"), library},
                     {QStringLiteral("call"), call},
                     {QStringLiteral("order"), order},
                     {QStringLiteral("a"), a},
                     {QStringLiteral("b"), b},
                     {QStringLiteral("c"), c},
                     {QStringLiteral("transA"), transA},
                     {QStringLiteral("transB"), transB},
                     {QStringLiteral("compute"), compute}};
    // Leading dimensions and strides left empty (the tightest) stay out of the file.
    for (const ExpressionField& f : kExpressionFields)
        if (!(this->*f.member).isEmpty())
            json.insert(QLatin1String(f.key), this->*f.member);
    return json;
}

std::optional<BaselineSpec> BaselineSpec::fromJson(const QJsonObject& json,
                                                   const QVector<ArgumentSpec>& arguments,
                                                   QString* error) {
    const json::FieldReader fields(json, error, kBaselineRoot);
    if (json.value(QStringLiteral("library")) == QJsonValue(QStringLiteral("cub")))
        return cubBaselineFromJson(json, arguments, error);
    QStringList known{
        QStringLiteral("library"), QStringLiteral("call"),   QStringLiteral("order"),
        QStringLiteral("a"),       QStringLiteral("b"),      QStringLiteral("c"),
        QStringLiteral("transA"),  QStringLiteral("transB"), QStringLiteral("compute")};
    for (const ExpressionField& f : kExpressionFields)
        known << QLatin1String(f.key);
    for (auto it = json.begin(); it != json.end(); ++it)
        if (!known.contains(it.key())) {
            fields.fail(QStringLiteral("%1: unknown field (a baseline has %2)")
                            .arg(fields.path(it.key()), known.join(QStringLiteral(", "))));
            return std::nullopt;
        }
    BaselineSpec spec;
    if (!fields.readChoice(QStringLiteral("library"), baselineLibraries(), &spec.library,
                           json::Presence::Required) ||
        !fields.readChoice(QStringLiteral("call"), {QStringLiteral("gemm")}, &spec.call,
                           json::Presence::Required) ||
        !fields.readChoice(QStringLiteral("order"),
                           {QStringLiteral("column"), QStringLiteral("row")}, &spec.order) ||
        !fields.readChoice(QStringLiteral("compute"), baselineComputeTypes(), &spec.compute) ||
        !fields.readBool(QStringLiteral("transA"), &spec.transA) ||
        !fields.readBool(QStringLiteral("transB"), &spec.transB) ||
        !readBuffers(fields, arguments, &spec))
        return std::nullopt;
    for (const ExpressionField& f : kExpressionFields) {
        const QString key = QLatin1String(f.key);
        const bool required =
            key == QLatin1String("m") || key == QLatin1String("n") || key == QLatin1String("k");
        if (!readExpressionField(fields, key, &(spec.*f.member), required))
            return std::nullopt;
    }
    return spec;
}

} // namespace kernelpad
