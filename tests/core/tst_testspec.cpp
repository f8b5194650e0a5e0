// A project's "tests" section (core/project/TestSpec.h) and the table its runs give
// (core/engine/TestRun.h): parsing with messages that name the field, the tail generator, the
// round trip, the project diff, the mapping of a case onto the project that runs it, and the
// checks made from run results (verify, determinism) without a GPU.

#include "core/engine/TestRun.h"
#include "core/project/Project.h"
#include "core/project/ProjectDiff.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QtTest>

#include <cstring>

namespace tst_testspec {

using namespace kernelpad;

namespace {

QJsonObject saxpyJson() {
    QFile f(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read saxpy.kpad");
    return QJsonDocument::fromJson(f.readAll()).object();
}

/// saxpy.kpad with `tests` as its "tests" section; nullopt with the loader's message.
std::optional<Project> withTests(const QJsonValue& tests, QString* error) {
    QJsonObject json = saxpyJson();
    json.insert(QStringLiteral("tests"), tests);
    return Project::fromJson(json, error);
}

QJsonValue parse(const char* text) {
    QJsonParseError e;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray("{\"v\":") + text + "}", &e);
    if (e.error != QJsonParseError::NoError)
        qFatal("bad test JSON: %s", text);
    return doc.object().value(QStringLiteral("v"));
}

OutputBuffer floatBuffer(const QString& name, const QVector<float>& values) {
    OutputBuffer b;
    b.name = name;
    b.type = ValueType::of(ScalarType::Float32);
    b.count = values.size();
    b.data = QByteArray(reinterpret_cast<const char*>(values.constData()),
                        qsizetype(values.size() * sizeof(float)));
    return b;
}

OutputBuffer intBuffer(const QString& name, const QVector<qint32>& values) {
    OutputBuffer b;
    b.name = name;
    b.type = ValueType::of(ScalarType::Int32);
    b.count = values.size();
    b.data = QByteArray(reinterpret_cast<const char*>(values.constData()),
                        qsizetype(values.size() * sizeof(qint32)));
    return b;
}

/// The float one ULP above `x` (x > 0).
float nextUp(float x, int ulps) {
    quint32 bits = 0;
    std::memcpy(&bits, &x, sizeof bits);
    bits += quint32(ulps);
    float y = 0;
    std::memcpy(&y, &bits, sizeof y);
    return y;
}

} // namespace

class TestTestSpec : public QObject {
    Q_OBJECT
private slots:
    void refusesBadFields_data();
    void refusesBadFields();
    void roundTrips_data();
    void roundTrips();
    void tailsAroundBlockAndWarp();
    void generatorNeedsItsScalar();
    void diffNamesTests();
    void caseMapsOntoProject();
    void blockFormulaFollowsTheCase();
    void reversedBlocksSecondRun();
    void caseWithBadGridIsNamed();
    void noSectionRunsOwnSize();
    void onlyCasePicksOne();
    void verifyCheckFromRun();
    void determinismCountsUlps();
    void determinismOfIntegers();
    void reportTable();
};

void TestTestSpec::refusesBadFields_data() {
    QTest::addColumn<QString>("tests");
    QTest::addColumn<QString>("message");
    QTest::newRow("fraction for an integer")
        << R"([{"values": {"n": 1}}, {"values": {"n": 2}}, {"values": {"n": 3.5}}])"
        << "tests[2].values.n: not an integer (got 3.5; 'n' is uint64)";
    QTest::newRow("negative for unsigned") << R"([{"values": {"n": -1}}])"
                                           << "tests[0].values.n";
    QTest::newRow("string value") << R"([{"values": {"n": "33"}}])"
                                  << "tests[0].values.n: not an integer (got a string";
    QTest::newRow("unknown scalar") << R"([{"values": {"m": 3}}])"
                                    << "tests[0].values.m: the project has no numeric scalar "
                                       "argument 'm'";
    QTest::newRow("a buffer is no scalar") << R"([{"values": {"x": 3}}])"
                                           << "tests[0].values.x: the project has no numeric";
    QTest::newRow("unknown case field") << R"([{"value": {"n": 3}}])"
                                        << "tests[0].value: unknown field (a case has name, "
                                           "values, grid, block)";
    QTest::newRow("two grid formulas") << R"([{"values": {"n": 3}, "grid": ["n", "1"]}])"
                                       << "tests[0].grid: expected 3 formulas (x, y, z), got 2";
    QTest::newRow("block too large") << R"([{"values": {"n": 3}, "block": [2048, 1, 1]}])"
                                     << "tests[0].block";
    QTest::newRow("block formula with an unknown name")
        << R"j([{"values": {"n": 3}, "block": ["min(256, m)"]}])j"
        << "tests[0].block[0]: 'm' is no numeric scalar argument (the scalars: ";
    QTest::newRow("block formula that does not parse")
        << R"j({"generate": "tails", "block": ["min(256, n"]})j"
        << "(in \"min(256, n\")";
    QTest::newRow("four block sizes") << R"([{"values": {"n": 3}, "block": [1, 1, 1, 1]}])"
                                      << "tests[0].block: expected 1 to 3 sizes or formulas";
    QTest::newRow("block of a boolean") << R"({"generate": "tails", "block": [true]})"
                                        << "tests.block[0]: expected a whole number or a formula";
    QTest::newRow("duplicate names") << R"([{"values": {"n": 3}}, {"values": {"n": 3}}])"
                                     << "tests[1]: 'n = 3' names two cases";
    QTest::newRow("control character in a name")
        << R"([{"name": "a\nb", "values": {"n": 3}}])"
        << "tests[0].name: must not contain a control character";
    QTest::newRow("object form: bad case") << R"({"cases": [{"values": {"n": 0.25}}]})"
                                           << "tests.cases[0].values.n: not an integer";
    QTest::newRow("unknown section field") << R"({"generate": "tails", "size": 3})"
                                           << "tests.size: unknown field";
    QTest::newRow("unknown generator") << R"({"generate": "edges"})"
                                       << "tests.generate";
    QTest::newRow("over names a float")
        << R"({"generate": "tails", "over": "a"})"
        << "tests.over: 'a' is no integer scalar argument (the project's integer scalars: n)";
    QTest::newRow("over without generate") << R"({"cases": [], "over": "n"})"
                                           << "tests.over: names the scalar a generator sets";
    QTest::newRow("determinism not a bool") << R"({"generate": "tails", "determinism": "yes"})"
                                            << "tests.determinism: expected true, false or "
                                               "\"reversed\"";
    QTest::newRow("empty object") << R"({})"
                                  << "tests: tests nothing";
    QTest::newRow("a number") << R"(3)"
                              << "tests: expected an array of cases or an object";
}

void TestTestSpec::refusesBadFields() {
    QFETCH(QString, tests);
    QFETCH(QString, message);
    QString error;
    const std::optional<Project> p = withTests(parse(tests.toUtf8().constData()), &error);
    QVERIFY2(!p, qPrintable(tests));
    QVERIFY2(error.contains(message), qPrintable(error));
}

void TestTestSpec::roundTrips_data() {
    QTest::addColumn<QString>("tests");
    QTest::newRow("cases only (an array)")
        << R"([{"values": {"n": 33}}, {"name": "big", "values": {"n": 1048583, "a": 0.5}}])";
    QTest::newRow("section settings (an object)")
        << R"({"cases": [{"values": {"n": 33}, "block": [32, 1, 1], "grid": ["(n + bx - 1) / bx", "1", "1"]}],
               "generate": "tails", "over": "n", "block": [128, 1, 1],
               "grid": ["(n + 127) / 128", "1", "1"], "determinism": false})";
    QTest::newRow("block formulas, blocks reversed")
        << R"j({"cases": [{"values": {"n": 33}, "block": ["min(256, n)", 2]}],
               "block": [128], "determinism": "reversed"})j";
}

