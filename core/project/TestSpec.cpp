#include "core/project/TestSpec.h"

#include "core/io/ControlChars.h"
#include "core/io/JsonFields.h"
#include "core/launch/Expression.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <deque>

namespace kernelpad {

namespace {

const QString kTestsSection = QStringLiteral("tests");

/// "33", "0.5": a case's value as its name and messages show it.
QString testValueText(double value) {
    if (value == std::floor(value) && std::fabs(value) < double(kExactDoubleIntegerLimit))
        return QString::number(qint64(value));
    return QString::number(value, 'g', 17);
}

/// 1024 threads is every device's limit per block; the runner checks the product.
constexpr int kMaxTestBlockThreads = 1024;

/// A block as the file has it: a whole number as a number, a formula as a string.
QJsonArray testBlockJson(const std::array<QString, 3>& formulas) {
    QJsonArray json;
    for (const QString& formula : formulas) {
        bool whole = false;
        const int value = formula.toInt(&whole);
        json.append(whole ? QJsonValue(value) : QJsonValue(formula));
    }
    return json;
}

QJsonArray testFormulasJson(const std::array<QString, 3>& formulas) {
    return QJsonArray{formulas[0], formulas[1], formulas[2]};
}

bool isIntegerScalar(const ArgumentSpec& argument) {
    return argument.isScalar() && !argument.type.isStruct() &&
           !scalarTypeInfo(argument.type.scalar).isFloat;
}

const ArgumentSpec* findTestScalar(const QVector<ArgumentSpec>& arguments, const QString& name) {
    for (const ArgumentSpec& a : arguments)
        if (a.isScalar() && a.name == name)
            return &a;
    return nullptr;
}

/// The smallest and largest value an integer scalar takes, within what a double holds exactly.
json::WholeRange testIntegerRange(ScalarType type) {
    const ScalarTypeInfo& info = scalarTypeInfo(type);
    if (type == ScalarType::Bool)
        return {0, 1};
    const int bits = std::min(info.sizeBytes * 8, 53);
    if (!info.isSigned)
        return {0, bits >= 53 ? kExactDoubleIntegerLimit - 1 : (qint64(1) << bits) - 1};
    const qint64 half = qint64(1) << (std::min(bits, 53) - 1);
    return {-half, half - 1};
}

/// A case's "values": each a number for one of the project's numeric scalars.
bool readTestValues(const json::FieldReader& fields, const QVector<ArgumentSpec>& arguments,
                    TestCase* out) {
    QJsonObject values;
    if (!fields.readObject(QStringLiteral("values"), &values))
        return false;
    const json::FieldReader reader = fields.nested(QStringLiteral("values"), values);
    for (auto it = values.begin(); it != values.end(); ++it) {
        const QString path = reader.path(it.key());
        const ArgumentSpec* scalar = findTestScalar(arguments, it.key());
        if (!scalar || scalar->type.isStruct() || componentCount(scalar->type.scalar) != 1)
            return reader.fail(QStringLiteral("%1: the project has no numeric scalar argument "
                                              "'%2'")
                                   .arg(path, it.key()));
        if (isIntegerScalar(*scalar)) {
            const json::WholeRange range = testIntegerRange(scalar->type.scalar);
            if (!it.value().isDouble() ||
                it.value().toDouble() != std::floor(it.value().toDouble()))
                return reader.fail(QStringLiteral("%1: not an integer (got %2; '%3' is %4)")
                                       .arg(path,
                                            it.value().isDouble()
                                                ? testValueText(it.value().toDouble())
                                                : json::typeName(it.value()),
                                            it.key(), scalar->type.displayName()));
            if (QString bad = json::wholeNumberProblem(path, it.value(), range); !bad.isEmpty())
                return reader.fail(
                    bad +
                    QStringLiteral(" ('%1' is %2)").arg(it.key(), scalar->type.displayName()));
        } else if (QString bad = json::numberProblem(path, it.value()); !bad.isEmpty()) {
            return reader.fail(bad);
        }
        out->values.append(TestValue{it.key(), it.value().toDouble()});
    }
    return true;
}

/// A block formula compiled over the project's numeric scalars, which it may use by name.
class BlockFormula {
public:
    /// Empty on success, else what is wrong with `text`.
    QString compile(const QString& text, const QVector<ArgumentSpec>& arguments) {
        QStringList names;
        for (const ArgumentSpec& a : arguments) {
            if (!a.isScalar() || a.type.isStruct() || componentCount(a.type.scalar) != 1)
                continue;
            bool numeric = false;
            m_values.push_back(a.value.trimmed().toDouble(&numeric));
            if (!numeric)
                m_values.back() = double(a.value.trimmed().toLongLong(&numeric, 0));
            m_names << a.name;
            if (QString bad = m_expression.defineVariable(a.name, &m_values.back()); !bad.isEmpty())
                return bad;
        }
        if (text.trimmed().isEmpty())
            return QStringLiteral("an empty formula");
        if (QString bad = m_expression.compile(text); !bad.isEmpty())
            return bad;
        for (const Expression::Variable& v : m_expression.usedVariables())
            if (!v.storage)
                return QStringLiteral("'%1' is no numeric scalar argument (the scalars: %2)")
                    .arg(v.name, m_names.isEmpty() ? QStringLiteral("none")
                                                   : m_names.join(QStringLiteral(", ")));
        return {};
    }
    /// The value with `values` in place of the scalars'; NaN when muParser refuses.
    double evaluate(const QVector<TestValue>& values) {
        for (const TestValue& v : values)
            if (const qsizetype at = m_names.indexOf(v.name); at >= 0)
                m_values[size_t(at)] = v.value;
        try {
            return m_expression.evaluate();
        } catch (const ExpressionError&) {
            return std::nan("");
        }
    }

private:
    Expression m_expression;
    QStringList m_names;
    std::deque<double> m_values; ///< a deque: muParser keeps their addresses
};

/// "block": one to three sizes of x, y, z (those left out are 1), each a whole number or a
/// formula over the scalars ("min(256, n)"), checked as far as it can be without values.
bool readBlockFormulas(const json::FieldReader& fields, const QVector<ArgumentSpec>& arguments,
                       std::optional<std::array<QString, 3>>* block) {
    const QString key = QStringLiteral("block");
    QJsonArray items;
    if (!fields.readArray(key, &items))
        return false;
    const QString path = fields.path(key);
    if (items.isEmpty() || items.size() > 3)
        return fields.fail(QStringLiteral("%1: expected 1 to 3 sizes or formulas (x, y, z), got "
                                          "%2")
                               .arg(path)
                               .arg(items.size()));
    std::array<QString, 3> formulas{QStringLiteral("1"), QStringLiteral("1"), QStringLiteral("1")};
    for (qsizetype axis = 0; axis < items.size(); ++axis) {
        const QString at = json::indexPath(path, axis);
        const QJsonValue item = items[axis];
        if (item.isDouble()) {
            if (QString bad = json::wholeNumberProblem(at, item, {1, kMaxTestBlockThreads});
                !bad.isEmpty())
                return fields.fail(bad);
            formulas[size_t(axis)] = QString::number(qint64(item.toDouble()));
            continue;
        }
        if (!item.isString())
            return fields.fail(
                json::typeError(at, QStringLiteral("a whole number or a formula"), item));
        BlockFormula formula;
        if (QString bad = formula.compile(item.toString(), arguments); !bad.isEmpty())
            return fields.fail(QStringLiteral("%1: %2 (in \"%3\")").arg(at, bad, item.toString()));
        formulas[size_t(axis)] = item.toString().trimmed();
    }
    *block = formulas;
    return true;
}

/// "grid" (three formulas) and "block" (sizes or formulas) of a case or of the section.
bool readLaunchFields(const json::FieldReader& fields, const QVector<ArgumentSpec>& arguments,
                      std::optional<std::array<QString, 3>>* grid,
                      std::optional<std::array<QString, 3>>* block) {
    if (fields.has(QStringLiteral("grid"))) {
        QStringList formulas;
        if (!fields.readStrings(QStringLiteral("grid"), &formulas))
            return false;
        if (formulas.size() != 3)
            return fields.fail(QStringLiteral("%1: expected 3 formulas (x, y, z), got %2")
                                   .arg(fields.path(QStringLiteral("grid")))
                                   .arg(formulas.size()));
        *grid = std::array<QString, 3>{formulas[0], formulas[1], formulas[2]};
    }
    return !fields.has(QStringLiteral("block")) || readBlockFormulas(fields, arguments, block);
}

bool refuseUnknownTestField(const json::FieldReader& fields, const QStringList& known,
                            const char* what) {
    for (auto it = fields.object().begin(); it != fields.object().end(); ++it)
        if (!known.contains(it.key()))
            return fields.fail(QStringLiteral("%1: unknown field (%2 has %3)")
                                   .arg(fields.path(it.key()), QLatin1String(what),
                                        known.join(QStringLiteral(", "))));
    return true;
}

bool readTestCase(const json::FieldReader& fields, const QVector<ArgumentSpec>& arguments,
                  TestCase* out) {
    static const QStringList known{QStringLiteral("name"), QStringLiteral("values"),
                                   QStringLiteral("grid"), QStringLiteral("block")};
    if (!refuseUnknownTestField(fields, known, "a case") ||
        !fields.readString(QStringLiteral("name"), &out->name))
        return false;
    if (QString bad = controlCharacterError(fields.path(QStringLiteral("name")), out->name);
        !bad.isEmpty())
        return fields.fail(bad);
    return readTestValues(fields, arguments, out) &&
           readLaunchFields(fields, arguments, &out->grid, &out->block);
}

bool readTestCases(const QJsonArray& array, const QString& path,
                   const QVector<ArgumentSpec>& arguments, QString* error, TestSpec* out) {
    if (array.size() > TestSpec::kMaxCases)
        return json::FieldReader({}, error).fail(
            QStringLiteral("%1: %2 cases, more than the %3 a project may have")
                .arg(path)
                .arg(array.size())
                .arg(TestSpec::kMaxCases));
    QStringList names;
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QString at = json::indexPath(path, i);
        const json::FieldReader none({}, error);
        if (!array[i].isObject())
            return none.fail(json::typeError(at, QStringLiteral("an object"), array[i]));
        TestCase testCase;
        if (!readTestCase(json::FieldReader(array[i].toObject(), error, at), arguments, &testCase))
            return false;
        if (names.contains(testCase.displayName()))
            return none.fail(QStringLiteral("%1: '%2' names two cases; give one a \"name\"")
                                 .arg(at, testCase.displayName()));
        names << testCase.displayName();
        out->cases.append(std::move(testCase));
    }
    return true;
}

/// "generate" and "over": the generator and the integer scalar it sets.
bool readGenerator(const json::FieldReader& fields, const QVector<ArgumentSpec>& arguments,
                   TestSpec* out) {
    QString generate;
    if (!fields.readChoice(QStringLiteral("generate"), {QStringLiteral("tails")}, &generate) ||
        !fields.readString(QStringLiteral("over"), &out->over))
        return false;
    QStringList integers;
    for (const ArgumentSpec& a : arguments)
        if (isIntegerScalar(a) && a.type.scalar != ScalarType::Bool)
            integers << a.name;
    if (generate.isEmpty()) {
        if (!out->over.isEmpty())
            return fields.fail(QStringLiteral("%1: names the scalar a generator sets, but there "
                                              "is no \"generate\"")
                                   .arg(fields.path(QStringLiteral("over"))));
        return true;
    }
    out->generate = TestSpec::Generator::Tails;
    if (out->over.isEmpty() && integers.size() == 1)
        out->over = integers.first();
    if (!integers.contains(out->over))
        return fields.fail(
            QStringLiteral("%1: %2 (the project's integer scalars: %3)")
                .arg(fields.path(QStringLiteral("over")),
                     out->over.isEmpty()
                         ? QStringLiteral("name the integer scalar the tail sizes are for")
                         : QStringLiteral("'%1' is no integer scalar argument").arg(out->over),
                     integers.isEmpty() ? QStringLiteral("none") : integers.join(", ")));
    return true;
}

/// "determinism": true, false or "reversed" (twice, the second time with the blocks' order
/// reversed where the kernel reads kReversedBlocksDefine).
bool readDeterminism(const json::FieldReader& fields, TestSpec* out) {
    const QString key = QStringLiteral("determinism");
    if (!fields.has(key))
        return true;
    const QJsonValue value = fields.object().value(key);
    if (value.isBool()) {
        out->determinism = value.toBool();
        return true;
    }
    if (value.isString() && value.toString() == QLatin1String("reversed")) {
        out->determinism = true;
        out->reversedBlocks = true;
        return true;
    }
    return fields.fail(
        json::typeError(fields.path(key), QStringLiteral("true, false or \"reversed\""), value));
}

} // namespace

