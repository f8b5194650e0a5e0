// Interleaved A/B comparisons through the Engine on the GPU (core/engine/AbComparison.h):
// SAXPY against itself finds no difference; a compute-bound kernel against the same kernel
// doing twice the dependent FMAs is slower by about 2×; B on other inputs than A is refused
// before anything runs. Every failure prints the whole result as JSON.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QtTest>

namespace tst_ab {

using namespace kernelpad;

namespace {

constexpr int kWaitMs = 120000;

/// A kernel whose time is `iterations` dependent FMAs per thread: doubling them doubles it.
QString fmaChain(int iterations) {
    return QStringLiteral("extern \"C\" __global__ void chain(float *out, float a, int n)\n"
                          "{\n"
                          "    int tid = blockIdx.x * blockDim.x + threadIdx.x;\n"
                          "    if (tid >= n) return;\n"
                          "    float v = tid * 1e-6f;\n"
                          "    for (int i = 0; i < %1; ++i) v = v * a + 1e-3f;\n"
                          "    out[tid] = v;\n"
                          "}\n")
        .arg(iterations);
}

/// SAXPY's arguments and launch with the FMA chain's source (the arguments are rewritten).
Project chainProject(int iterations) {
    QString error;
    const QJsonObject json{
        {"format", "kernelpad-project"},
        {"version", 1},
        {"name", "chain"},
        {"source", fmaChain(iterations)},
        {"kernel", "chain"},
        {"arguments",
         QJsonArray{QJsonObject{{"name", "out"},
                                {"kind", "buffer"},
                                {"buffer", QJsonObject{{"type", QJsonObject{{"scalar", "float32"}}},
                                                       {"count", "n"},
                                                       {"direction", "out"}}}},
                    QJsonObject{{"name", "a"},
                                {"kind", "scalar"},
                                {"type", QJsonObject{{"scalar", "float32"}}},
                                {"value", "0.999"}},
                    QJsonObject{{"name", "n"},
                                {"kind", "scalar"},
                                {"type", QJsonObject{{"scalar", "int32"}}},
                                {"value", "135168"}}}},
        {"launch", QJsonObject{{"grid", QJsonArray{528, 1, 1}}, {"block", QJsonArray{256, 1, 1}}}},
    };
    std::optional<Project> p = Project::fromJson(json, &error);
    if (!p)
        qFatal("chain project: %s", qPrintable(error));
    return *p;
}

AbOrder orderOf(const Project& a, const Project& b) {
    AbOrder order;
    order.a.project = a;
    order.a.projectDir = test::examplesDir();
    order.b = order.a;
    order.b.project = b;
    order.labelA = QStringLiteral("A");
    order.labelB = QStringLiteral("B");
    order.settings.budgetMs = 5000;
    return order;
}

std::optional<AbResult> compare(Engine& engine, const AbOrder& order) {
    QSignalSpy finished(&engine, &Engine::abFinished);
    const quint64 id = engine.compareAb(order);
    if (!finished.wait(kWaitMs))
        return std::nullopt;
    if (finished.first().at(0).toULongLong() != id)
        return std::nullopt;
    return finished.first().at(1).value<AbResult>();
}

QByteArray dump(const AbResult& r) {
    return QJsonDocument(r.toJson()).toJson(QJsonDocument::Indented);
}

} // namespace

class TestAb : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { KERNELPAD_REQUIRE_DRIVER(); }

    void sameKernelHasNoDifference() {
        Engine engine;
        const Project saxpy = test::loadExample(QStringLiteral("saxpy.kpad"));
        const std::optional<AbResult> r = compare(engine, orderOf(saxpy, saxpy));
        QVERIFY2(r, "no answer within 120 s");
        QVERIFY2(r->status == AbResult::Status::Verdict, dump(*r).constData());
        QVERIFY2(r->verdict.kind == AbVerdict::Kind::NoDifference, dump(*r).constData());
        QVERIFY2(r->a.verified && r->b.verified, dump(*r).constData());
        QVERIFY2(r->blocks >= 8 && r->blocks % 4 == 0, dump(*r).constData());
        QCOMPARE(r->a.blocks, r->b.blocks);
        qInfo().noquote() << "A/A:" << r->headline() << "blocks" << r->blocks << "of"
                          << r->launchesPerBlock;
    }

    void twiceTheWorkIsSlower() {
        Engine engine;
        const std::optional<AbResult> r =
            compare(engine, orderOf(chainProject(20000), chainProject(40000)));
        QVERIFY2(r, "no answer within 120 s");
        QVERIFY2(r->status == AbResult::Status::Verdict, dump(*r).constData());
        QVERIFY2(r->verdict.kind == AbVerdict::Kind::Slower, dump(*r).constData());
        QVERIFY2(r->verdict.ratio > 1.8 && r->verdict.ratio < 2.2, dump(*r).constData());
        QVERIFY2(r->verdict.low <= r->verdict.ratio && r->verdict.high >= r->verdict.ratio,
                 dump(*r).constData());
        qInfo().noquote() << "A vs 2x:" << r->headline();
    }

    void otherInputsAreRefused() {
        Engine engine;
        const Project saxpy = test::loadExample(QStringLiteral("saxpy.kpad"));
        Project other = saxpy;
        other.arguments[0].value = QStringLiteral("3.0");
        const std::optional<AbResult> r = compare(engine, orderOf(saxpy, other));
        QVERIFY2(r, "no answer within 120 s");
        QCOMPARE(r->status, AbResult::Status::Error);
        QCOMPARE(r->runStatus, RunStatus::BadInput);
        QVERIFY2(r->error.contains(QStringLiteral("arguments[0] (a): value is \"3.0\" in B")),
                 qPrintable(r->error));
    }

    void cancelStopsIt() {
        Engine engine;
        const Project saxpy = test::loadExample(QStringLiteral("saxpy.kpad"));
        AbOrder order = orderOf(saxpy, saxpy);
        order.settings.budgetMs = 60000;
        order.settings.targetHalfWidthPercent = 0.0001;
        QSignalSpy finished(&engine, &Engine::abFinished);
        QSignalSpy progress(&engine, &Engine::abProgress);
        const quint64 id = engine.compareAb(order);
        // Cancel once the blocks have started.
        QTRY_VERIFY_WITH_TIMEOUT(std::any_of(progress.cbegin(), progress.cend(),
                                             [](const QList<QVariant>& args) {
                                                 return args.at(1).toString().startsWith(
                                                     QStringLiteral("block 3"));
                                             }),
                                 kWaitMs);
        engine.cancelAb(id);
        QVERIFY(finished.wait(kWaitMs));
        const AbResult r = finished.first().at(1).value<AbResult>();
        QVERIFY2(r.status == AbResult::Status::Cancelled, dump(r).constData());
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestAb)
} // namespace tst_ab
#include "tst_ab.moc"
