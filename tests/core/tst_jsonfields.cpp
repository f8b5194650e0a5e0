// The one JSON field reader of every loader: type names, the messages that name the field,
// absent and null fields, and the 2^53 rule for whole numbers.

#include "../support/TestMain.h"
#include "core/io/JsonFields.h"

#include <QJsonDocument>
#include <QTest>

#include <array>
#include <cmath>

namespace tst_jsonfields {

using namespace kernelpad;

namespace {

QJsonObject parse(const QByteArray& text) {
    return QJsonDocument::fromJson(text).object();
}

} // namespace

class TestJsonFields : public QObject {
    Q_OBJECT
private slots:
    void typeNames_data();
    void typeNames();
    void paths();
    void wholeNumbers_data();
    void wholeNumbers();
    void typeErrors_data();
    void typeErrors();
    void absentAndNull();
    void optionals();
    void intRange();
    void nullNumbers();
    void arrays_data();
    void arrays();
    void arraysKeepTheOutputOnFailure();
    void choices();
    void objectsAndNesting();
};

void TestJsonFields::typeNames_data() {
    QTest::addColumn<QJsonValue>("value");
    QTest::addColumn<QString>("name");
    QTest::newRow("boolean") << QJsonValue(true) << "a boolean";
    QTest::newRow("number") << QJsonValue(1.5) << "a number";
    QTest::newRow("string") << QJsonValue("x") << "a string";
    QTest::newRow("array") << QJsonValue(QJsonArray{1}) << "an array";
    QTest::newRow("object") << QJsonValue(QJsonObject{}) << "an object";
    QTest::newRow("null") << QJsonValue(QJsonValue::Null) << "null";
    QTest::newRow("absent") << QJsonValue(QJsonValue::Undefined) << "missing";
}

void TestJsonFields::typeNames() {
    QFETCH(QJsonValue, value);
    QFETCH(QString, name);
    QCOMPARE(json::typeName(value), name);
}

void TestJsonFields::paths() {
    QCOMPARE(json::fieldPath(QString(), QStringLiteral("count")), QStringLiteral("count"));
    QCOMPARE(json::fieldPath(QStringLiteral("arguments[2]"), QStringLiteral("count")),
             QStringLiteral("arguments[2].count"));
    QCOMPARE(json::indexPath(QStringLiteral("arguments"), 2), QStringLiteral("arguments[2]"));

    // A reader placed at a path names every field under it.
    QString error;
    const json::FieldReader fields(parse(R"({"count":"n"})"), &error,
                                   json::indexPath(QStringLiteral("arguments"), 2));
    qint64 count = 0;
    QVERIFY(!fields.readWholeNumber(QStringLiteral("count"), &count));
    QCOMPARE(error, QStringLiteral("arguments[2].count: expected a whole number, got a string"));
}

void TestJsonFields::wholeNumbers_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<qint64>("value");
    QTest::addColumn<QString>("message"); // empty: accepted
    QTest::newRow("zero") << QByteArray(R"({"n":0})") << qint64(0) << QString();
    QTest::newRow("negative") << QByteArray(R"({"n":-7})") << qint64(-7) << QString();
    QTest::newRow("written with an exponent")
        << QByteArray(R"({"n":1e3})") << qint64(1000) << QString();
    QTest::newRow("2^53 - 1, the largest exact")
        << QByteArray(R"({"n":9007199254740991})") << qint64(9007199254740991) << QString();
    QTest::newRow("-(2^53 - 1)") << QByteArray(R"({"n":-9007199254740991})")
                                 << qint64(-9007199254740991) << QString();
    // 2^53 is refused as well: 2^53 + 1 reads back as it.
    QTest::newRow("2^53") << QByteArray(R"({"n":9007199254740992})") << qint64(0)
                          << "n: 9007199254740992 is beyond 2^53 - 1, where a JSON number no "
                             "longer holds every integer exactly";
    QTest::newRow("2^53 + 1 (reads back as 2^53)")
        << QByteArray(R"({"n":9007199254740993})") << qint64(0)
        << "n: 9007199254740992 is beyond 2^53 - 1";
    QTest::newRow("-2^53") << QByteArray(R"({"n":-9007199254740992})") << qint64(0)
                           << "n: -9007199254740992 is beyond 2^53 - 1";
    QTest::newRow("fractional") << QByteArray(R"({"n":1.5})") << qint64(0)
                                << "n: expected a whole number, got 1.5";
    QTest::newRow("a string of digits")
        << QByteArray(R"({"n":"4"})") << qint64(0) << "n: expected a whole number, got a string";
    QTest::newRow("a boolean") << QByteArray(R"({"n":true})") << qint64(0)
                               << "n: expected a whole number, got a boolean";
    QTest::newRow("null") << QByteArray(R"({"n":null})") << qint64(0)
                          << "n: expected a whole number, got null";
}

