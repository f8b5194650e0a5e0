// A project's library baseline without a GPU: the "baseline" section read and refused naming
// the field, the GEMM plan's sizes, types and leading dimensions checked against the buffers,
// the comparison of only the elements the call writes, the result's JSON and ratio, and the
// message that names every place cuBLAS was looked for.

#include "../support/TestMain.h"
#include "core/project/Project.h"
#include "core/run/BaselinePlan.h"
#include "core/run/CublasLibrary.h"
#include "core/run/CublasLtLibrary.h"
#include "core/run/LessonCheck.h"
#include "core/run/RunResult.h"
#include "core/run/Summary.h"
#include "core/run/VersionHistory.h"
#include "core/sweep/SweepResults.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>
#include <limits>

namespace tst_baselinespec {

using namespace kernelpad;

namespace {

QJsonObject bufferArg(const char* name, const char* type, const char* count,
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

QJsonObject scalarArg(const char* name, const char* value) {
    return QJsonObject{{"name", name},
                       {"kind", "scalar"},
                       {"type", QJsonObject{{"scalar", "int32"}}},
                       {"value", value}};
}

/// A row-major M x K times K x N GEMM project; `aType` is A's and B's element type.
QJsonObject gemmProject(const QJsonObject& baseline, const char* aType = "float32",
                        const char* cCount = "M*N") {
    QJsonObject json{
        {"format", "kernelpad-project"},
        {"version", 1},
        {"name", "gemm"},
        {"source", "__global__ void gemm() {}"},
        {"kernel", "gemm"},
        {"arguments",
         QJsonArray{bufferArg("A", aType, "M*K", "in"), bufferArg("B", aType, "K*N", "in"),
                    bufferArg("C", "float32", cCount, "out"), scalarArg("M", "64"),
                    scalarArg("N", "32"), scalarArg("K", "16"), scalarArg("scale", "3")}}};
    json.insert("baseline", baseline);
    return json;
}

QJsonObject gemmBaseline() {
    return QJsonObject{{"library", "cublas"},
                       {"call", "gemm"},
                       {"order", "row"},
                       {"a", "A"},
                       {"b", "B"},
                       {"c", "C"},
                       {"m", "M"},
                       {"n", "N"},
                       {"k", "K"}};
}

/// A verified, timed run whose library baseline took `ratio` times the kernel's 2 ms.
RunResult runWithRatio(double ratio) {
    RunResult r;
    r.timing = computeStats({2.0, 2.0, 2.0});
    BufferVerification c;
    c.buffer = QStringLiteral("C");
    c.passed = true;
    c.checked = 4;
    r.verification = {c};
    r.baseline.library = QStringLiteral("cuBLAS");
    r.baseline.call = QStringLiteral("gemm 2×2×2 fp32, column-major");
    r.baseline.timing = computeStats({2.0 * ratio, 2.0 * ratio, 2.0 * ratio});
    r.baseline.check = c;
    return r;
}

QJsonObject with(QJsonObject o, const QString& key, const QJsonValue& value) {
    o.insert(key, value);
    return o;
}

} // namespace

class TestBaselineSpec : public QObject {
    Q_OBJECT

private slots:
    void readsAndWritesTheSection() {
        QString error;
        const std::optional<Project> p =
            Project::fromJson(gemmProject(with(gemmBaseline(), "alpha", "scale")), &error);
        QVERIFY2(p, qPrintable(error));
        QCOMPARE(p->baseline.library, QStringLiteral("cublas"));
        QCOMPARE(p->baseline.order, QStringLiteral("row"));
        QCOMPARE(p->baseline.alpha, QStringLiteral("scale"));
        QCOMPARE(p->baseline.libraryDisplayName(), QStringLiteral("cuBLAS"));
        const std::optional<Project> again = Project::fromJson(p->toJson(), &error);
        QVERIFY2(again, qPrintable(error));
        QCOMPARE(again->baseline, p->baseline);
        // A project without one writes none.
        Project plain = *p;
        plain.baseline = BaselineSpec{};
        QVERIFY(!plain.toJson().contains("baseline"));
    }

