// Every lesson on a real GPU: a correctness lesson's starter fails (verification, or a launch
// the GPU refuses) and its solution passes; a speed lesson's starter and solution both pass
// and the solution is faster by the lesson's required factor. Prints the measured figures as
// a table and as the "recorded" sections to copy into the lessons. Then the lessons' "tests"
// cases as exercise mode runs them: every solution (and every speed lesson's starter) passes
// every case, and a solution with a tail bug fails at n = 33 in the student's words.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include "core/engine/EngineTests.h"
#include "core/engine/TestRunLesson.h"
#include "core/project/Lesson.h"
#include "core/run/ExecutionSession.h"

#include <QDate>
#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

namespace tst_gpulessons {

using namespace kernelpad;

namespace {

/// The lessons folder: $KERNELPAD_LESSONS (set on the GPU machine, where the tree lives
/// elsewhere), else the source tree's.
QString lessonsDir() {
    return qEnvironmentVariable("KERNELPAD_LESSONS", QStringLiteral(KERNELPAD_LESSONS_DIR));
}

/// One lesson's measured pair, for the closing table.
struct Measured {
    QString folder;
    QString kind;
    QString starterStatus;
    double starterMs = 0;
    double solutionMs = 0;
    double solutionGBs = 0;
    double solutionGflops = 0;
    double starterGBs = 0;
    double starterGflops = 0;
};

/// The lesson's cases run as exercise mode runs them (`project` with the lesson's tests), or
/// nullopt with `*error` when the test run did not end within two minutes.
std::optional<TestReport> runLessonTests(Engine& engine, const Lesson& lesson,
                                         const Project& project, QString* error) {
    EngineTests tests(&engine);
    QSignalSpy finished(&tests, &EngineTests::finished);
    TestOrder order;
    order.base.project = lessonTestProject(lesson, project);
    order.base.projectDir = lesson.directory;
    tests.start(order);
    if (!finished.wait(120000)) {
        *error = QStringLiteral("the lesson's test run did not end within 120 s");
        return std::nullopt;
    }
    return finished.first().at(0).value<TestReport>();
}

/// Every case's checks, one line each, for a failure message read once on the GPU machine.
QString describeReport(const TestReport& report) {
    QStringList lines{
        QStringLiteral("status %1 %2").arg(runStatusName(report.status), report.error)};
    for (const TestCaseResult& c : report.cases) {
        QStringList checks;
        for (const TestCheck& check : c.checks)
            checks << QStringLiteral("%1 %2: %3")
                          .arg(check.name, checkOutcomeName(check.outcome), check.message);
        lines << QStringLiteral("  %1 [%2]: %3")
                     .arg(c.name, c.launch, checks.join(QStringLiteral("; ")));
        for (const TestCheck& check : c.checks)
            for (const QString& detail : check.details)
                lines << QStringLiteral("      ") + detail;
    }
    return lines.join(QLatin1Char('\n'));
}

QStringList lessonFolders() {
    return QDir(lessonsDir()).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
}

QJsonObject figures(double medianMs, double gbs, double gflops) {
    QJsonObject json{{QStringLiteral("medianMs"), medianMs}};
    if (gflops > 0)
        json.insert(QStringLiteral("gflops"), gflops);
    else if (gbs > 0)
        json.insert(QStringLiteral("bandwidthGBs"), gbs);
    return json;
}

} // namespace

class TestGpuLessons : public QObject {
    Q_OBJECT

private:
    CompileCache m_cache;
    std::unique_ptr<ExecutionSession> m_session;
    std::atomic_bool m_cancel{false};
    QVector<Measured> m_measured;
    QString m_device;

    RunResult run(const Project& project, const QString& dir) {
        RunRequest request;
        request.project = project;
        request.projectDir = dir;
        request.keepOutputs = false;
        return m_session->run(request, m_cancel);
    }

private slots:
    void initTestCase() {
        KERNELPAD_REQUIRE_DRIVER();
        m_session = std::make_unique<ExecutionSession>(&m_cache);
    }