void TestJsonFields::wholeNumbers() {
    QFETCH(QByteArray, json);
    QFETCH(qint64, value);
    QFETCH(QString, message);
    QString error;
    const json::FieldReader fields(parse(json), &error);
    qint64 out = 0;
    const bool ok = fields.readWholeNumber(QStringLiteral("n"), &out);
    QCOMPARE(ok, message.isEmpty());
    if (ok) {
        QCOMPARE(out, value);
        QVERIFY(error.isEmpty());
    } else {
        QVERIFY2(error.startsWith(message), qPrintable(error));
        QCOMPARE(out, qint64(0)); // untouched
    }
}

void TestJsonFields::typeErrors_data() {
    QTest::addColumn<QString>("reader");
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");
    QTest::newRow("string got a number")
        << "string" << QByteArray(R"({"f":3})") << "f: expected a string, got a number";
    QTest::newRow("bool got a string")
        << "bool" << QByteArray(R"({"f":"yes"})") << "f: expected a boolean, got a string";
    QTest::newRow("number got a boolean")
        << "number" << QByteArray(R"({"f":false})") << "f: expected a number, got a boolean";
    QTest::newRow("number got null")
        << "number" << QByteArray(R"({"f":null})") << "f: expected a number, got null";
    QTest::newRow("array got an object")
        << "array" << QByteArray(R"({"f":{}})") << "f: expected an array, got an object";
    QTest::newRow("object got an array")
        << "object" << QByteArray(R"({"f":[]})") << "f: expected an object, got an array";
    QTest::newRow("required string missing")
        << "required string" << QByteArray("{}") << "f: missing";
}

void TestJsonFields::typeErrors() {
    QFETCH(QString, reader);
    QFETCH(QByteArray, json);
    QFETCH(QString, message);
    QString error;
    const json::FieldReader fields(parse(json), &error);
    const QString key = QStringLiteral("f");
    QString text;
    bool flag = false;
    double number = 0;
    QJsonArray array;
    QJsonObject object;
    bool ok = true;
    if (reader == QLatin1String("string"))
        ok = fields.readString(key, &text);
    else if (reader == QLatin1String("required string"))
        ok = fields.readString(key, &text, json::Presence::Required);
    else if (reader == QLatin1String("bool"))
        ok = fields.readBool(key, &flag);
    else if (reader == QLatin1String("number"))
        ok = fields.readNumber(key, &number);
    else if (reader == QLatin1String("array"))
        ok = fields.readArray(key, &array);
    else if (reader == QLatin1String("object"))
        ok = fields.readObject(key, &object);
    QVERIFY(!ok);
    QCOMPARE(error, message);
}

void TestJsonFields::absentAndNull() {
    QString error;
    const json::FieldReader fields(parse(R"({"n":null})"), &error);
    // Absent and optional: the default stays, no error.
    QString text = QStringLiteral("default");
    QVERIFY(fields.readString(QStringLiteral("absent"), &text));
    QCOMPARE(text, QStringLiteral("default"));
    QVERIFY(error.isEmpty());
    // Null is a value of the wrong type unless the field takes null for absent.
    QVERIFY(!fields.readString(QStringLiteral("n"), &text));
    QCOMPARE(error, QStringLiteral("n: expected a string, got null"));
    error.clear();
    QVERIFY(fields.readString(QStringLiteral("n"), &text, json::Presence::NullIsAbsent));
    QCOMPARE(text, QStringLiteral("default"));
    QVERIFY(!fields.readString(QStringLiteral("absent"), &text, json::Presence::Required));
    QCOMPARE(error, QStringLiteral("absent: missing"));
    // No error string at all is fine: the result alone says it failed.
    const json::FieldReader quiet(parse(R"({"n":"x"})"), nullptr);
    double number = 0;
    QVERIFY(!quiet.readNumber(QStringLiteral("n"), &number));
}

void TestJsonFields::optionals() {
    QString error;
    const json::FieldReader fields(parse(R"({"s":"a","b":true,"i":4,"z":null})"), &error);
    std::optional<QString> s;
    std::optional<bool> b;
    std::optional<int> i;
    std::optional<int> absent;
    std::optional<bool> z;
    QVERIFY(fields.readString(QStringLiteral("s"), &s));
    QVERIFY(fields.readBool(QStringLiteral("b"), &b));
    QVERIFY(fields.readInt(QStringLiteral("i"), &i));
    QVERIFY(fields.readInt(QStringLiteral("none"), &absent));
    QVERIFY(fields.readBool(QStringLiteral("z"), &z, json::Presence::NullIsAbsent));
    QCOMPARE(s, std::optional<QString>(QStringLiteral("a")));
    QCOMPARE(b, std::optional<bool>(true));
    QCOMPARE(i, std::optional<int>(4));
    QVERIFY(!absent);
    QVERIFY(!z);
    QVERIFY(!fields.readBool(QStringLiteral("z"), &z));
    QCOMPARE(error, QStringLiteral("z: expected a boolean, got null"));
}

