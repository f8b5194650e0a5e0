// Launch features without a GPU: virtual arches compile to PTX only; module globals are listed from
// real NVRTC output, read from .kpad files and matched against the module; clusters and
// cooperative launches are validated with messages naming the limit; the new project and
// result fields survive the runner protocol's JSON; every example compiles.

#include "core/compile/Program.h"
#include "core/compile/PtxParser.h"
#include "core/launch/LaunchValidation.h"
#include "core/project/Project.h"
#include "core/run/RunGlobals.h"
#include "core/run/RunTypes.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

namespace tst_launchfeatures {

using namespace kernelpad;

namespace {

const QString kExamples = QStringLiteral(KERNELPAD_EXAMPLES_DIR);

const char* const kGlobalsSource = R"(#include <cuda_fp16.h>
__constant__ float filter[9];
__constant__ float scale = 2.0f;
__device__ unsigned int counter;
__device__ double sums[4] = {1, 2, 3, 4};
namespace ns { __device__ int nested[3]; }
struct Pair { float a; int b; };
__constant__ Pair pairs[2];
extern "C" __global__ void k(float* x)
{
    atomicAdd(&counter, 1u);
    x[0] = filter[0] * scale + float(sums[1]) + float(ns::nested[0]) + pairs[1].a;
}
)";

QJsonObject throughText(const QJsonObject& json) {
    return QJsonDocument::fromJson(QJsonDocument(json).toJson(QJsonDocument::Compact)).object();
}

Project loadExample(const QString& file) {
    QString error;
    std::optional<Project> p = Project::load(kExamples + QLatin1Char('/') + file, &error);
    if (!p)
        qFatal("cannot load %s: %s", qPrintable(file), qPrintable(error));
    return *p;
}

/// A minimal project JSON with `globals` set to `globals`.
QJsonObject projectWithGlobals(const QJsonValue& globals) {
    QJsonObject json{{"format", "kernelpad-project"},
                     {"version", 1},
                     {"source", "__constant__ float f[4]; __global__ void k() {}"},
                     {"kernel", "k"}};
    json.insert("globals", globals);
    return json;
}

QJsonObject globalJson(const QString& name) {
    return QJsonObject{{"name", name},
                       {"type", QJsonObject{{"scalar", "float32"}}},
                       {"count", 4},
                       {"init", QJsonObject{{"kind", "constant"}, {"value", 0.25}}},
                       {"direction", "in"}};
}

ClusterLimits hopper() {
    ClusterLimits limits;
    limits.ccMajor = 9;
    limits.kernelName = QStringLiteral("hist");
    return limits;
}

LaunchConfig launchOf(std::array<int, 3> grid, std::array<int, 3> cluster) {
    LaunchConfig c;
    c.grid = grid;
    c.block = {256, 1, 1};
    c.cluster = cluster;
    return c;
}

} // namespace

} // namespace tst_launchfeatures
Q_DECLARE_METATYPE(kernelpad::ClusterLimits)
namespace tst_launchfeatures {

class TestLaunchFeatures : public QObject {
    Q_OBJECT

private slots:
    void ptxGlobalsFromNvrtc();
    void ptxGlobalsSkipsWhatIsNotAVariable();
    void declaredTypesReadQuickly();
    void clusterDirectivesFromNvrtc();
    void globalsLoad();
    void globalsRefused_data();
    void globalsRefused();
    void globalsMatchedAgainstTheModule_data();
    void globalsMatchedAgainstTheModule();
    void globalsVerifiedOnTheHost();
    void clusterValidation_data();
    void clusterValidation();
    void cooperativeValidation_data();
    void cooperativeValidation();
    void launchJson_data();
    void launchJson();
    void launchDimsChooseTheLaunchCall();
    void protocolCarriesNewFields();
    void everyExampleCompiles_data();
    void everyExampleCompiles();
};

void TestLaunchFeatures::ptxGlobalsFromNvrtc() {
    const CompileResult r = Program(kGlobalsSource, "g.cu", ProgramOptions{}).compile("sm_90");
    QVERIFY2(r.ok, qPrintable(r.log));
    QStringList names;
    for (const ModuleGlobal& g : r.globals)
        names << g.name;
    names.sort();
    QCOMPARE(names, (QStringList{"counter", "filter", "ns::nested", "pairs", "scale", "sums"}));

    const ModuleGlobal* filter = r.findGlobal("filter");
    QVERIFY(filter);
    QCOMPARE(filter->space, QStringLiteral("const"));
    QCOMPARE(filter->sizeBytes, 36);
    QCOMPARE(filter->sourceType, QStringLiteral("float[9]"));
    QCOMPARE(filter->spaceKeyword(), QStringLiteral("__constant__"));
    QVERIFY(!filter->initialized);
    const ModuleGlobal* scale = r.findGlobal("scale");
    QCOMPARE(scale->ptxType, QStringLiteral(".f32"));
    QCOMPARE(scale->sizeBytes, 4);
    QVERIFY(scale->initialized);
    const ModuleGlobal* counter = r.findGlobal("counter");
    QCOMPARE(counter->space, QStringLiteral("global"));
    QCOMPARE(counter->sizeBytes, 4);
    QCOMPARE(counter->sourceType, QStringLiteral("unsigned int"));
    QCOMPARE(r.findGlobal("sums")->sizeBytes, 32);
    QCOMPARE(r.findGlobal("sums")->alignBytes, 8);
    QCOMPARE(r.findGlobal("pairs")->sizeBytes, 16);
    QCOMPARE(r.findGlobal("pairs")->sourceType, QStringLiteral("Pair[2]"));
    // A namespaced variable is demangled for the user and found by its symbol too.
    const ModuleGlobal* nested = r.findGlobal("ns::nested");
    QVERIFY(nested);
    QVERIFY(nested->lowered.startsWith(QLatin1String("_ZN2ns")));
    QCOMPARE(r.findGlobal(nested->lowered), nested);
    QCOMPARE(nested->sizeBytes, 12);
    QCOMPARE(describeModuleGlobal(*filter), QStringLiteral("__constant__ float[9]"));

    // The list travels with the compile result (runner protocol, compile cache).
    QString error;
    const std::optional<CompileResult> back =
        CompileResult::fromJson(throughText(r.toJson()), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->globals.size(), r.globals.size());
    QCOMPARE(back->findGlobal("ns::nested")->lowered, nested->lowered);
    QCOMPARE(back->findGlobal("filter")->sourceType, QStringLiteral("float[9]"));
    // A result cached before globals were listed gets them from its PTX.
    QJsonObject old = r.toJson();
    old.remove("globals");
    const std::optional<CompileResult> oldBack = CompileResult::fromJson(old, &error);
    QVERIFY2(oldBack, qPrintable(error));
    QCOMPARE(oldBack->globals.size(), r.globals.size());
}

void TestLaunchFeatures::ptxGlobalsSkipsWhatIsNotAVariable() {
    const QString ptx = QStringLiteral("// .global .u32 inComment;\n"
                                       ".version 8.8\n.target sm_90\n"
                                       ".extern .global .align 4 .u32 declaredElsewhere;\n"
                                       ".global .texref tex;\n"
                                       ".visible .global .align 8 .u64 visible = 5;\n"
                                       ".const .align 4 .b8 table[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n"
                                       ".visible .entry k(\n.param .u64 k_param_0\n)\n{\n"
                                       ".global .u32 notAtModuleScope;\n"
                                       "ld.global.u32 %r1, [visible];\n}\n");
    const QVector<ModuleGlobal> globals = parsePtxGlobals(ptx);
    QCOMPARE(globals.size(), 2);
    QCOMPARE(globals[0].name, QStringLiteral("visible"));
    QCOMPARE(globals[0].sizeBytes, 8);
    QVERIFY(globals[0].initialized);
    QCOMPARE(globals[1].name, QStringLiteral("table"));
    QCOMPARE(globals[1].ptxCount, 8);
    QCOMPARE(describeModuleGlobal(globals[1]), QStringLiteral("__constant__ .b8[8]"));
}

void TestLaunchFeatures::declaredTypesReadQuickly() {
    const QHash<QString, QString> types = declaredGlobalTypes(QStringLiteral(
        "static __constant__ const float taps[3][3];\n__device__ int* cursor = nullptr;\n"
        "__device__ float helper(float x) { return x; }\n__device__ unsigned long long n;"));
    QCOMPARE(types.value("taps"), QStringLiteral("float[3][3]"));
    QCOMPARE(types.value("cursor"), QStringLiteral("int*"));
    QCOMPARE(types.value("n"), QStringLiteral("unsigned long long"));
    QVERIFY(!types.contains("helper"));
    // A hostile source (a project file is untrusted) must not make the match backtrack for ever.
    QString hostile;
    for (int i = 0; i < 2000; ++i)
        hostile += QStringLiteral("__device__ ") + QStringLiteral("w ").repeated(100) + u'\n';
    QElapsedTimer clock;
    clock.start();
    (void)declaredGlobalTypes(hostile);
    QVERIFY2(clock.elapsed() < 5000, qPrintable(QString::number(clock.elapsed())));
}

void TestLaunchFeatures::clusterDirectivesFromNvrtc() {
    const char* source = R"(#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void __cluster_dims__(2, 1, 1) declared(int* x) { cg::this_cluster().sync(); x[0] = 1; }
extern "C" __global__ void plain(int* x) { cg::this_cluster().sync(); x[0] = 1; }
)";
    const CompileResult r = Program(source, "c.cu", ProgramOptions{}).compile("sm_90");
    QVERIFY2(r.ok, qPrintable(r.log));
    const KernelInfo* declared = r.findKernel("declared");
    QVERIFY(declared);
    QCOMPARE(declared->reqnctapercluster, (std::array<int, 3>{2, 1, 1}));
    QVERIFY(declared->explicitCluster);
    const KernelInfo* plain = r.findKernel("plain");
    QCOMPARE(plain->reqnctapercluster, (std::array<int, 3>{0, 0, 0}));
    QVERIFY(!plain->explicitCluster);
    QString error;
    const std::optional<KernelInfo> back =
        KernelInfo::fromJson(throughText(declared->toJson()), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->reqnctapercluster, declared->reqnctapercluster);
    QVERIFY(back->explicitCluster);
}

