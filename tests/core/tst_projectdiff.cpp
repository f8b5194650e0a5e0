// The "what changed since the last run" note under a timing, from two projects; the lines of
// source and the settings that differ between two versions, both ways.

#include "../support/TestMain.h"
#include "../support/TestProjects.h"
#include "core/project/ProjectDiff.h"

#include <QTest>

namespace tst_projectdiff {

using namespace kernelpad;
using namespace kernelpad::test;

class TestProjectDiff : public QObject {
    Q_OBJECT
private slots:
    void describe_data();
    void describe();
    void sourceLines_data();
    void sourceLines();
    void settings_data();
    void settings();
    void settingsBothWays();
};

void TestProjectDiff::describe_data() {
    QTest::addColumn<bool>("hasBefore");
    QTest::addColumn<Project>("after");
    QTest::addColumn<QString>("expected");

    const Project base = fillProject();
    QTest::newRow("first run") << false << base << QStringLiteral("first run");
    QTest::newRow("same project") << true << base << QStringLiteral("no change");
    Project edited = base;
    edited.source += QStringLiteral("// x\n");
    QTest::newRow("source edited") << true << edited << QStringLiteral("source: 1 line");
    Project renamed = base;
    renamed.kernel = QStringLiteral("fill2");
    QTest::newRow("kernel changed") << true << renamed << QStringLiteral("kernel fill→fill2");
    Project options = base;
    options.options.fastMath = true;
    QTest::newRow("compile options") << true << options << QStringLiteral("compile options");
    Project block = base;
    block.launch.block = {128, 1, 1};
    QTest::newRow("block changed") << true << block << QStringLiteral("block 256→128");
    Project grid2d = base;
    grid2d.launch.grid = {4, 2, 1};
    QTest::newRow("grid becomes 2-D") << true << grid2d << QStringLiteral("grid 4→4×2");
    Project grid3d = base;
    grid3d.launch.grid = {4, 2, 3};
    QTest::newRow("grid becomes 3-D") << true << grid3d << QStringLiteral("grid 4→4×2×3");
    Project shared = base;
    shared.launch.sharedMemBytes = 4096;
    QTest::newRow("shared memory") << true << shared << QStringLiteral("shared 0→4096 B");
    Project scalar = base;
    scalar.arguments[1].value = QStringLiteral("2048");
    QTest::newRow("scalar value") << true << scalar << QStringLiteral("n 1024→2048");
    Project scalarType = base;
    scalarType.arguments[1].type = ValueType::of(ScalarType::Int64);
    QTest::newRow("scalar type") << true << scalarType << QStringLiteral("n type");
    Project count = base;
    count.arguments[0].buffer.count = QStringLiteral("n*2");
    QTest::newRow("buffer count") << true << count << QStringLiteral("out count n→n*2");
    Project init = base;
    init.arguments[0].buffer.init.kind = InitSpec::Kind::Ones;
    QTest::newRow("buffer settings") << true << init << QStringLiteral("out settings");
    Project reshaped = base;
    reshaped.arguments.removeLast();
    QTest::newRow("argument removed") << true << reshaped << QStringLiteral("arguments changed");
    Project both = block;
    both.source += QStringLiteral("// y\n");
    QTest::newRow("source and block")
        << true << both << QStringLiteral("source: 1 line, block 256→128");
    Project cold = base;
    cold.timing.mode = TimingSpec::Mode::Cold;
    QTest::newRow("cold timing") << true << cold << QStringLiteral("hot→cold timing");
    Project unblocked = base;
    unblocked.timing.blockingKernel = false;
    unblocked.timing.repetitions = base.timing.repetitions + 5;
    QTest::newRow("blocking kernel off, more reps")
        << true << unblocked
        << QStringLiteral("blocking kernel off, reps %1→%2")
               .arg(base.timing.repetitions)
               .arg(base.timing.repetitions + 5);
    Project noise = base;
    noise.timing.targetNoise = 0.02;
    QTest::newRow("other timing setting") << true << noise << QStringLiteral("timing settings");
    Project many = both;
    many.kernel = QStringLiteral("fill2");
    many.launch.grid = {8, 1, 1};
    many.launch.sharedMemBytes = 16;
    many.arguments[1].value = QStringLiteral("1");
    QTest::newRow("six changes: four named, then a count")
        << true << many
        << QStringLiteral("source: 1 line, kernel fill→fill2, grid 4→8, block 256→128, 2 more");
}

void TestProjectDiff::describe() {
    QFETCH(bool, hasBefore);
    QFETCH(Project, after);
    QFETCH(QString, expected);
    const std::optional<Project> before =
        hasBefore ? std::optional<Project>(fillProject()) : std::nullopt;
    QCOMPARE(describeProjectChanges(before, after), expected);
}

void TestProjectDiff::sourceLines_data() {
    QTest::addColumn<QString>("before");
    QTest::addColumn<QString>("after");
    QTest::addColumn<int>("expected");
    const QString three = QStringLiteral("a\nb\nc\n");
    QTest::newRow("same") << three << three << 0;
    QTest::newRow("one line changed") << three << QStringLiteral("a\nB\nc\n") << 1;
    QTest::newRow("one line added") << three << QStringLiteral("a\nb\nx\nc\n") << 1;
    QTest::newRow("two removed") << three << QStringLiteral("c\n") << 2;
    QTest::newRow("blank line added counts") << three << QStringLiteral("a\n\nb\nc\n") << 1;
    QTest::newRow("comment edited counts")
        << QStringLiteral("x; // one\n") << QStringLiteral("x; // two\n") << 1;
    QTest::newRow("blanks at line end ignored") << three << QStringLiteral("a  \nb\t\nc\n") << 0;
    QTest::newRow("indentation counts") << three << QStringLiteral("  a\nb\nc\n") << 1;
}

void TestProjectDiff::sourceLines() {
    QFETCH(QString, before);
    QFETCH(QString, after);
    QFETCH(int, expected);
    QCOMPARE(changedSourceLines(before, after), expected);
    QCOMPARE(changedSourceLines(after, before), expected);
}

void TestProjectDiff::settings_data() {
    QTest::addColumn<Project>("after");
    QTest::addColumn<QStringList>("expected"); // "field: before → after"

    const Project base = fillProject();
    QTest::newRow("same project") << base << QStringList();
    Project edited = base;
    edited.source += QStringLiteral("// x\n");
    edited.name = QStringLiteral("renamed");
    QTest::newRow("source and name are not settings") << edited << QStringList();
    Project block = base;
    block.launch.block = {128, 2, 1};
    QTest::newRow("block") << block
                           << QStringList{QStringLiteral("launch.block: [256,1,1] → [128,2,1]")};
    Project scalar = base;
    scalar.arguments[1].value = QStringLiteral("2048");
    QTest::newRow("scalar value names its argument")
        << scalar << QStringList{QStringLiteral("arguments[1].value: 1024 → 2048")};
    Project fast = base;
    fast.options.fastMath = true;
    QTest::newRow("a compile option that was absent")
        << fast << QStringList{QStringLiteral("options.fastMath: (none) → true")};
    Project two = base;
    two.kernel = QStringLiteral("fill2");
    two.timing.repetitions = base.timing.repetitions + 1;
    QTest::newRow("kernel and timing") << two
                                       << QStringList{QStringLiteral("kernel: fill → fill2"),
                                                      QStringLiteral("timing.repetitions: %1 → %2")
                                                          .arg(base.timing.repetitions)
                                                          .arg(base.timing.repetitions + 1)};
}

void TestProjectDiff::settings() {
    QFETCH(Project, after);
    QFETCH(QStringList, expected);
    QStringList got;
    for (const SettingChange& c : diffProjectSettings(fillProject(), after))
        got << QStringLiteral("%1: %2 → %3").arg(c.field, c.before, c.after);
    got.sort();
    expected.sort();
    QCOMPARE(got, expected);
}

void TestProjectDiff::settingsBothWays() {
    // The same fields either way, with before and after swapped.
    const Project base = fillProject();
    Project other = base;
    other.launch.block = {64, 1, 1};
    other.options.fastMath = true;
    other.arguments.removeLast();
    const QVector<SettingChange> forward = diffProjectSettings(base, other);
    const QVector<SettingChange> backward = diffProjectSettings(other, base);
    QVERIFY(!forward.isEmpty());
    QCOMPARE(forward.size(), backward.size());
    for (const SettingChange& f : forward) {
        const SettingChange swapped{f.field, f.after, f.before};
        QVERIFY2(backward.contains(swapped), qPrintable(f.field));
    }
    bool removedArgument = false;
    for (const SettingChange& f : forward)
        removedArgument |=
            f.field.startsWith(QLatin1String("arguments[")) && f.after == QLatin1String("(none)");
    QVERIFY(removedArgument);
}

KERNELPAD_TEST_GUILESS_MAIN(TestProjectDiff)
} // namespace tst_projectdiff
#include "tst_projectdiff.moc"
