// A run's host and device memory, planned from the project before any buffer is built, and
// the check against injected available amounts (no GPU needed).
#include "../support/TestMain.h"
#include "core/run/RunMemory.h"

#include <QtTest>

namespace tst_runmemory {

using namespace kernelpad;

} // namespace tst_runmemory
Q_DECLARE_METATYPE(QVector<kernelpad::ArgumentSpec>)
namespace tst_runmemory {

namespace {

constexpr qint64 kGiB = qint64(1) << 30;
/// 1.5 GiB of float32: the attacker's buffers.
constexpr qint64 kCountOf1_5GiB = (kGiB + kGiB / 2) / 4;

ArgumentSpec bufferArg(const QString& name, Direction direction, const QString& count,
                       ScalarType type = ScalarType::Float32) {
    ArgumentSpec a;
    a.name = name;
    a.kind = ArgumentSpec::Kind::Buffer;
    a.buffer.elementType = ValueType::of(type);
    a.buffer.count = count;
    a.buffer.direction = direction;
    return a;
}

ArgumentSpec scalarArg(const QString& name, const QString& value) {
    ArgumentSpec a;
    a.name = name;
    a.type = ValueType::of(ScalarType::Int64);
    a.value = value;
    return a;
}

VerifySpec reference(const QString& kernel) {
    VerifySpec v;
    v.kind = VerifySpec::Kind::Reference;
    v.referenceKernel = kernel;
    return v;
}

/// The counts of `args` as literals (what resolveCount gives for them).
QVector<qint64> literalCounts(const QVector<ArgumentSpec>& args) {
    QVector<qint64> counts;
    for (const ArgumentSpec& a : args)
        counts << (a.isBuffer() ? a.buffer.count.toLongLong() : 0);
    return counts;
}

/// saxpy's shape: two inputs and an output of `count` float32 elements.
QVector<ArgumentSpec> saxpy(qint64 count) {
    const QString n = QString::number(count);
    return {scalarArg("a", "2"), bufferArg("x", Direction::In, n), bufferArg("y", Direction::In, n),
            bufferArg("out", Direction::Out, n)};
}

} // namespace

class TestRunMemory : public QObject {
    Q_OBJECT

private slots:
    void plan_data() {
        QTest::addColumn<QVector<ArgumentSpec>>("args");
        QTest::addColumn<QStringList>("shared");
        // Per buffer in argument order: host bytes, device bytes.
        QTest::addColumn<QVector<qint64>>("host");
        QTest::addColumn<QVector<qint64>>("device");
        const qint64 n = 1000;
        QTest::newRow("inputs held once, the output copied back")
            << saxpy(n) << QStringList() << QVector<qint64>{4 * n, 4 * n, 4 * n}
            << QVector<qint64>{4 * n, 4 * n, 4 * n};

        QVector<ArgumentSpec> inout = saxpy(n);
        inout[3].buffer.direction = Direction::InOut;
        QTest::newRow("inout: its contents and its copy back")
            << inout << QStringList() << QVector<qint64>{4 * n, 4 * n, 8 * n}
            << QVector<qint64>{4 * n, 4 * n, 4 * n};

        QVector<ArgumentSpec> checked = saxpy(n);
        checked[3].buffer.verify = reference("saxpy_ref");
        QTest::newRow("reference check: a device copy and the reference's output on the host")
            << checked << QStringList() << QVector<qint64>{4 * n, 4 * n, 8 * n}
            << QVector<qint64>{4 * n, 4 * n, 8 * n};

        QVector<ArgumentSpec> twoKernels = saxpy(n);
        twoKernels << bufferArg("out2", Direction::Out, QString::number(n));
        twoKernels[3].buffer.verify = reference("ref_a");
        twoKernels[4].buffer.verify = reference("ref_b");
        QTest::newRow("two reference kernels copy every output twice")
            << twoKernels << QStringList() << QVector<qint64>{4 * n, 4 * n, 8 * n, 8 * n}
            << QVector<qint64>{4 * n, 4 * n, 12 * n, 12 * n};

        const qint64 big = qint64(2) << 20; // above kGpuVerifyMinElements
        QVector<ArgumentSpec> expression = saxpy(big);
        expression[3].buffer.verify.kind = VerifySpec::Kind::Expression;
        expression[3].buffer.verify.expression = "a*x+y";
        QTest::newRow("expression check on the GPU: doubles, elements, and a device copy")
            << expression << QStringList() << QVector<qint64>{4 * big, 4 * big, 4 * big + 12 * big}
            << QVector<qint64>{4 * big, 4 * big, 8 * big};

        QVector<ArgumentSpec> file = saxpy(n);
        file[3].buffer.verify.kind = VerifySpec::Kind::File;
        file[3].buffer.verify.path = "expected.npy";
        QTest::newRow("file check: the expected values read")
            << file << QStringList() << QVector<qint64>{4 * n, 4 * n, 8 * n}
            << QVector<qint64>{4 * n, 4 * n, 4 * n};

        QTest::newRow("unchanged input shared with the previous run")
            << saxpy(n) << QStringList{"x"} << QVector<qint64>{0, 4 * n, 4 * n}
            << QVector<qint64>{4 * n, 4 * n, 4 * n};

        QVector<ArgumentSpec> structs{bufferArg("pts", Direction::InOut, "10")};
        structs[0].buffer.elementType = ValueType::ofStruct(
            StructType{"pt", {{"x", ScalarType::Float64, 1}, {"id", ScalarType::Int32, 1}}});
        QTest::newRow("struct elements by their padded size")
            << structs << QStringList() << QVector<qint64>{2 * 160} << QVector<qint64>{160};
    }

