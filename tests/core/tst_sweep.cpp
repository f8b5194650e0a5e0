// Sweeps, without a GPU: the "sweep" section parses and
// round-trips, every bad field is refused with its path; the space and what each restriction
// removes (with the % operator muParser lacks); a configuration mapped to its project (block,
// grid and shared-memory formulas, defines, scalar values with the buffers that follow them,
// the kernel's name expression, launches that cannot run); the strategies on synthetic
// objectives with known optima.

#include "core/launch/BufferInit.h"
#include "core/project/Project.h"
#include "core/sweep/SweepSpace.h"
#include "core/sweep/SweepStrategy.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QtTest>

#include <cmath>
#include <functional>

namespace tst_sweep {

using namespace kernelpad;

namespace {

QJsonObject readJson(const QString& file) {
    QFile f(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/") + file);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(file));
    return QJsonDocument::fromJson(f.readAll()).object();
}

/// The transpose example with `edit` applied to its "sweep" object.
QJsonObject transposeWith(const std::function<void(QJsonObject&)>& edit) {
    QJsonObject json = readJson(QStringLiteral("transpose_sweep.kpad"));
    QJsonObject sweep = json.value(QStringLiteral("sweep")).toObject();
    edit(sweep);
    json.insert(QStringLiteral("sweep"), sweep);
    return json;
}

Project parse(const QJsonObject& json) {
    QString error;
    std::optional<Project> p = Project::fromJson(json, &error);
    if (!p)
        qFatal("project refused: %s", qPrintable(error));
    return *p;
}

/// A project sweeping plain parameters X and Y over 0..size-1, with `restrictions`.
Project grid2d(int size, const QStringList& restrictions = {}, int budget = 0,
               SweepStrategySpec::Kind kind = SweepStrategySpec::Kind::Exhaustive,
               quint64 seed = 1) {
    Project p;
    p.source = QStringLiteral("extern \"C\" __global__ void k() {}");
    p.kernel = QStringLiteral("k");
    for (const QString& name : {QStringLiteral("X"), QStringLiteral("Y")}) {
        SweepTunable t;
        t.role = SweepTunable::Role::Parameter;
        t.name = name;
        t.values.kind = SweepValues::Kind::Step;
        t.values.from = 0;
        t.values.to = size - 1;
        t.values.step = 1;
        p.sweep.tunables.append(t);
    }
    p.sweep.restrictions = restrictions;
    p.sweep.strategy = SweepStrategySpec{kind, budget, seed};
    return p;
}

std::unique_ptr<SweepSpace> spaceOf(const Project& p) {
    QString error;
    std::unique_ptr<SweepSpace> space = SweepSpace::create(p, &error);
    if (!space)
        qFatal("space refused: %s", qPrintable(error));
    return space;
}

/// Drives `strategy` as the Sweep does, `capacity` at a time, scoring with `objective`;
/// returns every configuration index in the order proposed.
QVector<int> drive(SweepStrategy& strategy, const SweepSpace& space, int capacity,
                   const std::function<double(const QVector<double>&)>& objective) {
    QVector<int> order;
    while (true) {
        const QVector<int> next = strategy.propose(capacity);
        if (next.isEmpty())
            break;
        for (int index : next) {
            order.append(index);
            strategy.report(index, objective(space.valuesOf(space.points()[index])));
        }
    }
    return order;
}

double bowl(const QVector<double>& v) {
    return (v[0] - 7) * (v[0] - 7) + (v[1] - 3) * (v[1] - 3);
}

} // namespace

class TestSweep : public QObject {
    Q_OBJECT
private slots:
    void exampleParsesAndRoundTrips() {
        const Project p = parse(readJson(QStringLiteral("transpose_sweep.kpad")));
        QCOMPARE(p.sweep.names(), (QStringList{"bx", "by"}));
        QCOMPARE(p.sweep.tunables[0].values.expand().size(), 11);
        QCOMPARE(p.sweep.restrictions, QStringList{"bx*by <= 1024"});
        QString error;
        const std::optional<Project> again = Project::fromJson(p.toJson(), &error);
        QVERIFY2(again, qPrintable(error));
        QVERIFY(*again == p);
        QCOMPARE(again->sweep.toJson(), p.sweep.toJson());

        const Project sizes = parse(readJson(QStringLiteral("saxpy_sizes.kpad")));
        const QVector<double> n = sizes.sweep.find(QStringLiteral("n"))->values.expand();
        QCOMPARE(n.size(), 19); // 2^10 .. 2^28
        QCOMPARE(n.first(), 1024.0);
        QCOMPARE(n.last(), double(1 << 28));
        QCOMPARE(sizes.sweep.objective, SweepObjective::Bandwidth);
    }

