// The hierarchical roofline read from the recordings of ncu's hierarchical sections
// (tests/data/ncu/*.hier.*, an H200 at its profiling clocks; see the README there): roofs per
// level and precision, the points, the bound in words, the JSON, the CLI's lines and the
// absent values of a raw page without the sections. Every expected number is computed by hand
// from the raw CSV in the comment beside it.
#include "app/cli/CliProfile.h"
#include "core/profile/HierarchicalRoofline.h"
#include "core/profile/Ncu.h"
#include "core/profile/NcuPages.h"
#include "core/profile/ProfileReport.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>
#include <QTextStream>

#include "../support/NcuRecordings.h"
#include "../support/TestMain.h"
#include <cmath>

namespace tst_hierroofline {

using namespace kernelpad;

namespace {

/// Relative closeness: the CSV prints six or so significant digits.
bool near(double value, double expected, double relative = 1e-6) {
    return std::abs(value - expected) <= relative * std::abs(expected);
}

QString describe(const HierarchicalRoofline& h) {
    QStringList out;
    for (const HierarchyPoint& p : h.points())
        out << QStringLiteral("%1@%2 I=%3 F=%4 roof=%5 memory=%6")
                   .arg(precisionName(p.precision), memoryLevelName(p.level))
                   .arg(p.flopsPerByte, 0, 'g', 8)
                   .arg(p.flopsPerSecond, 0, 'g', 8)
                   .arg(p.roofFlopsPerSecond.value_or(-1), 0, 'g', 8)
                   .arg(p.underMemoryRoof);
    return out.join(QStringLiteral("; "));
}

ProfileReport hier(const char* kernel) {
    return test::recordedProfile(QLatin1String(kernel), QStringLiteral("hier"));
}

} // namespace

class TestHierRoofline : public QObject {
    Q_OBJECT
private slots:
    void profileAsksForTheSections();
    void wmmaTensorPointBetweenFp32AndTensorRoofs();
    void mmaSyncTensorBound();
    void stridedReadIsDramBound();
    void saxpyIntensityPerLevel();
    void withoutTheSectionsEverythingIsAbsent();
    void pointsAndRoofsFromConstructedRates();
    void jsonRoundTrip();
    void jsonErrorsNameTheField();
    void cliPrintsRoofsPointsAndBound();
};

void TestHierRoofline::profileAsksForTheSections() {
    // The recordings were made with exactly these sections; both sets ask for them.
    for (ProfileSet set : {ProfileSet::Basic, ProfileSet::Full}) {
        const QString joined =
            ncuProfileArguments(set, QStringLiteral("k"), QStringLiteral("r"), QStringLiteral("l"))
                .join(QLatin1Char(' '));
        for (const char* section : {"SpeedOfLight_HierarchicalSingleRooflineChart",
                                    "SpeedOfLight_HierarchicalHalfRooflineChart",
                                    "SpeedOfLight_HierarchicalTensorRooflineChart",
                                    "SpeedOfLight_HierarchicalDoubleRooflineChart"})
            QVERIFY2(joined.contains(QStringLiteral("--section ") + QLatin1String(section)),
                     qPrintable(joined));
    }
}

void TestHierRoofline::wmmaTensorPointBetweenFp32AndTensorRoofs() {
    const ProfileReport r = hier("wmma_gemm_bf16");
    const HierarchicalRoofline& h = r.hierarchy;
    // sm__ops_path_tensor_src_bf16_dst_fp32.sum.per_second = 115,208,350,214,592.27: the
    // 4096^3 GEMM's 2^37 operations in 1.19296 ms; no other source type ran.
    QVERIFY(h.tensor.achieved);
    QVERIFY(near(*h.tensor.achieved, 115208350214592.27));
    // The path that ran is HMMA bf16 -> fp32, dense: 360,448 operations per cycle x
    // sm__cycles_elapsed.avg.per_second 1.373502 GHz = 4.9508e14 FLOP/s (not the type's
    // 1,081,344 per cycle, which is sparse HGMMA's).
    QCOMPARE(h.tensorPath, QStringLiteral("HMMA bf16→fp32"));
    QVERIFY(near(*h.tensor.peak, 360448.0 * 1.373502e9));
    // FP32 roof: 16,896 FFMA x 2 x 1.373502 GHz = 4.6413e13 FLOP/s; no FP32 instruction ran.
    QVERIFY(near(*h.fp32.peak, 16896.0 * 2 * 1.373502e9));
    QCOMPARE(*h.fp32.achieved, 0.0);
    QCOMPARE(h.precisionsRun(), QList<Precision>{Precision::Tensor});
    // Memory roofs: L1 16,896 B/cycle x 1.373502 GHz; L2 6.016 KB/cycle x 1.674733 GHz; DRAM
    // 1.504 KB/cycle x 3.199379 GHz.
    QVERIFY(near(*h.l1.peak, 16896.0 * 1.373502e9));
    QVERIFY(near(*h.l2.peak, 6016.0 * 1.674733e9));
    QVERIFY(near(*h.dram.peak, 1504.0 * 3.199379e9));
    const QList<HierarchyPoint> points = h.points();
    QCOMPARE(points.size(), 3);
    // Intensities: 1.15208e14 over L1 2.017943e12 = 57.09, L2 1.334290e12 = 86.34, DRAM
    // 1.89000858e11 = 609.6 FLOP/byte: each right of its ridge (L1 21.3, L2 49.1, DRAM 102.9),
    // so every point sits under the tensor roof, above the FP32 roof.
    const double expected[] = {115208350214592.27 / 2017943025751.07,
                               115208350214592.27 / 1.334290e12, 115208350214592.27 / 189.000858e9};
    for (int i = 0; i < 3; ++i) {
        const HierarchyPoint& p = points.at(i);
        QCOMPARE(p.level, kMemoryLevels[size_t(i)]);
        QCOMPARE(p.precision, Precision::Tensor);
        QVERIFY2(near(p.flopsPerByte, expected[i]), qPrintable(describe(h)));
        QVERIFY(p.flopsPerSecond > *h.fp32.peak);
        QVERIFY(p.flopsPerSecond < *h.tensor.peak);
        QVERIFY(!p.underMemoryRoof);
        QCOMPARE(*p.roofFlopsPerSecond, *h.tensor.peak);
    }
    // 1.15208e14 / 4.9508e14 = 23.27 %, ncu's own sm__pipe_tensor_cycles_active (23.270838 %).
    const std::optional<RooflineBound> b = h.bound();
    QVERIFY(b);
    QVERIFY(!b->memory);
    QCOMPARE(b->precision, Precision::Tensor);
    QVERIFY2(std::abs(b->fraction - 0.23270838) < 1e-4, qPrintable(QString::number(b->fraction)));
    QVERIFY2(b->sentence.startsWith(QStringLiteral("Compute-bound: 23 % of the tensor HMMA "
                                                   "bf16→fp32 roof")),
             qPrintable(b->sentence));
}

void TestHierRoofline::mmaSyncTensorBound() {
    const HierarchicalRoofline h = hier("mma_sync_gemm_bf16").hierarchy;
    // Same GEMM in 641.12 us: 2.14373e14 FLOP/s of HMMA bf16 -> fp32's 360,448 x 1.370979 GHz
    // = 4.9417e14: 43.38 %, ncu's sm__pipe_tensor_cycles_active (43.380765 %). Its L2 point
    // (2.14373e14 / 4.098826e12 = 52.30 FLOP/byte, L2 ridge 48.9) is right of the ridge too.
    QCOMPARE(h.tensorPath, QStringLiteral("HMMA bf16→fp32"));
    const std::optional<RooflineBound> b = h.bound();
    QVERIFY(b);
    QVERIFY(!b->memory);
    QVERIFY2(std::abs(b->fraction - 0.43380765) < 1e-4, qPrintable(QString::number(b->fraction)));
    const QList<HierarchyPoint> points = h.points();
    QCOMPARE(points.size(), 3);
    QVERIFY2(near(points.at(1).flopsPerByte, 214373211679560.78 / 4.098826e12),
             qPrintable(describe(h)));
}

void TestHierRoofline::stridedReadIsDramBound() {
    const HierarchicalRoofline h = hier("read_strided").hierarchy;
    // A stride-32 float read: L2 hands the SMs 1.774925 TB/s while DRAM moves 3.764083 TB/s
    // (each 4-byte read pulls a whole sector from DRAM), so the two levels' traffic differs.
    QVERIFY(near(*h.l2.achieved, 1.774925e12));
    QVERIFY(near(*h.dram.achieved, 3.764083e12));
    QVERIFY(std::abs(*h.l2.achieved - *h.dram.achieved) > 1e12);
    // It does no floating-point work (every FP counter is 0): measured zeros, not absent
    // values, and no point a log axis could hold.
    QCOMPARE(*h.fp32.achieved, 0.0);
    QCOMPARE(*h.tensor.achieved, 0.0);
    QVERIFY(h.tensorPath.isEmpty());
    QVERIFY(!h.tensor.peak);
    QVERIFY(h.points().isEmpty());
    // Memory-bound: DRAM at 3.764083e12 / (1,504 x 3.197947e9) = 78.26 % of its peak (ncu's
    // DRAM Throughput 78.26 %), against L2's 17.6 % and L1's 11.8 %.
    const std::optional<RooflineBound> b = h.bound();
    QVERIFY(b);
    QVERIFY(b->memory);
    QVERIFY(b->noFlops);
    QCOMPARE(b->level, MemoryLevel::Dram);
    QVERIFY(std::abs(b->fraction - 0.7826) < 1e-4);
    QVERIFY2(b->sentence.startsWith(QStringLiteral("DRAM-bound: 78 % of the DRAM roof")),
             qPrintable(b->sentence));
}

void TestHierRoofline::saxpyIntensityPerLevel() {
    const HierarchicalRoofline h = hier("saxpy").hierarchy;
    // FADD and FMUL 183.159349 each per elapsed cycle, no FFMA: 2 FLOP per element,
    // (183.159349 x 2) x 1.496325 GHz = 5.48132e11 FLOP/s.
    QVERIFY(near(*h.fp32.achieved, 2 * 183.159349 * 1.496325e9));
    QCOMPARE(h.precisionsRun(), QList<Precision>{Precision::Fp32});
    const QList<HierarchyPoint> points = h.points();
    QCOMPARE(points.size(), 3);
    // L1: 3.28879e12 B/s, 12 bytes per element (x, y and the store): 2/12 exactly.
    QVERIFY2(near(points.at(0).flopsPerByte, 2.0 / 12, 1e-4), qPrintable(describe(h)));
    // L2 to the SMs carries the two loads only: 2.200203e12 B/s, 2/8 within 0.4 %.
    QVERIFY2(near(points.at(1).flopsPerByte, 2.0 / 8, 4e-3), qPrintable(describe(h)));
    // DRAM: 3.096581e12 B/s = 189.6 MB in 61.216 us of the 201.3 MB the 16,777,216 elements
    // touch (some of x and y were still in the 60 MB L2): 0.1770, 2/12 plus 6 %.
    QVERIFY2(near(points.at(2).flopsPerByte, 5.48132e11 / 3.096581e12, 1e-4),
             qPrintable(describe(h)));
    QVERIFY(points.at(2).flopsPerByte > 2.0 / 12 && points.at(2).flopsPerByte < 1.07 * 2.0 / 12);
    for (const HierarchyPoint& p : points)
        QVERIFY(p.underMemoryRoof);
    // Under the DRAM roof at 64.36 % of it (ncu's DRAM Throughput 64.36 %).
    const std::optional<RooflineBound> b = h.bound();
    QVERIFY(b);
    QCOMPARE(b->level, MemoryLevel::Dram);
    QVERIFY(b->memory && !b->noFlops);
    QVERIFY(std::abs(b->fraction - 0.6436) < 1e-4);
    QVERIFY2(b->sentence.startsWith(QStringLiteral("DRAM-bound: 64 % of the DRAM roof at this "
                                                   "intensity (FP32, 0.177 FLOP/byte")),
             qPrintable(b->sentence));
}

void TestHierRoofline::withoutTheSectionsEverythingIsAbsent() {
    // ncu's own basic set (the older recordings): none of the sections' metrics.
    const HierarchicalRoofline basic = test::recordedProfile("saxpy", "basic").hierarchy;
    QVERIFY(basic.isEmpty());
    for (MemoryLevel level : kMemoryLevels)
        QVERIFY(!basic.memory(level).achieved && !basic.memory(level).peak);
    for (Precision p : kPrecisions)
        QVERIFY(!basic.compute(p).achieved && !basic.compute(p).peak);
    QVERIFY(basic.points().isEmpty());
    QVERIFY(!basic.bound());
    // The full set includes the sections: the H100 recording has L1 and L2 (its L2 peak
    // 5.12 KB/cycle x 1.70753 GHz).
    const HierarchicalRoofline full = test::recordedProfile("saxpy", "full").hierarchy;
    QVERIFY(!full.isEmpty());
    QVERIFY(near(*full.l2.peak, 5120.0 * 1.707530e9));
    QCOMPARE(full.points().size(), 3);
}

void TestHierRoofline::pointsAndRoofsFromConstructedRates() {
    HierarchicalRoofline h;
    h.dram = {2e12, 4e12};
    h.l2 = {3e12, std::nullopt}; // bandwidth known, peak not
    h.fp32 = {1e12, 40e12};
    h.fp64 = {std::nullopt, 20e12}; // not counted: no point
    QCOMPARE(h.precisionsRun(), QList<Precision>{Precision::Fp32});
    const QList<HierarchyPoint> points = h.points();
    QCOMPARE(points.size(), 2); // L1 unknown: no point
    // L2 has no peak: its roof is the compute peak alone.
    QCOMPARE(points.at(0).level, MemoryLevel::L2);
    QCOMPARE(*points.at(0).roofFlopsPerSecond, 40e12);
    QVERIFY(!points.at(0).underMemoryRoof);
    // DRAM: 0.5 FLOP/byte, roof min(40e12, 4e12 x 0.5) = 2e12: half of it.
    QCOMPARE(points.at(1).flopsPerByte, 0.5);
    QCOMPARE(*points.at(1).roofFlopsPerSecond, 2e12);
    QVERIFY(points.at(1).underMemoryRoof);
    const std::optional<RooflineBound> b = h.bound();
    QVERIFY(b);
    QCOMPARE(b->level, MemoryLevel::Dram);
    QCOMPARE(b->fraction, 0.5);
    // Without any peak there is no roof, and no bound is claimed.
    HierarchicalRoofline bare;
    bare.dram.achieved = 1e12;
    bare.fp32.achieved = 1e12;
    QCOMPARE(bare.points().size(), 1);
    QVERIFY(!bare.points().first().roofFlopsPerSecond);
    QVERIFY(!bare.bound());
}

void TestHierRoofline::jsonRoundTrip() {
    const ProfileReport r = hier("wmma_gemm_bf16");
    const QJsonObject json = r.toJson();
    const QJsonObject h = json.value(QStringLiteral("hierarchicalRoofline")).toObject();
    QCOMPARE(h.value(QStringLiteral("tensorPath")).toString(), QStringLiteral("HMMA bf16→fp32"));
    QCOMPARE(h.value(QStringLiteral("points")).toArray().size(), 3);
    QVERIFY(h.value(QStringLiteral("bound"))
                .toObject()
                .value(QStringLiteral("sentence"))
                .toString()
                .startsWith(QStringLiteral("Compute-bound")));
    // FP64 did not run but its roof is known: the achieved 0 is written, as a measured zero.
    QCOMPARE(h.value(QStringLiteral("fp64")).toObject().value(QStringLiteral("achieved")), 0.0);
    QString error;
    const std::optional<ProfileReport> back = ProfileReport::fromJson(json, &error);
    QVERIFY2(back, qPrintable(error));
    QVERIFY(back->hierarchy == r.hierarchy);
    QVERIFY(*back == r);
    // A report saved before the hierarchy existed reads with every value absent.
    QJsonObject old = json;
    old.remove(QStringLiteral("hierarchicalRoofline"));
    const std::optional<ProfileReport> older = ProfileReport::fromJson(old, &error);
    QVERIFY2(older, qPrintable(error));
    QVERIFY(older->hierarchy.isEmpty());
}

void TestHierRoofline::jsonErrorsNameTheField() {
    QJsonObject json = hier("saxpy").toJson();
    QJsonObject h = json.value(QStringLiteral("hierarchicalRoofline")).toObject();
    h.insert(QStringLiteral("l2"), QJsonObject{{QStringLiteral("peak"), QStringLiteral("fast")}});
    json.insert(QStringLiteral("hierarchicalRoofline"), h);
    QString error;
    QVERIFY(!ProfileReport::fromJson(json, &error));
    QVERIFY2(error.startsWith(QStringLiteral("hierarchicalRoofline.l2.peak")), qPrintable(error));
}

void TestHierRoofline::cliPrintsRoofsPointsAndBound() {
    QString text;
    QTextStream out(&text);
    cli::printProfile(out, hier("saxpy"));
    out.flush();
    // One line per roof and per point, then the bound.
    QVERIFY2(text.contains(QStringLiteral("Hierarchical roofline")), qPrintable(text));
    QVERIFY2(text.contains(QRegularExpression(
                 QStringLiteral("L2\\s+2\\.20 TB/s of 10\\.09 TB/s \\(21\\.8 %\\)"))),
             qPrintable(text));
    QVERIFY2(text.contains(QRegularExpression(QStringLiteral(
                 "FP32 at DRAM\\s+0\\.177 FLOP/byte, 548\\.13 GFLOP/s, 64\\.4 % of the DRAM "
                 "roof"))),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("DRAM-bound: 64 % of the DRAM roof at this intensity")),
             qPrintable(text));
    // Without the sections the text says so instead of printing dashes.
    QString basic;
    QTextStream basicOut(&basic);
    cli::printProfile(basicOut, test::recordedProfile("saxpy", "basic"));
    basicOut.flush();
    QVERIFY2(basic.contains(QStringLiteral("Hierarchical roofline: not collected")),
             qPrintable(basic));
}

KERNELPAD_TEST_GUILESS_MAIN(TestHierRoofline)

} // namespace tst_hierroofline

#include "tst_hierroofline.moc"