void TestTestSpec::roundTrips() {
    QFETCH(QString, tests);
    QString error;
    const std::optional<Project> p = withTests(parse(tests.toUtf8().constData()), &error);
    QVERIFY2(p, qPrintable(error));
    QVERIFY(!p->tests.isEmpty());
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("t.kpad"));
    QVERIFY2(p->save(path, &error), qPrintable(error));
    const std::optional<Project> again = Project::load(path, &error);
    QVERIFY2(again, qPrintable(error));
    QCOMPARE(again->tests.toJson(), p->tests.toJson());
    QVERIFY(*again == *p);
    QCOMPARE(again->tests.cases.size(), p->tests.cases.size());
}

void TestTestSpec::tailsAroundBlockAndWarp() {
    QCOMPARE(tailSizes(256, qint64(16777216)),
             (QVector<qint64>{1, 31, 32, 33, 255, 256, 257, 513, 16777216}));
    // A block of a warp: the sizes coincide and appear once.
    QCOMPARE(tailSizes(32, std::nullopt), (QVector<qint64>{1, 31, 32, 33, 65}));
    QCOMPARE(tailSizes(1, std::nullopt), (QVector<qint64>{1, 2, 3, 31, 32, 33}));

    QString error;
    const std::optional<Project> p =
        withTests(parse(R"({"cases": [{"values": {"n": 33}}], "generate": "tails"})"), &error);
    QVERIFY2(p, qPrintable(error));
    QCOMPARE(p->tests.over, QStringLiteral("n")); // the only integer scalar
    const QVector<TestCase> cases = p->tests.expand(p->arguments, p->launch.block[0]);
    QStringList names;
    for (const TestCase& c : cases)
        names << c.displayName();
    // The listed case first; the generated 33 is the listed one, not a second case.
    QCOMPARE(names, (QStringList{"n = 33", "n = 1", "n = 31", "n = 32", "n = 255", "n = 256",
                                 "n = 257", "n = 513", "n = 16777216"}));
    QVERIFY(!cases.first().generated);
    QVERIFY(cases.last().generated);
}