void TestLaunchFeatures::globalsLoad() {
    QJsonObject counter = globalJson("counter");
    counter.insert("type", QJsonObject{{"scalar", "uint32"}});
    counter.insert("count", "n/256");
    counter.insert("direction", "out");
    counter.insert("verify", QJsonObject{{"kind", "expression"}, {"expression", "n/256"}});
    QString error;
    const std::optional<Project> p =
        Project::fromJson(projectWithGlobals(QJsonArray{globalJson("f"), counter}), &error);
    QVERIFY2(p, qPrintable(error));
    QCOMPARE(p->globals.size(), 2);
    QCOMPARE(p->globals[0].name, QStringLiteral("f"));
    QCOMPARE(p->globals[0].value.init.kind, InitSpec::Kind::Constant);
    QCOMPARE(p->globals[0].value.init.value, 0.25);
    QCOMPARE(p->globals[1].value.count, QStringLiteral("n/256"));
    QCOMPARE(p->globals[1].value.direction, Direction::Out);
    QCOMPARE(p->globals[1].value.verify.kind, VerifySpec::Kind::Expression);
    QVERIFY(p->findGlobal("counter"));
    QCOMPARE(Project::fromJson(p->toJson(), &error), p);

    // A project without globals writes no "globals" key: older files stay byte for byte.
    Project plain = *p;
    plain.globals.clear();
    QVERIFY(!plain.toJson().contains("globals"));
    // Globals make a project different.
    QVERIFY(!(plain == *p));
}

