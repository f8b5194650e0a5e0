// Exercise mode's word on a lesson's "tests" cases (core/engine/TestRunLesson.h): the case
// that failed and what it got wrong, in the student's words ("n = 33: element 32 never
// written"), from recorded case results without a GPU; and the lesson's verdict once its
// cases ran.

#include "core/engine/TestRunLesson.h"
#include "core/verify/VerificationReport.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QtTest>

namespace tst_lessontests {

using namespace kernelpad;

namespace {

/// One output of `count` floats verified, with `mismatches` wrong (`unwritten` of them never
/// written), the first at `index`.
BufferVerification failedOutput(const QString& name, qint64 count, qint64 mismatches,
                                qint64 unwritten, const Mismatch& first) {
    BufferVerification v;
    v.buffer = name;
    v.method = QStringLiteral("expression 2*x");
    v.checked = count;
    v.mismatches = mismatches;
    v.unwritten = unwritten;
    v.firstMismatches = {first};
    return v;
}

BufferVerification passedOutput(const QString& name, qint64 count) {
    BufferVerification v;
    v.buffer = name;
    v.method = QStringLiteral("expression 2*x");
    v.checked = count;
    v.passed = true;
    return v;
}

/// A case named `name` whose run gave `verification`, its checks made as a test run makes them.
TestCaseResult caseResult(const QString& name, const QVector<BufferVerification>& verification) {
    TestCaseResult result;
    result.name = name;
    result.run.status = std::all_of(verification.cbegin(), verification.cend(),
                                    [](const BufferVerification& v) { return v.passed; })
                            ? RunStatus::Ok
                            : RunStatus::VerificationFailed;
    result.run.verification = verification;
    result.checks = caseChecks(result.run, nullptr, QStringLiteral("not asked"));
    return result;
}

/// `count` floats of `value`, with element `poisoned` made of the byte outputs start as.
OutputBuffer floats(const QString& name, qint64 count, float value, qint64 poisoned) {
    OutputBuffer out;
    out.name = name;
    out.type = ValueType::of(ScalarType::Float32);
    out.count = count;
    QVector<float> values(count, value);
    out.data = QByteArray(reinterpret_cast<const char*>(values.constData()),
                          qsizetype(count * sizeof(float)));
    for (qsizetype b = 0; b < qsizetype(sizeof(float)); ++b)
        out.data[qsizetype(poisoned * sizeof(float)) + b] = char(kPoisonByte);
    return out;
}

LessonVerdict completeAtOwnSize() {
    LessonVerdict verdict;
    verdict.state = LessonVerdict::State::Complete;
    verdict.summary = QStringLiteral("0.0653 ms, verified");
    return verdict;
}

} // namespace

class TestLessonTests : public QObject {
    Q_OBJECT
private slots:
    void failedCaseInWords_data() {
        QTest::addColumn<TestCaseResult>("result");
        QTest::addColumn<QString>("words");
        QTest::newRow("the tail never written")
            << caseResult(QStringLiteral("n = 33"),
                          {failedOutput(QStringLiteral("out"), 33, 1, 1, Mismatch{32, 0, 1.5})})
            << QStringLiteral("n = 33: element 32 never written");
        QTest::newRow("a wrong value")
            << caseResult(QStringLiteral("n = 33"),
                          {failedOutput(QStringLiteral("out"), 33, 1, 0, Mismatch{32, 0, 1.5})})
            << QStringLiteral("n = 33: element 32 is 0.0, expected 1.5");
        QTest::newRow("more wrong than the first")
            << caseResult(QStringLiteral("n = 257"),
                          {failedOutput(QStringLiteral("out"), 257, 4, 0, Mismatch{3, 2, 1})})
            << QStringLiteral("n = 257: element 3 is 2.0, expected 1.0, and 3 more elements "
                              "are wrong");
        QTest::newRow("two outputs: the failed one is named")
            << caseResult(QStringLiteral("n = 257"),
                          {passedOutput(QStringLiteral("block"), 257),
                           failedOutput(QStringLiteral("thread"), 257, 2, 2, Mismatch{256, 0, 0})})
            << QStringLiteral("n = 257: thread: element 256 never written, and 1 more element "
                              "is wrong");
        TestCaseResult mixed =
            caseResult(QStringLiteral("n = 40"),
                       {failedOutput(QStringLiteral("out"), 40, 3, 1, Mismatch{33, 0, 1})});
        mixed.run.outputs = {floats(QStringLiteral("out"), 40, 0.0f, 33)};
        QTest::newRow("some never written: the kept bytes decide")
            << mixed
            << QStringLiteral("n = 40: element 33 never written, and 2 more elements are wrong");
        TestCaseResult written = mixed;
        written.run.outputs = {floats(QStringLiteral("out"), 40, 0.0f, 39)};
        QTest::newRow("some never written, not the first")
            << written
            << QStringLiteral("n = 40: element 33 is 0.0, expected 1.0, and 2 more elements are "
                              "wrong");
        TestCaseResult canary =
            caseResult(QStringLiteral("n = 33"), {passedOutput(QStringLiteral("out"), 33)});
        canary.checks[1] = TestCheck{QStringLiteral("canary"),
                                     CheckOutcome::Failed,
                                     QStringLiteral("out: 4 bytes written past the end (element "
                                                    "33)"),
                                     {}};
        QTest::newRow("a write past the end")
            << canary << QStringLiteral("n = 33: out: 4 bytes written past the end (element 33)");
        TestCaseResult crashed;
        crashed.name = QStringLiteral("n = 1");
        crashed.run.status = RunStatus::CudaError;
        crashed.run.error = QStringLiteral("an illegal memory access\nmore");
        crashed.checks = caseChecks(crashed.run, nullptr, QStringLiteral("not asked"));
        QTest::newRow("a run that failed")
            << crashed
            << QStringLiteral("n = 1: the run failed (cuda-error): an illegal memory access");
        QTest::newRow("passed") << caseResult(QStringLiteral("n = 1"),
                                              {passedOutput(QStringLiteral("out"), 1)})
                                << QString();
    }
    void failedCaseInWords() {
        QFETCH(TestCaseResult, result);
        QFETCH(QString, words);
        QCOMPARE(caseFailureText(result), words);
    }