void TestJsonFields::intRange() {
    QString error;
    const json::FieldReader fields(parse(R"({"zero":0,"big":3000000000,"neg":-1})"), &error);
    int value = 7;
    QVERIFY(!fields.readInt(QStringLiteral("zero"), &value, json::Presence::Optional, {1, 10}));
    QCOMPARE(error, QStringLiteral("zero: must be >= 1 (got 0)"));
    QVERIFY(!fields.readInt(QStringLiteral("big"), &value));
    QCOMPARE(error, QStringLiteral("big: must be at most 2147483647 (got 3000000000)"));
    QVERIFY(!fields.readInt(QStringLiteral("neg"), &value, json::Presence::Optional, {0, 5}));
    QCOMPARE(error, QStringLiteral("neg: must be >= 0 (got -1)"));
    QCOMPARE(value, 7);
    QVERIFY(isExactDoubleInteger(-9007199254740991.0));
    QVERIFY(!isExactDoubleInteger(9007199254740992.0));
    QVERIFY(!isExactDoubleInteger(0.5));
    QVERIFY(!isExactDoubleInteger(std::numeric_limits<double>::infinity()));
}

void TestJsonFields::nullNumbers() {
    QString error;
    const json::FieldReader fields(parse(R"({"n":null,"s":"1"})"), &error);
    double value = 1;
    // Result JSON writes NaN as null: there null is a number without a value.
    QVERIFY(fields.readNumber(QStringLiteral("n"), &value, json::Presence::Required,
                              json::NullNumber::IsNaN));
    QVERIFY(std::isnan(value));
    value = 1;
    QVERIFY(!fields.readNumber(QStringLiteral("n"), &value));
    QCOMPARE(error, QStringLiteral("n: expected a number, got null"));
    QVERIFY(!fields.readNumber(QStringLiteral("s"), &value, json::Presence::Required,
                               json::NullNumber::IsNaN));
    QCOMPARE(error, QStringLiteral("s: expected a number or null, got a string"));
    QVERIFY(!fields.readNumber(QStringLiteral("absent"), &value, json::Presence::Required,
                               json::NullNumber::IsNaN));
    QCOMPARE(error, QStringLiteral("absent: missing"));
    QCOMPARE(value, 1.0);
}

void TestJsonFields::arrays_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("message"); // empty: accepted
    QTest::newRow("numbers") << QByteArray(R"({"a":[1,2.5]})") << "numbers" << QString();
    QTest::newRow("numbers with null, null allowed")
        << QByteArray(R"({"a":[1,null]})") << "nullable numbers" << QString();
    QTest::newRow("numbers with null") << QByteArray(R"({"a":[1,null]})") << "numbers"
                                       << "t.a[1]: expected a number, got null";
    QTest::newRow("numbers with a string")
        << QByteArray(R"({"a":[1,2,3,"4"]})") << "nullable numbers"
        << "t.a[3]: expected a number or null, got a string";
    QTest::newRow("numbers not an array") << QByteArray(R"({"a":{}})") << "numbers"
                                          << "t.a: expected an array, got an object";
    QTest::newRow("strings") << QByteArray(R"({"a":["x",""]})") << "strings" << QString();
    QTest::newRow("strings with a number") << QByteArray(R"({"a":["x",2]})") << "strings"
                                           << "t.a[1]: expected a string, got a number";
    QTest::newRow("dims") << QByteArray(R"({"a":[1,2,3]})") << "dims" << QString();
    QTest::newRow("dims of two") << QByteArray(R"({"a":[1,2]})") << "dims"
                                 << "t.a: expected [x, y, z], got 2 elements";
    QTest::newRow("dims negative") << QByteArray(R"({"a":[1,-2,3]})") << "dims"
                                   << "t.a[1]: must be >= 0 (got -2)";
    QTest::newRow("dims beyond int") << QByteArray(R"({"a":[1,2,4294967296]})") << "dims"
                                     << "t.a[2]: must be at most 2147483647 (got 4294967296)";
    QTest::newRow("dims a fraction") << QByteArray(R"({"a":[1.5,2,3]})") << "dims"
                                     << "t.a[0]: expected a whole number, got 1.5";
    QTest::newRow("missing") << QByteArray(R"({})") << "numbers"
                             << "t.a: missing";
}

