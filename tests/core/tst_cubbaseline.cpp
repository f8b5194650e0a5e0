// A CUB baseline without a GPU: the "baseline" section's CUB form read, written and refused
// naming the field; the plan's element types, counts and histogram levels checked against the
// buffers (the refusal lists the types the plugin is built for); the comparison of only the
// elements the call writes, under each output's NaN rule; and the message naming every place the
// plugin was looked for.

#include "../support/TestMain.h"
#include "core/project/Project.h"
#include "core/run/CubPlan.h"
#include "core/run/CubPlugin.h"

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cstring>
#include <limits>

namespace tst_cubbaseline {

using namespace kernelpad;

namespace {

QJsonObject cubBuffer(const char* name, const char* type, const char* count,
                      const char* direction) {
    return QJsonObject{
        {"name", name},
        {"kind", "buffer"},
        {"buffer",
         QJsonObject{{"type", QJsonObject{{"scalar", type}}},
                     {"count", count},
                     {"init", QJsonObject{{"kind", "zeros"}}},
                     {"direction", direction},
                     {"verify", QJsonObject{{"kind", "none"}, {"atol", 0.5}, {"rtol", 0}}}}}};
}

/// x (n float32 in), total (1 float32 out), y (n float32 out), h (bins uint32 out), keys and
/// values (uint32 in/out), half (float16 in), n = 1000.
QJsonObject cubProject(const QJsonObject& baseline) {
    return QJsonObject{
        {"format", "kernelpad-project"},
        {"version", 1},
        {"name", "cub"},
        {"source", "__global__ void k() {}"},
        {"kernel", "k"},
        {"arguments",
         QJsonArray{
             cubBuffer("x", "float32", "n", "in"), cubBuffer("total", "float32", "1", "out"),
             cubBuffer("y", "float32", "n", "out"), cubBuffer("h", "uint32", "16", "out"),
             cubBuffer("keys", "uint32", "n", "in"), cubBuffer("sorted", "uint32", "n", "out"),
             cubBuffer("vals", "float32", "n", "in"), cubBuffer("valsOut", "float32", "n", "out"),
             cubBuffer("half", "float16", "n", "in"),
             QJsonObject{{"name", "n"},
                         {"kind", "scalar"},
                         {"type", QJsonObject{{"scalar", "int32"}}},
                         {"value", "1000"}}}},
        {"baseline", baseline}};
}

QJsonObject reduceBaseline() {
    return QJsonObject{{"library", "cub"}, {"call", "reduce"}, {"op", "sum"},
                       {"in", "x"},        {"out", "total"},   {"n", "n"}};
}

QJsonObject with(QJsonObject o, const QString& key, const QJsonValue& value) {
    o.insert(key, value);
    return o;
}

/// The project's plan, or the message of the refusal in `error`.
std::optional<CubPlan> plan(const QJsonObject& baseline, QString* error) {
    const std::optional<Project> p = Project::fromJson(cubProject(baseline), error);
    if (!p)
        return std::nullopt;
    return planCub(p->baseline, p->arguments, error);
}

} // namespace

class TestCubBaseline : public QObject {
    Q_OBJECT

private slots:
    void readsAndWritesEachCall_data() {
        QTest::addColumn<QJsonObject>("baseline");
        QTest::addColumn<QString>("described");
        QTest::newRow("reduce max")
            << with(reduceBaseline(), "op", "max") << QStringLiteral("reduce max of 1000 float32");
        QTest::newRow("exclusive scan")
            << QJsonObject{{"library", "cub"}, {"call", "scan"}, {"op", "sum"}, {"exclusive", true},
                           {"in", "x"},        {"out", "y"},     {"n", "n"}}
            << QStringLiteral("exclusive sum scan of 1000 float32");
        QTest::newRow("sort pairs descending")
            << QJsonObject{{"library", "cub"}, {"call", "sort"},     {"in", "keys"},
                           {"out", "sorted"},  {"valuesIn", "vals"}, {"valuesOut", "valsOut"},
                           {"n", "n"},         {"descending", true}}
            << QStringLiteral("radix sort of 1000 pairs (uint32 keys, float32 values), "
                              "descending");
        QTest::newRow("histogram")
            << QJsonObject{{"library", "cub"}, {"call", "histogram"},
                           {"in", "x"},        {"out", "h"},
                           {"n", "n"},         {"levels", 17},
                           {"lower", "0"},     {"upper", "1"}}
            << QStringLiteral("histogram of 1000 float32 samples, 16 bins over [0, 1)");
    }
    void readsAndWritesEachCall() {
        QFETCH(QJsonObject, baseline);
        QFETCH(QString, described);
        QString error;
        const std::optional<Project> p = Project::fromJson(cubProject(baseline), &error);
        QVERIFY2(p, qPrintable(error));
        QVERIFY(p->baseline.isCub());
        QCOMPARE(p->baseline.libraryDisplayName(), QStringLiteral("CUB"));
        const std::optional<Project> again = Project::fromJson(p->toJson(), &error);
        QVERIFY2(again, qPrintable(error));
        QCOMPARE(again->baseline, p->baseline);
        QCOMPARE(again->baseline.toJson(), p->baseline.toJson());
        const std::optional<CubPlan> planned = planCub(p->baseline, p->arguments, &error);
        QVERIFY2(planned, qPrintable(error));
        QCOMPARE(planned->describe(), described);
    }