    void plan() {
        QFETCH(QVector<ArgumentSpec>, args);
        QFETCH(QStringList, shared);
        QFETCH(QVector<qint64>, host);
        QFETCH(QVector<qint64>, device);
        const RunMemoryPlan plan =
            planRunMemory(args, literalCounts(args), QSet<QString>(shared.begin(), shared.end()));
        QCOMPARE(qsizetype(plan.buffers.size()), host.size());
        qint64 hostTotal = 0, deviceTotal = 0;
        for (qsizetype i = 0; i < host.size(); ++i) {
            QCOMPARE(plan.buffers[size_t(i)].hostBytes, host[i]);
            // Every buffer also holds its guard bytes on the device, on each side.
            QCOMPARE(plan.buffers[size_t(i)].deviceBytes, device[i] + 2 * kGuardBytes);
            hostTotal += host[i];
            deviceTotal += device[i] + 2 * kGuardBytes;
        }
        QCOMPARE(plan.hostBytes, hostTotal);
        QCOMPARE(plan.deviceBytes, deviceTotal);
    }

    void check_data() {
        QTest::addColumn<qint64>("count");
        QTest::addColumn<qint64>("hostAvailable"); // -1: unknown
        QTest::addColumn<qint64>("deviceAvailable");
        QTest::addColumn<QString>("message"); // empty: it fits
        const qint64 available2_1 = qint64(2.1 * double(kGiB));
        QTest::newRow("three 1.5 GiB buffers, 2.1 GiB on the host")
            << kCountOf1_5GiB << available2_1 << 80 * kGiB
            << "the run needs 4.50 GiB on the host: x 1.50 GiB, y 1.50 GiB, out 1.50 GiB; "
               "2.10 GiB is available";
        QTest::newRow("three 1.5 GiB buffers, 4 GiB free on the GPU")
            << kCountOf1_5GiB << 64 * kGiB << 4 * kGiB
            << "the run needs 4.50 GiB on the GPU: x 1.50 GiB, y 1.50 GiB, out 1.50 GiB; "
               "4.00 GiB is free";
        QTest::newRow("neither fits: both named")
            << kCountOf1_5GiB << kGiB << kGiB << "on the host: x 1.50 GiB";
        QTest::newRow("fits") << kCountOf1_5GiB << 5 * kGiB << 5 * kGiB << QString();
        QTest::newRow("unknown amounts are not checked")
            << kCountOf1_5GiB << qint64(-1) << qint64(-1) << QString();
        QTest::newRow("counts of 2^53 - 1 saturate rather than overflow")
            << (kExactDoubleIntegerLimit - 1) << 64 * kGiB << 80 * kGiB << "on the host";
    }

