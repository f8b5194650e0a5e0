// The GPU comparison kernels (core/verify/GpuCompareKernels.h) compile with NVRTC, have the
// entries and parameter layouts GpuComparer launches with, and keep the rounding of the host.

#include "../support/TestMain.h"
#include "core/compile/Program.h"
#include "core/verify/GpuCompare.h"
#include "core/verify/Verify.h"

#include <QtTest>

namespace tst_gpucomparesource {

using namespace kernelpad;

namespace {

/// One parameter as GpuComparer::compare() passes it: its PTX type and size.
struct ExpectedParam {
    const char* ptxType;
    int sizeBytes;
};

/// got, expected, count, perBlock, atol, rtol, ulp, exact, stats, blockRecorded, blockRecords.
const QVector<ExpectedParam> kCompareParams = {{".u64", 8}, {".u64", 8}, {".u64", 8}, {".u64", 8},
                                               {".f64", 8}, {".f64", 8}, {".f64", 8}, {".u32", 4},
                                               {".u64", 8}, {".u64", 8}, {".u64", 8}};
/// blockRecorded, blockRecords, blocks, out, outCount.
const QVector<ExpectedParam> kGatherParams = {
    {".u64", 8}, {".u64", 8}, {".u32", 4}, {".u64", 8}, {".u64", 8}};

} // namespace

class TestGpuCompareSource : public QObject {
    Q_OBJECT

private:
    static void verifyParams(const CompileResult& compiled, const QString& entry,
                             const QVector<ExpectedParam>& expected) {
        const KernelInfo* kernel = compiled.findKernel(entry);
        QVERIFY2(kernel, qPrintable(QStringLiteral("no entry %1").arg(entry)));
        QCOMPARE(kernel->lowered, entry); // extern "C": the name is not mangled
        QCOMPARE(kernel->params.size(), expected.size());
        for (int p = 0; p < expected.size(); ++p) {
            QCOMPARE(kernel->params[p].ptxType, QString::fromLatin1(expected[p].ptxType));
            QCOMPARE(kernel->params[p].sizeBytes, expected[p].sizeBytes);
        }
    }

private slots:
    void entryPerType_data() {
        QTest::addColumn<ScalarType>("type");
        QTest::addColumn<bool>("supported");
        for (ScalarType t : allScalarTypes())
            QTest::newRow(scalarTypeInfo(t).numpyName)
                << t << !scalarTypeInfo(t).isComplex; // bfloat16, fp8, fp4 decoded there too
    }
    /// What GpuComparer compiles on the first use of a type: that type's entry and the
    /// gather kernel, nothing else, for sm_90.
    void entryPerType() {
        QFETCH(ScalarType, type);
        QFETCH(bool, supported);
        QCOMPARE(GpuComparer::supports(ValueType::of(type)), supported);
        const QString name = gpuCompareKernelName(type);
        const CompileResult compiled = gpuCompareProgram(type).compile(QStringLiteral("sm_90"));
        QVERIFY2(compiled.ok, qPrintable(compiled.error + compiled.log));
        QVERIFY(!compiled.cubin.isEmpty());
        // Warnings in code compiled at run time would be shown to nobody.
        QVERIFY2(compiled.diagnostics.isEmpty(), qPrintable(compiled.log));
        verifyParams(compiled, QLatin1String(kGpuGatherKernelName), kGatherParams);
        if (QTest::currentTestFailed())
            return;

        QStringList entries;
        for (const KernelInfo& k : compiled.kernels)
            entries.append(k.name);
        entries.sort();
        if (!supported) {
            QVERIFY(name.isEmpty());
            QCOMPARE(entries, QStringList{QLatin1String(kGpuGatherKernelName)});
            return;
        }
        QCOMPARE(name,
                 QStringLiteral("kpCompare_") + QLatin1String(scalarTypeInfo(type).numpyName));
        QCOMPARE(entries, (QStringList{name, QLatin1String(kGpuGatherKernelName)}));
        verifyParams(compiled, name, kCompareParams);
        if (QTest::currentTestFailed())
            return;

        // The kernels keep KP_RECORDS mismatches per block; fewer would lose reported ones.
        const QString define = QStringLiteral("KP_RECORDS=%1").arg(kMaxReportedMismatches);
        QVERIFY2(std::any_of(compiled.flags.cbegin(), compiled.flags.cend(),
                             [&](const QString& f) { return f.endsWith(define); }),
                 qPrintable(compiled.flags.join(' ')));
        // atol + rtol * |expected| must round twice, as on the host (Verify.cpp), or
        // borderline elements are judged differently.
        QVERIFY2(!compiled.ptx.contains(QLatin1String("fma.rn.f64")), "fused multiply-add");
        // The per-thread tile (KP_ITEMS loads of each buffer) must stay in registers.
        QVERIFY2(!compiled.ptx.contains(QLatin1String("__local_depot")), "local memory");
    }

    void structsAreLeftToTheHost() {
        StructType s{QStringLiteral("Pair"),
                     {StructField{QStringLiteral("a"), ScalarType::Float32, 1},
                      StructField{QStringLiteral("b"), ScalarType::Int32, 1}}};
        QVERIFY(!GpuComparer::supports(ValueType::ofStruct(s)));
    }

    void otherArchs_data() {
        QTest::addColumn<QString>("arch");
        QTest::newRow("Turing sm_75") << QStringLiteral("sm_75");
        QTest::newRow("Ampere sm_80") << QStringLiteral("sm_80");
        QTest::newRow("Hopper sm_90a") << QStringLiteral("sm_90a");
    }
    void otherArchs() {
        QFETCH(QString, arch);
        const CompileResult r = gpuCompareProgram(ScalarType::Float32).compile(arch);
        QVERIFY2(r.ok, qPrintable(r.error + r.log));
        QVERIFY(!r.cubin.isEmpty());
        QVERIFY(r.findKernel(QStringLiteral("kpCompare_float32")));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestGpuCompareSource)
} // namespace tst_gpucomparesource
#include "tst_gpucomparesource.moc"