    void refusesNamingTheField_data() {
        QTest::addColumn<QJsonObject>("baseline");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown library")
            << with(gemmBaseline(), "library", "magma") << "baseline.library";
        QTest::newRow("unknown buffer")
            << with(gemmBaseline(), "a", "X") << "baseline.a: no buffer argument 'X'";
        QTest::newRow("c is an input") << with(gemmBaseline(), "c", "A")
                                       << "baseline.c: 'A' is "
                                          "an \"in\" buffer";
        QTest::newRow("missing m") << [] {
            QJsonObject o = gemmBaseline();
            o.remove("m");
            return o;
        }() << "baseline.m: missing";
        QTest::newRow("mistyped field")
            << with(gemmBaseline(), "ldx", "4") << "baseline.ldx: unknown field";
        QTest::newRow("unknown compute")
            << with(gemmBaseline(), "compute", "int8") << "baseline.compute";
    }
    void refusesNamingTheField() {
        QFETCH(QJsonObject, baseline);
        QFETCH(QString, message);
        QString error;
        QVERIFY(!Project::fromJson(gemmProject(baseline), &error));
        QVERIFY2(error.startsWith(message), qPrintable(error));
    }

    void plansARowMajorGemm() {
        QString error;
        const std::optional<Project> p =
            Project::fromJson(gemmProject(with(gemmBaseline(), "alpha", "scale*2")), &error);
        QVERIFY2(p, qPrintable(error));
        const std::optional<GemmPlan> plan = planGemm(p->baseline, p->arguments, &error);
        QVERIFY2(plan, qPrintable(error));
        QCOMPARE(plan->m, qint64(64));
        QCOMPARE(plan->n, qint64(32));
        QCOMPARE(plan->k, qint64(16));
        QCOMPARE(plan->a.ld, qint64(16)); // row-major: the columns
        QCOMPARE(plan->b.ld, qint64(32));
        QCOMPARE(plan->c.ld, qint64(32));
        QCOMPARE(plan->alpha, 6.0);
        QCOMPARE(plan->beta, 0.0);
        QCOMPARE(plan->flops(), 2.0 * 64 * 32 * 16);
        QCOMPARE(plan->describe(), QStringLiteral("gemm 64×32×16 fp32, row-major"));
    }

    void plansABf16Gemm() {
        // bfloat16 A and B with float C: cuBLAS accumulates in fp32 (CUDA_R_16BF inputs).
        QString error;
        const std::optional<Project> p = Project::fromJson(
            gemmProject(with(gemmBaseline(), "compute", "bf16"), "bfloat16"), &error);
        QVERIFY2(p, qPrintable(error));
        const std::optional<GemmPlan> plan = planGemm(p->baseline, p->arguments, &error);
        QVERIFY2(plan, qPrintable(error));
        QCOMPARE(plan->abType, ScalarType::BFloat16);
        QCOMPARE(plan->cType, ScalarType::Float32);
        QCOMPARE(plan->compute, QStringLiteral("bf16"));
    }

    void plansAnFp8GemmInTheTnForm() {
        // Row order swaps the operands, so cuBLASLt's TN form is B transposed (stored N x K).
        QString error;
        QJsonObject baseline = with(gemmBaseline(), "compute", "fp8");
        baseline = with(baseline, "transB", true);
        const std::optional<Project> p =
            Project::fromJson(gemmProject(baseline, "float8_e4m3"), &error);
        QVERIFY2(p, qPrintable(error));
        const std::optional<GemmPlan> plan = planGemm(p->baseline, p->arguments, &error);
        QVERIFY2(plan, qPrintable(error));
        QCOMPARE(plan->abType, ScalarType::Float8E4M3);
        QCOMPARE(plan->b.ld, qint64(16)); // K, the stored columns of the N x K B
        QCOMPARE(plan->c.ld, qint64(32));
    }