    void projectWithoutSweepWritesNone() {
        QJsonObject json = readJson(QStringLiteral("transpose_sweep.kpad"));
        json.remove(QStringLiteral("sweep"));
        QVERIFY(!parse(json).toJson().contains(QStringLiteral("sweep")));
    }

    void badSpecNamesItsField_data() {
        QTest::addColumn<QJsonObject>("json");
        QTest::addColumn<QString>("message");
        const auto row = [](const char* name, const std::function<void(QJsonObject&)>& edit,
                            const QString& message) {
            QTest::newRow(name) << transposeWith(edit) << message;
        };
        const auto setBlockX = [](const QJsonValue& v) {
            return [v](QJsonObject& s) {
                QJsonObject block = s.value("block").toObject();
                block.insert("x", v);
                s.insert("block", block);
            };
        };
        row(
            "block axis w",
            [](QJsonObject& s) {
                s.insert("block", QJsonObject{{"w", QJsonArray{1}}});
            },
            "sweep.block.w: a block has x, y and z");
        row("empty list", setBlockX(QJsonArray{}), "sweep.block.x: must list at least one value");
        row("string value", setBlockX(QJsonArray{1, "two"}), "sweep.block.x[1]: expected a number");
        row("repeated value", setBlockX(QJsonArray{1, 1}), "sweep.block.x[1]: 1 is listed twice");
        row("range without step", setBlockX(QJsonObject{{"from", 1}, {"to", 8}}),
            "sweep.block.x: give exactly one of \"step\" and \"powersOf\"");
        row("range backwards", setBlockX(QJsonObject{{"from", 8}, {"to", 1}, {"step", 1}}),
            "sweep.block.x.to: 1 is below from (8)");
        row("zero step", setBlockX(QJsonObject{{"from", 0}, {"to", 8}, {"step", 0}}),
            "sweep.block.x.step: must be > 0");
        row("powers of one", setBlockX(QJsonObject{{"from", 1}, {"to", 8}, {"powersOf", 1}}),
            "sweep.block.x.powersOf:");
        row("powers from zero", setBlockX(QJsonObject{{"from", 0}, {"to", 8}, {"powersOf", 2}}),
            "sweep.block.x.from: must be > 0 for powers");
        row("huge range", setBlockX(QJsonObject{{"from", 0}, {"to", 1e9}, {"step", 1}}),
            "sweep.block.x: more than the 100000 values");
        row(
            "unknown scalar",
            [](QJsonObject& s) {
                s.insert("scalars", QJsonObject{{"m", QJsonArray{1}}});
            },
            "sweep.scalars.m: the project has no scalar argument 'm'");
        row(
            "buffer as scalar",
            [](QJsonObject& s) {
                s.insert("scalars", QJsonObject{{"in", QJsonArray{1}}});
            },
            "sweep.scalars.in: the project has no scalar argument 'in'");
        row(
            "define not a name",
            [](QJsonObject& s) {
                s.insert("defines", QJsonObject{{"1X", QJsonArray{1}}});
            },
            "sweep.defines.1X: '1X' is not a name");
        row(
            "define named bx",
            [](QJsonObject& s) {
                s.insert("defines", QJsonObject{{"bx", QJsonArray{1}}});
            },
            "sweep.defines.bx: 'bx' names a block dimension");
        row(
            "swept twice",
            [](QJsonObject& s) {
                s.insert("defines", QJsonObject{{"T", QJsonArray{1}}});
                s.insert("parameters", QJsonObject{{"T", QJsonArray{2}}});
            },
            "sweep.parameters.T: 'T' is swept twice");
        row(
            "strategy kind",
            [](QJsonObject& s) {
                s.insert("strategy", QJsonObject{{"kind", "annealing"}});
            },
            "sweep.strategy.kind: expected one of");
        row(
            "negative budget",
            [](QJsonObject& s) {
                s.insert("strategy", QJsonObject{{"kind", "random"}, {"budget", -1}});
            },
            "sweep.strategy.budget:");
        row(
            "grid of two",
            [](QJsonObject& s) {
                s.insert("grid", QJsonArray{"1", "1"});
            },
            "sweep.grid: expected 3 formulas (x, y, z), got 2");
        row(
            "grid of numbers",
            [](QJsonObject& s) {
                s.insert("grid", QJsonArray{1, 1, 1});
            },
            "sweep.grid[0]: expected a string");
        row(
            "objective", [](QJsonObject& s) { s.insert("objective", "fast"); },
            "sweep.objective: expected one of");
        row(
            "unknown field", [](QJsonObject& s) { s.insert("tunables", QJsonObject{}); },
            "sweep.tunables: unknown field");
        row(
            "nothing swept", [](QJsonObject& s) { s.remove("block"); }, "sweep: sweeps nothing");
    }
    void badSpecNamesItsField() {
        QFETCH(QJsonObject, json);
        QFETCH(QString, message);
        QString error;
        QVERIFY(!Project::fromJson(json, &error));
        QVERIFY2(error.startsWith(message), qPrintable(error));
    }