void TestJsonFields::arrays() {
    QFETCH(QByteArray, json);
    QFETCH(QString, kind);
    QFETCH(QString, message);
    QString error;
    const json::FieldReader fields(parse(json), &error, QStringLiteral("t"));
    const QString key = QStringLiteral("a");
    const auto required = json::Presence::Required;
    bool ok = false;
    if (kind == QLatin1String("numbers") || kind == QLatin1String("nullable numbers")) {
        QVector<double> numbers;
        ok = fields.readNumbers(key, &numbers, required,
                                kind == QLatin1String("numbers") ? json::NullNumber::Refused
                                                                 : json::NullNumber::IsNaN);
        if (ok)
            QCOMPARE(numbers.size(), 2);
    } else if (kind == QLatin1String("strings")) {
        QStringList strings;
        ok = fields.readStrings(key, &strings, required);
        if (ok)
            QCOMPARE(strings, (QStringList{QStringLiteral("x"), QString()}));
    } else {
        std::array<int, 3> dims{};
        ok = fields.readDims(key, &dims, required);
        if (ok)
            QCOMPARE(dims, (std::array<int, 3>{1, 2, 3}));
    }
    QCOMPARE(ok, message.isEmpty());
    QCOMPARE(error, message);
}

void TestJsonFields::arraysKeepTheOutputOnFailure() {
    const json::FieldReader fields(parse(R"({"a":[1,"x"],"n":null})"), nullptr);
    QVector<double> numbers{7};
    QVERIFY(!fields.readNumbers(QStringLiteral("a"), &numbers));
    QCOMPARE(numbers, QVector<double>{7});
    // Absent (or null where null is absent) and optional: nothing changes.
    QVERIFY(fields.readNumbers(QStringLiteral("b"), &numbers));
    QVERIFY(fields.readNumbers(QStringLiteral("n"), &numbers, json::Presence::NullIsAbsent));
    QCOMPARE(numbers, QVector<double>{7});
}

void TestJsonFields::choices() {
    QString error;
    const json::FieldReader fields(parse(R"({"tier":"disk","bad":"tape","n":3})"), &error);
    const QStringList tiers{QStringLiteral("none"), QStringLiteral("memory"),
                            QStringLiteral("disk")};
    QString tier = QStringLiteral("none");
    QVERIFY(fields.readChoice(QStringLiteral("tier"), tiers, &tier));
    QCOMPARE(tier, QStringLiteral("disk"));
    QVERIFY(fields.readChoice(QStringLiteral("absent"), tiers, &tier));
    QCOMPARE(tier, QStringLiteral("disk"));
    QVERIFY(!fields.readChoice(QStringLiteral("bad"), tiers, &tier));
    QCOMPARE(error, QStringLiteral("bad: expected one of \"none\", \"memory\", \"disk\", got "
                                   "'tape'"));
    QVERIFY(!fields.readChoice(QStringLiteral("n"), tiers, &tier));
    QCOMPARE(error, QStringLiteral("n: expected a string, got a number"));
    QCOMPARE(tier, QStringLiteral("disk"));
}

void TestJsonFields::objectsAndNesting() {
    QString error;
    const json::FieldReader fields(
        parse(R"({"steps":[{"k":"a"},{"k":"b"},{"k":3}],"list":[{},7],"inner":{"x":"y"}})"), &error,
        QStringLiteral("pipeline"));
    QStringList seen;
    const auto readStep = [&seen](const json::FieldReader& step) {
        QString k;
        if (!step.readString(QStringLiteral("k"), &k, json::Presence::Required))
            return false;
        seen << k;
        return true;
    };
    // Each element's reader sits at its index and reports through the same error.
    QVERIFY(!fields.readObjects(QStringLiteral("steps"), readStep));
    QCOMPARE(seen, (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
    QCOMPARE(error, QStringLiteral("pipeline.steps[2].k: expected a string, got a number"));
    QVERIFY(
        !fields.readObjects(QStringLiteral("list"), [](const json::FieldReader&) { return true; }));
    QCOMPARE(error, QStringLiteral("pipeline.list[1]: expected an object, got a number"));
    QVERIFY(!fields.readObjects(QStringLiteral("absent"), readStep, json::Presence::Required));
    QCOMPARE(error, QStringLiteral("pipeline.absent: missing"));

    QJsonObject inner;
    QVERIFY(fields.readObject(QStringLiteral("inner"), &inner));
    const json::FieldReader nested = fields.nested(QStringLiteral("inner"), inner);
    QCOMPARE(nested.where(), QStringLiteral("pipeline.inner"));
    QCOMPARE(nested.error(), &error);
    bool flag = false;
    QVERIFY(!nested.readBool(QStringLiteral("x"), &flag));
    QCOMPARE(error, QStringLiteral("pipeline.inner.x: expected a boolean, got a string"));
}

KERNELPAD_TEST_GUILESS_MAIN(TestJsonFields)
} // namespace tst_jsonfields
#include "tst_jsonfields.moc"