    void refusesSizesAndTypes_data() {
        QTest::addColumn<QJsonObject>("baseline");
        QTest::addColumn<QString>("aType");
        QTest::addColumn<QString>("cCount");
        QTest::addColumn<QString>("message");
        QTest::newRow("lda under the columns")
            << with(gemmBaseline(), "lda", 8) << "float32"
            << "M*N"
            << "baseline.lda: 8 is less than the 16 columns of A";
        QTest::newRow("C too small") << gemmBaseline() << "float32"
                                     << "M*N-1"
                                     << "baseline.c: buffer 'C' holds 2047 elements, but C (64x32 "
                                        "as stored, ld 32) needs 2048";
        QTest::newRow("fp32 on half buffers")
            << gemmBaseline() << "float16"
            << "M*N"
            << "baseline.a: buffer 'A' holds float16, but compute \"fp32\" needs float32";
        QTest::newRow("fp16 on float buffers")
            << with(gemmBaseline(), "compute", "fp16") << "float32"
            << "M*N"
            << "baseline.a: buffer 'A' holds float32, but compute \"fp16\" needs float16";
        QTest::newRow("bf16 on half buffers")
            << with(gemmBaseline(), "compute", "bf16") << "float16"
            << "M*N"
            << "baseline.a: buffer 'A' holds float16, but compute \"bf16\" needs bfloat16";
        QTest::newRow("fp8 on bfloat16 buffers")
            << with(gemmBaseline(), "compute", "fp8") << "bfloat16"
            << "M*N"
            << "baseline.a: buffer 'A' holds bfloat16, but compute \"fp8\" needs float8_e4m3";
        QTest::newRow("fp8 not in the TN form")
            << with(gemmBaseline(), "compute", "fp8") << "float8_e4m3"
            << "M*N"
            << "baseline.transB: cuBLASLt multiplies fp8 matrices only in the TN form: in row "
               "order B transposed and A not";
        QTest::newRow("fp8 with both transposed")
            << with(with(with(gemmBaseline(), "compute", "fp8"), "transB", true), "transA", true)
            << "float8_e4m3"
            << "M*N"
            << "baseline.transA: cuBLASLt multiplies fp8 matrices only in the TN form";
        QTest::newRow("fp8 ldc not a multiple of 16")
            << with(with(with(gemmBaseline(), "compute", "fp8"), "transB", true), "ldc", 40)
            << "float8_e4m3"
            << "M*40"
            << "baseline.ldc: 40 is not a multiple of 16; cuBLASLt's fp8 GEMM needs every "
               "leading dimension a multiple of 16";
        QTest::newRow("batch beyond C")
            << with(gemmBaseline(), "batch", 2) << "float32"
            << "M*N"
            << "baseline.a: buffer 'A' holds 1024 elements, but A (64x16 as stored, ld "
               "16, 2 matrices 1024 apart) needs 2048";
        QTest::newRow("m from an unknown scalar") << with(gemmBaseline(), "m", "rows") << "float32"
                                                  << "M*N"
                                                  << "baseline.m: count 'rows'";
        QTest::newRow("zero k") << with(gemmBaseline(), "k", 0) << "float32"
                                << "M*N"
                                << "baseline.k: must be between 1";
    }
    void refusesSizesAndTypes() {
        QFETCH(QJsonObject, baseline);
        QFETCH(QString, aType);
        QFETCH(QString, cCount);
        QFETCH(QString, message);
        QString error;
        const std::optional<Project> p =
            Project::fromJson(gemmProject(baseline, qPrintable(aType), qPrintable(cCount)), &error);
        QVERIFY2(p, qPrintable(error));
        QVERIFY(!planGemm(p->baseline, p->arguments, &error));
        QVERIFY2(error.startsWith(message), qPrintable(error));
    }

    void comparesOnlyTheWrittenElements() {
        // Column-major 2x2 C with ldc 3: element 2 of each column is a gap neither writes.
        GemmPlan plan;
        plan.m = plan.n = plan.k = 2;
        plan.c.buffer = QStringLiteral("C");
        plan.c.ld = 3;
        plan.c.stride = 6;
        const float kernelValues[6] = {1, 2, 0, 3, 4, 0};
        float libraryValues[6] = {1, 2, 0, 3, 4, 0};
        std::memset(&libraryValues[2], kPoisonByte, sizeof(float)); // a gap left poisoned
        const auto bytes = [](const float* v) {
            return QByteArray(reinterpret_cast<const char*>(v), 6 * sizeof(float));
        };
        BufferVerification v =
            compareGemmOutputs(plan, bytes(kernelValues), bytes(libraryValues), 1e-6, 0);
        QVERIFY(v.passed);
        QCOMPARE(v.checked, qint64(4));
        libraryValues[4] = 5; // C(1, 1)
        v = compareGemmOutputs(plan, bytes(kernelValues), bytes(libraryValues), 1e-6, 0);
        QVERIFY(!v.passed);
        QCOMPARE(v.mismatches, qint64(1));
        QCOMPARE(v.firstMismatches.front().index,
                 qint64(4)); // the buffer's index, not the packed one
        QCOMPARE(v.maxAbsError, 1.0);
    }

    // The library's C against the kernel's follows C's "nan" rule, as the kernel's own check
    // does: NaN on both sides passes under "equal" and fails under "differ".
    void comparesNanByTheOutputsRule() {
        GemmPlan plan;
        plan.m = plan.n = plan.k = 1;
        plan.c.buffer = QStringLiteral("C");
        plan.c.ld = 1;
        plan.c.stride = 1;
        const float qnan = std::numeric_limits<float>::quiet_NaN();
        const QByteArray nanBytes(reinterpret_cast<const char*>(&qnan), sizeof(float));
        QVERIFY(compareGemmOutputs(plan, nanBytes, nanBytes, 1e-6, 0, NanComparison::Equal).passed);
        const BufferVerification v =
            compareGemmOutputs(plan, nanBytes, nanBytes, 1e-6, 0, NanComparison::Differ);
        QVERIFY(!v.passed);
        QCOMPARE(v.buffer, QStringLiteral("C"));
    }