    void sectionNotAnObject() {
        QJsonObject json = readJson(QStringLiteral("transpose_sweep.kpad"));
        json.insert(QStringLiteral("sweep"), QJsonArray{});
        QString error;
        QVERIFY(!Project::fromJson(json, &error));
        QVERIFY2(error.startsWith(QStringLiteral("sweep: expected an object")), qPrintable(error));
    }

    void valuesExpand() {
        SweepValues step;
        step.kind = SweepValues::Kind::Step;
        step.from = 0;
        step.to = 64;
        step.step = 8;
        QCOMPARE(step.expand(), (QVector<double>{0, 8, 16, 24, 32, 40, 48, 56, 64}));
        QString error;
        std::optional<SweepValues> text =
            SweepValues::fromText(QStringLiteral("1:1024:x2"), &error);
        QVERIFY2(text, qPrintable(error));
        QCOMPARE(text->expand().size(), 11);
        text = SweepValues::fromText(QStringLiteral("0:64:8"), &error);
        QVERIFY2(text, qPrintable(error));
        QCOMPARE(text->expand(), step.expand());
        text = SweepValues::fromText(QStringLiteral("32, 64,128"), &error);
        QVERIFY2(text, qPrintable(error));
        QCOMPARE(text->expand(), (QVector<double>{32, 64, 128}));
        QVERIFY(!SweepValues::fromText(QStringLiteral("1,two"), &error));
        QVERIFY2(error.contains(QStringLiteral("'two' is not a number")), qPrintable(error));
        QVERIFY(!SweepValues::fromText(QStringLiteral("1:8"), &error));
        QVERIFY(!SweepValues::fromText(QStringLiteral("8:1:1"), &error));
        QVERIFY2(error.contains(QStringLiteral("below from")), qPrintable(error));
    }