void TestLaunchFeatures::globalsRefused_data() {
    QTest::addColumn<QJsonValue>("globals");
    QTest::addColumn<QString>("message");
    QTest::newRow("not an array") << QJsonValue(QJsonObject{})
                                  << "globals: expected an array, got an object";
    QTest::newRow("entry not an object")
        << QJsonValue(QJsonArray{1}) << "globals[0]: expected an object, got a number";
    QJsonObject noName = globalJson("x");
    noName.remove("name");
    QTest::newRow("no name") << QJsonValue(QJsonArray{noName}) << "globals[0].name: missing";
    QJsonObject numberName = globalJson("x");
    numberName.insert("name", 7);
    QTest::newRow("name a number")
        << QJsonValue(QJsonArray{numberName}) << "globals[0].name: expected a string, got a number";
    QTest::newRow("empty name") << QJsonValue(QJsonArray{globalJson(" ")})
                                << "globals[0].name: empty";
    QTest::newRow("duplicate") << QJsonValue(QJsonArray{globalJson("f"), globalJson("f")})
                               << "globals[1].name: duplicate global 'f' (also globals[0])";
    QJsonObject noCount = globalJson("f");
    noCount.remove("count");
    QTest::newRow("no count") << QJsonValue(QJsonArray{noCount}) << "globals[0].count: missing";
    QJsonObject badDirection = globalJson("f");
    badDirection.insert("direction", "sideways");
    QTest::newRow("bad direction")
        << QJsonValue(QJsonArray{badDirection}) << "globals[0].direction: unknown direction";
    QJsonObject reference = globalJson("f");
    reference.insert("direction", "out");
    reference.insert("verify", QJsonObject{{"kind", "reference"}, {"referenceKernel", "r"}});
    QTest::newRow("reference kernel cannot check a global")
        << QJsonValue(QJsonArray{reference})
        << "globals[0].verify: a reference kernel cannot check a global";
    QJsonObject badInit = globalJson("f");
    badInit.insert("init", QJsonObject{{"kind", "uniform"}, {"low", 2}, {"high", 1}});
    QTest::newRow("bad init") << QJsonValue(QJsonArray{badInit}) << "globals[0].init.";
}

