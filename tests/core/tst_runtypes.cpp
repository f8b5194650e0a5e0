// RunRequest/RunResult and their parts as JSON: what the runner process sends back and forth.

#include "../support/TestMain.h"
#include "core/run/RunTypes.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

#include <cmath>
#include <limits>

namespace tst_runtypes {

using namespace kernelpad;

} // namespace tst_runtypes
Q_DECLARE_METATYPE(kernelpad::RunStatus)
namespace tst_runtypes {

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

/// Serialises to text and parses again, exactly as the pipe to the runner does.
QJsonObject throughText(const QJsonObject& json) {
    QJsonParseError error;
    const QJsonDocument doc =
        QJsonDocument::fromJson(QJsonDocument(json).toJson(QJsonDocument::Compact), &error);
    if (error.error != QJsonParseError::NoError)
        qWarning("JSON did not parse back: %s", qPrintable(error.errorString()));
    return doc.object();
}

RunResult sampleResult() {
    RunResult r;
    r.status = RunStatus::VerificationFailed;
    r.error = QStringLiteral("buffer 'y': 3 of 1024 elements differ");
    r.compile.ok = true;
    r.compile.arch = QStringLiteral("sm_90");
    r.compile.log = QStringLiteral("warning: unused variable");
    r.compile.ptx = QStringLiteral(".version 8.8\n.target sm_90\n");
    r.compile.compileMs = 12.5;
    r.device.ordinal = 0;
    r.device.name = QStringLiteral("NVIDIA H100 80GB HBM3");
    r.device.ccMajor = 9;
    r.device.smCount = 132;
    r.kernelLowered = QStringLiteral("_Z5saxpyfPKfPfi");
    r.launch.grid = {4, 1, 1};
    r.launch.block = {256, 1, 1};
    r.launch.sharedMemBytes = 512;
    r.launch.cluster = {2, 1, 1}; // clusters and cooperative launch travel
    r.launch.cooperative = true;
    r.jit.used = true; // a virtual arch's JIT report travels
    r.jit.target = QStringLiteral("sm_90");
    r.jit.infoLog = QStringLiteral("ptxas info    : Used 16 registers");
    r.jit.jitMs = 97.5;
    r.resources.registers = 16;
    r.resources.staticSharedBytes = 1024;
    r.resources.maxThreadsPerBlock = 1024;
    r.resources.ptxVersion = 90;
    r.resources.occupancyBlocksPerSm = 8;
    r.resources.occupancy = kNan; // e.g. not computable: must survive as NaN
    r.timing = computeStats({0.02, 0.03, 0.025}, 12288, 2048);
    r.timing.relNoise = kNan;

    BufferVerification v;
    v.buffer = QStringLiteral("y");
    v.method = QStringLiteral("expression a*x+y");
    v.passed = false;
    v.checked = 1024;
    v.maxAbsError = 0.5;
    v.maxRelError = kNan;
    v.mismatches = 3;
    v.nanCount = 1;
    v.unwritten = 1;
    v.firstMismatches = {
        Mismatch{3, kNan, 1.0}, Mismatch{7, 2.5, 2.0},
        Mismatch{(qint64(1) << 40) + 1, 0.0, std::numeric_limits<double>::infinity()}};
    BufferVerification ok;
    ok.buffer = QStringLiteral("z");
    ok.method = QStringLiteral("file z.npy");
    ok.passed = true;
    ok.checked = 8;
    r.verification = {v, ok};

    OutputBuffer out;
    out.name = QStringLiteral("y");
    out.type = ValueType::of(ScalarType::Float32);
    out.count = 1024;
    out.data = QByteArray(4096, '\x01');
    r.outputs = {out};
    r.totalMs = 87.25;
    return r;
}

} // namespace