    void restrictionsCountWhatTheyRemove() {
        const Project p = parse(readJson(QStringLiteral("transpose_sweep.kpad")));
        const std::unique_ptr<SweepSpace> space = spaceOf(p);
        QCOMPARE(space->fullSize(), qint64(121));
        QCOMPARE(space->size(), qsizetype(66)); // a + b <= 10 for bx = 2^a, by = 2^b
        QCOMPARE(space->restrictionCounts().size(), 1);
        QCOMPARE(space->restrictionCounts()[0].removed, qint64(55));
        for (const SweepPoint& point : space->points()) {
            const QVector<double> v = space->valuesOf(point);
            QVERIFY(v[0] * v[1] <= 1024);
            QCOMPARE(space->indexOf(point), int(space->points().indexOf(point)));
        }
        QCOMPARE(space->indexOf(SweepPoint{10, 10}), -1); // 1024 x 1024: restricted
    }

    void remainderOperator() {
        Project p = grid2d(1);
        SweepTunable tile;
        tile.role = SweepTunable::Role::Define;
        tile.name = QStringLiteral("TILE");
        tile.values.kind = SweepValues::Kind::Step;
        tile.values.from = 2;
        tile.values.to = 32;
        tile.values.step = 2;
        p.sweep.tunables.append(tile);
        p.sweep.restrictions = {QStringLiteral("TILE % 4 == 0"), QStringLiteral("TILE % 3 != 0")};
        const std::unique_ptr<SweepSpace> space = spaceOf(p);
        QVector<double> kept;
        for (const SweepPoint& point : space->points())
            kept.append(space->valuesOf(point)[2]);
        QCOMPARE(kept, (QVector<double>{4, 8, 16, 20, 28, 32}));
        QCOMPARE(space->restrictionCounts()[0].removed, qint64(8)); // 2, 6, 10, ..., 30
        QCOMPARE(space->restrictionCounts()[1].removed, qint64(5)); // 6, 12, 18, 24, 30
    }

    void badFormulasNameTheirField_data() {
        QTest::addColumn<QJsonObject>("json");
        QTest::addColumn<QString>("message");
        QTest::newRow("restriction syntax") << transposeWith([](QJsonObject& s) {
            s.insert("restrictions", QJsonArray{"bx*by <= 1024", "bx <="});
        }) << "sweep.restrictions[1]:";
        QTest::newRow("restriction unknown name")
            << transposeWith([](QJsonObject& s) { s.insert("restrictions", QJsonArray{"bq < 4"}); })
            << "sweep.restrictions[0]:";
        QTest::newRow("grid formula") << transposeWith([](QJsonObject& s) {
            s.insert("grid", QJsonArray{"cols / bx", "(", "1"});
        }) << "sweep.grid[1]:";
        QTest::newRow("shared formula")
            << transposeWith([](QJsonObject& s) { s.insert("sharedMemBytes", "TILE * 4"); })
            << "sweep.sharedMemBytes:";
        QTest::newRow("kernel placeholder")
            << transposeWith([](QJsonObject& s) { s.insert("kernel", "transpose<{TILE}>"); })
            << "sweep.kernel: {TILE} names no tunable";
    }
    void badFormulasNameTheirField() {
        QFETCH(QJsonObject, json);
        QFETCH(QString, message);
        QString error;
        QVERIFY(!SweepSpace::create(parse(json), &error));
        QVERIFY2(error.startsWith(message), qPrintable(error));
    }

    void configurationMapsToProject() {
        const Project base = parse(transposeWith([](QJsonObject& s) {
            s.insert("defines", QJsonObject{{"TILE", QJsonArray{8, 16}}});
            s.insert("kernel", "transpose_t<{TILE}>");
            s.insert("sharedMemBytes", "TILE * (TILE + 1) * 4");
        }));
        Project withDefine = base;
        withDefine.options.defines = {QStringLiteral("TILE=4"), QStringLiteral("KEEP=1")};
        const std::unique_ptr<SweepSpace> space = spaceOf(withDefine);
        QCOMPARE(space->names(), (QStringList{"bx", "by", "TILE"}));
        const SweepPoint point{5, 3, 1}; // bx = 32, by = 8, TILE = 16
        QCOMPARE(space->key(point), QStringLiteral("bx=32,by=8,TILE=16"));
        QString error;
        const std::optional<Project> p = space->project(point, &error);
        QVERIFY2(p, qPrintable(error));
        QCOMPARE(p->launch.block, (std::array<int, 3>{32, 8, 1}));
        QCOMPARE(p->launch.grid, (std::array<int, 3>{64, 256, 1})); // 2048 / 32, 2048 / 8
        QCOMPARE(p->launch.sharedMemBytes, 16 * 17 * 4);
        QCOMPARE(p->options.defines, (QStringList{"KEEP=1", "TILE=16"}));
        QCOMPARE(p->kernel, QStringLiteral("transpose_t<16>"));
        QVERIFY(p->sweep.isEmpty());
        // Pure: the same point maps to the same project.
        QVERIFY(*space->project(point, &error) == *p);
    }

