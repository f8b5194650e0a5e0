// JSON of argument descriptions and launch configurations: round trips and broken input.
#include "../support/TestMain.h"
#include "core/launch/ArgumentSpec.h"

#include <QJsonDocument>
#include <QtTest>

namespace tst_argumentspec {

using namespace kernelpad;

namespace {

QJsonObject parse(const QByteArray& text) {
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(text, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        qWarning("bad test JSON: %s", qPrintable(parseError.errorString()));
    return doc.object();
}

/// Writes `json` as text and reads it back, as a project file round trip does.
QJsonObject throughText(const QJsonObject& json) {
    return QJsonDocument::fromJson(QJsonDocument(json).toJson()).object();
}

bool sameInit(const InitSpec& a, const InitSpec& b) {
    return a.kind == b.kind && a.value == b.value && a.step == b.step && a.low == b.low &&
           a.high == b.high && a.mean == b.mean && a.stddev == b.stddev && a.seed == b.seed &&
           a.path == b.path;
}

bool sameVerify(const VerifySpec& a, const VerifySpec& b) {
    return a.kind == b.kind && a.referenceKernel == b.referenceKernel &&
           a.expression == b.expression && a.path == b.path && a.atol == b.atol && a.rtol == b.rtol;
}

bool sameBuffer(const BufferSpec& a, const BufferSpec& b) {
    return a.elementType == b.elementType && a.count == b.count && sameInit(a.init, b.init) &&
           a.direction == b.direction && sameVerify(a.verify, b.verify);
}

} // namespace

} // namespace tst_argumentspec
Q_DECLARE_METATYPE(kernelpad::InitSpec)
namespace tst_argumentspec {

class TestArgumentSpec : public QObject {
    Q_OBJECT
private slots:
    void directions();
    void initRoundTrip_data();
    void initRoundTrip();
    void initOnlyRelevantKeys();
    void verifyRoundTrip();
    void argumentRoundTrip();
    void launchConfig();
    void broken_data();
    void broken();
    void neverCrashesOnWrongTypes();
};

void TestArgumentSpec::directions() {
    for (const Direction d : {Direction::In, Direction::Out, Direction::InOut})
        QCOMPARE(directionFromName(directionName(d)), std::optional(d));
    QCOMPARE(directionName(Direction::InOut), QString("inout"));
    QVERIFY(!directionFromName("sideways"));
    QVERIFY(!directionFromName("IN"));
}

void TestArgumentSpec::initRoundTrip_data() {
    QTest::addColumn<InitSpec>("init");
    InitSpec s;
    QTest::newRow("zeros") << s;
    s.kind = InitSpec::Kind::Ones;
    QTest::newRow("ones") << s;
    s = InitSpec{};
    s.kind = InitSpec::Kind::Constant;
    s.value = -2.5;
    QTest::newRow("constant") << s;
    s = InitSpec{};
    s.kind = InitSpec::Kind::Iota;
    s.value = 3;
    s.step = 0.5;
    QTest::newRow("iota") << s;
    s = InitSpec{};
    s.kind = InitSpec::Kind::Uniform;
    s.low = -1;
    s.high = 4;
    s.seed = 42;
    QTest::newRow("uniform") << s;
    s.seed = 18446744073709551557ull; // above 2^53: kept exact as a string
    QTest::newRow("uniform with a 64-bit seed") << s;
    s.seed = 9007199254740993ull; // 2^53 + 1: as a JSON number it would read back as 2^53
    QTest::newRow("uniform with a seed of 2^53 + 1") << s;
    s = InitSpec{};
    s.kind = InitSpec::Kind::Normal;
    s.mean = 1;
    s.stddev = 0.25;
    s.seed = 7;
    QTest::newRow("normal") << s;
    s = InitSpec{};
    s.kind = InitSpec::Kind::File;
    s.path = "data/x.npy";
    QTest::newRow("file") << s;
}

void TestArgumentSpec::initRoundTrip() {
    QFETCH(InitSpec, init);
    QString error;
    const auto back = InitSpec::fromJson(throughText(init.toJson()), &error);
    QVERIFY2(back, qPrintable(error));
    QVERIFY(sameInit(*back, init));
}

void TestArgumentSpec::initOnlyRelevantKeys() {
    InitSpec s;
    s.kind = InitSpec::Kind::Uniform;
    s.seed = 42;
    const QJsonObject json = s.toJson();
    QCOMPARE(json, parse(R"({"kind":"uniform","low":0,"high":1,"seed":42})"));
    s.kind = InitSpec::Kind::Zeros;
    QCOMPARE(s.toJson(), parse(R"({"kind":"zeros"})"));
    // "value" is accepted as iota's start too.
    QString error;
    const auto iota = InitSpec::fromJson(parse(R"({"kind":"iota","value":5})"), &error);
    QVERIFY2(iota, qPrintable(error));
    QCOMPARE(iota->value, 5.0);
    QCOMPARE(iota->step, 1.0);
}

void TestArgumentSpec::verifyRoundTrip() {
    QString error;
    const QJsonObject expression =
        parse(R"({"kind":"expression","expression":"a*x+y","atol":1e-5,"rtol":1e-5})");
    const auto v = VerifySpec::fromJson(expression, &error);
    QVERIFY2(v, qPrintable(error));
    QCOMPARE(v->kind, VerifySpec::Kind::Expression);
    QCOMPARE(v->expression, QString("a*x+y"));
    QCOMPARE(v->atol, 1e-5);
    QCOMPARE(v->toJson(), expression);

    VerifySpec none;
    QCOMPARE(none.toJson(), parse(R"({"kind":"none"})"));
    VerifySpec reference;
    reference.kind = VerifySpec::Kind::Reference;
    reference.referenceKernel = "saxpy_reference";
    const auto back = VerifySpec::fromJson(throughText(reference.toJson()), &error);
    QVERIFY2(back, qPrintable(error));
    QVERIFY(sameVerify(*back, reference));
}

void TestArgumentSpec::argumentRoundTrip() {
    ArgumentSpec x;
    x.name = "x";
    x.kind = ArgumentSpec::Kind::Buffer;
    x.buffer.elementType = ValueType::of(ScalarType::Float16);
    x.buffer.count = "n*2";
    x.buffer.init.kind = InitSpec::Kind::Normal;
    x.buffer.init.seed = 3;
    x.buffer.direction = Direction::InOut;
    x.buffer.verify.kind = VerifySpec::Kind::File;
    x.buffer.verify.path = "expected.npy";
    QString error;
    const auto xBack = ArgumentSpec::fromJson(throughText(x.toJson()), &error);
    QVERIFY2(xBack, qPrintable(error));
    QCOMPARE(xBack->name, x.name);
    QVERIFY(xBack->isBuffer());
    QVERIFY(sameBuffer(xBack->buffer, x.buffer));

    ArgumentSpec s;
    s.name = "s";
    s.type = ValueType::ofStruct(StructType{"testStruct", {{"value", ScalarType::Int32, 1}}});
    s.value = "5";
    const auto sBack = ArgumentSpec::fromJson(throughText(s.toJson()), &error);
    QVERIFY2(sBack, qPrintable(error));
    QVERIFY(!sBack->isBuffer());
    QCOMPARE(sBack->type, s.type);
    QCOMPARE(sBack->value, s.value);

    // Hand-written project files may give values and counts as JSON numbers.
    const auto a = ArgumentSpec::fromJson(
        parse(R"({"name":"a","kind":"scalar","type":{"scalar":"float"},"value":2.5})"), &error);
    QVERIFY2(a, qPrintable(error));
    QCOMPARE(a->value, QString("2.5"));
    QCOMPARE(a->type, ValueType::of(ScalarType::Float32));
    const auto y = ArgumentSpec::fromJson(
        parse(
            R"({"name":"y","kind":"buffer","buffer":{"type":{"scalar":"float32"},"count":1024}})"),
        &error);
    QVERIFY2(y, qPrintable(error));
    QCOMPARE(y->buffer.count, QString("1024"));
    QCOMPARE(y->buffer.direction, Direction::In);
    QCOMPARE(y->buffer.init.kind, InitSpec::Kind::Zeros);
}

void TestArgumentSpec::launchConfig() {
    LaunchConfig c;
    c.grid = {4096, 2, 1};
    c.block = {256, 1, 1};
    c.sharedMemBytes = 1024;
    QCOMPARE(c.toJson(), parse(R"({"grid":[4096,2,1],"block":[256,1,1],"sharedMemBytes":1024})"));
    QString error;
    const auto back = LaunchConfig::fromJson(throughText(c.toJson()), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(*back, c);
    QCOMPARE(back->threadsPerBlock(), qint64(256));
    QCOMPARE(back->totalThreads(), qint64(256) * 4096 * 2);

    // Shorter arrays and bare numbers leave the other dimensions at 1.
    const auto shortForm = LaunchConfig::fromJson(parse(R"({"grid":64,"block":[16,16]})"), &error);
    QVERIFY2(shortForm, qPrintable(error));
    QCOMPARE(shortForm->grid, (std::array<int, 3>{64, 1, 1}));
    QCOMPARE(shortForm->block, (std::array<int, 3>{16, 16, 1}));
    QCOMPARE(shortForm->sharedMemBytes, 0);
}

void TestArgumentSpec::broken_data() {
    QTest::addColumn<QString>("what");
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");
    QTest::newRow("block of zero")
        << "launch" << QByteArray(R"({"block":[0,1,1]})") << "block[0]: must be >= 1 (got 0)";
    QTest::newRow("negative grid.y")
        << "launch" << QByteArray(R"({"grid":[1,-2,1]})") << "grid[1]: must be >= 1 (got -2)";
    QTest::newRow("fractional block") << "launch" << QByteArray(R"({"block":[1.5]})")
                                      << "block[0]: expected a whole number, got 1.5";
    QTest::newRow("grid too long") << "launch" << QByteArray(R"({"grid":[1,1,1,1]})")
                                   << "grid: expected an array of 1 to 3 whole numbers";
    QTest::newRow("grid as text") << "launch" << QByteArray(R"({"grid":"64"})")
                                  << "grid: expected an array";
    QTest::newRow("block above int") << "launch" << QByteArray(R"({"block":[3000000000]})")
                                     << "block[0]: must be at most 2147483647 (got 3000000000)";
    QTest::newRow("negative shared memory") << "launch" << QByteArray(R"({"sharedMemBytes":-1})")
                                            << "sharedMemBytes: must be >= 0 (got -1)";
    QTest::newRow("shared memory as text")
        << "launch" << QByteArray(R"({"sharedMemBytes":"1k"})")
        << "sharedMemBytes: expected a whole number, got a string";
    QTest::newRow("init without kind") << "init" << QByteArray(R"({"low":1})") << "kind: missing";
    QTest::newRow("init unknown kind")
        << "init" << QByteArray(R"({"kind":"gaussian"})") << "kind: unknown kind 'gaussian'";
    QTest::newRow("init low as text") << "init" << QByteArray(R"({"kind":"uniform","low":"0"})")
                                      << "low: expected a number, got a string";
    QTest::newRow("uniform low above high")
        << "init" << QByteArray(R"({"kind":"uniform","low":2,"high":1})") << "low: 2 is above high";
    QTest::newRow("negative stddev")
        << "init" << QByteArray(R"({"kind":"normal","stddev":-1})") << "stddev: must be >= 0";
    QTest::newRow("negative seed")
        << "init" << QByteArray(R"({"kind":"normal","seed":-1})") << "seed:";
    QTest::newRow("seed of 2^53 + 1 as a JSON number")
        << "init" << QByteArray(R"({"kind":"normal","seed":9007199254740993})")
        << "seed: expected a whole number from 0 to 2^53 - 1";
    QTest::newRow("file without path")
        << "init" << QByteArray(R"({"kind":"file"})") << "path: missing";
    QTest::newRow("verify unknown kind")
        << "verify" << QByteArray(R"({"kind":"exact"})") << "kind: unknown kind 'exact'";
    QTest::newRow("expression missing")
        << "verify" << QByteArray(R"({"kind":"expression"})") << "expression: missing";
    QTest::newRow("negative atol")
        << "verify" << QByteArray(R"({"kind":"expression","expression":"x","atol":-1})")
        << "atol: must be >= 0";
    QTest::newRow("argument without name")
        << "argument" << QByteArray(R"({"kind":"scalar"})") << "name: missing";
    QTest::newRow("argument name not a string")
        << "argument" << QByteArray(R"({"name":3})") << "name: expected a string, got a number";
    QTest::newRow("argument unknown kind")
        << "argument" << QByteArray(R"({"name":"a","kind":"pointer"})")
        << "kind: unknown kind 'pointer'";
    QTest::newRow("scalar misspelt type")
        << "argument" << QByteArray(R"({"name":"a","kind":"scalar","type":{"scalar":"flaot"}})")
        << "type.scalar: unknown type 'flaot'";
    QTest::newRow("scalar value as array")
        << "argument"
        << QByteArray(R"({"name":"a","kind":"scalar","type":{"scalar":"int"},"value":[1]})")
        << "value: expected a string or a number";
    QTest::newRow("buffer not an object")
        << "argument" << QByteArray(R"({"name":"x","kind":"buffer","buffer":1})")
        << "buffer: expected an object";
    QTest::newRow("buffer struct field misspelt")
        << "argument"
        << QByteArray(
               R"({"name":"x","kind":"buffer","buffer":{"count":"4","type":{"struct":{"name":"s","fields":[{"name":"a","type":"int"},{"name":"b","type":"flaot"}]}}}})")
        << "buffer.type.struct.fields[1].type: unknown type 'flaot'";
    QTest::newRow("buffer negative count")
        << "argument"
        << QByteArray(
               R"({"name":"x","kind":"buffer","buffer":{"type":{"scalar":"int"},"count":-4}})")
        << "buffer.count: expected a non-negative whole number";
    QTest::newRow("buffer count of 2^53 + 1 as a JSON number")
        << "argument"
        << QByteArray(
               R"({"name":"x","kind":"buffer","buffer":{"type":{"scalar":"int"},"count":9007199254740993}})")
        << "buffer.count: 9007199254740992 is beyond 2^53 - 1";
    QTest::newRow("int64 scalar of 2^53 + 1 as a JSON number")
        << "argument"
        << QByteArray(
               R"({"name":"n","kind":"scalar","type":{"scalar":"int64"},"value":9007199254740993})")
        << "value: 9007199254740992 is beyond 2^53 - 1";
    QTest::newRow("buffer missing count")
        << "argument"
        << QByteArray(R"({"name":"x","kind":"buffer","buffer":{"type":{"scalar":"int"}}})")
        << "buffer.count: missing";
    QTest::newRow("buffer bad direction")
        << "argument"
        << QByteArray(
               R"({"name":"x","kind":"buffer","buffer":{"type":{"scalar":"int"},"count":"n","direction":"up"}})")
        << "buffer.direction: unknown direction 'up'";
    QTest::newRow("buffer bad init")
        << "argument"
        << QByteArray(
               R"({"name":"x","kind":"buffer","buffer":{"type":{"scalar":"int"},"count":"n","init":{"kind":"uniform","high":"1"}}})")
        << "buffer.init.high: expected a number";
    QTest::newRow("buffer verify not an object")
        << "argument"
        << QByteArray(
               R"({"name":"x","kind":"buffer","buffer":{"type":{"scalar":"int"},"count":"n","verify":"yes"}})")
        << "buffer.verify: expected an object";
}

void TestArgumentSpec::broken() {
    QFETCH(QString, what);
    QFETCH(QByteArray, json);
    QFETCH(QString, message);
    const QJsonObject object = parse(json);
    QString error;
    bool parsed = true;
    if (what == "launch")
        parsed = LaunchConfig::fromJson(object, &error).has_value();
    else if (what == "init")
        parsed = InitSpec::fromJson(object, &error).has_value();
    else if (what == "verify")
        parsed = VerifySpec::fromJson(object, &error).has_value();
    else
        parsed = ArgumentSpec::fromJson(object, &error).has_value();
    QVERIFY(!parsed);
    QVERIFY2(error.contains(message), qPrintable(error));
}

void TestArgumentSpec::neverCrashesOnWrongTypes() {
    // Every key of a valid argument replaced by every kind of JSON value: each either parses
    // or says what is wrong.
    ArgumentSpec x;
    x.name = "x";
    x.kind = ArgumentSpec::Kind::Buffer;
    x.buffer.init.kind = InitSpec::Kind::Uniform;
    x.buffer.verify.kind = VerifySpec::Kind::Expression;
    x.buffer.verify.expression = "x";
    const QJsonObject valid = x.toJson();
    const QJsonValue values[] = {QJsonValue(),       QJsonValue(true),   QJsonValue(-1.5),
                                 QJsonValue("text"), QJsonArray{1, "a"}, QJsonObject{{"k", 1}}};
    int rejected = 0;
    const QStringList paths{"name",
                            "kind",
                            "buffer",
                            "buffer/type",
                            "buffer/count",
                            "buffer/init",
                            "buffer/init/seed",
                            "buffer/verify",
                            "buffer/verify/atol",
                            "buffer/direction",
                            "buffer/type/scalar"};
    for (const QString& path : paths) {
        for (const QJsonValue& v : values) {
            const QStringList keys = path.split('/');
            // Rebuild the nested object with one value replaced.
            std::function<QJsonObject(QJsonObject, int)> replace = [&](QJsonObject o, int depth) {
                if (depth == keys.size() - 1)
                    o.insert(keys.at(depth), v);
                else
                    o.insert(keys.at(depth),
                             replace(o.value(keys.at(depth)).toObject(), depth + 1));
                return o;
            };
            QString error;
            if (!ArgumentSpec::fromJson(replace(valid, 0), &error)) {
                ++rejected;
                QVERIFY2(!error.isEmpty(), qPrintable(path));
            }
        }
    }
    QVERIFY(rejected > 50);
    QString error;
    QVERIFY(!LaunchConfig::fromJson(parse(R"({"grid":[null,{},[]]})"), &error));
    QVERIFY(!ArgumentSpec::fromJson(QJsonObject(), &error));
    QVERIFY(!BufferSpec::fromJson(QJsonObject(), &error));
    QVERIFY(!InitSpec::fromJson(QJsonObject(), &error));
}

KERNELPAD_TEST_GUILESS_MAIN(TestArgumentSpec)
} // namespace tst_argumentspec
#include "tst_argumentspec.moc"