void TestLaunchFeatures::globalsRefused() {
    QFETCH(QJsonValue, globals);
    QFETCH(QString, message);
    QString error;
    QVERIFY(!Project::fromJson(projectWithGlobals(globals), &error));
    QVERIFY2(error.startsWith(message), qPrintable(error));
}

void TestLaunchFeatures::globalsMatchedAgainstTheModule_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("count");
    QTest::addColumn<QString>("message"); // empty: prepared
    QTest::newRow("by source name") << "filter"
                                    << "9" << QString();
    QTest::newRow("count from a scalar") << "filter"
                                         << "taps" << QString();
    QTest::newRow("namespaced, demangled") << "ns::nested"
                                           << "3" << QString();
    QTest::newRow("unknown name")
        << "filtr"
        << "9"
        << "globals[0] 'filtr': the module has no __constant__ or __device__ variable of that "
           "name; it has: filter (__constant__ float[9], 36 bytes), scale";
    QTest::newRow("size mismatch")
        << "filter"
        << "8"
        << "globals[0] 'filter': the project gives 8 × float32 = 32 bytes, but the module's "
           "__constant__ float[9] is 36 bytes";
    QTest::newRow("bad count expression") << "filter"
                                          << "nope"
                                          << "globals[0] 'filter': count: ";
}