QString TestCase::displayName() const {
    if (!name.isEmpty())
        return name;
    QStringList parts;
    for (const TestValue& v : values)
        parts << QStringLiteral("%1 = %2").arg(v.name, testValueText(v.value));
    if (parts.isEmpty() && block)
        parts << QStringLiteral("block %1x%2x%3").arg((*block)[0], (*block)[1], (*block)[2]);
    return parts.isEmpty() ? QStringLiteral("own size") : parts.join(QStringLiteral(", "));
}

QJsonValue TestCase::toJson() const {
    QJsonObject json;
    if (!name.isEmpty())
        json.insert(QStringLiteral("name"), name);
    QJsonObject valuesJson;
    for (const TestValue& v : values)
        valuesJson.insert(v.name, v.value);
    if (!valuesJson.isEmpty())
        json.insert(QStringLiteral("values"), valuesJson);
    if (grid)
        json.insert(QStringLiteral("grid"), testFormulasJson(*grid));
    if (block)
        json.insert(QStringLiteral("block"), testBlockJson(*block));
    return json;
}

std::optional<std::array<int, 3>> evaluateTestBlock(const std::array<QString, 3>& formulas,
                                                    const QVector<ArgumentSpec>& arguments,
                                                    const QVector<TestValue>& values,
                                                    QString* error) {
    std::array<int, 3> dims{1, 1, 1};
    for (size_t axis = 0; axis < 3; ++axis) {
        const QString where = QStringLiteral("block[%1]: ").arg(axis);
        BlockFormula formula;
        if (QString bad = formula.compile(formulas[axis], arguments); !bad.isEmpty()) {
            if (error)
                *error = where + bad;
            return std::nullopt;
        }
        const double value = formula.evaluate(values);
        if (!(value >= 1 && value <= kMaxTestBlockThreads) || value != std::floor(value)) {
            if (error)
                *error = where + QStringLiteral("%1 gives %2, not a whole number from 1 to %3")
                                     .arg(formulas[axis], std::isfinite(value)
                                                              ? testValueText(value)
                                                              : QStringLiteral("no number"))
                                     .arg(kMaxTestBlockThreads);
            return std::nullopt;
        }
        dims[axis] = int(value);
    }
    return dims;
}