void TestTestSpec::generatorNeedsItsScalar() {
    // Two integer scalars: the generator must be told which one.
    QJsonObject json = saxpyJson();
    QJsonArray arguments = json.value(QStringLiteral("arguments")).toArray();
    arguments.append(QJsonObject{{"name", "m"},
                                 {"kind", "scalar"},
                                 {"type", QJsonObject{{"scalar", "int32"}}},
                                 {"value", "4"}});
    json.insert(QStringLiteral("arguments"), arguments);
    json.insert(QStringLiteral("tests"), QJsonObject{{"generate", "tails"}});
    QString error;
    QVERIFY(!Project::fromJson(json, &error));
    QVERIFY2(error.contains(QStringLiteral("tests.over: name the integer scalar the tail sizes "
                                           "are for (the project's integer scalars: n, m)")),
             qPrintable(error));
}

void TestTestSpec::diffNamesTests() {
    QString error;
    const std::optional<Project> before = withTests(parse(R"([{"values": {"n": 33}}])"), &error);
    const std::optional<Project> after = withTests(parse(R"([{"values": {"n": 34}}])"), &error);
    QVERIFY2(before && after, qPrintable(error));
    QCOMPARE(describeProjectChanges(before, *after), QStringLiteral("tests"));
    const QVector<SettingChange> changes = diffProjectSettings(*before, *after);
    QCOMPARE(changes.size(), 1);
    QVERIFY2(changes.first().field.startsWith(QStringLiteral("tests")),
             qPrintable(changes.first().field));
}