void TestLaunchFeatures::globalsMatchedAgainstTheModule() {
    QFETCH(QString, name);
    QFETCH(QString, count);
    QFETCH(QString, message);
    const CompileResult compiled =
        Program(kGlobalsSource, "g.cu", ProgramOptions{}).compile("sm_90");
    QVERIFY(compiled.ok);
    Project p;
    p.source = kGlobalsSource;
    p.kernel = "k";
    ArgumentSpec taps;
    taps.name = "taps";
    taps.type = ValueType::of(ScalarType::Int32);
    taps.value = "9";
    p.arguments = {taps};
    GlobalSpec g;
    g.name = name;
    g.value.elementType =
        ValueType::of(name == "ns::nested" ? ScalarType::Int32 : ScalarType::Float32);
    g.value.count = count;
    g.value.init.kind = InitSpec::Kind::Iota;
    p.globals = {g};
    QString error;
    const std::optional<std::vector<RunGlobal>> globals =
        prepareGlobals(p, QString(), compiled, &error);
    if (message.isEmpty()) {
        QVERIFY2(globals, qPrintable(error));
        QCOMPARE(globals->size(), size_t(1));
        const RunGlobal& r = globals->front();
        QCOMPARE(r.lowered, compiled.findGlobal(name)->lowered);
        QCOMPARE(r.bytes, qint64(compiled.findGlobal(name)->sizeBytes));
        QCOMPARE(r.initial.size(), qsizetype(r.bytes));
    } else {
        QVERIFY(!globals);
        QVERIFY2(error.startsWith(message), qPrintable(error));
    }
}

// The checks after the run, on host data as readGlobals() leaves it: the convolution
// example's counter against "n/256" (with a buffer named "in" among the inputs), an out global
// the kernel never wrote, and an input global asked to be verified.
void TestLaunchFeatures::globalsVerifiedOnTheHost() {
    const Project p = loadExample("convolution.kpad");
    const CompileResult compiled =
        Program(p.source, p.sourceName, p.options, kExamples).compile("sm_90");
    QVERIFY(compiled.ok);
    QString error;
    std::optional<std::vector<RunGlobal>> globals = prepareGlobals(p, kExamples, compiled, &error);
    QVERIFY2(globals, qPrintable(error));
    QCOMPARE(globals->size(), size_t(3));
    QCOMPARE(globals->at(0).initial.size(), 36);
    QCOMPARE(globals->at(1).initial, QByteArray::fromRawData("\0\0\0\x3f", 4)); // 0.5f
    std::optional<std::vector<RunBuffer>> buffers = prepareBuffers(p.arguments, kExamples, &error);
    QVERIFY2(buffers, qPrintable(error));

    const auto counter = [](quint32 value) {
        return QByteArray(reinterpret_cast<const char*>(&value), sizeof value);
    };
    QHash<QString, QByteArray> outputs{{"blocksDone", counter(4096)}};
    QVector<BufferVerification> reports = verifyGlobals(*globals, outputs, p, *buffers, kExamples);
    QCOMPARE(reports.size(), 1);
    QCOMPARE(reports[0].buffer, QStringLiteral("blocksDone"));
    QVERIFY2(reports[0].passed, qPrintable(reports[0].error));
    QCOMPARE(reports[0].method, QStringLiteral("expression n/256"));

    outputs["blocksDone"] = counter(4095);
    reports = verifyGlobals(*globals, outputs, p, *buffers, kExamples);
    QVERIFY(!reports[0].passed);
    QCOMPARE(reports[0].mismatches, 1);

    // An out global left as poisoned is unwritten; an input global cannot be checked.
    (*globals)[2].direction = Direction::Out;
    (*globals)[0].verify.kind = VerifySpec::Kind::Expression;
    (*globals)[0].verify.expression = QStringLiteral("i");
    outputs["blocksDone"] = QByteArray(4, char(kPoisonByte));
    reports = verifyGlobals(*globals, outputs, p, *buffers, kExamples);
    QCOMPARE(reports.size(), 2);
    QVERIFY(reports[0].error.contains(QLatin1String("is an input")));
    QCOMPARE(reports[1].unwritten, 1);
    QVERIFY(!reports[1].passed);
}