class TestRunTypes : public QObject {
    Q_OBJECT

private slots:
    void statusNames_data();
    void statusNames();
    void unknownStatusName();
    void resultRoundTripWithNan();
    void resultWithoutPtx();
    void emptyErrorIsNull();
    void unknownStatusIsNotOk();
    void verified();
    void resourcesRoundTrip();
    void requestRoundTrip();
    void requestErrors_data();
    void requestErrors();
};

void TestRunTypes::statusNames_data() {
    QTest::addColumn<RunStatus>("status");
    QTest::addColumn<QString>("name");
    QTest::newRow("ok") << RunStatus::Ok << "ok";
    QTest::newRow("compile error") << RunStatus::CompileError << "compile-error";
    QTest::newRow("verification failed") << RunStatus::VerificationFailed << "verification-failed";
    QTest::newRow("cuda error") << RunStatus::CudaError << "cuda-error";
    QTest::newRow("driver unavailable") << RunStatus::DriverUnavailable << "driver-unavailable";
    QTest::newRow("bad input") << RunStatus::BadInput << "bad-input";
    QTest::newRow("cancelled") << RunStatus::Cancelled << "cancelled";
    QTest::newRow("timeout") << RunStatus::Timeout << "timeout";
}

void TestRunTypes::statusNames() {
    QFETCH(RunStatus, status);
    QFETCH(QString, name);
    QCOMPARE(runStatusName(status), name);
    QCOMPARE(runStatusFromName(name), std::optional<RunStatus>(status));
}

void TestRunTypes::unknownStatusName() {
    QVERIFY(!runStatusFromName(QStringLiteral("OK")));
    QVERIFY(!runStatusFromName(QString()));
}

void TestRunTypes::resultRoundTripWithNan() {
    const RunResult r = sampleResult();
    const QJsonObject json = r.toJson();
    for (const char* key : {"status", "error", "compile", "device", "kernelLowered", "launch",
                            "resources", "timing", "verification", "outputs", "totalMs"})
        QVERIFY2(json.contains(QLatin1String(key)), key);
    QCOMPARE(json.value(QLatin1String("status")).toString(), QStringLiteral("verification-failed"));
    // Output contents are not part of the JSON form.
    const QJsonObject out0 = json.value(QLatin1String("outputs")).toArray().at(0).toObject();
    QCOMPARE(out0.keys(), (QStringList{QStringLiteral("count"), QStringLiteral("name"),
                                       QStringLiteral("type")}));
    // NaN became null, which is valid JSON.
    const QJsonObject v0 = json.value(QLatin1String("verification")).toArray().at(0).toObject();
    QVERIFY(v0.value(QLatin1String("maxRelError")).isNull());

    QString error;
    const std::optional<RunResult> back = RunResult::fromJson(throughText(json), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->status, r.status);
    QCOMPARE(back->error, r.error);
    QCOMPARE(back->compile.ok, true);
    QCOMPARE(back->compile.ptx, r.compile.ptx);
    QCOMPARE(back->compile.log, r.compile.log);
    QCOMPARE(back->device.name, r.device.name);
    QCOMPARE(back->device.smCount, 132);
    QCOMPARE(back->kernelLowered, r.kernelLowered);
    QVERIFY(back->launch == r.launch);
    QCOMPARE(back->launch.cluster, (std::array<int, 3>{2, 1, 1}));
    QVERIFY(back->launch.cooperative);
    QVERIFY(back->jit.used);
    QCOMPARE(back->jit.infoLog, r.jit.infoLog);
    QCOMPARE(back->jit.jitMs, 97.5);
    QCOMPARE(back->resources.registers, 16);
    QCOMPARE(back->resources.occupancyBlocksPerSm, 8);
    QVERIFY(std::isnan(back->resources.occupancy));
    QCOMPARE(back->timing.timesMs, r.timing.timesMs);
    QCOMPARE(back->timing.medianMs, 0.025);
    QCOMPARE(back->timing.bytesMoved, qint64(12288));
    QCOMPARE(back->timing.bandwidthGBs, r.timing.bandwidthGBs);
    QVERIFY(std::isnan(back->timing.relNoise));
    QCOMPARE(back->totalMs, 87.25);

    QCOMPARE(back->verification.size(), 2);
    const BufferVerification& v = back->verification[0];
    QCOMPARE(v.buffer, QStringLiteral("y"));
    QCOMPARE(v.method, QStringLiteral("expression a*x+y"));
    QCOMPARE(v.passed, false);
    QCOMPARE(v.checked, qint64(1024));
    QCOMPARE(v.maxAbsError, 0.5);
    QVERIFY(std::isnan(v.maxRelError));
    QCOMPARE(v.mismatches, qint64(3));
    QCOMPARE(v.nanCount, qint64(1));
    QCOMPARE(v.unwritten, qint64(1));
    QCOMPARE(v.firstMismatches.size(), 3);
    QCOMPARE(v.firstMismatches[0].index, qint64(3));
    QVERIFY(std::isnan(v.firstMismatches[0].got));
    QCOMPARE(v.firstMismatches[1].got, 2.5);
    QCOMPARE(v.firstMismatches[2].index, (qint64(1) << 40) + 1);
    QVERIFY(std::isnan(v.firstMismatches[2].expected)); // infinity is not JSON either
    QVERIFY(back->verification[1].passed);
    QVERIFY(back->verification[1].error.isEmpty());

    QCOMPARE(back->outputs.size(), 1);
    QCOMPARE(back->outputs[0].name, QStringLiteral("y"));
    QCOMPARE(back->outputs[0].count, qint64(1024));
    QVERIFY(back->outputs[0].type == ValueType::of(ScalarType::Float32));
    QVERIFY(back->outputs[0].data.isEmpty());
}

