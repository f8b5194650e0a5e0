// The expected values of an expression check are kept between runs only while everything they
// depend on is unchanged: the expression, the output's type and size, the scalars and the
// inputs' contents. Editing the kernel, the thing a user iterates on, must not invalidate them.

#include "core/project/Project.h"
#include "core/run/RunBuffers.h"
#include "core/run/RunVerification.h"

#include <QtTest>

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <functional>

namespace tst_expectedvalues {

using namespace kernelpad;

namespace {

Project saxpy() {
    QString error;
    std::optional<Project> p =
        Project::load(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad"), &error);
    if (!p)
        qFatal("saxpy.kpad: %s", qPrintable(error));
    // Small buffers: the key never looks at the contents, only at what decides them.
    for (ArgumentSpec& a : p->arguments)
        if (a.name == QLatin1String("n"))
            a.value = QStringLiteral("1024");
    return *p;
}

ArgumentSpec& argument(Project& p, const char* name) {
    for (ArgumentSpec& a : p.arguments)
        if (a.name == QLatin1String(name))
            return a;
    qFatal("no argument %s", name);
}

QByteArray keyOf(const Project& p) {
    QString error;
    const std::optional<std::vector<RunBuffer>> buffers =
        prepareBuffers(p.arguments, QStringLiteral(KERNELPAD_EXAMPLES_DIR), &error, nullptr);
    if (!buffers)
        qFatal("buffers: %s", qPrintable(error));
    for (const RunBuffer& b : *buffers)
        if (b.name == QLatin1String("out"))
            return expressionKey(b.verify.expression, b, scalarValues(p.arguments), *buffers);
    qFatal("no output buffer");
}

using Edit = std::function<void(Project&)>;

} // namespace

} // namespace tst_expectedvalues
Q_DECLARE_METATYPE(tst_expectedvalues::Edit)
namespace tst_expectedvalues {

class TestExpectedValues : public QObject {
    Q_OBJECT
private slots:
    void keyFollowsWhatTheValuesDependOn_data();
    void keyFollowsWhatTheValuesDependOn();
};

void TestExpectedValues::keyFollowsWhatTheValuesDependOn_data() {
    QTest::addColumn<Edit>("edit");
    QTest::addColumn<bool>("sameKey");
    QTest::newRow("kernel source edited") << Edit([](Project& p) {
        p.source.replace(QStringLiteral("a * x[tid]"), QStringLiteral("x[tid] * a"));
    }) << true;
    QTest::newRow("launch changed") << Edit([](Project& p) {
        p.launch.block = {128, 1, 1};
    }) << true;
    QTest::newRow("timing changed") << Edit([](Project& p) { p.timing.repetitions = 99; }) << true;
    QTest::newRow("tolerance changed")
        << Edit([](Project& p) { argument(p, "out").buffer.verify.atol = 0.5; }) << true;
    QTest::newRow("scalar a changed")
        << Edit([](Project& p) { argument(p, "a").value = QStringLiteral("3.0"); }) << false;
    QTest::newRow("input x reseeded")
        << Edit([](Project& p) { argument(p, "x").buffer.init.seed += 1; }) << false;
    QTest::newRow("input y range changed")
        << Edit([](Project& p) { argument(p, "y").buffer.init.high = 7.0; }) << false;
    QTest::newRow("expression changed") << Edit([](Project& p) {
        argument(p, "out").buffer.verify.expression = QStringLiteral("a*x-y");
    }) << false;
    QTest::newRow("element count changed")
        << Edit([](Project& p) { argument(p, "n").value = QStringLiteral("2048"); }) << false;
}

void TestExpectedValues::keyFollowsWhatTheValuesDependOn() {
    QFETCH(Edit, edit);
    QFETCH(bool, sameKey);
    const Project before = saxpy();
    Project after = before;
    edit(after);
    const QByteArray a = keyOf(before);
    const QByteArray b = keyOf(after);
    QVERIFY(!a.isEmpty());
    QCOMPARE(a == b, sameKey);
}

KERNELPAD_TEST_GUILESS_MAIN(TestExpectedValues)
} // namespace tst_expectedvalues
#include "tst_expectedvalues.moc"