    void lessonVerdictAfterItsCases() {
        TestReport report;
        report.cases = {
            caseResult(QStringLiteral("n = 1"), {passedOutput(QStringLiteral("out"), 1)}),
            caseResult(QStringLiteral("n = 33"),
                       {failedOutput(QStringLiteral("out"), 33, 1, 1, Mismatch{32, 0, 1.5})}),
            caseResult(QStringLiteral("n = 65"),
                       {failedOutput(QStringLiteral("out"), 65, 1, 1, Mismatch{64, 0, 1.5})})};
        LessonVerdict verdict = judgeLessonTests(completeAtOwnSize(), report);
        QCOMPARE(int(verdict.state), int(LessonVerdict::State::Failed));
        QCOMPARE(verdict.failure, QStringLiteral("Right at its own size, but not at every size: "
                                                 "n = 33: element 32 never written (2 of 3 sizes "
                                                 "fail)."));

        report.cases.resize(1);
        verdict = judgeLessonTests(completeAtOwnSize(), report);
        QCOMPARE(int(verdict.state), int(LessonVerdict::State::Complete));
        QCOMPARE(verdict.summary,
                 QStringLiteral("0.0653 ms, verified, right at the 1 size of its tests"));

        report.status = RunStatus::Cancelled;
        QCOMPARE(int(judgeLessonTests(completeAtOwnSize(), report).state),
                 int(LessonVerdict::State::NotJudged));

        report.status = RunStatus::CompileError;
        report.error = QStringLiteral("kernel.cu(3): error: expected a \";\"\nlog");
        verdict = judgeLessonTests(completeAtOwnSize(), report);
        QCOMPARE(int(verdict.state), int(LessonVerdict::State::Failed));
        QCOMPARE(verdict.failure, QStringLiteral("Verified at its own size, but the other sizes "
                                                 "could not be checked (compile-error): "
                                                 "kernel.cu(3): error: expected a \";\""));
    }

    void theLessonsTestsAreTheOnesRun() {
        QString error;
        const std::optional<Lesson> lesson =
            Lesson::load(QStringLiteral(KERNELPAD_LESSONS_DIR "/01-thread-indices"), &error);
        QVERIFY2(lesson, qPrintable(error));
        Project student = lesson->solutionProject();
        student.tests = TestSpec{}; // a student's copy without the section still runs it
        const Project tested = lessonTestProject(*lesson, student);
        QVERIFY(tested.tests == lesson->project.tests);
        QCOMPARE(tested.source, lesson->solutionSource);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestLessonTests)
} // namespace tst_lessontests
#include "tst_lessontests.moc"