void TestTestSpec::caseMapsOntoProject() {
    QString error;
    const std::optional<Project> p = withTests(parse(R"({"cases": [{"values": {"n": 33, "a": 0.5}},
                            {"values": {"n": 1000}, "block": [64, 1, 1]},
                            {"name": "own grid", "values": {"n": 5}, "grid": ["7", "1", "1"]}],
                  "grid": ["(n + bx - 1) / bx", "1", "1"]})"),
                                               &error);
    QVERIFY2(p, qPrintable(error));
    std::optional<Project> first = testCaseProject(*p, p->tests.cases[0], &error);
    QVERIFY2(first, qPrintable(error));
    QCOMPARE(first->findArgument(QStringLiteral("n"))->value, QStringLiteral("33"));
    QCOMPARE(first->findArgument(QStringLiteral("a"))->value, QStringLiteral("0.5"));
    QCOMPARE(first->launch.block, (std::array<int, 3>{256, 1, 1}));
    QCOMPARE(first->launch.grid, (std::array<int, 3>{1, 1, 1})); // (33 + 255) / 256
    QVERIFY(first->tests.isEmpty());
    QVERIFY(first->sweep == p->sweep);

    std::optional<Project> second = testCaseProject(*p, p->tests.cases[1], &error);
    QVERIFY2(second, qPrintable(error));
    QCOMPARE(second->launch.block, (std::array<int, 3>{64, 1, 1}));
    QCOMPARE(second->launch.grid, (std::array<int, 3>{16, 1, 1})); // (1000 + 63) / 64

    std::optional<Project> third = testCaseProject(*p, p->tests.cases[2], &error);
    QVERIFY2(third, qPrintable(error));
    QCOMPARE(third->launch.grid, (std::array<int, 3>{7, 1, 1}));
}

void TestTestSpec::blockFormulaFollowsTheCase() {
    QString error;
    const std::optional<Project> p = withTests(parse(R"j({"cases": [{"values": {"n": 33}},
                            {"values": {"n": 1000}}, {"values": {"n": 0}}],
                  "block": ["min(256, n)"], "grid": ["(n + bx - 1) / bx", "1", "1"]})j"),
                                               &error);
    QVERIFY2(p, qPrintable(error));
    const std::optional<Project> small = testCaseProject(*p, p->tests.cases[0], &error);
    QVERIFY2(small, qPrintable(error));
    QCOMPARE(small->launch.block, (std::array<int, 3>{33, 1, 1}));
    QCOMPARE(small->launch.grid, (std::array<int, 3>{1, 1, 1}));
    const std::optional<Project> large = testCaseProject(*p, p->tests.cases[1], &error);
    QVERIFY2(large, qPrintable(error));
    QCOMPARE(large->launch.block, (std::array<int, 3>{256, 1, 1}));
    QCOMPARE(large->launch.grid, (std::array<int, 3>{4, 1, 1})); // (1000 + 255) / 256
    // A formula that gives no block names the field and the value.
    QVERIFY(!testCaseProject(*p, p->tests.cases[2], &error));
    QCOMPARE(error, QStringLiteral("tests: case 'n = 0': tests.block[0]: min(256, n) gives 0, "
                                   "not a whole number from 1 to 1024"));

    // The tails are around the block the formula gives at the project's own size.
    const std::optional<Project> tails =
        withTests(parse(R"j({"generate": "tails", "block": ["min(128, n)"]})j"), &error);
    QVERIFY2(tails, qPrintable(error));
    QStringList names;
    for (const TestCase& c : tails->tests.expand(tails->arguments, tails->launch.block[0]))
        names << c.displayName();
    QVERIFY2(names.contains(QStringLiteral("n = 127")) && names.contains(QStringLiteral("n = 257")),
             qPrintable(names.join(", ")));
}