QVector<qint64> tailSizes(int blockX, std::optional<qint64> own) {
    const qint64 bx = std::max(1, blockX);
    QVector<qint64> sizes{1, 31, 32, 33, bx - 1, bx, bx + 1, 2 * bx + 1};
    if (own)
        sizes << *own;
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [](qint64 s) { return s < 1; }),
                sizes.end());
    return sizes;
}

QVector<TestCase> TestSpec::expand(const QVector<ArgumentSpec>& arguments, int blockX) const {
    QVector<TestCase> out = cases;
    if (generate != Generator::Tails)
        return out;
    std::optional<qint64> own;
    if (const ArgumentSpec* scalar = findTestScalar(arguments, over)) {
        bool ok = false;
        const qint64 value = scalar->value.trimmed().toLongLong(&ok, 0);
        if (ok)
            own = value;
    }
    int bx = blockX;
    if (block)
        if (const std::optional<std::array<int, 3>> dims =
                evaluateTestBlock(*block, arguments, {}, nullptr))
            bx = (*dims)[0];
    for (qint64 size : tailSizes(bx, own)) {
        TestCase generated;
        generated.values = {TestValue{over, double(size)}};
        generated.generated = true;
        const bool listed = std::any_of(out.cbegin(), out.cend(), [&](const TestCase& c) {
            return c.values == generated.values && !c.grid && !c.block;
        });
        if (!listed)
            out.append(std::move(generated));
    }
    return out;
}