    void refusesNamingTheField_data() {
        QTest::addColumn<QJsonObject>("baseline");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown call")
            << with(reduceBaseline(), "call", "gemm")
            << QStringLiteral("baseline.call: expected one of \"reduce\", \"scan\", \"sort\", "
                              "\"histogram\", got 'gemm'");
        QTest::newRow("a gemm field")
            << with(reduceBaseline(), "a", "x")
            << QStringLiteral("baseline.a: unknown field (CUB's reduce takes library, call, in, "
                              "out, n, op)");
        QTest::newRow("missing buffer")
            << with(reduceBaseline(), "in", "nothing")
            << QStringLiteral("baseline.in: no buffer argument 'nothing'; the buffers are x, "
                              "total, y, h, keys, sorted, vals, valsOut, half");
        QTest::newRow("out is an input")
            << with(reduceBaseline(), "out", "x")
            << QStringLiteral("baseline.out: 'x' is an \"in\" buffer; name the kernel's output "
                              "(an \"out\" or \"inout\" buffer), which CUB's result is compared "
                              "with");
        QTest::newRow("scan takes no max")
            << QJsonObject{{"library", "cub"}, {"call", "scan"}, {"op", "max"},
                           {"in", "x"},        {"out", "y"},     {"n", "n"}}
            << QStringLiteral("baseline.op: expected one of \"sum\", got 'max'");
        QTest::newRow("values without their output")
            << QJsonObject{{"library", "cub"}, {"call", "sort"},     {"in", "keys"},
                           {"out", "sorted"},  {"valuesIn", "vals"}, {"n", "n"}}
            << QStringLiteral("baseline.valuesOut: a sort of key-value pairs names both "
                              "valuesIn and valuesOut");
        QTest::newRow("missing n") << [] {
            QJsonObject o = reduceBaseline();
            o.remove("n");
            return o;
        }() << QStringLiteral("baseline.n: missing");
    }
    void refusesNamingTheField() {
        QFETCH(QJsonObject, baseline);
        QFETCH(QString, message);
        QString error;
        QVERIFY(!Project::fromJson(cubProject(baseline), &error));
        QVERIFY2(error.contains(message), qPrintable(error));
    }