void TestRunTypes::resultWithoutPtx() {
    QString error;
    const std::optional<RunResult> back =
        RunResult::fromJson(throughText(sampleResult().toJson(false)), &error);
    QVERIFY2(back, qPrintable(error));
    QVERIFY(back->compile.ptx.isEmpty());
    QCOMPARE(back->compile.log, QStringLiteral("warning: unused variable"));
}

void TestRunTypes::emptyErrorIsNull() {
    RunResult r;
    r.status = RunStatus::Ok;
    const QJsonObject json = r.toJson();
    QVERIFY(json.value(QLatin1String("error")).isNull());
    QString error;
    const std::optional<RunResult> back = RunResult::fromJson(throughText(json), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->status, RunStatus::Ok);
    QVERIFY(back->error.isEmpty());
    QCOMPARE(back->totalMs, 0.0);
}

void TestRunTypes::unknownStatusIsNotOk() {
    QJsonObject json = RunResult().toJson();
    json.insert(QStringLiteral("status"), QStringLiteral("exploded"));
    // Refused with a message naming the field, not read as a success.
    QString error;
    QVERIFY(!RunResult::fromJson(json, &error));
    QVERIFY2(error.startsWith(QLatin1String("status: ")) &&
                 error.contains(QLatin1String("exploded")),
             qPrintable(error));
}

void TestRunTypes::verified() {
    RunResult r;
    QVERIFY(r.verified()); // nothing checked
    BufferVerification pass;
    pass.passed = true;
    r.verification = {pass, pass};
    QVERIFY(r.verified());
    BufferVerification fail;
    r.verification.append(fail);
    QVERIFY(!r.verified());
}