void TestTestSpec::reversedBlocksSecondRun() {
    QString error;
    std::optional<Project> p = withTests(
        parse(R"({"cases": [{"values": {"n": 33}}], "determinism": "reversed"})"), &error);
    QVERIFY2(p, qPrintable(error));
    RunRequest base;
    base.project = *p;
    QVector<PlannedCase> plan = planTestCases(base, {}, nullptr, &error);
    QCOMPARE(plan.size(), 1);
    QVERIFY(plan[0].determinism && plan[0].reversedBlocks);
    const QString define = QStringLiteral("KERNELPAD_REVERSED_BLOCKS=1");
    QVERIFY(!plan[0].request.project.options.defines.contains(define));
    QVERIFY(secondRunRequest(plan[0]).project.options.defines.contains(define));
    // saxpy does not read the define: the note says its blocks kept their order.
    QVERIFY2(secondRunNote(plan[0]).contains(QStringLiteral("does not read it")),
             qPrintable(secondRunNote(plan[0])));
    base.project.source.prepend(QStringLiteral("#ifdef KERNELPAD_REVERSED_BLOCKS\n#endif\n"));
    plan = planTestCases(base, {}, nullptr, &error);
    const QString note = secondRunNote(plan[0]);
    QVERIFY2(note.contains(QStringLiteral("reverse order")), qPrintable(note));

    RunResult run;
    run.status = RunStatus::Ok;
    run.outputs = {floatBuffer(QStringLiteral("out"), {1.0f, 2.0f})};
    const QVector<TestCheck> checks = caseChecks(run, &run, {}, note);
    QCOMPARE(checks[3].outcome, CheckOutcome::Passed);
    QVERIFY2(checks[3].message.endsWith(QStringLiteral("(") + note + QStringLiteral(")")),
             qPrintable(checks[3].message));
    // Without "reversed" the second run is the first one's request.
    p = withTests(parse(R"({"cases": [{"values": {"n": 33}}], "determinism": true})"), &error);
    QVERIFY2(p, qPrintable(error));
    base.project = *p;
    plan = planTestCases(base, {}, nullptr, &error);
    QVERIFY(!plan[0].reversedBlocks && secondRunNote(plan[0]).isEmpty());
    QVERIFY(!secondRunRequest(plan[0]).project.options.defines.contains(define));
}

void TestTestSpec::caseWithBadGridIsNamed() {
    QString error;
    const std::optional<Project> p = withTests(
        parse(R"({"cases": [{"values": {"n": 0}}], "grid": ["n / bx", "1", "1"]})"), &error);
    QVERIFY2(p, qPrintable(error));
    QVERIFY(!testCaseProject(*p, p->tests.cases[0], &error));
    QVERIFY2(error.startsWith(QStringLiteral("tests: case 'n = 0': grid[0]: n / bx gives 0")),
             qPrintable(error));
    const std::optional<Project> unknown = withTests(
        parse(R"({"cases": [{"values": {"n": 3}}], "grid": ["q + 1", "1", "1"]})"), &error);
    QVERIFY2(unknown, qPrintable(error));
    QVERIFY(!testCaseProject(*unknown, unknown->tests.cases[0], &error));
    QVERIFY2(error.contains(QStringLiteral("tests.grid[0]")), qPrintable(error));

    // The plan carries the message; the case is still listed.
    RunRequest base;
    base.project = *p;
    const QVector<PlannedCase> plan = planTestCases(base, {}, nullptr, &error);
    QCOMPARE(plan.size(), 1);
    QVERIFY(plan.first().error.contains(QStringLiteral("gives 0")));
}

void TestTestSpec::noSectionRunsOwnSize() {
    QString error;
    const std::optional<Project> p = Project::fromJson(saxpyJson(), &error);
    QVERIFY2(p, qPrintable(error));
    RunRequest base;
    base.project = *p;
    QString note;
    const QVector<PlannedCase> plan = planTestCases(base, {}, &note, &error);
    QCOMPARE(plan.size(), 1);
    QCOMPARE(plan.first().name, QStringLiteral("own size"));
    QVERIFY2(note.contains(QStringLiteral("no \"tests\" section")), qPrintable(note));
    const RunRequest& r = plan.first().request;
    QCOMPARE(r.project.launch.grid, p->launch.grid);
    QCOMPARE(r.repetitions, std::optional<int>(1));
    QVERIFY(r.keepOutputs);
    QVERIFY(!r.project.timing.adaptive);
    QVERIFY(plan.first().determinism); // out is float32
}