    void refusesTypesAndSizes_data() {
        QTest::addColumn<QJsonObject>("baseline");
        QTest::addColumn<QString>("message");
        QTest::newRow("float16 not built")
            << with(with(reduceBaseline(), "in", "half"), "out", "total")
            << QStringLiteral("baseline.in: buffer 'half' holds float16, but CUB's reduce takes "
                              "int32, uint32, float32 or float64 (the types the CUB plugin is "
                              "built for)");
        QTest::newRow("count beyond the buffer")
            << with(reduceBaseline(), "n", "2*n")
            << QStringLiteral("baseline.in: buffer 'x' holds 1000 elements, but CUB's reduce "
                              "reads 2000");
        QTest::newRow("scan output too small")
            << QJsonObject{{"library", "cub"},
                           {"call", "scan"},
                           {"in", "x"},
                           {"out", "total"},
                           {"n", "n"}}
            << QStringLiteral("baseline.out: buffer 'total' holds 1 elements, but CUB's scan "
                              "writes 1000");
        QTest::newRow("output of another type")
            << QJsonObject{{"library", "cub"},
                           {"call", "sort"},
                           {"in", "keys"},
                           {"out", "y"},
                           {"n", "n"}}
            << QStringLiteral("baseline.out: buffer 'y' holds float32, but CUB's sort writes "
                              "the uint32 of 'keys'");
        QTest::newRow("zero count")
            << with(reduceBaseline(), "n", "0") << QStringLiteral("baseline.n: must be at least 1");
        QTest::newRow("more bins than the histogram holds")
            << QJsonObject{{"library", "cub"}, {"call", "histogram"},
                           {"in", "x"},        {"out", "h"},
                           {"n", "n"},         {"levels", "33"},
                           {"lower", "0"},     {"upper", "1"}}
            << QStringLiteral("baseline.out: buffer 'h' holds 16 elements, but CUB's histogram "
                              "writes 32");
        QTest::newRow("upper under lower")
            << QJsonObject{{"library", "cub"}, {"call", "histogram"},
                           {"in", "x"},        {"out", "h"},
                           {"n", "n"},         {"levels", "5"},
                           {"lower", "2"},     {"upper", "1"}}
            << QStringLiteral("baseline.upper: 1 is not above lower (2)");
        QTest::newRow("uint32 samples need whole levels")
            << QJsonObject{{"library", "cub"}, {"call", "histogram"},
                           {"in", "keys"},     {"out", "h"},
                           {"n", "n"},         {"levels", "5"},
                           {"lower", "0"},     {"upper", "0.5"}}
            << QStringLiteral("baseline.upper: 0.5 is not a whole number a uint32 sample can "
                              "hold");
    }
    void refusesTypesAndSizes() {
        QFETCH(QJsonObject, baseline);
        QFETCH(QString, message);
        QString error;
        QVERIFY(!plan(baseline, &error));
        QVERIFY2(error.contains(message), qPrintable(error));
    }

    void comparesOnlyTheWrittenElements() {
        QString error;
        const QJsonObject histogram{
            {"library", "cub"}, {"call", "histogram"}, {"in", "x"},    {"out", "h"},
            {"n", "n"},         {"levels", "5"},       {"lower", "0"}, {"upper", "1"}};
        const std::optional<Project> p = Project::fromJson(cubProject(histogram), &error);
        QVERIFY2(p, qPrintable(error));
        const std::optional<CubPlan> planned = planCub(p->baseline, p->arguments, &error);
        QVERIFY2(planned, qPrintable(error));
        QCOMPARE(planned->outputCount(), qint64(4));
        // 16 counters, of which the call writes the first 4: the rest may differ.
        QByteArray kernel(16 * 4, '\0'), library(16 * 4, '\0');
        std::memset(kernel.data() + 4 * 4, 0x11, 12 * 4);
        BufferVerification v = compareCubOutputs(*planned, p->arguments, kernel, library, {}, {});
        QVERIFY(v.passed);
        QCOMPARE(v.checked, qint64(4));
        QCOMPARE(v.buffer, QStringLiteral("h"));
        // A written bin that differs by more than atol (0.5) fails, named by its index.
        const quint32 seven = 7;
        std::memcpy(kernel.data() + 2 * 4, &seven, 4);
        v = compareCubOutputs(*planned, p->arguments, kernel, library, {}, {});
        QVERIFY(!v.passed);
        QCOMPARE(v.mismatches, qint64(1));
        QCOMPARE(v.firstMismatches.value(0).index, qint64(2));
    }

    void comparesTheValuesOfPairs() {
        QString error;
        const QJsonObject pairs{{"library", "cub"}, {"call", "sort"},     {"in", "keys"},
                                {"out", "sorted"},  {"valuesIn", "vals"}, {"valuesOut", "valsOut"},
                                {"n", "n"}};
        const std::optional<CubPlan> planned = plan(pairs, &error);
        QVERIFY2(planned, qPrintable(error));
        const QJsonObject json = cubProject(pairs);
        const std::optional<Project> p = Project::fromJson(json, &error);
        QVERIFY2(p, qPrintable(error));
        const QByteArray keys(1000 * 4, '\0');
        QByteArray values(1000 * 4, '\0');
        BufferVerification v =
            compareCubOutputs(*planned, p->arguments, keys, keys, values, values);
        QVERIFY(v.passed);
        QCOMPARE(v.checked, qint64(2000));
        const float wrong = 3.0f;
        std::memcpy(values.data() + 10 * 4, &wrong, 4);
        v = compareCubOutputs(*planned, p->arguments, keys, keys, values,
                              QByteArray(1000 * 4, '\0'));
        QVERIFY(!v.passed);
        QCOMPARE(v.buffer, QStringLiteral("valsOut"));
        QCOMPARE(v.firstMismatches.value(0).index, qint64(10));
    }