    void check() {
        QFETCH(qint64, count);
        QFETCH(qint64, hostAvailable);
        QFETCH(qint64, deviceAvailable);
        QFETCH(QString, message);
        const QVector<ArgumentSpec> args = saxpy(count);
        AvailableMemory available;
        if (hostAvailable >= 0)
            available.hostBytes = hostAvailable;
        if (deviceAvailable >= 0)
            available.deviceBytes = deviceAvailable;
        const QString problem = checkRunMemory(planRunMemory(args, literalCounts(args)), available);
        if (message.isEmpty())
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        else
            QVERIFY2(problem.contains(message), qPrintable(problem));
        if (QTest::currentDataTag() == QByteArray("neither fits: both named"))
            QVERIFY2(problem.contains("on the GPU: x 1.50 GiB"), qPrintable(problem));
    }

    void checkBeforeAnyBufferIsBuilt() {
        // From the project as the executor has it: counts are expressions, resolved here; a
        // count that does not resolve is reported with its buffer's name.
        QVector<ArgumentSpec> args{
            scalarArg("n", QString::number(kCountOf1_5GiB)), bufferArg("x", Direction::In, "n"),
            bufferArg("y", Direction::In, "n"), bufferArg("out", Direction::Out, "n")};
        AvailableMemory available{qint64(2.1 * double(kGiB)), std::nullopt};
        const QString problem = checkRunMemory(args, QString(), {}, available);
        QVERIFY2(problem.contains("the run needs 4.50 GiB on the host: x 1.50 GiB, y 1.50 GiB, "
                                  "out 1.50 GiB; 2.10 GiB is available"),
                 qPrintable(problem));
        args[2].buffer.count = "m*2";
        QVERIFY2(checkRunMemory(args, QString(), {}, available)
                     .contains("buffer 'y': count 'm*2': unknown variable 'm'"),
                 qPrintable(checkRunMemory(args, QString(), {}, available)));
    }

    void unchangedInputsOfThePreviousRunAreNotCountedTwice() {
        const QVector<ArgumentSpec> args = saxpy(1000);
        QString error;
        const std::optional<std::vector<RunBuffer>> previous =
            prepareBuffers(args, QString(), &error);
        QVERIFY2(previous, qPrintable(error));
        // x and y (4000 bytes each) are shared; only out's copy (4000 bytes) is new.
        AvailableMemory available{qint64(4000), std::nullopt};
        QVERIFY(!checkRunMemory(args, QString(), {}, available).isEmpty());
        const QString problem = checkRunMemory(args, QString(), *previous, available);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    void memAvailable_data() {
        QTest::addColumn<QByteArray>("meminfo");
        QTest::addColumn<qint64>("bytes"); // -1: nothing
        QTest::newRow("Linux 6") << QByteArray(
                                        "MemTotal:       16318276 kB\nMemFree:         1023456 kB\n"
                                        "MemAvailable:    2202880 kB\nBuffers:          123 kB\n")
                                 << qint64(2202880) * 1024;
        QTest::newRow("before Linux 3.14: no MemAvailable")
            << QByteArray("MemTotal:       16318276 kB\nMemFree:  1 kB\n") << qint64(-1);
        QTest::newRow("garbage value") << QByteArray("MemAvailable: lots kB\n") << qint64(-1);
        QTest::newRow("empty") << QByteArray() << qint64(-1);
    }

    void memAvailable() {
        QFETCH(QByteArray, meminfo);
        QFETCH(qint64, bytes);
        const std::optional<qint64> parsed = parseMemAvailable(meminfo);
        QCOMPARE(parsed.value_or(-1), bytes);
    }

    void thisHostReportsMemAvailable() {
        const std::optional<qint64> bytes = availableHostBytes();
        QVERIFY(bytes);
        QVERIFY(*bytes > 0);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestRunMemory)
} // namespace tst_runmemory
#include "tst_runmemory.moc"