    void scalarsCarryTheirBuffers() {
        QJsonObject json = readJson(QStringLiteral("saxpy_sizes.kpad"));
        const Project base = parse(json);
        const std::unique_ptr<SweepSpace> space = spaceOf(base);
        QCOMPARE(space->size(), qsizetype(19));
        QString error;
        const std::optional<Project> p = space->project(SweepPoint{2}, &error); // n = 4096
        QVERIFY2(p, qPrintable(error));
        QCOMPARE(p->findArgument(QStringLiteral("n"))->value, QStringLiteral("4096"));
        QCOMPARE(p->launch.grid[0], 16); // (4096 + 255) / 256
        for (const QString& buffer :
             {QStringLiteral("x"), QStringLiteral("y"), QStringLiteral("out")}) {
            const std::optional<qint64> count =
                resolveCount(p->findArgument(buffer)->buffer.count, p->arguments, &error);
            QVERIFY2(count, qPrintable(error));
            QCOMPARE(*count, qint64(4096));
        }
        const std::optional<Project> last = space->project(SweepPoint{18}, &error);
        QVERIFY2(last, qPrintable(error));
        QCOMPARE(last->launch.grid[0], (1 << 28) / 256);
    }

    void unlaunchableConfigurationsAreResults() {
        // Without the restriction, 1024 x 2 threads is a configuration that cannot launch.
        const Project p = parse(transposeWith([](QJsonObject& s) { s.remove("restrictions"); }));
        const std::unique_ptr<SweepSpace> space = spaceOf(p);
        QCOMPARE(space->size(), qsizetype(121));
        QString error;
        QVERIFY(!space->project(SweepPoint{10, 1}, &error));
        QVERIFY2(error.startsWith(QStringLiteral("block:")) &&
                     error.contains(QStringLiteral("1024")),
                 qPrintable(error));
        const Project zeroGrid = parse(transposeWith([](QJsonObject& s) {
            s.insert("grid", QJsonArray{"cols / (bx * 4096)", "1", "1"});
        }));
        QVERIFY(!spaceOf(zeroGrid)->project(SweepPoint{0, 0}, &error));
        QVERIFY2(error.startsWith(QStringLiteral("grid[0]: cols / (bx * 4096) gives 0")),
                 qPrintable(error));
    }

    void exhaustiveVisitsTheRestrictedSpace() {
        const Project p = grid2d(12, {QStringLiteral("X + Y <= 10")});
        const std::unique_ptr<SweepSpace> space = spaceOf(p);
        QCOMPARE(space->size(), qsizetype(66));
        std::unique_ptr<SweepStrategy> s = SweepStrategy::create(p.sweep.strategy, *space);
        const QVector<int> order = drive(*s, *space, 4, bowl);
        QCOMPARE(order.size(), 66);
        QCOMPARE(QSet<int>(order.begin(), order.end()).size(), 66);
        QCOMPARE(s->limit(), 66);
    }