    // The comparison with CUB's output follows the output buffer's "nan" setting, as the
    // kernel's own check does: NaN on both sides passes under "equal" (the default) and fails
    // under "differ"; a NaN on one side fails under both.
    void followsTheOutputsNanSetting_data() {
        QTest::addColumn<QString>("nan");
        QTest::addColumn<bool>("libraryNan");
        QTest::addColumn<bool>("passes");
        QTest::newRow("equal: NaN on both sides") << "equal" << true << true;
        QTest::newRow("differ: NaN on both sides") << "differ" << true << false;
        QTest::newRow("equal: NaN from the kernel only") << "equal" << false << false;
    }
    void followsTheOutputsNanSetting() {
        QFETCH(QString, nan);
        QFETCH(bool, libraryNan);
        QFETCH(bool, passes);
        QString error;
        std::optional<Project> p = Project::fromJson(cubProject(reduceBaseline()), &error);
        QVERIFY2(p, qPrintable(error));
        const auto total =
            std::find_if(p->arguments.begin(), p->arguments.end(),
                         [](const ArgumentSpec& a) { return a.name == QLatin1String("total"); });
        QVERIFY(total != p->arguments.end());
        const std::optional<NanComparison> rule = nanComparisonFromName(nan);
        QVERIFY(rule);
        total->buffer.verify.nan = *rule;
        const std::optional<CubPlan> planned = planCub(p->baseline, p->arguments, &error);
        QVERIFY2(planned, qPrintable(error));
        const float qnan = std::numeric_limits<float>::quiet_NaN();
        const float one = 1.0f;
        QByteArray kernel(4, '\0'), library(4, '\0');
        std::memcpy(kernel.data(), &qnan, 4);
        std::memcpy(library.data(), libraryNan ? &qnan : &one, 4);
        const BufferVerification v =
            compareCubOutputs(*planned, p->arguments, kernel, library, {}, {});
        QCOMPARE(v.buffer, QStringLiteral("total"));
        QCOMPARE(v.passed, passes);
    }

    void missingPluginNamesWhereItLooked() {
        QTemporaryDir empty;
        QVERIFY(empty.isValid());
        const QStringList candidates = cubPluginCandidates(empty.path() + QStringLiteral("/bin"));
        QCOMPARE(candidates,
                 QStringList({empty.path() + QStringLiteral("/bin/libkernelpad_cub.so"),
                              empty.path() + QStringLiteral("/lib/kernelpad/libkernelpad_cub.so"),
                              empty.path() + QStringLiteral("/lib/libkernelpad_cub.so")}));
        QString why;
        QVERIFY(!CubPlugin::loadFrom(candidates, &why));
        QCOMPARE(why, QStringLiteral("CUB baseline plugin not found: looked in %1 (a build "
                                     "without a CUDA compiler has none)")
                          .arg(candidates.join(QStringLiteral(", "))));
        // A file there that is no library says why it did not load.
        QVERIFY(QDir().mkpath(empty.path() + QStringLiteral("/lib/kernelpad")));
        QFile broken(candidates[1]);
        QVERIFY(broken.open(QIODevice::WriteOnly));
        broken.write("not a library");
        broken.close();
        QVERIFY(!CubPlugin::loadFrom(candidates, &why));
        QVERIFY2(why.contains(candidates[1] + QStringLiteral(": ")), qPrintable(why));
    }

    void loadsTheBuiltPlugin() {
        // The build tree keeps the plugin in lib/kernelpad/ beside the test programs' folder;
        // a build without nvcc has none.
        QString why;
        const std::unique_ptr<CubPlugin> plugin = CubPlugin::loadFrom(cubPluginCandidates(), &why);
        if (!plugin)
            QSKIP(qPrintable(why));
        QVERIFY(plugin->reduce && plugin->scan && plugin->sort && plugin->histogramEven);
        QCOMPARE(plugin->statusText(KP_CUB_UNSUPPORTED),
                 QStringLiteral("the plugin has no such element type or operation (status -1)"));
    }
};

KERNELPAD_TEST_MAIN(TestCubBaseline)

} // namespace tst_cubbaseline

#include "tst_cubbaseline.moc"