bool TestSpec::checksDeterminism(const QVector<ArgumentSpec>& arguments) const {
    if (determinism)
        return *determinism;
    return std::any_of(arguments.cbegin(), arguments.cend(), [](const ArgumentSpec& a) {
        return a.isBuffer() && a.buffer.direction != Direction::In &&
               !a.buffer.elementType.isStruct() &&
               scalarTypeInfo(a.buffer.elementType.scalar).isFloat;
    });
}

QJsonValue TestSpec::toJson() const {
    QJsonArray casesJson;
    for (const TestCase& c : cases)
        casesJson.append(c.toJson());
    if (generate == Generator::None && !grid && !block && !determinism && !reversedBlocks)
        return casesJson;
    QJsonObject json;
    if (!casesJson.isEmpty())
        json.insert(QStringLiteral("cases"), casesJson);
    if (generate == Generator::Tails) {
        json.insert(QStringLiteral("generate"), QStringLiteral("tails"));
        json.insert(QStringLiteral("over"), over);
    }
    if (grid)
        json.insert(QStringLiteral("grid"), testFormulasJson(*grid));
    if (block)
        json.insert(QStringLiteral("block"), testBlockJson(*block));
    if (reversedBlocks)
        json.insert(QStringLiteral("determinism"), QStringLiteral("reversed"));
    else if (determinism)
        json.insert(QStringLiteral("determinism"), *determinism);
    return json;
}