void TestTestSpec::onlyCasePicksOne() {
    QString error;
    const std::optional<Project> p =
        withTests(parse(R"({"generate": "tails", "determinism": false})"), &error);
    QVERIFY2(p, qPrintable(error));
    RunRequest base;
    base.project = *p;
    QVector<PlannedCase> plan = planTestCases(base, QStringLiteral("n = 33"), nullptr, &error);
    QCOMPARE(plan.size(), 1);
    QCOMPARE(plan.first().request.project.findArgument(QStringLiteral("n"))->value,
             QStringLiteral("33"));
    QVERIFY(!plan.first().determinism);
    error.clear();
    plan = planTestCases(base, QStringLiteral("n = 34"), nullptr, &error);
    QVERIFY(plan.isEmpty());
    QVERIFY2(error.startsWith(QStringLiteral("--case: no case is named 'n = 34' (the cases: n = 1, "
                                             "n = 31")),
             qPrintable(error));
}

void TestTestSpec::verifyCheckFromRun() {
    RunResult run;
    run.status = RunStatus::VerificationFailed;
    BufferVerification v;
    v.buffer = QStringLiteral("out");
    v.checked = 33;
    v.mismatches = 1;
    v.unwritten = 1;
    v.firstMismatches = {Mismatch{32, 0, 1.5}};
    run.verification = {v};
    QVector<TestCheck> checks = caseChecks(run, nullptr, QStringLiteral("not asked"));
    QCOMPARE(checks.size(), 4);
    QCOMPARE(checks[0].name, QStringLiteral("verify"));
    QCOMPARE(checks[0].outcome, CheckOutcome::Failed);
    QCOMPARE(checks[0].message, QStringLiteral("out: 1 of 33 elements wrong (1 never written)"));
    QCOMPARE(checks[0].details, QStringList{QStringLiteral("out[32]: got 0, expected 1.5")});
    QCOMPARE(checks[1].name, QStringLiteral("canary"));
    QCOMPARE(checks[1].outcome, CheckOutcome::Passed);
    QCOMPARE(checks[2].name, QStringLiteral("zeros"));
    QCOMPARE(checks[2].outcome, CheckOutcome::Skipped); // verify failed already
    QCOMPARE(checks[3].name, QStringLiteral("determinism"));
    QCOMPARE(checks[3].outcome, CheckOutcome::Skipped);
    QCOMPARE(checks[3].message, QStringLiteral("not asked"));

    // A write past the end: the canary fails, and its row is not counted by verify.
    GuardFinding past;
    past.buffer = QStringLiteral("out");
    past.count = 1024;
    past.elementBytes = 4;
    past.bytesAfter = 4;
    past.firstAfter = 1024;
    run.guards = {past};
    BufferVerification guardRow = guardVerification(past);
    run.verification.first().passed = true;
    run.verification << guardRow;
    checks = caseChecks(run, nullptr, {});
    QCOMPARE(checks[0].outcome, CheckOutcome::Passed);
    QCOMPARE(checks[1].outcome, CheckOutcome::Failed);
    QCOMPARE(checks[1].message, QStringLiteral("out: 4 bytes written past the end (element 1024)"));
    run.guards.clear();
    run.verification.removeLast();

    // A check an all-zero output would pass: a warning, not a failure.
    run.verification.first().warnings = {
        QStringLiteral("out: this check would also pass if the kernel wrote nothing (all zeros)")};
    checks = caseChecks(run, nullptr, {});
    QCOMPARE(checks[2].outcome, CheckOutcome::Warning);
    QVERIFY(checks[2].message.contains(QStringLiteral("all zeros")));
    run.verification.first().warnings.clear();

    run.status = RunStatus::Ok;
    checks = caseChecks(run, nullptr, {});
    QCOMPARE(checks[0].outcome, CheckOutcome::Passed);
    QCOMPARE(checks[2].outcome, CheckOutcome::Passed);

    run.verification.clear();
    QCOMPARE(caseChecks(run, nullptr, {})[0].outcome, CheckOutcome::Skipped);

    run.status = RunStatus::CudaError;
    run.error = QStringLiteral("The kernel 'saxpy' made a bad memory access\nUsually: ...");
    checks = caseChecks(run, nullptr, {});
    QCOMPARE(checks[0].outcome, CheckOutcome::Failed);
    QCOMPARE(checks[0].message, QStringLiteral("the run failed (cuda-error): The kernel 'saxpy' "
                                               "made a bad memory access"));
}