void TestRunTypes::resourcesRoundTrip() {
    KernelResources k;
    k.registers = 40;
    k.staticSharedBytes = 4096;
    k.localBytes = 16;
    k.constBytes = 360;
    k.maxThreadsPerBlock = 768;
    k.ptxVersion = 88;
    k.binaryVersion = 90;
    k.occupancyBlocksPerSm = 2;
    k.occupancy = 0.75;
    QString error;
    const std::optional<KernelResources> back =
        KernelResources::fromJson(throughText(k.toJson()), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->registers, 40);
    QCOMPARE(back->staticSharedBytes, 4096);
    QCOMPARE(back->localBytes, 16);
    QCOMPARE(back->constBytes, 360);
    QCOMPARE(back->maxThreadsPerBlock, 768);
    QCOMPARE(back->ptxVersion, 88);
    QCOMPARE(back->binaryVersion, 90);
    QCOMPARE(back->occupancyBlocksPerSm, 2);
    QCOMPARE(back->occupancy, 0.75);
}

void TestRunTypes::requestRoundTrip() {
    RunRequest request;
    request.project.name = QStringLiteral("p");
    request.project.source = QStringLiteral("__global__ void k(int* y) {}");
    request.project.kernel = QStringLiteral("k");
    ArgumentSpec y;
    y.name = QStringLiteral("y");
    y.kind = ArgumentSpec::Kind::Buffer;
    y.buffer.direction = Direction::Out;
    request.project.arguments = {y};
    GlobalSpec filter; // module globals travel with the project
    filter.name = QStringLiteral("filter");
    filter.value.count = QStringLiteral("9");
    filter.value.init.kind = InitSpec::Kind::Constant;
    filter.value.init.value = 0.5;
    request.project.globals = {filter};
    request.projectDir = QStringLiteral("/tmp/projects");
    request.device = 1;
    request.keepOutputs = false;

    QJsonObject json = request.toJson();
    QVERIFY(!json.contains(QLatin1String("repetitions")));
    QString error;
    std::optional<RunRequest> back = RunRequest::fromJson(throughText(json), &error);
    QVERIFY2(back, qPrintable(error));
    QVERIFY(back->project == request.project);
    QCOMPARE(back->project.globals.size(), 1);
    QCOMPARE(back->project.globals[0].value.init.value, 0.5);
    QCOMPARE(back->projectDir, request.projectDir);
    QCOMPARE(back->device, 1);
    QCOMPARE(back->keepOutputs, false);
    QVERIFY(!back->repetitions);
    QVERIFY(!back->measureCeiling);

    request.repetitions = 7;
    request.measureCeiling = true;
    back = RunRequest::fromJson(throughText(request.toJson()), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->repetitions, std::optional<int>(7));
    QVERIFY(back->measureCeiling);
}

void TestRunTypes::requestErrors_data() {
    QTest::addColumn<QString>("key");
    QTest::addColumn<QJsonValue>("value");
    QTest::addColumn<QString>("message");
    QTest::newRow("project missing") << "project" << QJsonValue() << "project: missing";
    QTest::newRow("project broken")
        << "project" << QJsonValue(QJsonObject{{"format", "x"}}) << "project: format";
    QTest::newRow("device negative") << "device" << QJsonValue(-1) << "device";
    QTest::newRow("repetitions zero") << "repetitions" << QJsonValue(0) << "repetitions";
    QTest::newRow("keepOutputs string") << "keepOutputs" << QJsonValue("yes") << "keepOutputs";
    QTest::newRow("measureCeiling number") << "measureCeiling" << QJsonValue(1) << "measureCeiling";
}

void TestRunTypes::requestErrors() {
    QFETCH(QString, key);
    QFETCH(QJsonValue, value);
    QFETCH(QString, message);
    RunRequest request;
    request.project.source = QStringLiteral("x");
    request.project.kernel = QStringLiteral("k");
    QJsonObject json = request.toJson();
    if (value.isNull())
        json.remove(key);
    else
        json.insert(key, value);
    QString error;
    QVERIFY(!RunRequest::fromJson(json, &error));
    QVERIFY2(error.contains(message), qPrintable(error));
}

KERNELPAD_TEST_GUILESS_MAIN(TestRunTypes)
} // namespace tst_runtypes
#include "tst_runtypes.moc"