std::optional<TestSpec> TestSpec::fromJson(const QJsonValue& json,
                                           const QVector<ArgumentSpec>& arguments, QString* error) {
    TestSpec spec;
    if (json.isArray()) {
        if (!readTestCases(json.toArray(), kTestsSection, arguments, error, &spec))
            return std::nullopt;
        return spec;
    }
    const json::FieldReader none({}, error);
    if (!json.isObject()) {
        none.fail(
            json::typeError(kTestsSection, QStringLiteral("an array of cases or an object"), json));
        return std::nullopt;
    }
    const json::FieldReader fields(json.toObject(), error, kTestsSection);
    static const QStringList known{QStringLiteral("cases"), QStringLiteral("generate"),
                                   QStringLiteral("over"),  QStringLiteral("grid"),
                                   QStringLiteral("block"), QStringLiteral("determinism")};
    QJsonArray cases;
    if (!refuseUnknownTestField(fields, known, "tests") ||
        !fields.readArray(QStringLiteral("cases"), &cases) ||
        !readTestCases(cases, fields.path(QStringLiteral("cases")), arguments, error, &spec) ||
        !readGenerator(fields, arguments, &spec) ||
        !readLaunchFields(fields, arguments, &spec.grid, &spec.block) ||
        !readDeterminism(fields, &spec))
        return std::nullopt;
    if (spec.isEmpty()) {
        fields.fail(
            QStringLiteral("%1: tests nothing: give \"cases\" or \"generate\"").arg(kTestsSection));
        return std::nullopt;
    }
    return spec;
}

} // namespace kernelpad