    void lessonBehavesAsStated_data() {
        QTest::addColumn<QString>("dir");
        const QStringList folders =
            QDir(lessonsDir()).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
        for (const QString& folder : folders)
            QTest::newRow(qPrintable(folder)) << lessonsDir() + QLatin1Char('/') + folder;
    }
    void lessonBehavesAsStated() {
        QFETCH(QString, dir);
        QString error;
        const std::optional<Lesson> lesson = Lesson::load(dir, &error);
        QVERIFY2(lesson, qPrintable(error));

        const RunResult starter = run(lesson->project, lesson->directory);
        const RunResult solution = run(lesson->solutionProject(), lesson->directory);
        m_device = solution.device.name;
        Measured m;
        m.folder = QFileInfo(dir).fileName();
        m.kind = lessonKindName(lesson->kind);
        m.starterStatus = runStatusName(starter.status);
        m.starterMs = starter.timing.medianMs;
        m.starterGBs = starter.timing.bandwidthGBs;
        m.starterGflops = starter.timing.gflops;
        m.solutionMs = solution.timing.medianMs;
        m.solutionGBs = solution.timing.bandwidthGBs;
        m.solutionGflops = solution.timing.gflops;
        m_measured.append(m);
        qInfo("%s: starter %s (%s) %.4f ms; solution %s %.4f ms", qPrintable(m.folder),
              qPrintable(m.starterStatus), qPrintable(starter.error), m.starterMs,
              qPrintable(runStatusName(solution.status)), m.solutionMs);

        // The solution always passes.
        QVERIFY2(solution.status == RunStatus::Ok && solution.verified(),
                 qPrintable(QStringLiteral("solution: ") + solution.error));
        QVERIFY(!solution.verification.isEmpty());
        QVERIFY(solution.timing.medianMs > 0);

        if (lesson->kind == LessonKind::Correctness) {
            // The starter has a real gap: it must not pass. A launch the GPU refuses (the
            // occupancy lesson's too many registers) fails as surely as a wrong result.
            QVERIFY2(!(starter.status == RunStatus::Ok && starter.verified()),
                     qPrintable(QStringLiteral("the starter passes")));
            QVERIFY2(starter.status == RunStatus::VerificationFailed ||
                         starter.status == RunStatus::BadInput ||
                         starter.status == RunStatus::CudaError,
                     qPrintable(m.starterStatus + QStringLiteral(": ") + starter.error));
        } else {
            QVERIFY2(starter.status == RunStatus::Ok && starter.verified(),
                     qPrintable(QStringLiteral("starter: ") + starter.error));
            const double factor = *lesson->requiredSpeedup;
            QVERIFY2(solution.timing.medianMs * factor < starter.timing.medianMs,
                     qPrintable(QStringLiteral("solution %1 ms is not %2x faster than the "
                                               "starter's %3 ms")
                                    .arg(solution.timing.medianMs)
                                    .arg(factor)
                                    .arg(starter.timing.medianMs)));
        }
    }

    void lessonPassesEverySize_data() {
        QTest::addColumn<QString>("dir");
        for (const QString& folder : lessonFolders())
            QTest::newRow(qPrintable(folder)) << lessonsDir() + QLatin1Char('/') + folder;
    }
    void lessonPassesEverySize() {
        QFETCH(QString, dir);
        QString error;
        const std::optional<Lesson> lesson = Lesson::load(dir, &error);
        QVERIFY2(lesson, qPrintable(error));
        Engine engine;
        QVector<Project> mustPass{lesson->solutionProject()};
        // A speed lesson's starter is correct, only slow: it passes every size too.
        if (lesson->kind == LessonKind::Speed)
            mustPass << lesson->project;
        for (const Project& project : std::as_const(mustPass)) {
            const QString which = project.source == lesson->solutionSource ? "solution" : "starter";
            const std::optional<TestReport> report =
                runLessonTests(engine, *lesson, project, &error);
            QVERIFY2(report, qPrintable(error));
            qInfo("%s %s: %lld cases, passed %d", qPrintable(QFileInfo(dir).fileName()),
                  qPrintable(which), qlonglong(report->cases.size()), int(report->passed()));
            QVERIFY2(report->passed() && report->cases.size() >= 3,
                     qPrintable(which + QLatin1Char('\n') + describeReport(*report)));
        }
    }