void TestLaunchFeatures::clusterValidation_data() {
    QTest::addColumn<LaunchConfig>("launch");
    QTest::addColumn<ClusterLimits>("limits");
    QTest::addColumn<QString>("message");
    QTest::newRow("no cluster, nothing to check")
        << launchOf({10, 1, 1}, {0, 0, 0}) << hopper() << QString();
    QTest::newRow("cluster divides the grid")
        << launchOf({16, 2, 1}, {4, 2, 1}) << hopper() << QString();
    QTest::newRow("grid.x not a multiple") << launchOf({10, 1, 1}, {4, 1, 1}) << hopper()
                                           << "grid.x 10 is not a multiple of cluster.x 4";
    QTest::newRow("grid.y not a multiple") << launchOf({8, 3, 1}, {2, 2, 1}) << hopper()
                                           << "grid.y 3 is not a multiple of cluster.y 2";
    QTest::newRow("more than the portable 8")
        << launchOf({32, 1, 1}, {16, 1, 1}) << hopper()
        << "cluster 16 x 1 x 1 has 16 blocks, more than the portable maximum of 8";
    ClusterLimits device = hopper();
    device.maxClusterBlocks = 16;
    device.maxIsPortable = false;
    QTest::newRow("16 allowed where the device says so")
        << launchOf({32, 1, 1}, {16, 1, 1}) << device << QString();
    QTest::newRow("more than the device's maximum")
        << launchOf({64, 1, 1}, {32, 1, 1}) << device
        << "cluster 32 x 1 x 1 has 32 blocks, more than the device's maximum for the kernel "
           "'hist' of 16";
    ClusterLimits ampere = hopper();
    ampere.ccMajor = 8;
    ampere.ccMinor = 6;
    QTest::newRow("compute capability below 9.0")
        << launchOf({8, 1, 1}, {2, 1, 1}) << ampere
        << "cluster 2 x 1 x 1: thread block clusters need compute capability 9.0 or newer; the "
           "device is 8.6";
    ClusterLimits declared = hopper();
    declared.kernelCluster = {4, 1, 1};
    declared.kernelExplicitCluster = true;
    QTest::newRow("__cluster_dims__ used without launch.cluster")
        << launchOf({8, 1, 1}, {0, 0, 0}) << declared << QString();
    QTest::newRow("__cluster_dims__ checked against the grid")
        << launchOf({10, 1, 1}, {0, 0, 0}) << declared
        << "grid.x 10 is not a multiple of cluster.x 4";
    QTest::newRow("launch.cluster equal to __cluster_dims__")
        << launchOf({8, 1, 1}, {4, 1, 1}) << declared << QString();
    QTest::newRow("launch.cluster differs from __cluster_dims__")
        << launchOf({8, 1, 1}, {2, 1, 1}) << declared
        << "launch.cluster 2 x 1 x 1 differs from the kernel 'hist''s __cluster_dims__(4, 1, 1)";
    ClusterLimits explicitOnly = hopper();
    explicitOnly.kernelExplicitCluster = true;
    QTest::newRow(".explicitcluster without a cluster")
        << launchOf({8, 1, 1}, {0, 0, 0}) << explicitOnly
        << "the kernel 'hist' must be launched in clusters (.explicitcluster); set launch.cluster";
}

void TestLaunchFeatures::clusterValidation() {
    QFETCH(LaunchConfig, launch);
    QFETCH(ClusterLimits, limits);
    QFETCH(QString, message);
    const QString got = validateCluster(launch, limits);
    if (message.isEmpty())
        QVERIFY2(got.isEmpty(), qPrintable(got));
    else
        QVERIFY2(got.startsWith(message), qPrintable(got));
}

void TestLaunchFeatures::cooperativeValidation_data() {
    QTest::addColumn<int>("gridX");
    QTest::addColumn<bool>("cooperative");
    QTest::addColumn<int>("blocksPerSm");
    QTest::addColumn<QString>("message");
    QTest::newRow("fits") << 1056 << true << 8 << QString();
    QTest::newRow("not cooperative: not checked") << 2000 << false << 8 << QString();
    QTest::newRow("too many blocks")
        << 2000 << true << 8
        << "grid of 2000 blocks cannot be co-resident: at most 1056 (8 per SM × 132 SMs)";
    QTest::newRow("block does not fit at all")
        << 1 << true << 0
        << "grid of 1 blocks cannot be co-resident: at most 0 (0 per SM × 132 SMs); a block of "
           "256 threads";
}

