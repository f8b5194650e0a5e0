// The GPU comparison kernels (core/run/GpuCompareKernels.h) compile with NVRTC, have the
// entries and parameter layouts GpuComparer launches with, and keep the rounding of the host.

#include "core/compile/Program.h"
#include "core/run/GpuCompare.h"
#include "core/run/Verify.h"

#include <QtTest>

using namespace kernelpad;

Q_DECLARE_METATYPE(kernelpad::ScalarType)

namespace {

/// One parameter as GpuComparer::compare() passes it: its PTX type and size.
struct ExpectedParam {
    const char* ptxType;
    int sizeBytes;
};

/// got, expected, count, perBlock, atol, rtol, exact, stats, blockRecorded, blockRecords.
const QVector<ExpectedParam> kCompareParams = {{".u64", 8}, {".u64", 8}, {".u64", 8}, {".u64", 8},
                                               {".f64", 8}, {".f64", 8}, {".u32", 4}, {".u64", 8},
                                               {".u64", 8}, {".u64", 8}};
/// blockRecorded, blockRecords, blocks, out, outCount.
const QVector<ExpectedParam> kGatherParams = {
    {".u64", 8}, {".u64", 8}, {".u32", 4}, {".u64", 8}, {".u64", 8}};

} // namespace

class TestGpuCompareSource : public QObject {
    Q_OBJECT

private:
    CompileResult m_sm90; ///< compiled once: every test below reads it

    void verifyParams(const QString& entry, const QVector<ExpectedParam>& expected) {
        const KernelInfo* kernel = m_sm90.findKernel(entry);
        QVERIFY2(kernel, qPrintable(QStringLiteral("no entry %1").arg(entry)));
        QCOMPARE(kernel->lowered, entry); // extern "C": the name is not mangled
        QCOMPARE(kernel->params.size(), expected.size());
        for (int p = 0; p < expected.size(); ++p) {
            QCOMPARE(kernel->params[p].ptxType, QString::fromLatin1(expected[p].ptxType));
            QCOMPARE(kernel->params[p].sizeBytes, expected[p].sizeBytes);
        }
    }

private slots:
    void initTestCase() {
        m_sm90 = gpuCompareProgram().compile(QStringLiteral("sm_90"));
        QVERIFY2(m_sm90.ok, qPrintable(m_sm90.error + m_sm90.log));
        qInfo("compiled the comparison kernels for sm_90 in %.0f ms", m_sm90.compileMs);
    }

    void compilesCleanly() {
        QVERIFY(!m_sm90.cubin.isEmpty());
        QCOMPARE(m_sm90.errorCount(), 0);
        // Warnings in code that ships compiled at run time would be shown to nobody.
        QVERIFY2(m_sm90.diagnostics.isEmpty(), qPrintable(m_sm90.log));
    }

    void compareEntryPerType_data() {
        QTest::addColumn<ScalarType>("type");
        QTest::addColumn<bool>("supported");
        for (ScalarType t : allScalarTypes())
            QTest::newRow(scalarTypeInfo(t).numpyName)
                << t << !scalarTypeInfo(t).isComplex;
    }
    void compareEntryPerType() {
        QFETCH(ScalarType, type);
        QFETCH(bool, supported);
        QCOMPARE(GpuComparer::supports(ValueType::of(type)), supported);
        const QString name = gpuCompareKernelName(type);
        if (!supported) {
            QVERIFY(name.isEmpty());
            return;
        }
        QCOMPARE(name, QStringLiteral("kpCompare_") + QLatin1String(scalarTypeInfo(type).numpyName));
        verifyParams(name, kCompareParams);
    }

    void structsAreLeftToTheHost() {
        StructType s{QStringLiteral("Pair"),
                     {StructField{QStringLiteral("a"), ScalarType::Float32, 1},
                      StructField{QStringLiteral("b"), ScalarType::Int32, 1}}};
        QVERIFY(!GpuComparer::supports(ValueType::ofStruct(s)));
    }

    void gatherEntry() { verifyParams(QLatin1String(kGpuGatherKernelName), kGatherParams); }

    void onlyTheExpectedEntries() {
        QStringList names;
        for (const KernelInfo& k : m_sm90.kernels)
            names.append(k.name);
        QStringList expected{QLatin1String(kGpuGatherKernelName)};
        for (ScalarType t : allScalarTypes())
            if (!gpuCompareKernelName(t).isEmpty())
                expected.append(gpuCompareKernelName(t));
        names.sort();
        expected.sort();
        QCOMPARE(names, expected);
    }

    void recordsPerBlockAreTheReportedCount() {
        // The kernels keep KP_RECORDS mismatches per block; fewer would lose reported ones.
        const QString define = QStringLiteral("KP_RECORDS=%1").arg(kMaxReportedMismatches);
        QVERIFY2(std::any_of(m_sm90.flags.cbegin(), m_sm90.flags.cend(),
                             [&](const QString& f) { return f.endsWith(define); }),
                 qPrintable(m_sm90.flags.join(' ')));
    }

    void noFusedMultiplyAdd() {
        // atol + rtol * |expected| must round twice, as on the host (Verify.cpp), or
        // borderline elements are judged differently.
        QVERIFY(!m_sm90.ptx.isEmpty());
        QVERIFY2(!m_sm90.ptx.contains(QLatin1String("fma.rn.f64")), "fused multiply-add in PTX");
        QVERIFY(m_sm90.ptx.contains(QLatin1String("mul.rn.f64")));
    }

    void noLocalMemory() {
        // The per-thread tile (KP_ITEMS loads of each buffer) must stay in registers.
        QVERIFY2(!m_sm90.ptx.contains(QLatin1String("__local_depot")),
                 "a kernel uses local memory");
    }

    void otherArchs_data() {
        QTest::addColumn<QString>("arch");
        QTest::newRow("Turing sm_75") << QStringLiteral("sm_75");
        QTest::newRow("Ampere sm_80") << QStringLiteral("sm_80");
        QTest::newRow("Hopper sm_90a") << QStringLiteral("sm_90a");
    }
    void otherArchs() {
        QFETCH(QString, arch);
        const CompileResult r = gpuCompareProgram().compile(arch);
        QVERIFY2(r.ok, qPrintable(r.error + r.log));
        QVERIFY(!r.cubin.isEmpty());
        QVERIFY(r.findKernel(QStringLiteral("kpCompare_float32")));
    }
};

QTEST_GUILESS_MAIN(TestGpuCompareSource)
#include "tst_gpucomparesource.moc"