    // A student's grid-stride loop that stops at the last whole warp: right at the lesson's
    // own size (a multiple of 32) and wrong at n = 33, where exercise mode names the element.
    void tailBugFailsAtThirtyThree() {
        QString error;
        const std::optional<Lesson> lesson =
            Lesson::load(lessonsDir() + QStringLiteral("/02-saxpy-grid-stride"), &error);
        QVERIFY2(lesson, qPrintable(error));
        Project broken = lesson->solutionProject();
        const QString loop = QStringLiteral("i < n; i += stride");
        QVERIFY2(broken.source.contains(loop), qPrintable(broken.source));
        broken.source.replace(loop, QStringLiteral("i < n - n % 32; i += stride"));
        Engine engine;
        const RunResult own = test::runAndWait(engine, broken);
        QVERIFY2(own.status == RunStatus::Ok && own.verified(),
                 qPrintable(QStringLiteral("the run at its own size should pass: %1 %2")
                                .arg(runStatusName(own.status), own.error)));
        const std::optional<TestReport> report = runLessonTests(engine, *lesson, broken, &error);
        QVERIFY2(report, qPrintable(error));
        const QString all = describeReport(*report);
        QVERIFY2(report->status == RunStatus::Ok && !report->passed(), qPrintable(all));
        const auto tail = std::find_if(report->cases.cbegin(), report->cases.cend(),
                                       [](const TestCaseResult& c) { return c.name == "n = 33"; });
        QVERIFY2(tail != report->cases.cend() && tail->failed(), qPrintable(all));
        QCOMPARE(caseFailureText(*tail), QStringLiteral("n = 33: element 32 never written"));
        LessonVerdict ownSize;
        ownSize.state = LessonVerdict::State::Complete;
        const LessonVerdict verdict = judgeLessonTests(ownSize, *report);
        QCOMPARE(int(verdict.state), int(LessonVerdict::State::Failed));
        qInfo("%s", qPrintable(verdict.failure));
    }

    void cleanupTestCase() {
        if (m_measured.isEmpty())
            return;
        qInfo("Lessons on %s:", qPrintable(m_device));
        qInfo("%-28s %-11s %-20s %12s %12s %12s %12s %8s", "lesson", "kind", "starter",
              "starter ms", "solution ms", "GB/s", "GFLOP/s", "speedup");
        for (const Measured& m : m_measured) {
            const bool starterRan = m.starterMs > 0;
            qInfo("%-28s %-11s %-20s %12.4f %12.4f %12.1f %12.1f %8s", qPrintable(m.folder),
                  qPrintable(m.kind), qPrintable(m.starterStatus), m.starterMs, m.solutionMs,
                  m.solutionGBs, m.solutionGflops,
                  starterRan && m.solutionMs > 0
                      ? qPrintable(QString::number(m.starterMs / m.solutionMs, 'f', 2))
                      : "-");
        }
        // The sections to paste into each lesson.kpad's "lesson.recorded".
        const QString today = QDate::currentDate().toString(Qt::ISODate);
        for (const Measured& m : m_measured) {
            if (m.solutionMs <= 0)
                continue;
            QJsonObject recorded{{QStringLiteral("device"), m_device},
                                 {QStringLiteral("date"), today},
                                 {QStringLiteral("solution"),
                                  figures(m.solutionMs, m.solutionGBs, m.solutionGflops)}};
            // A starter that failed verification has figures that mean nothing to compare.
            if (m.kind == lessonKindName(LessonKind::Speed) && m.starterMs > 0) {
                recorded.insert(QStringLiteral("starter"),
                                figures(m.starterMs, m.starterGBs, m.starterGflops));
                recorded.insert(QStringLiteral("speedup"), m.starterMs / m.solutionMs);
            }
            qInfo("recorded %s: %s", qPrintable(m.folder),
                  QJsonDocument(recorded).toJson(QJsonDocument::Compact).constData());
        }
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestGpuLessons)
} // namespace tst_gpulessons
#include "tst_gpulessons.moc"
