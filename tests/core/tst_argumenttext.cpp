// The argument table's cell language (Init and Verify text) and the one rule set that the
// table, the .kpad loader and the CLI share.

#include "../support/TestMain.h"
#include "../support/TestProjects.h"
#include "core/launch/ArgumentText.h"

#include <QJsonDocument>
#include <QTest>

namespace tst_argumenttext {

using namespace kernelpad;
using namespace kernelpad::test;

namespace {

/// a, x (in), y (inout), n: the saxpy arguments, all valid.
QVector<ArgumentSpec> saxpyArguments() {
    return {scalar(QStringLiteral("a"), ScalarType::Float32, QStringLiteral("2.5")),
            buffer(QStringLiteral("x"), QStringLiteral("n"), Direction::In),
            buffer(QStringLiteral("y"), QStringLiteral("n"), Direction::InOut),
            scalar(QStringLiteral("n"), ScalarType::Int32, QStringLiteral("4096"))};
}

} // namespace

class TestArgumentText : public QObject {
    Q_OBJECT
private slots:
    void initTextRoundTrip_data();
    void initTextRoundTrip();
    void verifyTextParses_data();
    void verifyTextParses();
    void initRulesAgreeWithLoader_data();
    void initRulesAgreeWithLoader();
    void argumentProblem_data();
    void argumentProblem();
};

void TestArgumentText::initTextRoundTrip_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("kind");
    QTest::addColumn<double>("first");
    QTest::newRow("uniform-with-seed")
        << "uniform -1 2.5 seed=42" << int(InitSpec::Kind::Uniform) << -1.0;
    QTest::newRow("normal") << "normal 0.5 2 seed=7" << int(InitSpec::Kind::Normal) << 0.5;
    QTest::newRow("iota") << "iota 10 2" << int(InitSpec::Kind::Iota) << 10.0;
    QTest::newRow("constant") << "constant 0.1" << int(InitSpec::Kind::Constant) << 0.1;
    QTest::newRow("zeros") << "zeros" << int(InitSpec::Kind::Zeros) << 0.0;
}

void TestArgumentText::initTextRoundTrip() {
    QFETCH(QString, text);
    QFETCH(int, kind);
    QFETCH(double, first);
    QString error;
    const auto init = parseInitSpec(text, &error);
    QVERIFY2(init, qPrintable(error));
    QCOMPARE(int(init->kind), kind);
    const double parsedFirst = init->kind == InitSpec::Kind::Uniform  ? init->low
                               : init->kind == InitSpec::Kind::Normal ? init->mean
                                                                      : init->value;
    QCOMPARE(parsedFirst, first);
    QCOMPARE(formatInitSpec(*init), text);
    QVERIFY(!parseInitSpec(QStringLiteral("uniform 0 x"), &error));
    QVERIFY(!error.isEmpty());
}

void TestArgumentText::verifyTextParses_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("argument");
    QTest::addColumn<double>("atol");
    QTest::newRow("expression-with-spaces")
        << "expression a * x + y atol=0.001" << int(VerifySpec::Kind::Expression) << "a * x + y"
        << 0.001;
    QTest::newRow("reference") << "reference saxpy_ref" << int(VerifySpec::Kind::Reference)
                               << "saxpy_ref" << 1e-6;
    QTest::newRow("file") << "file out/expected.npy rtol=0 atol=0" << int(VerifySpec::Kind::File)
                          << "out/expected.npy" << 0.0;
    QTest::newRow("none") << "none" << int(VerifySpec::Kind::None) << "" << 1e-6;
}

void TestArgumentText::verifyTextParses() {
    QFETCH(QString, text);
    QFETCH(int, kind);
    QFETCH(QString, argument);
    QFETCH(double, atol);
    QString error;
    const auto verify = parseVerifySpec(text, &error);
    QVERIFY2(verify, qPrintable(error));
    QCOMPARE(int(verify->kind), kind);
    const QString parsed = verify->kind == VerifySpec::Kind::Expression  ? verify->expression
                           : verify->kind == VerifySpec::Kind::Reference ? verify->referenceKernel
                                                                         : verify->path;
    QCOMPARE(parsed, argument);
    QCOMPARE(verify->atol, atol);
    // What the table shows parses back to the same spec.
    const auto again = parseVerifySpec(formatVerifySpec(*verify), &error);
    QVERIFY(again);
    QCOMPARE(again->toJson(), verify->toJson());
}