void TestLaunchFeatures::cooperativeValidation() {
    QFETCH(int, gridX);
    QFETCH(bool, cooperative);
    QFETCH(int, blocksPerSm);
    QFETCH(QString, message);
    LaunchConfig launch = launchOf({gridX, 1, 1}, {0, 0, 0});
    launch.cooperative = cooperative;
    CooperativeLimits limits;
    limits.blocksPerSm = blocksPerSm;
    limits.smCount = 132;
    const QString got = validateCooperative(launch, limits);
    if (message.isEmpty())
        QVERIFY2(got.isEmpty(), qPrintable(got));
    else
        QVERIFY2(got.startsWith(message), qPrintable(got));
    limits.deviceSupports = false;
    if (cooperative)
        QVERIFY(validateCooperative(launch, limits).contains(QLatin1String("does not support")));
}

void TestLaunchFeatures::launchJson_data() {
    QTest::addColumn<QJsonObject>("json");
    QTest::addColumn<QString>("message"); // empty: reads and round-trips
    QTest::newRow("cluster and cooperative") << QJsonObject{{"grid", QJsonArray{8, 1, 1}},
                                                            {"block", QJsonArray{256, 1, 1}},
                                                            {"cluster", QJsonArray{4, 1, 1}},
                                                            {"cooperative", true}}
                                             << QString();
    QTest::newRow("cluster as a bare number")
        << QJsonObject{{"grid", 8}, {"block", 256}, {"cluster", 2}} << QString();
    QTest::newRow("cluster of zero") << QJsonObject{{"grid", 8}, {"cluster", QJsonArray{0, 1, 1}}}
                                     << "cluster[0]: must be >= 1 (got 0)";
    QTest::newRow("cooperative not a boolean") << QJsonObject{{"grid", 8}, {"cooperative", "yes"}}
                                               << "cooperative: expected a boolean, got a string";
}

void TestLaunchFeatures::launchJson() {
    QFETCH(QJsonObject, json);
    QFETCH(QString, message);
    QString error;
    const std::optional<LaunchConfig> launch = LaunchConfig::fromJson(json, &error);
    if (!message.isEmpty()) {
        QVERIFY(!launch);
        QCOMPARE(error, message);
        return;
    }
    QVERIFY2(launch, qPrintable(error));
    QVERIFY(launch->hasCluster());
    QCOMPARE(LaunchConfig::fromJson(throughText(launch->toJson()), &error), launch);
    // Without them, the JSON is what it was before clusters existed.
    LaunchConfig plain = *launch;
    plain.cluster = {0, 0, 0};
    plain.cooperative = false;
    QVERIFY(!plain.toJson().contains("cluster"));
    QVERIFY(!plain.toJson().contains("cooperative"));
    QVERIFY(!(plain == *launch));
}

void TestLaunchFeatures::launchDimsChooseTheLaunchCall() {
    LaunchConfig c = launchOf({8, 1, 1}, {0, 0, 0});
    QVERIFY(!c.dims().needsLaunchEx()); // the plain cuLaunchKernel: timing as the raw harness
    c.cluster = {2, 1, 1};
    QVERIFY(c.dims().needsLaunchEx());
    QCOMPARE(c.dims().cluster, (std::array<int, 3>{2, 1, 1}));
    c.cluster = {0, 0, 0};
    c.cooperative = true;
    QVERIFY(c.dims().needsLaunchEx());
    QVERIFY(c.dims().cooperative);
}

