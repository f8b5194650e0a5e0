// The project templates run and verify on a GPU; their checks catch the mistakes a newcomer
// makes (a map without its grid-stride loop, a 2D index with x and y swapped, a reduction
// without its barrier).

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include "core/run/ExecutionSession.h"

#include <QTest>

namespace tst_gputemplates {

using namespace kernelpad;

namespace {

/// $KERNELPAD_TEMPLATES (set on the GPU machine, where the tree lives elsewhere), else the
/// source tree's.
QString templatesDir() {
    return qEnvironmentVariable("KERNELPAD_TEMPLATES",
                                QStringLiteral(KERNELPAD_SOURCE_DIR "/resources/templates"));
}

Project loadTemplate(const QString& file) {
    QString error;
    std::optional<Project> p = Project::load(templatesDir() + QLatin1Char('/') + file, &error);
    if (!p)
        qFatal("cannot load template %s: %s", qPrintable(file), qPrintable(error));
    return *p;
}

} // namespace

class TestGpuTemplates : public QObject {
    Q_OBJECT

private:
    CompileCache m_cache;
    std::unique_ptr<ExecutionSession> m_session;
    std::atomic_bool m_cancel{false};

    RunResult run(const Project& p) {
        RunRequest r;
        r.project = p;
        r.projectDir = templatesDir();
        r.repetitions = 5;
        return m_session->run(r, m_cancel);
    }

private slots:
    void initTestCase() {
        KERNELPAD_REQUIRE_DRIVER();
        m_session = std::make_unique<ExecutionSession>(&m_cache);
    }

    void verifies_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("checked"); // the one verified buffer
        QTest::newRow("empty kernel") << "empty_kernel.kpad"
                                      << "out";
        QTest::newRow("1D map") << "map_1d.kpad"
                                << "out";
        QTest::newRow("2D map over an image") << "map_2d.kpad"
                                              << "out";
        QTest::newRow("reduction") << "reduction.kpad"
                                   << "total";
    }
    void verifies() {
        QFETCH(QString, file);
        QFETCH(QString, checked);
        const RunResult r = run(loadTemplate(file));
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
        QCOMPARE(r.verification.size(), 1);
        const BufferVerification& v = r.verification.first();
        QCOMPARE(v.buffer, checked);
        QVERIFY2(v.passed, qPrintable(v.buffer + QStringLiteral(": ") + v.error));
        QCOMPARE(v.unwritten, 0);
        QVERIFY(v.checked > 0);
        QVERIFY(r.timing.medianMs > 0);
        qInfo("%s: %s verified (%lld elements), median %.4f ms, %d registers", qPrintable(file),
              qPrintable(v.buffer), v.checked, r.timing.medianMs, r.resources.registers);
    }

    void checksCatchMistakes_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<bool>("unwritten"); // elements left as the poison shows
        QTest::newRow("1D map without the grid-stride step: 15 of 16 elements unwritten")
            << "map_1d.kpad"
            << "i += stride"
            << "i += n" << true;
        QTest::newRow("2D map with x and y swapped in the index")
            << "map_2d.kpad"
            << "const int pixel = y * width + x;"
            << "const int pixel = x * height + y;" << false;
        QTest::newRow("reduction adding the wrong neighbour") << "reduction.kpad"
                                                              << "sums[threadIdx.x + stride]"
                                                              << "sums[threadIdx.x + 1]" << false;
    }
    void checksCatchMistakes() {
        QFETCH(QString, file);
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(bool, unwritten);
        Project p = loadTemplate(file);
        QVERIFY2(p.source.contains(from), qPrintable(from));
        p.source.replace(from, to);
        const RunResult r = run(p);
        QCOMPARE(r.verification.size(), 1);
        const BufferVerification& v = r.verification.first();
        QVERIFY2(!v.passed, qPrintable(file + QStringLiteral(": the broken kernel verified")));
        QVERIFY(v.mismatches > 0);
        QCOMPARE(v.unwritten > 0, unwritten);
        qInfo("%s broken: %lld mismatches, %lld unwritten", qPrintable(file), v.mismatches,
              v.unwritten);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestGpuTemplates)
} // namespace tst_gputemplates
#include "tst_gputemplates.moc"