void TestArgumentText::initRulesAgreeWithLoader_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("problem"); ///< empty: accepted; else how the message starts

    // A constant uniform range is accepted everywhere: the table used to refuse
    // what project files allowed.
    QTest::newRow("uniform low equals high: accepted") << "uniform 2 2 seed=1"
                                                       << "";
    QTest::newRow("uniform low below high") << "uniform 0 1 seed=1"
                                            << "";
    QTest::newRow("uniform low above high") << "uniform 1 0 seed=1"
                                            << "low: 1 is above high (0)";
    QTest::newRow("uniform nan low") << "uniform nan 1"
                                     << "low: must be a finite number";
    QTest::newRow("normal negative stddev") << "normal 0 -1"
                                            << "stddev: must be >= 0 (got -1)";
    QTest::newRow("constant infinity") << "constant inf"
                                       << "value: must be a finite number";
    QTest::newRow("file without path") << "file"
                                       << "path: empty";
}

void TestArgumentText::initRulesAgreeWithLoader() {
    QFETCH(QString, text);
    QFETCH(QString, problem);
    QString error;
    const std::optional<InitSpec> init = parseInitSpec(text, &error);
    QVERIFY2(init, qPrintable(error));
    QVERIFY2(problem.isEmpty() ? init->problem().isEmpty() : init->problem().startsWith(problem),
             qPrintable(init->problem()));
    // The loader reads the same spec back through the same rule: refused with the same words,
    // or accepted. (Non-finite numbers cannot be written as JSON, so those rows stop here.)
    if (!problem.contains(QLatin1String("finite"))) {
        const auto back = InitSpec::fromJson(init->toJson(), &error);
        QCOMPARE(back.has_value(), problem.isEmpty());
        if (!back)
            QCOMPARE(error, init->problem());
    }
    // And the table marks the cell with it.
    QVector<ArgumentSpec> args = saxpyArguments();
    args[1].buffer.init = *init;
    QCOMPARE(kernelpad::argumentProblem(args, 1, ArgumentPart::Init), init->problem());
}

void TestArgumentText::argumentProblem_data() {
    QTest::addColumn<int>("row");
    QTest::addColumn<int>("part");
    QTest::addColumn<QString>("edit"); ///< "field=value" applied to the row
    QTest::addColumn<QString>("problem");

    QTest::newRow("valid arguments") << 1 << int(ArgumentPart::Value) << ""
                                     << "";
    QTest::newRow("int value not a number") << 3 << int(ArgumentPart::Value) << "value=abc"
                                            << "'abc'";
    QTest::newRow("count names an unknown argument") << 1 << int(ArgumentPart::Value) << "count=m*2"
                                                     << "m";
    QTest::newRow("count zero") << 2 << int(ArgumentPart::Value) << "count=0"
                                << "The count is 0: a buffer needs at least one element.";
    QTest::newRow("duplicate name") << 0 << int(ArgumentPart::Name) << "name=n"
                                    << "The name 'n' is used by another argument too.";
    QTest::newRow("name not an identifier")
        << 0 << int(ArgumentPart::Name) << "name=my a"
        << "'my a' is not an identifier: counts and expressions could not use it.";
    QTest::newRow("input buffer verified")
        << 1 << int(ArgumentPart::Verify) << "verify=reference ref"
        << "Only out and inout buffers are verified: 'x' is an input.";
    QTest::newRow("empty expression") << 2 << int(ArgumentPart::Verify) << "verify=expression"
                                      << "expression: empty";
    QTest::newRow("negative tolerance")
        << 2 << int(ArgumentPart::Verify) << "verify=expression a*x+y atol=-1"
        << "atol: must be >= 0 (got -1)";
}

void TestArgumentText::argumentProblem() {
    QFETCH(int, row);
    QFETCH(int, part);
    QFETCH(QString, edit);
    QFETCH(QString, problem);
    QVector<ArgumentSpec> args = saxpyArguments();
    ArgumentSpec& arg = args[row];
    const QString field = edit.section(QLatin1Char('='), 0, 0);
    const QString value = edit.section(QLatin1Char('='), 1);
    QString error;
    if (field == QLatin1String("value"))
        arg.value = value;
    else if (field == QLatin1String("count"))
        arg.buffer.count = value;
    else if (field == QLatin1String("name"))
        arg.name = value;
    else if (field == QLatin1String("verify"))
        arg.buffer.verify = *parseVerifySpec(value, &error);
    const QString got = kernelpad::argumentProblem(args, row, ArgumentPart(part));
    if (problem.isEmpty())
        QVERIFY2(got.isEmpty(), qPrintable(got));
    else
        QVERIFY2(got.contains(problem), qPrintable(got));
}

KERNELPAD_TEST_GUILESS_MAIN(TestArgumentText)
} // namespace tst_argumenttext
#include "tst_argumenttext.moc"