void TestLaunchFeatures::protocolCarriesNewFields() {
    RunRequest request;
    request.project = loadExample("convolution.kpad");
    request.project.options.arch = QStringLiteral("compute_90");
    request.project.launch.cluster = {2, 1, 1};
    request.project.launch.cooperative = true;
    QString error;
    const std::optional<RunRequest> back =
        RunRequest::fromJson(throughText(request.toJson()), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->project, request.project);
    QCOMPARE(back->project.globals.size(), 3);
    QCOMPARE(back->project.options.arch, request.project.options.arch);
    QCOMPARE(back->project.launch.cluster, (std::array<int, 3>{2, 1, 1}));
    QVERIFY(back->project.launch.cooperative);

    RunResult result;
    result.launch = request.project.launch;
    result.jit.used = true;
    result.jit.target = QStringLiteral("sm_90");
    result.jit.infoLog = QStringLiteral("ptxas info    : Used 10 registers");
    result.jit.errorLog = QStringLiteral("");
    result.jit.jitMs = 95.5;
    result.jit.loadMs = 96.25;
    const std::optional<RunResult> r = RunResult::fromJson(throughText(result.toJson()), &error);
    QVERIFY2(r, qPrintable(error));
    QVERIFY(r->jit.used);
    QCOMPARE(r->jit.target, result.jit.target);
    QCOMPARE(r->jit.infoLog, result.jit.infoLog);
    QCOMPARE(r->jit.jitMs, 95.5);
    QCOMPARE(r->jit.loadMs, 96.25);
    QCOMPARE(r->launch, result.launch);
    JitLog failed;
    failed.used = true;
    failed.failure = QStringLiteral("CUDA_ERROR_INVALID_PTX");
    failed.errorLog = QStringLiteral("ptxas fatal : SM version too high");
    const std::optional<JitLog> failedBack = JitLog::fromJson(throughText(failed.toJson()), &error);
    QVERIFY2(failedBack, qPrintable(error));
    QVERIFY(failedBack->failed());
    QCOMPARE(failedBack->errorLog, failed.errorLog);
    // A CUBIN run says nothing about a JIT.
    QVERIFY(!RunResult{}.toJson().contains("jit"));
    const std::optional<RunResult> plain = RunResult::fromJson(RunResult{}.toJson(), &error);
    QVERIFY2(plain, qPrintable(error));
    QVERIFY(!plain->jit.used);
}

void TestLaunchFeatures::everyExampleCompiles_data() {
    QTest::addColumn<QString>("file");
    const QStringList files = QDir(kExamples).entryList({"*.kpad"}, QDir::Files, QDir::Name);
    QVERIFY(files.contains("convolution.kpad"));
    QVERIFY(files.contains("cluster_histogram.kpad"));
    QVERIFY(files.contains("cooperative_sum.kpad"));
    for (const QString& file : files)
        QTest::newRow(qPrintable(file)) << file;
}

// Every example compiles for sm_90, or the arch it names (sm_90a for wgmma) (NVRTC,
// cooperative_groups included; nvJitLink for the PTX example), its kernel is in the module,
// and the globals it sets are there with the sizes it gives.
void TestLaunchFeatures::everyExampleCompiles() {
    QFETCH(QString, file);
    const Project p = loadExample(file);
    const QString arch = p.options.arch.value_or(QStringLiteral("sm_90"));
    const CompileResult r = Program(p.source, p.sourceName, p.options, kExamples, p.language)
                                .compile(arch, p.nameExpressions());
    QVERIFY2(r.ok, qPrintable(r.log + r.error));
    QVERIFY(r.findKernel(p.kernel));
    QString error;
    QVERIFY2(prepareGlobals(p, kExamples, r, &error), qPrintable(error));
    if (p.launch.hasCluster() || p.launch.cooperative) {
        QVERIFY2(validateCluster(p.launch, hopper()).isEmpty(), qPrintable(file));
        // Virtual arch too: the same source as PTX only, for the driver's JIT.
        const CompileResult ptx =
            Program(p.source, p.sourceName, p.options, kExamples, p.language).compile("compute_90");
        QVERIFY2(ptx.ok, qPrintable(ptx.log));
        QVERIFY(ptx.cubin.isEmpty());
    }
}

KERNELPAD_TEST_GUILESS_MAIN(TestLaunchFeatures)
} // namespace tst_launchfeatures
#include "tst_launchfeatures.moc"