    void resultJsonAndRatio() {
        RunResult r;
        r.timing = computeStats({2.0, 2.0, 2.0});
        r.baseline.library = QStringLiteral("cuBLAS");
        r.baseline.call = QStringLiteral("gemm 64×32×16 fp32, row-major");
        r.baseline.timing = computeStats({1.0, 1.0, 1.0});
        r.baseline.check.buffer = QStringLiteral("C");
        r.baseline.check.passed = true;
        r.baseline.check.checked = 2048;
        // Above 1 the kernel is faster: here the library takes half the kernel's time.
        QCOMPARE(r.baseline.ratio(r.timing.medianMs), 0.5);
        QCOMPARE(r.baseline.ratioText(r.timing.medianMs), QStringLiteral("0.50× cuBLAS"));
        const QJsonObject json = r.toJson();
        QCOMPARE(json.value("baseline").toObject().value("ratio").toDouble(), 0.5);
        QString error;
        const std::optional<RunResult> back = RunResult::fromJson(json, &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->baseline.call, r.baseline.call);
        QCOMPARE(back->baseline.timing.medianMs, 1.0);
        QCOMPARE(back->baseline.check.checked, qint64(2048));
        // The summaries carry the ratio for --json and the window.
        const QVector<Summary> summaries = summarize(r);
        const Summary* ratio = findSummary(summaries, QStringLiteral("baseline.ratio"));
        QVERIFY(ratio);
        QCOMPARE(ratio->value, 0.5);
        QCOMPARE(ratio->name, QStringLiteral("× cuBLAS"));
        // A result without a baseline writes none, and a library that did not run has no ratio.
        QVERIFY(!RunResult{}.toJson().contains("baseline"));
        r.baseline.error = QStringLiteral("cuBLAS not found");
        QCOMPARE(r.baseline.ratio(r.timing.medianMs), 0.0);
        QVERIFY(!findSummary(summarize(r), QStringLiteral("baseline.ratio")));
    }

    void missingLibraryNamesWhereItLooked() {
        QTemporaryDir empty;
        QVERIFY(empty.isValid());
        const QString candidate = empty.path() + QStringLiteral("/libcublas.so.13");
        QString why;
        QVERIFY(!CublasLibrary::loadFrom({candidate}, &why));
        QCOMPARE(why, QStringLiteral("cuBLAS not found: looked in %1").arg(candidate));
        // The defaults look in the toolkit and then on the system's path.
        const QStringList defaults = cublasCandidates();
        QVERIFY(defaults.contains(QStringLiteral("/usr/local/cuda/lib64/libcublas.so.13")));
        QCOMPARE(defaults.last(), QStringLiteral("libcublas.so.13"));
        // cuBLASLt (the fp8 GEMM) is looked for in the same places and named the same way.
        const QString lt = empty.path() + QStringLiteral("/libcublasLt.so.13");
        QVERIFY(!CublasLtLibrary::loadFrom({lt}, &why));
        QCOMPARE(why, QStringLiteral("cuBLASLt not found: looked in %1").arg(lt));
        const QStringList ltDefaults = cudaLibraryCandidates(QStringLiteral("libcublasLt.so.13"));
        QVERIFY(ltDefaults.contains(QStringLiteral("/usr/local/cuda/lib64/libcublasLt.so.13")));
    }

    void cublasLtHasEveryEntryPoint() {
        // Loading needs no GPU: every name KernelPad looks up must be one the library exports.
        const QString path = QStringLiteral("/usr/local/cuda/lib64/libcublasLt.so.13");
        if (!QFileInfo::exists(path))
            QSKIP("no CUDA toolkit's cuBLASLt in /usr/local/cuda/lib64");
        QString why;
        const std::unique_ptr<CublasLtLibrary> lib = CublasLtLibrary::loadFrom({path}, &why);
        QVERIFY2(lib, qPrintable(why));
        QCOMPARE(lib->path, path);
        QCOMPARE(lib->statusText(CUBLAS_STATUS_NOT_SUPPORTED),
                 QStringLiteral("the requested functionality is not supported (status 15)"));
    }