void TestTestSpec::determinismCountsUlps() {
    RunResult first, second;
    QVector<float> a(1024, 1.0f), b(1024, 1.0f);
    for (int i = 0; i < 312; ++i)
        b[i * 3] = nextUp(1.0f, 1 + i % 3);
    first.outputs = {floatBuffer(QStringLiteral("out"), a)};
    second.outputs = {floatBuffer(QStringLiteral("out"), b)};
    const TestCheck check = determinismCheck(first, second);
    QCOMPARE(check.outcome, CheckOutcome::Failed);
    QCOMPARE(check.message,
             QStringLiteral("out: not deterministic: 312 elements differ, up to 3 ULP"));
    QVERIFY2(!check.details.isEmpty() &&
                 check.details.first().startsWith(QStringLiteral("out[0]: 1 then 1.0000001")),
             qPrintable(check.details.join('|')));

    const TestCheck same = determinismCheck(first, first);
    QCOMPARE(same.outcome, CheckOutcome::Passed);
    QCOMPARE(same.message, QStringLiteral("two runs gave the same bits (out)"));

    // Contents left on a runner elsewhere cannot be compared: skipped, never passed.
    RunResult kept = second;
    kept.outputs.first().data.clear();
    kept.outputs.first().keptRun = 7;
    QCOMPARE(determinismCheck(first, kept).outcome, CheckOutcome::Skipped);
}

void TestTestSpec::determinismOfIntegers() {
    RunResult first, second;
    first.outputs = {intBuffer(QStringLiteral("sum"), {10, 20, 30})};
    second.outputs = {intBuffer(QStringLiteral("sum"), {10, 25, 29})};
    const TestCheck check = determinismCheck(first, second);
    QCOMPARE(check.outcome, CheckOutcome::Failed);
    QCOMPARE(check.message,
             QStringLiteral("sum: not deterministic: 2 elements differ, by up to 5"));
    QCOMPARE(determinismCheck(first, first).outcome, CheckOutcome::Passed);
}

void TestTestSpec::reportTable() {
    TestReport report;
    TestCaseResult ok, bad;
    ok.name = QStringLiteral("n = 1");
    ok.checks = {TestCheck{QStringLiteral("verify"), CheckOutcome::Passed, {}, {}},
                 TestCheck{QStringLiteral("determinism"), CheckOutcome::Skipped, {}, {}}};
    bad.name = QStringLiteral("n = 33");
    bad.checks = {TestCheck{QStringLiteral("verify"), CheckOutcome::Failed, {}, {}},
                  TestCheck{QStringLiteral("zeros"), CheckOutcome::Warning, {}, {}}};
    report.cases = {ok, bad};
    QCOMPARE(report.checkNames(),
             (QStringList{QStringLiteral("verify"), QStringLiteral("determinism"),
                          QStringLiteral("zeros")}));
    QCOMPARE(report.count(CheckOutcome::Failed), 1);
    QVERIFY(!report.passed());
    QVERIFY(!ok.failed());
    QVERIFY(bad.failed());
    QCOMPARE(bad.find(QStringLiteral("zeros"))->outcome, CheckOutcome::Warning);
    // A warning alone passes.
    report.cases = {ok};
    report.cases.first().checks.append(
        TestCheck{QStringLiteral("zeros"), CheckOutcome::Warning, {}, {}});
    QVERIFY(report.passed());
    const QJsonObject json = report.toJson();
    QCOMPARE(
        json.value(QStringLiteral("checks")).toObject().value(QStringLiteral("warning")).toInt(),
        1);
    QCOMPARE(json.value(QStringLiteral("passed")).toBool(), true);
    report.status = RunStatus::DriverUnavailable;
    report.error = QStringLiteral("no CUDA device");
    QVERIFY(!report.passed());
}

KERNELPAD_TEST_GUILESS_MAIN(TestTestSpec)
} // namespace tst_testspec
#include "tst_testspec.moc"