    void randomStaysWithinBudgetWithoutRepeats_data() {
        QTest::addColumn<int>("budget");
        QTest::addColumn<int>("expected");
        QTest::newRow("budget 20 of 144") << 20 << 20;
        QTest::newRow("budget above the space") << 500 << 144;
        QTest::newRow("no budget: the whole space") << 0 << 144;
    }
    void randomStaysWithinBudgetWithoutRepeats() {
        QFETCH(int, budget);
        QFETCH(int, expected);
        const Project p = grid2d(12, {}, budget, SweepStrategySpec::Kind::Random, 42);
        const std::unique_ptr<SweepSpace> space = spaceOf(p);
        std::unique_ptr<SweepStrategy> s = SweepStrategy::create(p.sweep.strategy, *space);
        const QVector<int> order = drive(*s, *space, 3, bowl);
        QCOMPARE(order.size(), expected);
        QCOMPARE(QSet<int>(order.begin(), order.end()).size(), expected);
        // Seeded: the same seed proposes the same sample, another seed another.
        std::unique_ptr<SweepStrategy> same = SweepStrategy::create(p.sweep.strategy, *space);
        QCOMPARE(drive(*same, *space, 5, bowl), order);
        if (expected < 144) {
            SweepStrategySpec other = p.sweep.strategy;
            other.seed = 43;
            std::unique_ptr<SweepStrategy> different = SweepStrategy::create(other, *space);
            QVERIFY(drive(*different, *space, 3, bowl) != order);
        }
    }

    void localSearchFindsTheBowlsMinimum_data() {
        QTest::addColumn<quint64>("seed");
        QTest::addColumn<int>("capacity");
        for (quint64 seed = 1; seed <= 10; ++seed)
            QTest::newRow(qPrintable(QStringLiteral("seed %1").arg(seed)))
                << seed << int(1 + seed % 3);
    }
    void localSearchFindsTheBowlsMinimum() {
        QFETCH(quint64, seed);
        QFETCH(int, capacity);
        const int budget = 60; // of 144 configurations
        const Project p = grid2d(12, {}, budget, SweepStrategySpec::Kind::Local, seed);
        const std::unique_ptr<SweepSpace> space = spaceOf(p);
        std::unique_ptr<SweepStrategy> s = SweepStrategy::create(p.sweep.strategy, *space);
        const QVector<int> order = drive(*s, *space, capacity, bowl);
        QVERIFY(order.size() <= budget);
        QCOMPARE(QSet<int>(order.begin(), order.end()).size(), order.size());
        double best = INFINITY;
        for (int index : order)
            best = std::min(best, bowl(space->valuesOf(space->points()[index])));
        QCOMPARE(best, 0.0);
    }

    void localSearchClimbsAroundFailures() {
        // A failing band (NaN) across the middle: the climb restarts and still finds the
        // minimum on the other side, and never proposes a failed configuration twice.
        const Project p = grid2d(12, {}, 144, SweepStrategySpec::Kind::Local, 3);
        const std::unique_ptr<SweepSpace> space = spaceOf(p);
        std::unique_ptr<SweepStrategy> s = SweepStrategy::create(p.sweep.strategy, *space);
        const auto objective = [](const QVector<double>& v) {
            return v[1] == 6 ? std::nan("") : bowl(v);
        };
        const QVector<int> order = drive(*s, *space, 2, objective);
        QCOMPARE(QSet<int>(order.begin(), order.end()).size(), order.size());
        bool found = false;
        for (int index : order)
            found = found || objective(space->valuesOf(space->points()[index])) == 0.0;
        QVERIFY(found);
    }

    void localSearchSkipsRestrictedNeighbours() {
        const Project p =
            grid2d(12, {QStringLiteral("X != 5")}, 0, SweepStrategySpec::Kind::Local, 9);
        const std::unique_ptr<SweepSpace> space = spaceOf(p);
        std::unique_ptr<SweepStrategy> s = SweepStrategy::create(p.sweep.strategy, *space);
        const QVector<int> order = drive(*s, *space, 1, bowl);
        QVERIFY(order.size() <= int(space->size()));
        for (int index : order)
            QVERIFY(space->valuesOf(space->points()[index])[0] != 5);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestSweep)
} // namespace tst_sweep
#include "tst_sweep.moc"