    void loadsTheToolkitsLibrary() {
        const QString path = QStringLiteral("/usr/local/cuda/lib64/libcublas.so.13");
        if (!QFileInfo::exists(path))
            QSKIP("no CUDA 13 toolkit in /usr/local/cuda (install cuda-toolkit-13-0)");
        QString why;
        const std::unique_ptr<CublasLibrary> lib = CublasLibrary::loadFrom({path}, &why);
        QVERIFY2(lib, qPrintable(why));
        QVERIFY(lib->gemmEx && lib->gemmStridedBatchedEx && lib->setStream);
        QVERIFY(lib->statusText(CUBLAS_STATUS_NOT_SUPPORTED).contains("status 15"));
    }

    void versionsRecordTheRatio() {
        QString error;
        const std::optional<Project> project =
            Project::fromJson(gemmProject(gemmBaseline()), &error);
        QVERIFY2(project, qPrintable(error));
        const Version v = Version::fromRun(3, QDateTime::currentDateTimeUtc(), *project,
                                           runWithRatio(0.75), QString(), false);
        QCOMPARE(v.baselineLibrary, QStringLiteral("cuBLAS"));
        QCOMPARE(v.baselineRatio(), 0.75);
        const QJsonObject json = v.toJson();
        QCOMPARE(json.value("baseline").toObject().value("ratio").toDouble(), 0.75);
        const std::optional<Version> back = Version::fromJson(json, &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->baselineRatio(), 0.75);
        // A run whose library did not run records none.
        RunResult missing = runWithRatio(0.75);
        missing.baseline.error = QStringLiteral("cuBLAS not found");
        const Version none =
            Version::fromRun(4, QDateTime::currentDateTimeUtc(), *project, missing, {}, false);
        QCOMPARE(none.baselineRatio(), 0.0);
        QVERIFY(!none.toJson().contains("baseline"));
    }

    void sweepsRankByTheRatio() {
        SweepRecord slow, fast;
        slow.key = QStringLiteral("bx=8");
        fast.key = QStringLiteral("bx=32");
        slow.status = fast.status = QStringLiteral("ok");
        slow.medianMs = 2;
        fast.medianMs = 1;
        slow.baselineRatio = 0.4;
        fast.baselineRatio = 0.8;
        const std::optional<SweepRecord> best = bestRecord({slow, fast}, SweepObjective::Baseline);
        QVERIFY(best);
        QCOMPARE(best->key, fast.key);
        QString error;
        const std::optional<SweepRecord> back = SweepRecord::fromJson(fast.toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->baselineRatio, 0.8);
        // The objective needs the project's baseline.
        QJsonObject json = gemmProject(gemmBaseline());
        json.insert("sweep", QJsonObject{{"scalars", QJsonObject{{"M", QJsonArray{64, 128}}}},
                                         {"objective", "baseline"}});
        const std::optional<Project> p = Project::fromJson(json, &error);
        QVERIFY2(p, qPrintable(error));
        QCOMPARE(p->sweep.objective, SweepObjective::Baseline);
        QCOMPARE(p->toJson().value("sweep").toObject().value("objective").toString(),
                 QStringLiteral("baseline"));
        json.remove("baseline");
        QVERIFY(!Project::fromJson(json, &error));
        QVERIFY2(error.startsWith("sweep.objective: \"baseline\""), qPrintable(error));
    }

    void lessonsRequireARatio() {
        Lesson lesson;
        lesson.kind = LessonKind::Correctness;
        lesson.minBaselineRatio = 0.5;
        LessonVerdict v = judgeLessonRun(lesson, runWithRatio(0.4), std::nullopt);
        QCOMPARE(v.state, LessonVerdict::State::Failed);
        QCOMPARE(v.failure,
                 QStringLiteral("Verified, but 0.40× cuBLAS, at least 0.50× cuBLAS needed."));
        v = judgeLessonRun(lesson, runWithRatio(0.6), std::nullopt);
        QCOMPARE(v.state, LessonVerdict::State::Complete);
        QVERIFY2(v.summary.contains(QStringLiteral("0.60× cuBLAS")), qPrintable(v.summary));
        RunResult missing = runWithRatio(0.6);
        missing.baseline.error = QStringLiteral("cuBLAS not found: looked in /x");
        v = judgeLessonRun(lesson, missing, std::nullopt);
        QCOMPARE(v.state, LessonVerdict::State::Failed);
        QVERIFY2(v.failure.contains(QStringLiteral("cuBLAS not found")), qPrintable(v.failure));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestBaselineSpec)
} // namespace tst_baselinespec
#include "tst_baselinespec.moc"
